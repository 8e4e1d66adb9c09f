#pragma once
// One request of the protocol on the device: load its variants (LoadedVariant), let the
// procedure for it (procedure.h) run them, and put the result together — the device, every
// variant's result, whether the buffers were shared, the output agreement of each variant with the
// first one (core/run/output_agreement.h), and the request's wall time.

#include "app/runner/device_context.h"
#include "app/runner/request_progress.h"
#include "core/run/protocol.h"

namespace lowerscope::runner {

// Runs `request` on the opened context. Progress lines go to `progress`. Throws RequestFailure.
RunResult runRequest(DeviceContext& ctx, const RunRequest& request, const RequestProgress::Fn& progress);

} // namespace lowerscope::runner
