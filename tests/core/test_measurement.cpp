// core/run/measurement.h: the verdict, the duration formatter, the one writer and the one reader of
// measurement documents (every shape on disk: the committed GPU documents under tests/data and the
// sessions in docs/examples), and measure() against the fake runner.
#include "core/run/measurement.h"
#include "core/run/stats.h"
#include "golden_util.h"
#include "json_pointers.h"
#include "run_result_fixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

using namespace lowerscope;
using lowerscope::test::pairedResult;
using lowerscope::test::variant;
using nlohmann::json;
using lowerscope::golden::dataDir;
using lowerscope::golden::readFile;
using lowerscope::golden::sourceDir;

namespace {

LaunchRecord launchRecord(const std::string& kernel) {
    LaunchRecord l;
    l.file = "kernels/fast_math.cu";
    l.kernelName = kernel + "(int, float const*, float const*, float*)";
    l.buildOptions = "-arch=sm_90 -O3";
    l.grid = {65536, 1, 1};
    l.block = {256, 1, 1};
    l.sharedBytes = 0;
    l.args = {{"n", "16777216", "u32"}, {"y", "f32[16777216]", "u64"}};
    l.bytes = 201326592.0;
    l.flops = 335544320.0;
    return l;
}

// A fully populated single-run record, as measure() would make it.
MeasurementRecord singleRecord() {
    MeasurementRecord rec;
    rec.result = pairedResult(1.0, 0);
    rec.result.variants.pop_back();
    rec.result.agreement.clear();
    VariantResult& v = rec.result.variants[0];
    v.label = "";
    v.kernel = "_Z11damped_waveiPKfS0_Pf";
    v.launchesPerSample = 1;
    v.resources = {24, 0, 0, 0, 1024};
    v.occupancy = {8, 64, 64, 1.0, 62.06};
    v.moduleLoadMs = 0.12;
    v.firstLaunchMs = 0.094;
    v.firstLaunchWallMs = 0.2;
    v.warmupRuns = 169;
    v.warmupMs = 25.5;
    v.sampleClockMhz.assign(v.samplesMs.size(), 1980.0);
    v.throttledSamples = 2;
    v.gateTimeouts = 1;
    v.eventOverheadUs = 1.44;
    v.stopReason = "noise_stable";
    OutputReport o;
    o.name = "y";
    o.count = 16777216;
    o.digest = "a5816178b30b2493";
    o.fullyWritten = false;
    o.unwrittenCount = 3;
    v.outputs = {o};
    GraphCosts g;
    g.launchesPerGraph = 16;
    g.captureMs = 0.1;
    g.breakEvenReplays = 3.5;
    v.graph = g;
    rec.result.device.clockMhz = 1980;
    rec.result.device.peakBandwidthGBs = 4814.3;
    rec.result.device.copyBandwidthGBs = 4154.3;
    rec.result.device.fp32PeakGflops = 66908.16;
    rec.result.wallS = 2.5;
    rec.launches = {launchRecord("damped_wave")};
    return rec;
}

// Every value of `original` is in `written` at the same place (numbers to 1e-12 relative):
// the writer keeps the shape that tools and scripts read.
void expectContains(const json& written, const json& original, const std::string& at = "") {
    if (original.is_object()) {
        ASSERT_TRUE(written.is_object()) << at;
        for (const auto& [k, v] : original.items()) {
            ASSERT_TRUE(written.contains(k)) << at << "/" << k << " is missing";
            expectContains(written[k], v, at + "/" + k);
        }
    } else if (original.is_array()) {
        ASSERT_TRUE(written.is_array()) << at;
        ASSERT_EQ(written.size(), original.size()) << at;
        for (size_t i = 0; i < original.size(); ++i) expectContains(written[i], original[i], at + "/" + std::to_string(i));
    } else if (original.is_number()) {
        ASSERT_TRUE(written.is_number()) << at;
        const double a = original.get<double>(), b = written.get<double>();
        EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::fabs(a))) << at;
    } else {
        EXPECT_EQ(written, original) << at;
    }
}

} // namespace

// ----------------------------------------------------------------------------------- verdict

TEST(Verdict, FasterWithExactRatio) {
    const TimingVerdict v = timingVerdict(pairedResult(1.42, 3.2e-7));
    ASSERT_TRUE(v.valid);
    EXPECT_TRUE(v.significant);
    EXPECT_NEAR(v.ratio, 1 / 1.42, 1e-12);
    EXPECT_EQ(v.outputs, "outputs match within 1e-6");
    EXPECT_EQ(v.sentence, "B is 1.42× faster (95 % CI 1.42–1.42), outputs match within 1e-6");
}

TEST(Verdict, UsesThePairedRatioInterval) {
    // Noisy B: the interval comes from compareSamples (core/run/stats), shown as speedups.
    RunResult r = pairedResult(1.3, 0);
    for (size_t i = 0; i < r.variants[1].samplesMs.size(); ++i) r.variants[1].samplesMs[i] *= 1 + 0.01 * ((i * 7) % 5);
    r.agreement[0].sameDigest = true;
    const RatioStats rs = compareSamples(r.variants[0].samplesMs, r.variants[1].samplesMs);
    const TimingVerdict v = timingVerdict(r);
    ASSERT_TRUE(v.valid);
    char expected[200];
    std::snprintf(expected, sizeof expected, "B is %.2f× faster (95 %% CI %.2f–%.2f), outputs are bit-identical",
                  1 / rs.ratio, 1 / rs.ciHigh, 1 / rs.ciLow);
    EXPECT_EQ(v.sentence, expected);
    EXPECT_LT(1 / rs.ciHigh, 1 / rs.ciLow);
}

TEST(Verdict, SlowerAndNoDifferenceAndWrongOutputs) {
    TimingVerdict slow = timingVerdict(pairedResult(0.5, 0.5, false));
    EXPECT_EQ(slow.sentence.rfind("B is 2.00× slower (95 % CI 2.00–2.00), outputs DIFFER: y: 1234 of 16777216", 0), 0u)
        << slow.sentence;
    TimingVerdict same = timingVerdict(pairedResult(1.0, 1e-3));
    EXPECT_FALSE(same.significant);
    EXPECT_EQ(same.sentence, "no significant difference between A and B: B/A = 1.000 (95 % CI 1.000–1.000; the medians' "
                             "intervals overlap), outputs match within 1e-3");
    // 0.2 % apart with no spread at all: the intervals are apart, but the difference is below what
    // the method resolves (core/run/stats.h kMinEffect), and the sentence says so.
    RunResult tiny = pairedResult(1.0, 1e-3);
    tiny.variants[0].samplesMs.assign(101, 0.150);
    tiny.variants[1].samplesMs.assign(101, 0.150 * 0.998);
    TimingVerdict t = timingVerdict(tiny);
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
    EXPECT_EQ(timingVerdict(digests).sentence, "B is 1.42× faster (95 % CI 1.42–1.42), outputs are bit-identical");
    digests.variants[1].outputs[0].digest = "0123456789abcdef";
    EXPECT_EQ(timingVerdict(digests).sentence, "B is 1.42× faster (95 % CI 1.42–1.42)");
    RunResult one = pairedResult(1.0, 0);
    one.variants.pop_back();
    EXPECT_FALSE(timingVerdict(one).valid);
}

TEST(Measurement, DurationFormatting) {
    EXPECT_EQ(formatDuration(0.0008123), "812.3 ns");
    EXPECT_EQ(formatDuration(0.04127), "41.27 µs");
    EXPECT_EQ(formatDuration(3.1041), "3.104 ms");
    EXPECT_EQ(formatDuration(1250), "1.250 s");
    EXPECT_EQ(formatDuration(0), "0 ms");
    EXPECT_EQ(formatDuration(0.0659), "65.90 µs");
}

// ------------------------------------------------------------------------------------ writer

TEST(MeasurementDocument, SingleRunRoundTrips) {
    const MeasurementRecord rec = singleRecord();
    const json doc = writeMeasurement(rec);
    EXPECT_EQ(doc["schema"], kRunSchema);
    // The keys scripts read (bench/runner_vs_ncu.sh) and the derived figures.
    const SampleStats st = computeStats(rec.result.variants[0].samplesMs);
    EXPECT_DOUBLE_EQ(doc["stats"]["median_ms"].get<double>(), st.median);
    EXPECT_EQ(doc["stats"]["count"], st.count);
    EXPECT_EQ(doc["stats"]["stop_reason"], "noise_stable");
    EXPECT_DOUBLE_EQ(doc["clock_mhz"].get<double>(), 1980.0);
    EXPECT_EQ(doc["launch"]["mode"], "cold");
    EXPECT_DOUBLE_EQ(doc["launch"]["event_overhead_us"].get<double>(), 1.44);
    EXPECT_EQ(doc["device"]["name"], "NVIDIA H200");
    EXPECT_NEAR(doc["throughput"]["gbs"].get<double>(), 201326592.0 / (st.median * 1e-3) / 1e9, 1e-9);
    EXPECT_EQ(doc["outputs"][0]["unwritten"], 3);

    const MeasurementRecord back = readMeasurement(doc);
    EXPECT_EQ(back.schema, kRunSchema);
    ASSERT_EQ(back.launches.size(), 1u);
    EXPECT_EQ(back.launches[0], rec.launches[0]);
    ASSERT_EQ(back.result.variants.size(), 1u);
    EXPECT_EQ(back.result.variants[0], rec.result.variants[0]);
    EXPECT_EQ(back.result.device.name, rec.result.device.name);
    EXPECT_EQ(back.result.device.peakBandwidthGBs, rec.result.device.peakBandwidthGBs);
    EXPECT_EQ(back.result.wallS, 2.5);
    // Written again, the document is the same.
    EXPECT_EQ(writeMeasurement(back), doc);
}

// A cluster launch (issue 29 item 3) records its cluster; other launches are written as before.
TEST(MeasurementDocument, ClusterIsRecordedOnlyForClusterLaunches) {
    MeasurementRecord rec = singleRecord();
    EXPECT_FALSE(writeMeasurement(rec)["launch"].contains("cluster"));
    rec.launches[0].cluster = {2, 1, 1};
    const json doc = writeMeasurement(rec);
    EXPECT_EQ(doc["launch"]["cluster"], json::array({2, 1, 1}));
    const MeasurementRecord back = readMeasurement(doc);
    EXPECT_EQ(back.launches.at(0).cluster, (std::array<uint32_t, 3>{2, 1, 1}));
    EXPECT_EQ(writeMeasurement(back), doc);
    json bad = doc;
    bad["launch"]["cluster"] = json::array({0, 1, 1});
    EXPECT_THROW(readMeasurement(bad), MeasurementError);
}

TEST(MeasurementDocument, CompareRoundTripsWithRatioAndVerdict) {
    MeasurementRecord rec;
    rec.result = pairedResult(1.42, 3.2e-7);
    rec.result.buffersShared = true;
    rec.launches = {launchRecord("damped_wave"), launchRecord("damped_wave")};
    rec.optionsA = "";
    rec.optionsB = "--fast-math";
    rec.atol = 1e-6;
    const json doc = writeMeasurement(rec);
    EXPECT_EQ(doc["schema"], kCompareSchema);
    EXPECT_EQ(doc["a"]["schema"], kRunSchema);
    EXPECT_EQ(doc["ratio"]["verdict"], "B is faster");
    EXPECT_TRUE(doc["ratio"]["significant"].get<bool>());
    EXPECT_NEAR(doc["ratio"]["b_over_a"].get<double>(), 1 / 1.42, 1e-12);
    EXPECT_TRUE(doc["outputs_agree"].get<bool>());
    EXPECT_EQ(doc["build_options_b"], "--fast-math");
    EXPECT_EQ(doc["tolerance"]["atol"], 1e-6);

    const MeasurementRecord back = readMeasurement(doc);
    ASSERT_EQ(back.result.variants.size(), 2u);
    EXPECT_EQ(back.result.variants[0].label, "A");
    EXPECT_EQ(back.result.variants[1].label, "B");
    EXPECT_EQ(back.result.variants[1].samplesMs, rec.result.variants[1].samplesMs);
    EXPECT_EQ(back.result.agreement, rec.result.agreement);
    EXPECT_TRUE(back.result.buffersShared);
    EXPECT_EQ(back.optionsB, std::optional<std::string>("--fast-math"));
    EXPECT_EQ(back.atol, 1e-6);
    EXPECT_EQ(timingVerdict(back.result).sentence, timingVerdict(rec.result).sentence);

    // Options nobody gave (a GUI comparison) are left out, not written as "".
    rec.optionsA.reset();
    rec.optionsB.reset();
    const json gui = writeMeasurement(rec);
    EXPECT_FALSE(gui.contains("build_options_a"));
    EXPECT_FALSE(readMeasurement(gui).optionsA.has_value());
    // Nothing compared never says the outputs agree.
    rec.result.agreement.clear();
    EXPECT_FALSE(writeMeasurement(rec)["outputs_agree"].get<bool>());
}

TEST(MeasurementDocument, ErrorAndProfileDocuments) {
    MeasurementRecord failed;
    failed.error = RunError{RunErrorKind::KernelFault, "the kernel faulted", "CUDA_ERROR_ILLEGAL_ADDRESS", 700,
                            "first_launch", "A", true};
    failed.runnerStderr = std::string(5000, 'x') + "tail";
    const json doc = writeMeasurement(failed);
    EXPECT_EQ(doc["error"]["kind"], "kernel_fault");
    EXPECT_EQ(doc["error"]["runner_stderr"].get<std::string>().size(), 2000u);
    const MeasurementRecord back = readMeasurement(doc);
    ASSERT_TRUE(back.error);
    EXPECT_EQ(*back.error, *failed.error);
    EXPECT_FALSE(back.ok());

    MeasurementRecord plain = singleRecord();
    plain.result.variants[0].mode = "profile";
    const json profile = writeMeasurement(plain);
    EXPECT_EQ(profile["schema"], kProfileLaunchesSchema);
    EXPECT_EQ(profile["launch"]["kernel"], "_Z11damped_waveiPKfS0_Pf");
    EXPECT_EQ(profile["samples_ms"].size(), plain.result.variants[0].samplesMs.size());

    MeasurementRecord none;
    EXPECT_THROW(writeMeasurement(none), MeasurementError);
}

// ------------------------------------------------------------------------------------ reader

TEST(MeasurementDocument, CommittedGpuDocumentsReadAndRewriteInTheirShape) {
    // Documents written by `lowerscope-cli compare --json` on an H200: every value they hold is
    // written again, in the same place, from what the reader made of them.
    for (const char* name : {"compare.json", "fast_math.compare.json"}) {
        SCOPED_TRACE(name);
        const json original = json::parse(readFile(dataDir() / "run" / name));
        const MeasurementRecord rec = readMeasurement(original);
        ASSERT_TRUE(rec.ok());
        ASSERT_EQ(rec.result.variants.size(), 2u);
        EXPECT_EQ(rec.result.variants[0].label, "A");
        EXPECT_EQ(rec.result.device.name, "NVIDIA H200");
        EXPECT_EQ(rec.result.device.ccMajor, 9);
        EXPECT_EQ(rec.launches[0].file.rfind("kernels/", 0), 0u);
        EXPECT_FALSE(rec.launches[0].args.empty());
        EXPECT_GT(meanClockMhz(rec, 0), 1900); // the document's mean clock (no per-sample clocks)
        expectContains(writeMeasurement(rec), original);
    }
    const MeasurementRecord ffma = readMeasurement(json::parse(readFile(dataDir() / "run" / "compare.json")));
    EXPECT_EQ(ffma.result.variants[0].resources.registers, 10);
    EXPECT_EQ(ffma.result.variants[1].resources.registers, 23);
    EXPECT_EQ(ffma.result.variants[0].kernel, "_Z14ffma_dependentPfiff");
    EXPECT_EQ(ffma.launches[0].kernelName, "ffma_dependent(float*, int, float, float)");
    EXPECT_EQ(ffma.launches[0].block, (std::array<uint32_t, 3>{32, 1, 1}));
    EXPECT_FALSE(ffma.result.agreement.at(0).agree);
}

TEST(MeasurementDocument, SessionsOnDiskAndTheGuiFixtureRead) {
    // The example sessions hold compare documents; the GUI fixture is the earlier GUI shape
    // ("lowerscope.run/1" with a variants array and bytes/flops per variant).
    for (const char* name : {"fast_math.lowerscope", "ffma_chain.lowerscope"}) {
        SCOPED_TRACE(name);
        const json session = json::parse(readFile(sourceDir() / "docs" / "examples" / name));
        ASSERT_FALSE(session["measurements"].empty());
        for (const json& m : session["measurements"]) {
            const MeasurementRecord rec = readMeasurement(m);
            EXPECT_TRUE(rec.ok());
            EXPECT_TRUE(timingVerdict(rec.result).valid);
        }
    }
    const MeasurementRecord gui = loadMeasurementRecord((dataDir() / "measure" / "synthetic_compare.json").string());
    EXPECT_TRUE(gui.synthetic);
    ASSERT_EQ(gui.result.variants.size(), 2u);
    EXPECT_EQ(gui.result.variants[1].label, "B");
    EXPECT_EQ(gui.result.variants[0].resources.registers, 16);
    EXPECT_EQ(gui.result.variants[0].sampleClockMhz.size(), gui.result.variants[0].samplesMs.size());
    EXPECT_EQ(gui.launches[0].bytes, std::optional<double>(134217728));
    EXPECT_EQ(gui.launches[0].file, "kernels/fast_math.cu");
    EXPECT_DOUBLE_EQ(gui.result.device.peakBandwidthGBs, 4800.0);
    ASSERT_EQ(gui.result.agreement.size(), 1u);
    EXPECT_TRUE(gui.result.agreement[0].agree);
}

TEST(MeasurementDocument, RunnerResultsBareOrWrapped) {
    const json bare = toJson(pairedResult(1.1, 0));
    EXPECT_EQ(readMeasurement(bare).result.variants.size(), 2u);
    const MeasurementRecord wrapped = readMeasurement(json{{"schema", kRunSchema}, {"result", bare}});
    EXPECT_EQ(wrapped.result.variants[1].samplesMs, pairedResult(1.1, 0).variants[1].samplesMs);
    EXPECT_EQ(wrapped.result.id, "r1");
    // A CLI run document without the per-sample clock: the mean one is kept.
    json run = writeMeasurement(singleRecord());
    run.erase("sample_clock_mhz");
    const MeasurementRecord old = readMeasurement(run);
    EXPECT_TRUE(old.result.variants[0].sampleClockMhz.empty());
    EXPECT_DOUBLE_EQ(meanClockMhz(old, 0), 1980.0);
}

TEST(MeasurementDocument, BadDocumentsSayWhy) {
    auto why = [](const json& doc) {
        try {
            (void)readMeasurement(doc);
        } catch (const MeasurementError& e) {
            return std::string(e.what());
        }
        return std::string("(read)");
    };
    EXPECT_NE(why(json::array()).find("JSON object"), std::string::npos);
    EXPECT_NE(why(json{{"schema", "lowerscope.run/7"}, {"samples_ms", {1.0}}}).find("newer"), std::string::npos);
    EXPECT_NE(why(json{{"schema", "lowerscope.compare/2"}}).find("newer"), std::string::npos);
    EXPECT_NE(why(json{{"schema", "lowerscope.session/1"}}).find("not a Lowerscope measurement"), std::string::npos);
    EXPECT_NE(why(json::object()).find("no samples"), std::string::npos);
    EXPECT_NE(why(json{{"samples_ms", json::array()}}).find("missing or empty"), std::string::npos);
    EXPECT_NE(why(json{{"samples_ms", {1.0, "x"}}}).find("samples_ms"), std::string::npos);
    EXPECT_NE(why(json{{"samples_ms", {1.0, nullptr}}}).find("samples_ms"), std::string::npos);
    EXPECT_NE(why(json{{"variants", {{{"samples_ms", "x"}}}}}).find("variants[0].samples_ms"), std::string::npos);
    EXPECT_NE(why(json{{"schema", kCompareSchema}, {"a", {{"file", 3}}}, {"b", json::object()}}).find("a.file"),
              std::string::npos);
    EXPECT_NE(why(json{{"error", 5}}).find("error"), std::string::npos);
    // An error document is not an exception.
    const MeasurementRecord e = readMeasurement(json{{"error", {{"kind", "kernel_timeout"}, {"message", "30 s"}}}});
    ASSERT_TRUE(e.error);
    EXPECT_EQ(e.error->kind, RunErrorKind::KernelTimeout);
    EXPECT_EQ(e.error->message, "30 s");
    EXPECT_THROW(readMeasurementText("{"), MeasurementError);
    EXPECT_THROW(loadMeasurementRecord("/nonexistent/run.json"), MeasurementError);
}

TEST(MeasurementDocument, MangledDocumentsOnlyEverThrowMeasurementError) {
    // Every value of a runner result, a CLI compare document and the GUI fixture replaced by each
    // JSON type: the reader reads it or throws MeasurementError, nothing else.
    const json docs[] = {json{{"result", toJson(pairedResult(1.3, 1e-7))}},
                         writeMeasurement([] {
                             MeasurementRecord rec;
                             rec.result = pairedResult(1.3, 1e-7);
                             rec.launches = {launchRecord("k"), launchRecord("k")};
                             return rec;
                         }()),
                         json::parse(readFile(dataDir() / "measure" / "synthetic_compare.json"))};
    const json replacements[] = {nullptr, 7, -1.5, "x", json::array(), json::object(), 1e300};
    int cases = 0;
    for (const json& doc : docs) {
        std::vector<json::json_pointer> pointers;
        lowerscope::testutil::allPointers(doc, json::json_pointer(), pointers);
        for (const auto& ptr : pointers) {
            for (const json& r : replacements) {
                json mangled = doc;
                mangled[ptr] = r;
                ++cases;
                try {
                    const MeasurementRecord rec = readMeasurement(mangled);
                    (void)timingVerdict(rec.result);
                    if (rec.ok()) (void)writeMeasurement(rec);
                } catch (const MeasurementError&) {
                } catch (const std::exception& e) {
                    ADD_FAILURE() << ptr.to_string() << " = " << r.dump() << ": " << e.what();
                }
            }
        }
    }
    EXPECT_GT(cases, 1000);
}

// ------------------------------------------------------------------------------- measuring

namespace {

// A side the fake runner answers according to its symbol ("ok", "fault", "hang", ...).
MeasureSide fakeSide(const std::string& symbol, const std::string& label = "") {
    MeasureSide s;
    s.label = label;
    s.cubin = {1, 2, 3};
    s.mangled = symbol;
    s.signature = "k(int, float*)";
    PtxParam n;
    n.name = "k_param_0";
    n.type = "u32";
    n.size = n.align = 4;
    PtxParam y;
    y.name = "k_param_1";
    y.type = "u64";
    y.size = y.align = 8;
    y.isPointer = true;
    s.params = {n, y};
    s.spec.grid = {"ceil(n/256)"};
    s.spec.block = {"256"};
    s.spec.args = {"n=1000", "y=f32[n]:zeros"};
    s.spec.bytes = "4*n";
    s.file = "k.cu";
    s.buildOptions = "-arch=sm_90";
    return s;
}

RunnerConfig fakeRunner() {
    RunnerConfig c;
    c.command = {FAKE_RUNNER};
    c.deadline = std::chrono::milliseconds(2000);
    return c;
}

} // namespace

TEST(Measure, PreparesResolvesAndRecordsWhereTheLaunchCameFrom) {
    const PreparedSide p = prepareSide(fakeSide("ok", "A"));
    EXPECT_EQ(p.variant.label, "A");
    EXPECT_EQ(p.variant.kernel, "ok");
    EXPECT_EQ(p.variant.grid, (std::array<uint32_t, 3>{4, 1, 1}));
    ASSERT_EQ(p.variant.buffers.size(), 1u);
    EXPECT_TRUE(p.variant.buffers[0].output); // the non-const pointer of the signature
    EXPECT_EQ(p.launch.file, "k.cu");
    EXPECT_EQ(p.launch.kernelName, "k(int, float*)");
    EXPECT_EQ(p.launch.grid, p.variant.grid);
    ASSERT_EQ(p.launch.args.size(), 2u);
    EXPECT_EQ(p.launch.args[0], (RecordedArg{"n", "1000", "u32"}));
    EXPECT_EQ(p.launch.bytes, std::optional<double>(4000));
    // A launch that does not fit the kernel, and a side without a build.
    MeasureSide bad = fakeSide("ok");
    bad.spec.args = {"n=1000"};
    EXPECT_THROW(prepareSide(bad), ArgSpecError);
    MeasureSide unbuilt = fakeSide("ok");
    unbuilt.cubin.clear();
    EXPECT_THROW(prepareSide(unbuilt), std::invalid_argument);

    MeasureSettings settings;
    settings.mode = MeasureMode::Hot;
    settings.stop.minSamples = 0;
    settings.atol = 1e-3;
    const RunRequest req = measureRequest({p, p}, settings);
    EXPECT_EQ(req.variants.size(), 2u);
    EXPECT_EQ(req.mode, MeasureMode::Hot);
    EXPECT_EQ(req.stop.minSamples, 1u);
    EXPECT_EQ(req.atol, 1e-3);
}

TEST(Measure, OneRunThroughTheRunnerBecomesADocument) {
    ProcessRunner runner(fakeRunner());
    int progress = 0;
    const MeasurementRecord rec =
        measure(runner, {prepareSide(fakeSide("ok"))}, MeasureSettings{}, [&](const RunProgress&) { ++progress; });
    ASSERT_TRUE(rec.ok()) << (rec.error ? rec.error->message : "");
    EXPECT_EQ(progress, 1);
    EXPECT_EQ(rec.result.variants.at(0).samplesMs, (std::vector<double>{1.0, 1.1, 0.9}));
    ASSERT_EQ(rec.launches.size(), 1u);
    const json doc = writeMeasurement(rec);
    EXPECT_EQ(doc["schema"], kRunSchema);
    EXPECT_EQ(doc["file"], "k.cu");
    EXPECT_EQ(doc["device"]["name"], "Fake GPU");
    EXPECT_DOUBLE_EQ(doc["stats"]["median_ms"].get<double>(), 1.0);
    EXPECT_EQ(readMeasurement(doc).launches.at(0), rec.launches[0]);
}

TEST(Measure, FailuresAndCancellationAreRecordsWithAnError) {
    ProcessRunner runner(fakeRunner());
    MeasurementRecord fault = measure(runner, {prepareSide(fakeSide("fault"))}, MeasureSettings{});
    ASSERT_TRUE(fault.error);
    EXPECT_EQ(fault.error->kind, RunErrorKind::KernelFault);
    EXPECT_EQ(readMeasurement(writeMeasurement(fault)).error->kind, RunErrorKind::KernelFault);

    std::atomic<bool> cancel{true};
    MeasurementRecord cancelled = measure(runner, {prepareSide(fakeSide("hang"))}, MeasureSettings{}, {}, &cancel);
    ASSERT_TRUE(cancelled.error);
    EXPECT_EQ(cancelled.error->kind, RunErrorKind::Cancelled);

    MeasurementRecord nothing = measure(runner, {}, MeasureSettings{});
    ASSERT_TRUE(nothing.error);
    EXPECT_EQ(nothing.error->kind, RunErrorKind::BadLaunch);
}
