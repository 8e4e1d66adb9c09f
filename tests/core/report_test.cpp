// Markdown report of a synthetic session (measurements built with the runner protocol types) plus
// the real fast-math listing pair for the SASS sections. The full report is compared with
// tests/data/report/fast_math.md (reviewed by reading; LOWERSCOPE_UPDATE_GOLDEN=1 rewrites it).
#include "core/experiment/report.h"
#include "core/run/protocol.h"
#include "core/run/stats.h"
#include "core/parse/sass_parser.h"
#include "golden_util.h"
#include "json_pointers.h"

#include <gtest/gtest.h>

using namespace lowerscope;
using lowerscope::golden::dataDir;
using lowerscope::golden::readFile;

namespace {

VariantResult variant(const std::string& label, const std::string& kernel, std::vector<double> samples) {
    VariantResult v;
    v.label = label;
    v.kernel = kernel;
    v.mode = "cold";
    v.samplesMs = std::move(samples);
    v.resources.registers = label == "A" ? 24 : 14;
    v.resources.localBytes = 0;
    return v;
}

// A result where B's i-th sample is A's divided by `speedup`, with a deterministic wobble on A.
RunResult pairedResult(double speedup, double maxAbsError, bool agree = true) {
    RunResult r;
    r.id = "r1";
    r.device.name = "NVIDIA H200";
    r.device.ccMajor = 9;
    r.device.smCount = 132;
    std::vector<double> a, b;
    for (int i = 0; i < 101; ++i) {
        const double t = 0.150 + 0.0005 * ((i * 37) % 11); // ms
        a.push_back(t);
        b.push_back(t / speedup);
    }
    r.variants = {variant("A", "damped_wave", a), variant("B", "damped_wave", b)};
    OutputAgreement ag;
    ag.name = "y";
    ag.labelA = "A";
    ag.labelB = "B";
    ag.agree = agree;
    ag.count = 1 << 24;
    ag.mismatches = agree ? 0 : 1234;
    ag.maxAbsError = maxAbsError;
    ag.maxRelError = maxAbsError * 4;
    r.agreement = {ag};
    return r;
}

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

} // namespace

TEST(Report, VerdictFasterWithExactRatio) {
    const TimingVerdict v = timingVerdict(toJson(pairedResult(1.42, 3.2e-7)));
    ASSERT_TRUE(v.valid);
    EXPECT_TRUE(v.significant);
    EXPECT_NEAR(v.ratio, 1 / 1.42, 1e-12);
    EXPECT_EQ(v.outputs, "outputs match within 1e-6");
    EXPECT_EQ(v.sentence, "B is 1.42× faster (95 % CI 1.42–1.42), outputs match within 1e-6");
}

TEST(Report, VerdictUsesThePairedRatioInterval) {
    // Noisy B: the interval comes from compareSamples (core/run/stats), shown as speedups.
    RunResult r = pairedResult(1.3, 0);
    for (size_t i = 0; i < r.variants[1].samplesMs.size(); ++i) r.variants[1].samplesMs[i] *= 1 + 0.01 * ((i * 7) % 5);
    r.agreement[0].sameDigest = true;
    const RatioStats rs = compareSamples(r.variants[0].samplesMs, r.variants[1].samplesMs);
    const TimingVerdict v = timingVerdict(toJson(r));
    ASSERT_TRUE(v.valid);
    char expected[200];
    std::snprintf(expected, sizeof expected, "B is %.2f× faster (95 %% CI %.2f–%.2f), outputs are bit-identical",
                  1 / rs.ratio, 1 / rs.ciHigh, 1 / rs.ciLow);
    EXPECT_EQ(v.sentence, expected);
    EXPECT_LT(1 / rs.ciHigh, 1 / rs.ciLow);
}

TEST(Report, VerdictSlowerAndNoDifferenceAndWrongOutputs) {
    TimingVerdict slow = timingVerdict(toJson(pairedResult(0.5, 0.5, false)));
    EXPECT_EQ(slow.sentence.rfind("B is 2.00× slower (95 % CI 2.00–2.00), outputs DIFFER: y: 1234 of 16777216", 0), 0u)
        << slow.sentence;
    TimingVerdict same = timingVerdict(toJson(pairedResult(1.0, 1e-3)));
    EXPECT_FALSE(same.significant);
    EXPECT_EQ(same.sentence, "no significant difference between A and B: B/A = 1.000 (95 % CI 1.000–1.000; the medians' "
                             "intervals overlap), outputs match within 1e-3");
    // 0.2 % apart with no spread at all: the intervals are apart, but the difference is below what
    // the method resolves (core/run/stats.h kMinEffect), and the sentence says so.
    RunResult tiny = pairedResult(1.0, 1e-3);
    tiny.variants[0].samplesMs.assign(101, 0.150);
    tiny.variants[1].samplesMs.assign(101, 0.150 * 0.998);
    TimingVerdict t = timingVerdict(toJson(tiny));
    EXPECT_FALSE(t.significant);
    EXPECT_EQ(t.sentence, "no significant difference between A and B: B/A = 0.998 (95 % CI 0.998–0.998; under the "
                          "0.5 % minimum effect), outputs match within 1e-3");
    // No element-wise comparison: equal digests still say bit-identical; different ones say nothing.
    RunResult digests = pairedResult(1.42, 0);
    digests.agreement.clear();
    OutputReport y;
    y.name = "y";
    y.digest = "dd63580c458cf4aa";
    digests.variants[0].outputs = {y};
    digests.variants[1].outputs = {y};
    EXPECT_EQ(timingVerdict(toJson(digests)).sentence, "B is 1.42× faster (95 % CI 1.42–1.42), outputs are bit-identical");
    digests.variants[1].outputs[0].digest = "0123456789abcdef";
    EXPECT_EQ(timingVerdict(toJson(digests)).sentence, "B is 1.42× faster (95 % CI 1.42–1.42)");
    RunResult one = pairedResult(1.0, 0);
    one.variants.pop_back();
    EXPECT_FALSE(timingVerdict(toJson(one)).valid);
    EXPECT_FALSE(timingVerdict(nlohmann::json{{"variants", "nope"}}).valid);
}

TEST(Report, RunResultOfAcceptsWrappedBareAndReportsErrors) {
    const auto bare = toJson(pairedResult(1.1, 0));
    std::string why;
    EXPECT_TRUE(runResultOf(bare, &why).has_value());
    EXPECT_TRUE(runResultOf(nlohmann::json{{"schema", "lowerscope.run/1"}, {"result", bare}}).has_value());
    EXPECT_FALSE(runResultOf(nlohmann::json{{"error", {{"kind", "kernel_timeout"}, {"message", "30 s"}}}}, &why));
    EXPECT_EQ(why, "kernel_timeout: 30 s");
    EXPECT_FALSE(runResultOf(nlohmann::json::array(), &why));
    EXPECT_FALSE(runResultOf(nlohmann::json{{"variants", {{{"samples_ms", "x"}}}}}, &why));
    EXPECT_NE(why.find("unreadable"), std::string::npos) << why;
}

TEST(Report, CliDocumentsAreRecastAsRunnerResults) {
    // The shapes of lowerscope-cli run --json / compare --json (app/cli/cmd_run.cpp).
    auto runDoc = [](const std::string& kernel, std::vector<double> samples, int regs) {
        return nlohmann::json{{"schema", "lowerscope.run/1"},
                              {"kernel", kernel},
                              {"device", {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"sm_count", 132}}},
                              {"launch", {{"kernel", kernel}, {"mode", "hot"}, {"registers", regs}, {"local_bytes", 0}}},
                              {"samples_ms", samples}};
    };
    std::string why;
    auto one = runResultOf(runDoc("saxpy", {0.1, 0.11, 0.12}, 10), &why);
    ASSERT_TRUE(one) << why;
    RunResult r;
    fromJson(*one, r);
    ASSERT_EQ(r.variants.size(), 1u);
    EXPECT_EQ(r.variants[0].kernel, "saxpy");
    EXPECT_EQ(r.variants[0].mode, "hot");
    EXPECT_EQ(r.variants[0].resources.registers, 10);
    EXPECT_EQ(r.device.ccMajor, 9);
    EXPECT_EQ(r.device.smCount, 132);
    EXPECT_TRUE(r.variants[0].sampleClockMhz.empty()); // older documents: the mean clock only

    // The per-sample SM clock and the throttled count come through.
    nlohmann::json clocked = runDoc("saxpy", {0.1, 0.11, 0.12}, 10);
    clocked["sample_clock_mhz"] = {1980.0, 1975.5, 1979.0};
    clocked["throttled_samples"] = 2;
    auto withClock = runResultOf(clocked, &why);
    ASSERT_TRUE(withClock) << why;
    fromJson(*withClock, r);
    EXPECT_EQ(r.variants.at(0).sampleClockMhz, (std::vector<double>{1980.0, 1975.5, 1979.0}));
    EXPECT_EQ(r.variants.at(0).throttledSamples, 2);

    std::vector<double> a, b;
    for (int i = 0; i < 50; ++i) {
        a.push_back(2.0 + 0.01 * (i % 7));
        b.push_back(a.back() / 2);
    }
    OutputAgreement ag;
    ag.name = "out";
    ag.agree = true;
    ag.sameDigest = true;
    const nlohmann::json cmp{{"schema", "lowerscope.compare/1"},
                             {"a", runDoc("ffma_dependent", a, 10)},
                             {"b", runDoc("ffma_independent", b, 23)},
                             {"agreement", nlohmann::json::array({toJson(ag)})}};
    auto two = runResultOf(cmp, &why);
    ASSERT_TRUE(two) << why;
    const TimingVerdict v = timingVerdict(*two);
    ASSERT_TRUE(v.valid);
    EXPECT_EQ(v.sentence, "B is 2.00× faster (95 % CI 2.00–2.00), outputs are bit-identical");
    EXPECT_FALSE(runResultOf(nlohmann::json{{"schema", "lowerscope.compare/1"}, {"a", 1}}, &why));
    EXPECT_NE(why.find("unreadable"), std::string::npos);
}

TEST(Report, DurationFormatting) {
    EXPECT_EQ(reportDuration(0.0008123), "812.3 ns");
    EXPECT_EQ(reportDuration(0.04127), "41.27 µs");
    EXPECT_EQ(reportDuration(3.1041), "3.104 ms");
    EXPECT_EQ(reportDuration(1250), "1.250 s");
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
    // Every value of a runner result and of a CLI compare document replaced by each JSON type:
    // runResultOf / timingVerdict / renderMarkdownReport report or skip it, never throw.
    const nlohmann::json docs[] = {
        nlohmann::json{{"result", toJson(pairedResult(1.3, 1e-7))}},
        nlohmann::json{{"schema", "lowerscope.compare/1"},
                       {"a", {{"schema", "lowerscope.run/1"}, {"launch", {{"kernel", "k"}, {"registers", 8}}},
                              {"device", {{"compute_capability", "9.0"}}}, {"samples_ms", {1.0, 1.1}}}},
                       {"b", {{"schema", "lowerscope.run/1"}, {"launch", {{"kernel", "k"}}}, {"samples_ms", {0.5, 0.6}}}},
                       {"agreement", nlohmann::json::array()}}};
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
                EXPECT_NO_THROW({
                    std::string why;
                    auto res = runResultOf(mangled, &why);
                    if (res) (void)timingVerdict(*res);
                    s.measurements = {mangled};
                    (void)renderMarkdownReport(in);
                }) << ptr.to_string() << " = " << r.dump();
            }
        }
    }
    EXPECT_GT(cases, 200);
}
