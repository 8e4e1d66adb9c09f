#pragma once
// A profile request on the device (issue 14): one CUPTI collection (kernel metrics, instruction
// counts or stall samples, profile_procedure.h) per variant. Not a Procedure of procedure.h:
// PC sampling learns a module's functions while it loads, so the module is loaded *inside* the
// collection (collectProfile's load hook), after sampling is enabled, not before the procedure as
// runRequest() does for timing. Kernel faults end the request as anywhere else; CUPTI failures end
// it with their RunErrorKind (no_cupti, profiling_not_permitted, ...) and the runner goes on.

#include "app/runner/device_context.h"
#include "app/runner/request_progress.h"
#include "core/run/protocol.h"

namespace lowerscope::runner {

// Collects request.profile for every variant. Instruction counts and stall samples take one
// variant per request and end the runner after the answer (RunResult::runnerExits): on an H200
// (CUDA 13.0) a second cuptiSassMetricsSetConfig in one process failed with
// CUPTI_ERROR_OUT_OF_MEMORY, and a fresh process per collection is the reliable reset.
// Throws RequestFailure.
RunResult runProfileRequest(DeviceContext& ctx, const RunRequest& request, RequestProgress& progress);

} // namespace lowerscope::runner
