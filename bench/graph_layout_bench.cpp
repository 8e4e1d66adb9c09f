// CFG layout with Graphviz dot on synthetic CFGs shaped like compiled code: a chain of blocks
// with fall-through edges, forward conditional branches (if/else), loops (back edges) and exits.
// Target (issue 6): a 2,000-block CFG in ≤ 2 s, run off the UI thread.
//   build-*/bench/graph_layout_bench [--benchmark_filter=...]
#include "core/analysis/graph_layout.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace lowerscope;

namespace {

void syntheticCfg(int blocks, std::vector<LayoutBlock>& outBlocks, std::vector<LayoutEdge>& outEdges) {
    std::mt19937 rng(2024);
    outBlocks.clear();
    outEdges.clear();
    for (int i = 0; i < blocks; ++i) {
        LayoutBlock b;
        b.id = i;
        const int lines = 2 + int(rng() % 11);
        for (int l = 0; l < lines; ++l) b.lines.push_back(std::string(24 + rng() % 24, 'x'));
        outBlocks.push_back(std::move(b));
        const bool last = i + 1 == blocks;
        const unsigned r = rng() % 100;
        if (last || r < 2) {
            outEdges.push_back({i, -1, CfgEdgeKind::Exit});
            if (!last && r == 0) outEdges.push_back({i, i + 1, CfgEdgeKind::FallThrough}); // predicated EXIT
            continue;
        }
        outEdges.push_back({i, i + 1, CfgEdgeKind::FallThrough});
        if (r < 32) {
            const int t = std::min(blocks - 1, i + 2 + int(rng() % 8));
            outEdges.push_back({i, t, CfgEdgeKind::Taken});
        } else if (r < 38 && i > 0) {
            const int t = std::max(0, i - 1 - int(rng() % 20));
            outEdges.push_back({i, t, CfgEdgeKind::Back});
        }
    }
}

void BM_CfgLayout(benchmark::State& state) {
    std::vector<LayoutBlock> blocks;
    std::vector<LayoutEdge> edges;
    syntheticCfg(int(state.range(0)), blocks, edges);
    double dotMs = 0;
    for (auto _ : state) {
        GraphLayout g = layoutGraph(blocks, edges);
        if (!g.ok) state.SkipWithError(g.error.c_str());
        dotMs = g.layoutMs;
        benchmark::DoNotOptimize(g);
    }
    state.counters["blocks"] = double(blocks.size());
    state.counters["edges"] = double(edges.size());
    state.counters["gvLayout_ms"] = dotMs;
}
BENCHMARK(BM_CfgLayout)->Arg(200)->Arg(500)->Arg(1000)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

} // namespace

BENCHMARK_MAIN();
