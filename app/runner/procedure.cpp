// Procedure choice and the plain-launch procedure (procedure.h).
#include "app/runner/procedure.h"

#include "app/runner/loaded_variant.h"
#include "app/runner/timing_procedure.h"

namespace lowerscope::runner {

std::unique_ptr<Procedure> procedureFor(const RunRequest& request) {
    if (request.profileLaunches > 0) {
        return std::make_unique<PlainLaunchProcedure>();
    }
    return std::make_unique<TimingProcedure>();
}

void PlainLaunchProcedure::run(RequestContext& rc, const std::vector<LoadedVariant*>& variants,
                               RunResult& result) {
    (void)result;
    DeviceContext& ctx = rc.device;
    Driver& d = ctx.driver();
    const RunRequest& req = rc.request;
    // Flush (not in hot mode), launch, wait: no spin gate, which would stall behind a profiler that
    // serialises launches.
    for (LoadedVariant* v : variants) {
        const std::string& label = v->label();
        v->result.mode = "profile";
        for (int i = 0; i < req.profileLaunches; ++i) {
            if (req.mode != MeasureMode::Hot) {
                ctx.flushL2("profile", label);
            }
            ctx.check(d.cuEventRecord(ctx.event(0), ctx.stream()), "cuEventRecord", "profile", label);
            v->launch(ctx.stream());
            ctx.check(d.cuEventRecord(ctx.event(1), ctx.stream()), "cuEventRecord", "profile", label);
            ctx.waitEvent(ctx.event(1), "profile", label);
            v->result.samplesMs.push_back(ctx.elapsedMs(ctx.event(0), ctx.event(1), "profile", label));
            rc.progress.report("profile", label, v->result.samplesMs.size(), 0, false);
        }
        v->result.stopReason = "profile";
    }
}

} // namespace lowerscope::runner
