// Dependency-arrow lanes for a 100,000-instruction listing with all edges (issue 6: painting a
// screenful of arrows in all-edges mode ≤ 16 ms per frame). Measures the one-off lane layout and
// the per-frame query "edges intersecting the visible rows".
//   build-*/bench/lanes_bench
#include "core/analysis/lanes.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace lowerscope;

namespace {

// ~3 dependencies per instruction, mostly short (distance 1–30) with a tail of long ones (loop
// carried values, addresses kept live across a kernel), like the parser benchmark's listing.
std::vector<LaneEdge> edgesFor(int rows) {
    std::mt19937 rng(5);
    std::vector<LaneEdge> edges;
    edges.reserve(size_t(rows) * 3);
    for (int i = 0; i < rows * 3; ++i) {
        const int from = int(rng() % unsigned(rows));
        const int len = (i % 200 == 0) ? int(rng() % 5000) : 1 + int(rng() % 30);
        edges.push_back({from, std::min(rows - 1, from + len), DepKind(rng() % 4)});
    }
    return edges;
}

void BM_LaneLayout(benchmark::State& state) {
    const auto edges = edgesFor(int(state.range(0)));
    int lanes = 0;
    for (auto _ : state) {
        LaneLayout l = layoutLanes(edges);
        lanes = l.laneCount();
        benchmark::DoNotOptimize(l);
    }
    state.counters["edges"] = double(edges.size());
    state.counters["lanes"] = lanes;
}
BENCHMARK(BM_LaneLayout)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_LaneQueryScreenful(benchmark::State& state) {
    const int rows = int(state.range(0));
    const LaneLayout layout = layoutLanes(edgesFor(rows));
    std::vector<int> out;
    out.reserve(4096);
    std::mt19937 rng(9);
    size_t found = 0, queries = 0;
    for (auto _ : state) {
        const int first = int(rng() % unsigned(rows - 60));
        out.clear();
        layout.edgesInRows(first, first + 59, out); // ~60 rows visible
        found += out.size();
        ++queries;
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["edges_per_screen"] = double(found) / double(std::max<size_t>(queries, 1));
}
BENCHMARK(BM_LaneQueryScreenful)->Arg(100000)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
