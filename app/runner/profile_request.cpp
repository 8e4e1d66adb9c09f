// A profile request on the device (profile_request.h).
#include "app/runner/profile_request.h"

#include "app/runner/loaded_variant.h"
#include "app/runner/profile_procedure.h"
#include "app/runner/restored_memory.h"
#include "app/runner/runner_error.h"

namespace lowerscope::runner {

RunResult runProfileRequest(DeviceContext& ctx, const RunRequest& req, RequestProgress& progress) {
    RunResult result;
    result.id = req.id;
    result.device = ctx.device();
    const bool oneShot = profileEndsRunner(req.profile);
    if (oneShot && req.variants.size() != 1) {
        throw RequestFailure(RunError{RunErrorKind::BadRequest,
                                      profileCollectionName(req.profile) +
                                          " profiles take one variant per request (send one request per variant)",
                                      "", 0, "profile", "", false},
                             0);
    }
    const Cupti* cupti = ctx.cupti();
    if (!cupti) {
        throw RequestFailure(RunError{RunErrorKind::NoCupti,
                                      cuptiFailureMessage(CuptiFailure::Missing, "Profiling", ctx.cuptiError()), "", 0,
                                      "profile", "", false},
                             0);
    }
    Driver& d = ctx.driver();
    // A replay's memory first: its addresses must be free (the helpers come after it).
    RestoredMemory memory(ctx);
    memory.map(req.regions);
    ctx.ensureHelpers();
    result.regionsRelocated = memory.relocated();
    for (const LaunchVariant& spec : req.variants) {
        LoadedVariant v(ctx, spec, memory.empty() ? nullptr : &memory);
        const std::string& label = spec.label;
        ProfileHooks hooks;
        hooks.load = [&] { v.load(progress); };
        hooks.prepare = [&] {
            // Every profiled launch sees the declared inputs and an L2 without the kernel's data,
            // as a cold timing sample does.
            v.restoreInputs();
            ctx.flushL2("profile", label);
            ctx.check(d.cuStreamSynchronize(ctx.stream()), "cuStreamSynchronize", "profile", label);
        };
        hooks.launch = [&] {
            v.launch(ctx.stream());
            ctx.check(d.cuEventRecord(ctx.event(1), ctx.stream()), "cuEventRecord", "profile", label);
            ctx.waitEvent(ctx.event(1), "profile", label);
        };
        hooks.functionName = [&] { return v.result.kernel; };
        hooks.image = [&]() -> const std::vector<uint8_t>& { return spec.cubin; };
        hooks.progress = [&](const std::string& stage, int launches) {
            progress.report(stage, label, static_cast<size_t>(launches), 0, false);
        };
        ProfileOptions options;
        options.collection = req.profile;
        options.metrics = req.profileMetrics;
        options.samplePeriodLog2 = req.profileSamplePeriodLog2;
        progress.report("profile_" + profileCollectionName(req.profile), label, 0, 0, true);
        try {
            v.result.profile = collectProfile(*cupti, ctx.context(), ctx.deviceIndex(), options, hooks);
        } catch (const ProfileFailure& f) {
            throw RequestFailure(RunError{f.kind, f.what(), "", 0, "profile", label, false}, 0);
        }
        v.result.mode = "profile";
        v.result.stopReason = "profile";
        result.variants.push_back(std::move(v.result));
    }
    result.wallS = progress.elapsedS();
    result.runnerExits = oneShot;
    return result;
}

} // namespace lowerscope::runner
