// Analysis benchmark over the ~100,000-instruction listing of bench/unrolled.cu (sm_90), generated
// by scripts/gen-bench-listing into <build>/bench/data (or $LOWERSCOPE_BENCH_DATA).
//   analysis_bench [--benchmark_filter=...]
// Reported: def/use + CFG + dependencies + aggregates on an already parsed listing; parse (three
// nvdisasm variants, merged) + analysis; and buildLoweringModel (PTX parse, SASS parse, analysis,
// correlation) — the whole path behind `inspect` and the GUI panes, minus the compiler.

#include "core/analysis/lowering.h"
#include "core/parse/ptx_parser.h"
#include "core/parse/sass_parser.h"

#include "analysis_common.h"
#include "bench_data.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace lowerscope;

using lowerscope::benchdata::haveData;
using lowerscope::benchdata::text;

// The part of an nvdisasm listing for one function: from its `//---- .text.NAME` header to the
// next header, as the build pipeline stores per kernel.
std::string functionText(const std::string& listing, const std::string& name) {
    const std::string head = "//--------------------- .text." + name + " ";
    const size_t b = listing.find(head);
    if (b == std::string::npos) return {};
    const size_t e = listing.find("\n//---------------------", b + head.size());
    return listing.substr(b, e == std::string::npos ? std::string::npos : e + 1 - b);
}

using lowerscope::benchdata::analyse;
using lowerscope::benchdata::Counts;

void report(benchmark::State& state, const Counts& c) {
    state.counters["instructions"] = static_cast<double>(c.instructions);
    state.counters["dep_edges"] = static_cast<double>(c.edges);
    state.counters["blocks"] = static_cast<double>(c.blocks);
}

// Analysis alone (the listing is parsed once, outside the timed loop).
void BM_AnalyseParsed(benchmark::State& state) {
    if (!haveData(state)) return;
    SassListing parsed = parseSassTexts({}, text("gp.sass"), {});
    Counts c;
    for (auto _ : state) c = analyse(parsed);
    report(state, c);
}
BENCHMARK(BM_AnalyseParsed)->Unit(benchmark::kMillisecond)->UseRealTime();

// Liveness alone on the parsed, def/use-analysed listing (CFGs built once, outside the loop).
void BM_Liveness(benchmark::State& state) {
    if (!haveData(state)) return;
    SassListing parsed = parseSassTexts({}, text("gp.sass"), {});
    std::vector<Cfg> cfgs;
    RegisterLimits module;
    for (auto& f : parsed.functions) {
        analyseDefUse(f);
        cfgs.push_back(buildCfg(f));
        module = mergeLimits(module, registerLimits(f));
    }
    size_t n = 0;
    for (auto _ : state) {
        n = 0;
        for (size_t i = 0; i < parsed.functions.size(); ++i) {
            computeLiveness(parsed.functions[i], cfgs[i], module);
            n += parsed.functions[i].instructions.size();
        }
    }
    state.counters["instructions"] = static_cast<double>(n);
}
BENCHMARK(BM_Liveness)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parse the -gi -gp listing (what the build pipeline produces) + analyse, liveness included: the
// issue-3/12 target (≤ 300 ms, ≤ 200 MB).
void BM_ParseAndAnalyse(benchmark::State& state) {
    if (!haveData(state)) return;
    Counts c;
    for (auto _ : state) {
        SassListing l = parseSassTexts({}, text("gp.sass"), {});
        c = analyse(l);
    }
    report(state, c);
}
BENCHMARK(BM_ParseAndAnalyse)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parse only the -hex -gi listing + analyse (what a build without -gp needs).
void BM_ParseHexGiAndAnalyse(benchmark::State& state) {
    if (!haveData(state)) return;
    Counts c;
    for (auto _ : state) {
        SassListing l = parseSass(text("sass"));
        c = analyse(l);
    }
    report(state, c);
}
BENCHMARK(BM_ParseHexGiAndAnalyse)->Unit(benchmark::kMillisecond)->UseRealTime();

// The whole model: PTX + SASS parse, analysis, correlation, aggregates, per kernel.
void BM_BuildLoweringModel(benchmark::State& state) {
    if (!haveData(state)) return;
    BuildResult r;
    r.ok = true;
    r.ptx = text("ptx");
    for (const auto& f : parsePtx(r.ptx).functions) {
        if (!f.isEntry) continue;
        KernelArtifacts k;
        k.name = k.mangled = f.name;
        k.sass = functionText(text("sass"), f.name);
        k.sassPtxLines = functionText(text("gp.sass"), f.name);
        r.kernels.push_back(std::move(k));
    }
    size_t n = 0;
    for (auto _ : state) {
        LoweringModel m = buildLoweringModel(r);
        n = 0;
        for (const auto& k : m.kernels) n += k.sass.instructions.size();
        benchmark::DoNotOptimize(m);
    }
    state.counters["kernel_instructions"] = static_cast<double>(n);
}
BENCHMARK(BM_BuildLoweringModel)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
