#include "core/lowering.h"

#include "core/aggregate.h"
#include "core/cfg.h"
#include "core/defuse.h"
#include "core/deps.h"
#include "core/ptx_parser.h"
#include "core/sass_parser.h"

namespace lowerscope {

const KernelModel* LoweringModel::kernel(const std::string& nameOrMangled) const {
    for (const auto& k : kernels)
        if (k.mangled == nameOrMangled || k.name == nameOrMangled) return &k;
    // A bare function name ("saxpy") matches the demangled "saxpy(int, float, ...)".
    for (const auto& k : kernels) {
        const auto paren = k.name.find('(');
        if (paren != std::string::npos && k.name.compare(0, paren, nameOrMangled) == 0 && paren == nameOrMangled.size())
            return &k;
    }
    return nullptr;
}

LoweringModel buildLoweringModel(const BuildResult& build) {
    LoweringModel model;
    model.ptx = parsePtx(build.ptx);
    for (const auto& art : build.kernels) {
        KernelModel k;
        k.name = art.name;
        k.mangled = art.mangled;
        k.resources = art.resources;
        for (size_t f = 0; f < model.ptx.functions.size(); ++f)
            if (model.ptx.functions[f].name == art.mangled) k.ptxFunction = static_cast<int>(f);

        SassListing listing = parseSassTexts(art.sass, art.sassPtxLines, art.sassLive);
        if (model.arch.empty()) model.arch = listing.arch;
        SassFunction* fn = nullptr;
        for (auto& f : listing.functions)
            if (f.name == art.mangled) fn = &f;
        if (!fn && listing.functions.size() == 1) fn = &listing.functions.front();
        if (fn) k.sass = std::move(*fn);
        if (k.sass.name.empty()) k.sass.name = art.mangled;

        analyseDefUse(k.sass);
        k.cfg = buildCfg(k.sass);
        k.deps = computeDependencies(k.sass, k.cfg);
        k.correlation = Correlation::build(model.ptx, k.ptxFunction, k.sass);
        k.lines = aggregateByLine(k.sass, InlineAttribution::CallSite);
        k.total = aggregateFunction(k.sass);
        model.kernels.push_back(std::move(k));
    }
    if (model.arch.empty() && !model.ptx.target.empty()) model.arch = model.ptx.target;
    return model;
}

} // namespace lowerscope
