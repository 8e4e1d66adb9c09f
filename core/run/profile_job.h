#pragma once
// The GUI's profile job (issue 14, item 3): the launch as the user typed it applied to the current
// build, then collectProfile() (core/run/profile_collect.h) through a fresh runner process that is
// stopped afterwards. Runs on a worker thread; no Qt. The SASS it joins onto is shared with the
// snapshot it came from (an aliasing shared_ptr), so a rebuild meanwhile cannot pull it away.

#include "core/run/measure_job.h"
#include "core/run/profile_collect.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lowerscope {

struct ProfileJobRequest {
    uint64_t jobId = 0;
    MeasureSide side;                         // the build (cubin, kernel, params, recorded names)
    std::shared_ptr<const SassFunction> sass; // the kernel's SASS in that build (required)
    std::string arch;                         // "sm_90"
    LaunchText launch;
    ProfileCollectOptions options;
    double deadlineS = 60;                    // per collection; a kernel metric pass replays the launch
    std::vector<std::string> runnerCommand;   // empty = defaultRunnerCommand()
};

struct ProfileJobOutcome {
    uint64_t jobId = 0;
    bool cancelled = false;
    std::string launchError;     // the launch did not fit the kernel: nothing was asked of the runner
    ProfileCollectResult result; // the document and the join (see its exitCode and errors)
};

using ProfileStageFn = std::function<void(const std::string& collection)>;
using ProfileBackend =
    std::function<ProfileJobOutcome(const ProfileJobRequest&, std::atomic<bool>* cancel, const ProfileStageFn&)>;

// The real backend. Never throws.
ProfileJobOutcome runProfileJob(const ProfileJobRequest& request, std::atomic<bool>* cancel, const ProfileStageFn& stage);

} // namespace lowerscope
