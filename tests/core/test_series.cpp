// Parameter series (issue 15): the spec forms, refusal of values that are not plain tokens (they
// travel to nvcc's argv), the series document's paired ratios, the SVG chart and the Markdown
// table; `experiment --vary` and core's series job (the GUI's) end to end with the real runner on
// the fake GPU; the defensive reader of series documents.
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "core/experiment/series.h"
#include "core/experiment/series_job.h"
#include "fake_gpu_cli.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

using namespace lowerscope;
namespace fs = std::filesystem;

TEST(Series, SpecForms) {
    SeriesSpec d = parseSeriesSpec("-D CHAINS=1,2,4,8");
    EXPECT_EQ(d.kind, SeriesKind::Define);
    EXPECT_EQ(d.name, "CHAINS");
    EXPECT_EQ(d.values, (std::vector<std::string>{"1", "2", "4", "8"}));
    EXPECT_EQ(seriesPointLabel(d, 2), "CHAINS=4");
    EXPECT_EQ(seriesBuildWords(d, 2), std::vector<std::string>{"-DCHAINS=4"});
    EXPECT_EQ(parseSeriesSpec("-DN=3, 5").values, (std::vector<std::string>{"3", "5"}));

    SeriesSpec o = parseSeriesSpec("--maxrregcount=32,64,128");
    EXPECT_EQ(o.kind, SeriesKind::BuildOption);
    EXPECT_EQ(seriesBuildWords(o, 1), std::vector<std::string>{"--maxrregcount=64"});
    EXPECT_EQ(seriesBuildWords(parseSeriesSpec("-O=0,3"), 1), std::vector<std::string>{"-O3"});
    EXPECT_EQ(seriesBuildWords(parseSeriesSpec("--arch=sm_80,sm_90"), 0),
              std::vector<std::string>{"--arch=sm_80"});

    SeriesSpec a = parseSeriesSpec("--arg iters=1024,4096");
    EXPECT_EQ(a.kind, SeriesKind::LaunchArg);
    EXPECT_EQ(a.name, "iters");
    EXPECT_TRUE(seriesBuildWords(a, 0).empty());
    SeriesSpec b = parseSeriesSpec("--block=32;64,2;128");
    EXPECT_EQ(b.kind, SeriesKind::Block);
    EXPECT_EQ(b.values, (std::vector<std::string>{"32", "64,2", "128"}));
}

TEST(Series, AtMostSixtyFourValues) {
    // 64 points: the series document's own limit (kMaxSeriesPoints), e.g. one request fanned out
    // over a cluster's groups (issue 32); one more is refused.
    std::string v = "1";
    for (int i = 2; i <= 64; ++i) v += "," + std::to_string(i);
    EXPECT_EQ(parseSeriesSpec("--arg iters=" + v).values.size(), 64u);
    EXPECT_THROW(parseSeriesSpec("--arg iters=" + v + ",65"), std::invalid_argument);
}

TEST(Series, ValuesThatAreNotPlainTokensAreRefused) {
    for (const char* bad : {"-D X=$(id),1", "-D X=1,`id`", "-D X=1;2", "-D X=a b,c",
                            "--maxrregcount=32,$HOME", "--arg n=1<<20,2", "-D 1X=1,2", "-D X=1", "-D X=1,1",
                            "CHAINS=1,2", "--maxrregcount", "-D X=1,\"2\"", "--block=32;6'4"}) {
        EXPECT_THROW(parseSeriesSpec(bad), std::invalid_argument) << bad;
    }
}

TEST(Series, DocumentPairsEachPointWithTheFirst) {
    const SeriesSpec s = parseSeriesSpec("-D CHAINS=1,2,4");
    std::vector<SeriesPoint> pts(3);
    for (size_t i = 0; i < 3; ++i) {
        pts[i].label = seriesPointLabel(s, i);
        pts[i].value = s.values[i];
        pts[i].registers = int(10 + i);
        pts[i].mode = "cold";
        // Point i takes 1/(i+1) of the first's time, with a little noise.
        for (int k = 0; k < 20; ++k) pts[i].samplesMs.push_back((1.0 + 0.001 * (k % 5)) / double(i + 1));
    }
    DeviceInfo dev;
    dev.name = "Test GPU";
    const nlohmann::json doc = seriesDocument(s, "k.cu", "k", dev, pts);
    EXPECT_EQ(doc["schema"], "lowerscope.series/1");
    ASSERT_EQ(doc["points"].size(), 3u);
    EXPECT_DOUBLE_EQ(doc["points"][0]["ratio_to_first"].get<double>(), 1.0);
    EXPECT_NEAR(doc["points"][1]["ratio_to_first"].get<double>(), 0.5, 1e-9);
    EXPECT_NEAR(doc["points"][2]["ratio_to_first"].get<double>(), 1.0 / 3, 1e-9);
    EXPECT_TRUE(doc["points"][2]["significant"].get<bool>());
    EXPECT_EQ(doc["points"][1]["registers"], 11);
    EXPECT_TRUE(doc["points"][1]["spill_bytes"].is_null()) << "unknown is null, not zero";

    const std::string svg = seriesSvg(doc);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    const std::regex circle("<circle ");
    EXPECT_EQ(std::distance(std::sregex_iterator(svg.begin(), svg.end(), circle), std::sregex_iterator()), 3);

    const std::string md = seriesMarkdown(doc, "", "fewer chains wait longer", "k.svg", "lowerscope-cli ...");
    EXPECT_NE(md.find("| CHAINS=2 | "), std::string::npos) << md;
    EXPECT_NE(md.find("0.500 ("), std::string::npos) << md;
    EXPECT_NE(md.find("![median per point](k.svg)"), std::string::npos);
    EXPECT_NE(md.find("fewer chains wait longer"), std::string::npos);
}

TEST(Series, OnOffFlagsVaryAsOffAndOn) {
    const SeriesSpec f = parseSeriesSpec("--fast-math=off,on");
    EXPECT_EQ(f.kind, SeriesKind::BuildOption);
    EXPECT_TRUE(seriesBuildWords(f, 0).empty()) << "off adds nothing";
    EXPECT_EQ(seriesBuildWords(f, 1), std::vector<std::string>{"--fast-math"});
    EXPECT_EQ(seriesPointLabel(f, 1), "--fast-math=on");
    EXPECT_EQ(seriesBuildWords(parseSeriesSpec("--extra-device-vectorization=on,off"), 0),
              std::vector<std::string>{"--extra-device-vectorization"});
    EXPECT_THROW(parseSeriesSpec("--fast-math=0,1"), std::invalid_argument);
    EXPECT_THROW(parseSeriesSpec("--device-debug=on,yes"), std::invalid_argument);
}

TEST(Series, SvgEscapesNamesFromTheDocument) {
    const SeriesSpec s = parseSeriesSpec("-D N=1,2");
    std::vector<SeriesPoint> pts(2);
    pts[0].samplesMs = {1, 1, 1};
    pts[1].samplesMs = {2, 2, 2};
    nlohmann::json doc = seriesDocument(s, "k.cu", "<script>k", DeviceInfo{}, pts);
    EXPECT_EQ(seriesSvg(doc).find("<script>"), std::string::npos);
}

TEST(CliSeries, VaryADefineBuildsEachPointAndMeasuresThemInOneRun) {
    static Toolchain tc = discoverToolchain();
    if (!tc.nvcc.found() || !tc.nvdisasm.found()) GTEST_SKIP() << "nvcc/nvdisasm not found";
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-series-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<std::string> args = {"experiment",
                                     std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/ffma_chains.cu",
                                     "--vary",
                                     "-D CHAINS=1,4,16",
                                     "--min-samples",
                                     "3",
                                     "--min-time",
                                     "0",
                                     "--max-time",
                                     "5",
                                     "-o",
                                     (dir / "s").string()};
    const ProcessResult r = testutil::runCliOnFakeGpu(args, dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::ifstream in(dir / "s.series.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    ASSERT_EQ(doc["points"].size(), 3u);
    // Three builds: more chains keep more values live, so the register counts differ.
    const int r1 = doc["points"][0]["registers"].get<int>(), r16 = doc["points"][2]["registers"].get<int>();
    EXPECT_LT(r1, r16);
    EXPECT_NE(doc["points"][1]["build_options"].get<std::string>().find("-DCHAINS=4"), std::string::npos);
    for (const auto& p : doc["points"]) EXPECT_GE(p["samples"].size(), 3u) << "every point measured";
    EXPECT_TRUE(fs::exists(dir / "s.svg"));
    EXPECT_TRUE(fs::exists(dir / "s.md"));
    // A value nvcc's shell would read is refused before anything is built.
    args[3] = "-D CHAINS=1,$(touch " + (dir / "ran").string() + ")";
    const ProcessResult bad = testutil::runCliOnFakeGpu(args, dir / "cache");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.stderrText.find("not a plain value"), std::string::npos) << bad.stderrText;
    EXPECT_FALSE(fs::exists(dir / "ran"));
    fs::remove_all(dir);
}

TEST(Series, PointProfileKeepsWhatIsWellFormed) {
    const nlohmann::json doc = {
        {"collections", {{"kernel", {{"ok", true}}}, {"samples", {{"ok", false}}}}},
        {"metrics",
         {{{"name", "sm__warps_active.avg.pct_of_peak_sustained_active"}, {"value", 74.8}},
          {{"name", "bad"}, {"value", "74"}},
          "not an object"}},
        {"kernel_totals",
         {{"counts", {{"smsp__sass_inst_executed", 1000u}}},
          {"samples", {{"long_scoreboard", 300u}, {"wait", 100u}, {"junk", "x"}}}}}};
    const nlohmann::json p = seriesPointProfile(doc);
    EXPECT_EQ(p["metrics"].size(), 1u);
    EXPECT_DOUBLE_EQ(p["metrics"]["sm__warps_active.avg.pct_of_peak_sustained_active"].get<double>(), 74.8);
    EXPECT_EQ(p["collections_failed"], nlohmann::json::array({"samples"}));
    EXPECT_EQ(p["instructions_executed"], 1000u);
    ASSERT_EQ(p["stalls"].size(), 2u);
    EXPECT_EQ(p["stalls"][0][0], "long_scoreboard");
    EXPECT_DOUBLE_EQ(p["stalls"][0][1].get<double>(), 0.75);
    EXPECT_TRUE(seriesPointProfile("a string")["metrics"].empty());
}

TEST(CliSeries, ProfileAddsCountersToEveryPoint) {
    static Toolchain tc = discoverToolchain();
    if (!tc.nvcc.found() || !tc.nvdisasm.found()) GTEST_SKIP() << "nvcc/nvdisasm not found";
    const fs::path dir =
        fs::temp_directory_path() / ("lowerscope-series-profile-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const ProcessResult r = testutil::runCliOnFakeGpu(
        {"experiment", std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/ffma_chains.cu", "--vary",
         "-D CHAINS=1,4", "--profile", "--arg", "iters=64", "--min-samples", "3", "--min-time", "0",
         "--max-time", "5", "-o", (dir / "s").string()},
        dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::ifstream in(dir / "s.series.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& p : doc["points"]) {
        ASSERT_TRUE(p.contains("profile")) << p.dump().substr(0, 300);
        EXPECT_FALSE(p["profile"]["metrics"].empty());
        // The fake counts 1000 x (offset/16 + 1) at the first four offsets of whatever it profiles.
        EXPECT_EQ(p["profile"]["instructions_executed"], 10000u);
        EXPECT_TRUE(p["profile"]["collections_failed"].empty());
    }
    std::ifstream mdIn(dir / "s.md");
    const std::string md((std::istreambuf_iterator<char>(mdIn)), std::istreambuf_iterator<char>());
    EXPECT_NE(md.find("Counters, one profiled launch per point"), std::string::npos) << md;
    // The reproduce command keeps what shaped the launch and the collection.
    EXPECT_NE(md.find("--arg iters=64"), std::string::npos) << md;
    EXPECT_NE(md.find("--profile --profile-metrics"), std::string::npos) << md;
    fs::remove_all(dir);
}

namespace {

nlohmann::json twoPointSeries(const std::string& name, const std::vector<std::string>& values, double scale) {
    const SeriesSpec s = parseSeriesSpec("--arg " + name + "=" + values[0] + "," + values[1]);
    std::vector<SeriesPoint> pts(2);
    for (size_t i = 0; i < 2; ++i) {
        pts[i].label = seriesPointLabel(s, i);
        pts[i].value = values[i];
        pts[i].samplesMs = {scale * (i + 1), scale * (i + 1), scale * (i + 1) * 1.01};
    }
    return seriesDocument(s, "k.cu", "k", DeviceInfo{}, pts);
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

} // namespace

TEST(Series, OverlayDrawsOneLineAndLegendEntryPerSeries) {
    const auto a = twoPointSeries("s", {"0", "1"}, 1), b = twoPointSeries("s", {"0", "1"}, 0.01);
    const std::string svg = seriesOverlaySvg({{"dense", a}, {"skip & <b>", b}}, "t", false);
    EXPECT_EQ(count(svg, "<circle "), 4u);
    EXPECT_EQ(count(svg, "<path "), 2u);
    EXPECT_NE(svg.find(">dense</text>"), std::string::npos);
    EXPECT_NE(svg.find("skip &amp; &lt;b&gt;"), std::string::npos) << "legend names are escaped";
    // Log axis: whole decades from 10 µs (the smaller series) to 10 ms.
    const std::string log = seriesOverlaySvg({{"dense", a}, {"skip", b}}, "t", true);
    EXPECT_NE(log.find(">10.00 µs</text>"), std::string::npos) << log;
    EXPECT_NE(log.find(">10.00 ms</text>"), std::string::npos) << log;
    EXPECT_NE(log.find("log time axis"), std::string::npos);
    // The single-series chart has no legend.
    EXPECT_EQ(seriesSvg(a).find(">dense</text>"), std::string::npos);
    // Untrusted shapes are skipped, never thrown on.
    EXPECT_NO_THROW(seriesOverlaySvg(
        {{"x", nlohmann::json{{"points", "no"}}}, {"y", nlohmann::json::array()}}, "t", true));
    EXPECT_NO_THROW(seriesOverlaySvg({{"x", nlohmann::json{{"points", {1, "a", nlohmann::json::object()}}}}},
                                     "t", false));
}

TEST(CliChart, OverlaysSeriesThatShareTheirPointsAndRefusesOthers) {
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-chart-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto write = [&](const std::string& name, const nlohmann::json& j) {
        std::ofstream(dir / name) << j.dump();
        return (dir / name).string();
    };
    const std::string a = write("a.series.json", twoPointSeries("M", {"512", "1024"}, 1));
    const std::string b = write("b.series.json", twoPointSeries("M", {"512", "1024"}, 2));
    const std::string c = write("c.series.json", twoPointSeries("count", {"262144", "1048576"}, 0.1));
    const std::string bad = write("bad.series.json", nlohmann::json{{"schema", "lowerscope.series/1"},
                                                                    {"points", {{{"median_ms", "1"}}}}});
    auto chart = [&](std::vector<std::string> args) {
        ProcessSpec spec;
        spec.argv = {LOWERSCOPE_CLI, "chart"};
        spec.argv.insert(spec.argv.end(), args.begin(), args.end());
        return runProcess(spec);
    };
    const ProcessResult ok = chart({"fused=" + a, "plain=" + b, "-o", (dir / "ab.svg").string()});
    ASSERT_EQ(ok.exitCode, 0) << ok.stderrText;
    EXPECT_NE(ok.stdoutText.find("| M | fused | plain |"), std::string::npos) << ok.stdoutText;
    EXPECT_NE(ok.stdoutText.find("| 1024 | 2.0"), std::string::npos) << ok.stdoutText;
    std::ifstream in(dir / "ab.svg");
    const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(count(svg, "<circle "), 4u);

    const ProcessResult mismatch = chart({"fused=" + a, "relu=" + c, "-o", (dir / "ac.svg").string()});
    EXPECT_EQ(mismatch.exitCode, 2);
    EXPECT_NE(mismatch.stderrText.find("--by-position"), std::string::npos) << mismatch.stderrText;
    EXPECT_EQ(chart({"fused=" + a, "relu=" + c, "--by-position", "--log", "-o", (dir / "ac.svg").string()})
                  .exitCode,
              0);
    EXPECT_EQ(chart({"x=" + bad, "-o", (dir / "x.svg").string()}).exitCode, 2)
        << "a non-numeric median is refused";
    EXPECT_EQ(chart({"x=" + (dir / "missing.json").string(), "-o", (dir / "x.svg").string()}).exitCode, 2);
    EXPECT_EQ(chart({"noequals", "-o", (dir / "x.svg").string()}).exitCode, 2);
    fs::remove_all(dir);
}

TEST(SeriesJob, PointsApplyToBuildOptionsAndLaunch) {
    BuildOptions base;
    base.defines = {"CHAINS=2", "OTHER"};
    const SeriesSpec d = parseSeriesSpec("-D CHAINS=1,8");
    const BuildOptions o = applySeriesOption(base, d, 1);
    EXPECT_EQ(o.defines, (std::vector<std::string>{"OTHER", "CHAINS=8"})) << "the define is replaced, not doubled";
    EXPECT_EQ(applySeriesOption(base, parseSeriesSpec("--maxrregcount=32,64"), 1).maxRegCount, 64);
    EXPECT_EQ(applySeriesOption(base, parseSeriesSpec("--ptxas-opt=0,1"), 0).ptxasOpt, 0);
    EXPECT_EQ(applySeriesOption(base, parseSeriesSpec("--fmad=true,false"), 1).fmad, 0);
    EXPECT_TRUE(applySeriesOption(base, parseSeriesSpec("--fast-math=off,on"), 1).fastMath);
    EXPECT_FALSE(applySeriesOption(base, parseSeriesSpec("--fast-math=off,on"), 0).fastMath);
    EXPECT_TRUE(applySeriesOption(base, parseSeriesSpec("--extra-device-vectorization=off,on"), 1).extraDeviceVectorization);
    EXPECT_THROW(applySeriesOption(base, parseSeriesSpec("--maxrregcount=32,x1"), 1), LaunchBuildError);
    EXPECT_THROW(applySeriesOption(base, parseSeriesSpec("--ptxas-opt=1,7"), 1), LaunchBuildError);
    EXPECT_THROW(applySeriesOption(base, parseSeriesSpec("--nvcc-flag=a,b"), 0), LaunchBuildError);
    EXPECT_THROW(applySeriesOption(base, parseSeriesSpec("--arch=sm_90,bogus"), 1), LaunchBuildError);

    LaunchText l;
    l.args = {"n=16", "iters=4"};
    const LaunchText a = applySeriesLaunch(l, parseSeriesSpec("--arg iters=8,16"), 1);
    EXPECT_EQ(a.args, (std::vector<std::string>{"n=16", "iters=16"}));
    EXPECT_EQ(applySeriesLaunch(l, parseSeriesSpec("--arg m=1,2"), 0).args.back(), "m=1");
    EXPECT_EQ(applySeriesLaunch(l, parseSeriesSpec("--block=32,2;64,2"), 1).block,
              (std::vector<std::string>{"64", "2"}));
    EXPECT_EQ(applySeriesLaunch(l, parseSeriesSpec("--grid=1;2"), 1).grid, (std::vector<std::string>{"2"}));
}

TEST(SeriesJob, LocalRunOnTheFakeGpuMeasuresEveryPoint) {
    static Toolchain tc = discoverToolchain();
    if (!tc.nvcc.found() || !tc.nvdisasm.found()) GTEST_SKIP() << "nvcc/nvdisasm not found";
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-series-job-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    ::setenv("LOWERSCOPE_CACHE_DIR", (dir / "cache").c_str(), 1);
    ::setenv("LOWERSCOPE_LIBCUDA", FAKE_GPU, 1);
    ::setenv("LOWERSCOPE_LIBCUPTI", FAKE_GPU, 1);
    LocalSeriesRequest r;
    r.spec = parseSeriesSpec("-D CHAINS=1,4,16");
    r.toolchain = tc;
    r.sourcePath = std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/ffma_chains.cu";
    r.kernel = "ffma_chains";
    r.launch = defaultLaunch(r.sourcePath, r.kernel, {}); // from the sidecar ffma_chains.json
    r.stop.minSamples = 3;
    r.stop.minGpuTimeS = 0;
    r.stop.wallLimitS = 5;
    r.runnerCommand = {RUNNER_BIN};
    r.profile = true;
    r.profileOptions.collections = {ProfileCollection::Kernel};
    std::vector<std::string> stages;
    std::atomic<bool> cancel{false};
    const LocalSeriesOutcome out = runLocalSeriesJob(r, &cancel, [&](const std::string& s) { stages.push_back(s); });
    ASSERT_TRUE(out.ok) << out.error;
    SeriesSummary s;
    std::string error;
    ASSERT_TRUE(readSeriesDocument(out.document, s, error)) << error;
    ASSERT_EQ(s.points.size(), 3u);
    EXPECT_EQ(s.points[2].label, "CHAINS=16");
    EXPECT_EQ(s.file, "ffma_chains.cu");
    EXPECT_LT(s.points[0].registers, s.points[2].registers) << "three builds, not one";
    for (const auto& p : out.document["points"]) {
        EXPECT_GE(p["samples"].size(), 3u);
        EXPECT_TRUE(p.contains("profile"));
    }
    EXPECT_EQ(stages.front(), "build 1/3");
    EXPECT_NE(std::find(stages.begin(), stages.end(), "measure"), stages.end());

    // Cancelled before it starts: nothing is built or run, and it says so.
    cancel = true;
    const LocalSeriesOutcome stopped = runLocalSeriesJob(r, &cancel, {});
    EXPECT_FALSE(stopped.ok);
    EXPECT_TRUE(stopped.cancelled);
    // A launch that does not fit the kernel is an error with a message, not a crash.
    cancel = false;
    r.launch.args = {"bogus=1"};
    r.profile = false;
    const LocalSeriesOutcome bad = runLocalSeriesJob(r, &cancel, {});
    EXPECT_FALSE(bad.ok);
    EXPECT_FALSE(bad.error.empty());
    fs::remove_all(dir);
}

TEST(SeriesDocument, RecordedExamplesRead) {
    for (const char* name : {"ffma_chains", "ffma_warps_c1", "ffma_warps_c8", "sgemm_ptxas_opt", "sgemm_maxrregcount",
                             "sgemm_maxrregcount_profile"}) {
        std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/" + name + ".series.json");
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        SeriesSummary s;
        std::string error;
        ASSERT_TRUE(readSeriesText(text, s, error)) << name << ": " << error;
        EXPECT_GE(s.points.size(), 2u) << name;
        EXPECT_EQ(s.device, "NVIDIA H200") << name;
        EXPECT_TRUE(s.points[1].hasRatio) << name;
    }
}

TEST(SeriesDocument, HostileDocumentsAreRefusedOrCleaned) {
    using nlohmann::json;
    const json point{{"label", "a"}, {"median_ms", 1.0}, {"ci_low_ms", 0.9}, {"ci_high_ms", 1.1}};
    auto doc = [](json points) { return json{{"schema", "lowerscope.series/1"}, {"points", std::move(points)}}; };
    SeriesSummary s;
    std::string error;
    EXPECT_FALSE(readSeriesDocument(json::array(), s, error));
    EXPECT_FALSE(readSeriesDocument(json{{"schema", "lowerscope.series/2"}, {"points", {point}}}, s, error));
    EXPECT_NE(error.find("not a series document"), std::string::npos);
    EXPECT_FALSE(readSeriesDocument(doc("many"), s, error));
    EXPECT_FALSE(readSeriesDocument(doc(json::array()), s, error));
    EXPECT_FALSE(readSeriesDocument(doc(json(std::vector<json>(65, point))), s, error));
    EXPECT_NE(error.find("at most 64"), std::string::npos) << error;
    json negative = point;
    negative["median_ms"] = -1;
    EXPECT_FALSE(readSeriesDocument(doc({point, negative}), s, error));
    json outside = point;
    outside["ci_low_ms"] = 2.0;
    EXPECT_FALSE(readSeriesDocument(doc({outside}), s, error));
    json text = point;
    text["median_ms"] = "1.0";
    EXPECT_FALSE(readSeriesDocument(doc({text}), s, error));
    // Wrong types are ignored, control characters escaped, long strings cut.
    json odd = point;
    odd["registers"] = "lots";
    odd["occupancy"] = 7;
    odd["label"] = std::string("\x1b[31mred") + std::string(1000, 'x');
    odd["ratio_to_first"] = json::array();
    ASSERT_TRUE(readSeriesDocument(doc({odd}), s, error)) << error;
    EXPECT_EQ(s.points[0].registers, -1);
    EXPECT_EQ(s.points[0].occupancy, -1);
    EXPECT_FALSE(s.points[0].hasRatio);
    EXPECT_EQ(s.points[0].label.find('\x1b'), std::string::npos);
    EXPECT_LE(s.points[0].label.size(), 220u);
    // Text: too deep or too large is refused before parsing.
    EXPECT_FALSE(readSeriesText(std::string(100, '[') + std::string(100, ']'), s, error));
    EXPECT_FALSE(readSeriesText(std::string(kMaxSeriesDocumentBytes + 10, ' '), s, error));
    EXPECT_FALSE(readSeriesText("{not json", s, error));
}

// The chart and the report of a document from anyone (fuzz_documents found both throwing): fields
// of the wrong type read as absent, absurd times are not plotted, nothing throws or hangs.
TEST(SeriesDocument, ChartAndReportOfHostileDocumentsDoNotThrow) {
    using nlohmann::json;
    const json good{{"label", "a"}, {"value", "1"}, {"median_ms", 1.0}, {"ci_low_ms", 0.9}, {"ci_high_ms", 1.1}};
    json odd{{"label", 5},           {"value", 7},       {"median_ms", 1e300}, {"ci_low_ms", "x"},
             {"ci_high_ms", 1e308}, {"noise", "high"}, {"ratio_ci_low", 1},  {"significant", "yes"}};
    const json doc{{"schema", "lowerscope.series/1"}, {"kernel", 3}, {"name", json::array()},
                   {"device", {{"name", 9}}},          {"points", {good, odd, "not a point"}}};
    std::string svg, md;
    EXPECT_NO_THROW(svg = seriesSvg(doc));
    EXPECT_NO_THROW(md = seriesMarkdown(doc, "", "", "c.svg", "", 2.5, 1));
    EXPECT_EQ(svg.find("inf"), std::string::npos) << "the 1e300 ms point reached the axis";
    EXPECT_NE(md.find("an unnamed device"), std::string::npos);
    EXPECT_NE(md.find("not significant"), std::string::npos);
    for (const json& notADocument : {json("text"), json::array(), json(nullptr), json{{"points", 4}}}) {
        EXPECT_NO_THROW(seriesSvg(notADocument));
        EXPECT_NO_THROW(seriesMarkdown(notADocument, "t", "", "", "", 2.5, 1));
        EXPECT_NO_THROW(seriesOverlaySvg({{"a", notADocument}, {"b", doc}}, "t", true));
    }
}
