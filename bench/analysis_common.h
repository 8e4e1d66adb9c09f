#pragma once

// What the analysis benchmarks time on a parsed listing: def/use, CFG, dependencies, liveness and
// the per-line and per-function aggregates of every function, as buildLoweringModel does (shared
// by analysis_bench and analysis_peak so both measure the same work).

#include "core/analysis/aggregate.h"
#include "core/analysis/cfg.h"
#include "core/analysis/defuse.h"
#include "core/analysis/deps.h"
#include "core/analysis/liveness.h"
#include "core/model.h"

#include <cstddef>

namespace lowerscope::benchdata {

struct Counts {
    size_t instructions = 0, edges = 0, blocks = 0, lines = 0, aggregated = 0;
};

// Analyses every function of `l`; the results are counted and dropped per function, as a caller
// that streams them to JSON or a view would.
inline Counts analyse(SassListing& l) {
    Counts c;
    RegisterLimits module;
    for (auto& f : l.functions) {
        analyseDefUse(f);
        module = mergeLimits(module, registerLimits(f));
    }
    for (auto& f : l.functions) {
        const Cfg cfg = buildCfg(f);
        const auto deps = computeDependencies(f, cfg);
        computeLiveness(f, cfg, module);
        const auto lines = aggregateByLine(f);
        const auto total = aggregateFunction(f);
        c.instructions += f.instructions.size();
        c.edges += deps.size();
        c.blocks += cfg.blocks.size();
        c.lines += lines.size();
        c.aggregated += static_cast<size_t>(total.instructions);
    }
    return c;
}

} // namespace lowerscope::benchdata
