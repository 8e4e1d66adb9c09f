// One request on the device (request.h).
#include "app/runner/request.h"

#include "app/runner/loaded_variant.h"
#include "app/runner/procedure.h"
#include "app/runner/profile_request.h"
#include "app/runner/restored_memory.h"
#include "core/run/output_agreement.h"

#include <memory>
#include <vector>

namespace lowerscope::runner {

RunResult runRequest(DeviceContext& ctx, const RunRequest& req, const RequestProgress::Fn& progressFn) {
    RequestProgress progress(req.id, progressFn);
    ctx.setKernelTimeout(req.kernelTimeoutS);
    if (req.profile != ProfileCollection::None) {
        return runProfileRequest(ctx, req, progress); // loads its module inside the collection
    }
    // A replay's memory first: its addresses must be free (the helpers come after it).
    RestoredMemory memory(ctx);
    memory.map(req.regions);
    ctx.ensureHelpers();
    RequestContext rc{ctx, req, progress};
    const std::unique_ptr<Procedure> procedure = procedureFor(req);
    procedure->prepare(rc);

    RunResult result;
    result.id = req.id;
    result.device = ctx.device();
    std::vector<std::unique_ptr<LoadedVariant>> owned;
    std::vector<LoadedVariant*> vars;
    for (const LaunchVariant& spec : req.variants) {
        owned.push_back(std::make_unique<LoadedVariant>(ctx, spec, memory.empty() ? nullptr : &memory));
        vars.push_back(owned.back().get());
        owned.back()->load(progress);
    }
    if (procedure->checksOutputs()) {
        for (LoadedVariant* v : vars) {
            v->firstLaunchAndOutputs(req.returnOutputs, progress);
        }
        result.buffersShared = req.shareBuffers && shareBuffers(vars);
    }
    procedure->run(rc, vars, result);
    if (procedure->checksOutputs()) {
        // Output agreement of every variant with the first one, output by output in order.
        for (size_t k = 1; k < vars.size(); ++k) {
            for (OutputAgreement& g : agreeOutputs(vars[0]->label(), vars[0]->outputs(), vars[k]->label(),
                                                   vars[k]->outputs(), req.atol, req.rtol)) {
                result.agreement.push_back(std::move(g));
            }
        }
    }
    for (LoadedVariant* v : vars) {
        result.variants.push_back(std::move(v->result));
    }
    result.regionsRelocated = memory.relocated();
    result.wallS = progress.elapsedS();
    return result;
}

} // namespace lowerscope::runner
