// The GUI's profile job (profile_job.h).
#include "core/run/profile_job.h"

namespace lowerscope {

ProfileJobOutcome runProfileJob(const ProfileJobRequest& request, std::atomic<bool>* cancel, const ProfileStageFn& stage) {
    ProfileJobOutcome out;
    out.jobId = request.jobId;
    if (!request.sass || request.side.cubin.empty()) {
        out.launchError = "nothing to profile: build the kernel first";
        return out;
    }
    MeasureSide side = request.side;
    side.spec.kernel = side.mangled;
    applyLaunchText(request.launch, side.spec);
    side.label.clear();
    PreparedSide prepared;
    try {
        prepared = prepareSide(side);
    } catch (const std::exception& e) {
        out.launchError = e.what();
        return out;
    }
    ProfileTarget target;
    target.variant = prepared.variant;
    target.sass = request.sass.get();
    target.mangled = side.mangled;
    target.signature = side.signature;
    target.file = side.file;
    target.arch = request.arch;
    target.buildOptions = side.buildOptions;
    target.args = side.spec.args;
    RunnerConfig config;
    config.command = request.runnerCommand;
    config.deadline = std::chrono::milliseconds(int64_t(std::max(1.0, request.deadlineS) * 1000));
    ProcessRunner runner(config);
    out.result = collectProfile(runner, target, request.options, stage, cancel);
    runner.stop();
    out.cancelled = cancel && cancel->load();
    return out;
}

} // namespace lowerscope
