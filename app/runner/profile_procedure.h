#pragma once
// The profiling procedure: one CUPTI collection (kernel metrics, instruction counts or stall
// samples) of one loaded kernel, driven through hooks so that it does not depend on how the
// caller holds its module, buffers and stream. Kernel faults are the caller's (the `launch` hook
// throws them); CUPTI failures throw ProfileFailure, which ends the request but not the runner.

#include "app/runner/cupti_api.h"
#include "core/run/profile_data.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope::runner {

struct ProfileFailure : std::runtime_error {
    CuptiFailure failure;
    RunErrorKind kind; // protocol error kind (cuptiFailureKind)
    ProfileFailure(CuptiFailure f, const std::string& message)
        : std::runtime_error(message), failure(f), kind(cuptiFailureKind(f)) {}
};

struct ProfileHooks {
    // Loads the module and prepares the launch. Called once, after sampling is enabled (PC
    // sampling learns a module's functions as it loads) and before counters are configured.
    std::function<void()> load;
    // Before each profiled launch, outside what is measured: restore the inputs, flush L2, wait.
    std::function<void()> prepare;
    // One launch of the kernel, waited for.
    std::function<void()> launch;
    // After load(): the function's name as the driver reports it, and the module image.
    std::function<std::string()> functionName;
    std::function<const std::vector<uint8_t>&()> image;
    // Progress (stage name, launches so far); may be empty.
    std::function<void(const std::string&, int)> progress;
};

struct ProfileOptions {
    ProfileCollection collection = ProfileCollection::None;
    std::vector<std::string> metrics; // kernel: empty = defaultKernelMetrics()
    uint64_t targetSamples = 20000;   // samples: stop once this many samples of the kernel are in
    int maxLaunches = 64;             // samples: ... or after this many launches
    double maxSeconds = 3.0;          // samples: ... or after this long
    int samplePeriodLog2 = 0;         // samples: 2^n SM cycles between samples; 0: the environment's
                                      // ($LOWERSCOPE_PCSAMPLING) or CUPTI's default
};

// Collects `options.collection` for the kernel behind `hooks` on context `ctx` of device `device`.
ProfileData collectProfile(const Cupti& cupti, CUcontext ctx, int device, const ProfileOptions& options,
                           const ProfileHooks& hooks);

} // namespace lowerscope::runner
