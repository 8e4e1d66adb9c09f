// Markdown report of a synthetic session (measurements built with the runner protocol types) plus
// the real fast-math listing pair for the SASS sections. (The verdict and the reading of
// measurement documents are tested in test_measurement.cpp.) The full report is compared with
// tests/data/report/fast_math.md (reviewed by reading; LOWERSCOPE_UPDATE_GOLDEN=1 rewrites it).
#include "core/experiment/report.h"
#include "core/run/protocol.h"
#include "core/parse/sass_parser.h"
#include "golden_util.h"
#include "json_pointers.h"
#include "run_result_fixture.h"

#include <gtest/gtest.h>

using namespace lowerscope;
using lowerscope::test::pairedResult;
using lowerscope::test::variant;
using lowerscope::golden::dataDir;
using lowerscope::golden::readFile;

namespace {

ExperimentSession syntheticSession() {
    ExperimentSession s;
    s.title = "Fast math on damped_wave";
    s.source = {"kernels/fast_math.cu", readFile(golden::sourceDir() / "kernels" / "fast_math.cu")};
    s.a.label = "A";
    s.a.kernel = "damped_wave";
    s.hasB = true;
    s.b.label = "B";
    s.b.kernel = "damped_wave";
    s.b.options.fastMath = true;
    s.launch.grid = {"ceil(n/256)"};
    s.launch.block = {"256"};
    s.launch.args = {"n=1<<24", "x=f32[n]:random(seed=1)", "decay=f32[n]:random(seed=2)", "y=f32[n]:zeros"};
    s.card.hypothesis = "--use_fast_math replaces the sinf/expf/division slow paths by MUFU instructions.";
    s.card.implementation = "B = A + --use_fast_math.";
    s.card.measurement = "Cold, interleaved A/B.";
    s.card.result = "";
    s.card.interpretation = "Synthetic numbers (unit test), not a measurement.";
    s.measurements.push_back(nlohmann::json{{"error", {{"kind", "kernel_fault"}, {"message", "illegal address"}}}});
    s.measurements.push_back({{"schema", "lowerscope.run/1"}, {"result", toJson(pairedResult(1.42, 3.2e-7))}});
    return s;
}

// What `compare --profile` adds to a compare document (shape of core/run/profile_collect.h).
nlohmann::json profileOfCompare() {
    return {{"ok", false},
            {"errors", {"B: samples: kernel_fault: illegal address"}},
            {"a", {{"kernel_totals", {{"samples", {{"long_scoreboard", 300}, {"wait", 100}}}}}}},
            {"b", {{"kernel_totals", {{"samples", {{"long_scoreboard", 100}, {"selected", 100}}}}}}},
            {"metric_deltas", {{{"name", "dram__bytes_read.sum"}, {"unit", "byte"}, {"a", 4096}, {"b", 2048},
                                {"delta", -2048}, {"ratio", 0.5}}}},
            {"rows", {{{"row", 3}, {"status", "changed"}, {"opcode_a", "LDG.E"}, {"opcode_b", "LDG.E.128"},
                       {"executed_a", 4000}, {"executed_b", 1000}, {"executed_delta", -3000},
                       {"samples_a", 300}, {"samples_b", 90}, {"samples_delta", -210}},
                      {{"row", 4}, {"status", "equal"}, {"opcode_a", "FFMA"}, {"opcode_b", "FFMA"},
                       {"executed_a", 10}, {"executed_b", 10}, {"executed_delta", 0},
                       {"samples_a", 0}, {"samples_b", 0}, {"samples_delta", 0}}}}};
}

} // namespace

TEST(Report, CountersOfCompareProfileAreTabulated) {
    ExperimentSession s = syntheticSession();
    nlohmann::json doc = s.measurements.back();
    doc["profile"] = profileOfCompare();
    s.measurements.back() = doc;
    ReportInputs in;
    in.session = &s;
    const std::string md = renderMarkdownReport(in);
    EXPECT_NE(md.find("## Hardware counters"), std::string::npos) << md;
    EXPECT_NE(md.find("| dram__bytes_read.sum | byte | 4096 | 2048 | 0.500 |"), std::string::npos) << md;
    EXPECT_NE(md.find("Stall samples of A (400): long_scoreboard 75.0 %, wait 25.0 %."), std::string::npos) << md;
    EXPECT_NE(md.find("| 3 | changed | LDG.E | LDG.E.128 | 4000 → 1000 | 300 → 90 |"), std::string::npos) << md;
    EXPECT_EQ(md.find("| 4 | equal | FFMA"), std::string::npos) << "rows that did not change are left out";
    EXPECT_NE(md.find("- B: samples: kernel_fault: illegal address"), std::string::npos) << md;
    // Without a profile there is no such section.
    s.measurements.back().erase("profile");
    EXPECT_EQ(renderMarkdownReport(in).find("## Hardware counters"), std::string::npos);
}

TEST(Report, SyntheticSessionWithRealListings) {
    const ExperimentSession s = syntheticSession();
    const auto dir = dataDir() / "diff";
    const SassListing a = parseSassTexts(readFile(dir / "fast_math.default.sass"), "", readFile(dir / "fast_math.default.live.sass"));
    const SassListing b = parseSassTexts(readFile(dir / "fast_math.fastmath.sass"), "", readFile(dir / "fast_math.fastmath.live.sass"));
    ASSERT_EQ(a.functions.size(), 1u);
    ASSERT_EQ(b.functions.size(), 1u);
    ReportInputs in;
    in.session = &s;
    in.resourcesA = Resources{.registers = 24, .sharedBytes = 0, .localBytes = 0, .stackBytes = 0,
                              .constantBytes = 560, .spillStores = 0, .spillLoads = 0, .barriers = 0};
    in.resourcesB = Resources{.registers = 14, .sharedBytes = 0, .localBytes = 0, .stackBytes = 0,
                              .constantBytes = 560, .spillStores = 0, .spillLoads = 0, .barriers = 0};
    in.blockThreads = 256;
    in.sassA = &a.functions[0];
    in.sassB = &b.functions[0];
    in.charts = {{"Sample distributions A vs B", "fast_math-distributions.png"},
                 {"Samples over time", "fast_math-series.png"}};
    const std::string md = renderMarkdownReport(in);

    // The parts the issue asks for, independent of the golden file.
    EXPECT_NE(md.find("**Hypothesis.** --use_fast_math replaces"), std::string::npos);
    EXPECT_NE(md.find("**Result.** _(not filled in)_"), std::string::npos);
    EXPECT_NE(md.find("nvcc -arch=sm_90 -O3 -Xptxas -O3 -lineinfo -std=c++17 -cubin kernels/fast_math.cu"),
              std::string::npos);
    EXPECT_NE(md.find("--use_fast_math"), std::string::npos);
    EXPECT_NE(md.find("| registers | 24 | 14 | −10 |"), std::string::npos);
    EXPECT_NE(md.find("**Verdict:** B is 1.42× faster (95 % CI 1.42–1.42), outputs match within 1e-6."),
              std::string::npos);
    EXPECT_NE(md.find("run 1: kernel_fault: illegal address"), std::string::npos);
    EXPECT_NE(md.find("MUFU.SIN"), std::string::npos); // the diff excerpt
    EXPECT_NE(md.find("| kernels/fast_math.cu:16 | 135 → 3 |"), std::string::npos);
    EXPECT_NE(md.find("![Sample distributions A vs B](fast_math-distributions.png)"), std::string::npos);
    EXPECT_TRUE(golden::matchesGolden(md + "\n", dataDir() / "report" / "fast_math.md"));
}

TEST(Report, MinimalSessionStillRenders) {
    ExperimentSession s;
    ReportInputs in;
    in.session = &s;
    const std::string md = renderMarkdownReport(in);
    EXPECT_NE(md.find("# Experiment"), std::string::npos);
    EXPECT_NE(md.find("_No measurement in this session._"), std::string::npos);
    EXPECT_NE(md.find("_No build or measurement with resource figures._"), std::string::npos);
    EXPECT_EQ(md.find("## SASS diff"), std::string::npos);
    in.session = nullptr;
    EXPECT_NE(renderMarkdownReport(in).find("No session"), std::string::npos);
}

using lowerscope::testutil::allPointers;

TEST(Report, MangledMeasurementsNeverThrow) {
    // Every value of a runner result and of a CLI compare document replaced by each JSON type: the
    // report lists the run as unreadable or tabulates it, and never throws.
    const nlohmann::json docs[] = {
        nlohmann::json{{"result", toJson(pairedResult(1.3, 1e-7))}},
        nlohmann::json{{"schema", "lowerscope.compare/1"},
                       {"a", {{"schema", "lowerscope.run/1"}, {"launch", {{"kernel", "k"}, {"registers", 8}}},
                              {"device", {{"compute_capability", "9.0"}}}, {"samples_ms", {1.0, 1.1}}}},
                       {"b", {{"schema", "lowerscope.run/1"}, {"launch", {{"kernel", "k"}}}, {"samples_ms", {0.5, 0.6}}}},
                       {"agreement", nlohmann::json::array()}},
        nlohmann::json{{"schema", "lowerscope.compare/1"},
                       {"a", {{"schema", "lowerscope.run/1"}, {"launch", {{"kernel", "k"}}}, {"samples_ms", {1.0, 1.1}}}},
                       {"b", {{"schema", "lowerscope.run/1"}, {"launch", {{"kernel", "k"}}}, {"samples_ms", {0.5, 0.6}}}},
                       {"profile", profileOfCompare()}}};
    const nlohmann::json replacements[] = {nullptr, 7, "x", nlohmann::json::array(), nlohmann::json::object()};
    ExperimentSession s;
    s.hasB = true;
    ReportInputs in;
    in.session = &s;
    int cases = 0;
    for (const auto& doc : docs) {
        std::vector<nlohmann::json::json_pointer> pointers;
        allPointers(doc, nlohmann::json::json_pointer(), pointers);
        for (const auto& ptr : pointers) {
            for (const auto& r : replacements) {
                nlohmann::json mangled = doc;
                mangled[ptr] = r;
                ++cases;
                s.measurements = {mangled};
                EXPECT_NO_THROW((void)renderMarkdownReport(in)) << ptr.to_string() << " = " << r.dump();
            }
        }
    }
    EXPECT_GT(cases, 200);
}

TEST(Report, CostSectionAtAUserPriceAndWorkload) {
    // 10 ms and 5 ms: 10,000 and 5,000 GPU-s per million launches; at 3.60 per GPU-hour that is
    // 10.00 and 5.00 per million launches; with 4 launches per request 40 ms vs 20 ms per request.
    const std::string md = costMarkdown({{"A", 10.0}, {"B", 5.0}}, 3.60, 4);
    EXPECT_NE(md.find("## Cost"), std::string::npos) << md;
    EXPECT_NE(md.find("At 3.60 per GPU-hour and 4 launches"), std::string::npos) << md;
    EXPECT_NE(md.find("| A | 10000.0 | 10.00 | 40.00 ms | 40.00 | – |"), std::string::npos) << md;
    EXPECT_NE(md.find("| B | 5000.0 | 5.00 | 20.00 ms | 20.00 | -50.0 % |"), std::string::npos) << md;
    EXPECT_TRUE(costMarkdown({{"A", 0.0}}, 3.6, 1).empty()) << "no median, no cost";
    EXPECT_TRUE(costMarkdown({{"A", 1.0}}, 3.6, 0).empty()) << "a workload needs launches";
    // The A/B report carries it from its inputs.
    ExperimentSession s = syntheticSession();
    ReportInputs in;
    in.session = &s;
    in.pricePerGpuHour = 1.0;
    in.launchesPerRequest = 2;
    const std::string report = renderMarkdownReport(in);
    EXPECT_NE(report.find("## Cost"), std::string::npos);
    EXPECT_NE(report.find("At 1.00 per GPU-hour and 2 launches"), std::string::npos);
}
