// Parser benchmark over the ~100,000-instruction listing of bench/unrolled.cu (sm_90), generated
// by scripts/gen-bench-listing into <build>/bench/data (or $LOWERSCOPE_BENCH_DATA).
//   parse_bench [--benchmark_filter=...]
// Reported: wall time per parse of the -hex -gi listing, of all three nvdisasm variants merged
// (parseSassTexts), and of the PTX.

#include "core/parse/ptx_parser.h"
#include "core/parse/sass_parser.h"

#include "bench_data.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using lowerscope::benchdata::haveData;
using lowerscope::benchdata::text;

size_t countInstructions(const lowerscope::SassListing& l) {
    size_t n = 0;
    for (const auto& f : l.functions) n += f.instructions.size();
    return n;
}

void BM_ParseSassHexGi(benchmark::State& state) {
    if (!haveData(state)) return;
    const std::string& t = text("sass");
    size_t n = 0;
    for (auto _ : state) {
        auto l = lowerscope::parseSass(t);
        n = countInstructions(l);
        benchmark::DoNotOptimize(l);
    }
    state.counters["instructions"] = static_cast<double>(n);
    state.counters["MB"] = static_cast<double>(t.size()) / 1e6;
}

void BM_ParseSassAllThreeMerged(benchmark::State& state) {
    if (!haveData(state)) return;
    const std::string& a = text("sass");
    const std::string& b = text("gp.sass");
    const std::string& c = text("lrm.sass");
    size_t n = 0;
    for (auto _ : state) {
        auto l = lowerscope::parseSassTexts(a, b, c);
        n = countInstructions(l);
        benchmark::DoNotOptimize(l);
    }
    state.counters["instructions"] = static_cast<double>(n);
    state.counters["MB"] = static_cast<double>(a.size() + b.size() + c.size()) / 1e6;
}

void BM_ParsePtx(benchmark::State& state) {
    if (!haveData(state)) return;
    const std::string& t = text("ptx");
    size_t n = 0;
    for (auto _ : state) {
        auto l = lowerscope::parsePtx(t);
        n = l.lines.size();
        benchmark::DoNotOptimize(l);
    }
    state.counters["lines"] = static_cast<double>(n);
    state.counters["MB"] = static_cast<double>(t.size()) / 1e6;
}

} // namespace

BENCHMARK(BM_ParseSassHexGi)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseSassAllThreeMerged)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParsePtx)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
