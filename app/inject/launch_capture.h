#pragma once
// Saving selected launches for replay inside the captured program (core/capture/launch_snapshot.h):
// the driver-API callbacks of the kernel launch calls, the launch filter applied in launch order,
// the parameter bytes and the device memory they reach copied before and after the launch. Only
// set up when $LOWERSCOPE_CAPTURE_SNAPSHOTS names a folder; otherwise no callback is enabled.
// Never makes the program fail: what cannot be saved is the snapshot's `error` or `omitted`.

#include "app/inject/inject_cupti.h"

#include <cstdint>
#include <string>

namespace lowerscope::inject {

using EmitFn = void (*)(const std::string& line);

// Reads $LOWERSCOPE_CAPTURE_SNAPSHOTS, _KERNEL, _SKIP, _COUNT and _MEMORY_LIMIT and resolves the
// driver functions it calls (libcuda.so.1, else the program's own symbols). False when snapshots
// are not asked for (or the filter cannot be built: `error` says why).
bool launchCaptureInit(uint32_t pid, EmitFn emit, std::string& error);

// The CUPTI callback ids to enable in the driver-API domain when launchCaptureInit said yes.
const uint32_t* launchCaptureCallbackIds(size_t& count);

// A driver-API callback (domain CUPTI_CB_DOMAIN_DRIVER_API) for one of those ids.
void launchCaptureCallback(uint32_t cbid, const CUpti_CallbackData* data);

} // namespace lowerscope::inject
