// Experiment 4, the CUDA Graph break-even: the graph path in the runner protocol (round trip,
// hostile answers), the summary's predicted and measured break-even on controlled numbers, the
// lowerscope.graph_break_even/1 document, its Markdown and SVG; and `experiment --graph-break-even`
// end to end with the real runner on the fake GPU, whose host costs per launch and per instantiate
// are set so that the graph must lose at R = 1 and win at large R.
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "core/experiment/graph_break_even.h"
#include "core/experiment/graph_break_even_job.h"
#include "core/run/protocol.h"
#include "core/run/runner_client.h"
#include "fake_gpu_cli.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

using namespace lowerscope;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

GraphPathEntry entry(int n, double fixedEach, double streamUs, double graphUs,
                     const std::vector<std::tuple<int, double, double>>& points) {
    GraphPathEntry e;
    e.pathLength = n;
    e.captureMs = {fixedEach, fixedEach, fixedEach};
    e.instantiateMs = {fixedEach, 100, fixedEach}; // the median ignores the outlier
    e.uploadMs = {fixedEach, fixedEach, fixedEach};
    e.steadyPaths = 64;
    e.streamPathUs = {streamUs, streamUs + 1, streamUs - 1};
    e.graphPathUs = {graphUs, graphUs, graphUs};
    e.streamPathGpuUs = {streamUs / 2, streamUs / 2, streamUs / 2};
    e.graphPathGpuUs = {graphUs / 2, graphUs / 2, graphUs / 2};
    for (const auto& [r, s, g] : points) e.points.push_back(GraphPathPoint{r, {s, s * 2, s}, {g, g, g * 3}});
    return e;
}

VariantResult variantWith(std::vector<GraphPathEntry> paths, const std::string& note = "") {
    VariantResult v;
    v.label = "";
    v.kernel = "path_step";
    v.mode = "hot";
    v.samplesMs = {0.002, 0.003, 0.002};
    v.graphPath = GraphPathResult{3, std::move(paths), note};
    return v;
}

std::string readAll(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST(GraphPathProtocol, RequestAndResultRoundTripAndOldJsonIsUnchanged) {
    RunRequest req;
    req.id = "7";
    LaunchVariant lv;
    lv.kernel = "k";
    req.variants = {lv};
    const json plain = toJson(req);
    EXPECT_FALSE(plain.contains("graph_path")) << "requests without a graph path keep their old JSON";
    req.graphPath = GraphPathOptions{{1, 4, 16}, {1, 2, 8}, 9, 30};
    RunRequest back;
    fromJson(toJson(req), back);
    EXPECT_EQ(back, req);

    VariantResult v = variantWith({entry(4, 0.01, 20, 5, {{1, 0.1, 0.2}, {8, 0.8, 0.3}})}, "stopped");
    EXPECT_FALSE(toJson(VariantResult{}).contains("graph_path"));
    VariantResult vb;
    fromJson(toJson(v), vb);
    EXPECT_EQ(vb, v);
}

TEST(GraphPathProtocol, OptionsOutsideTheLimitsAreRefusedWithTheFieldNamed) {
    const json good = toJson(GraphPathOptions{{1, 4}, {1, 2, 4}, 9, 60});
    auto refuse = [&](const char* key, const json& value, const std::string& expect) {
        json j = good;
        j[key] = value;
        GraphPathOptions o;
        try {
            fromJson(j, o);
            ADD_FAILURE() << key << " = " << value.dump() << " was accepted";
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
        }
    };
    refuse("path_lengths", json::array(), "path_lengths");
    refuse("path_lengths", json::array({0}), "path_lengths");
    refuse("path_lengths", json::array({4, 4}), "twice");
    refuse("path_lengths", json::array({5000}), "path_lengths");
    refuse("path_lengths", "1,4", "path_lengths");
    refuse("replays", json::array({4, 2}), "increase");
    refuse("replays", json::array({1, 200000}), "replays");
    refuse("replays", json::array({1.5}), "replays");
    refuse("repetitions", 2, "repetitions");
    refuse("repetitions", 1000, "repetitions");
    refuse("wall_limit_s", -1, "wall_limit_s");
    refuse("wall_limit_s", nullptr, "wall_limit_s");
    std::vector<int> many(17);
    for (int i = 0; i < 17; ++i) many[static_cast<size_t>(i)] = i + 1;
    refuse("path_lengths", many, "path_lengths");
    EXPECT_EQ(checkGraphPathOptions(GraphPathOptions{{1}, {1}, 9, 1}), "");
    EXPECT_EQ(checkGraphPathOptions(GraphPathOptions{{4096}, {4096}, 9, 1}), "") << "2^24 launches at most";
    EXPECT_NE(checkGraphPathOptions(GraphPathOptions{{1, 4096}, {1, 4097}, 9, 1}).find("16777216"),
              std::string::npos);
}

TEST(GraphPathProtocol, HostileResultsAreRefused) {
    const json good = toJson(*variantWith({entry(4, 0.01, 20, 5, {{1, 0.1, 0.2}})}).graphPath);
    GraphPathResult r;
    fromJson(good, r); // the baseline reads
    auto refuse = [&](const std::function<void(json&)>& spoil, const std::string& expect) {
        json j = good;
        spoil(j);
        GraphPathResult out;
        try {
            fromJson(j, out);
            ADD_FAILURE() << "accepted: " << j.dump().substr(0, 200);
        } catch (const ProtocolError& e) {
            EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
        }
    };
    refuse([](json& j) { j["paths"][0]["capture_ms"][0] = -1; }, "capture_ms");
    refuse([](json& j) { j["paths"][0]["stream_path_us"][1] = nullptr; },
           "stream_path_us"); // NaN on the wire
    refuse([](json& j) { j["paths"][0]["points"][0]["graph_ms"].push_back(1.0); }, "graph_ms");
    refuse([](json& j) { j["paths"][0]["points"][0]["replays"] = 0; }, "replays");
    refuse([](json& j) { j["paths"][0]["path_length"] = 1 << 20; }, "path_length");
    refuse([](json& j) { j["paths"][0].erase("path_length"); }, "path_length");
    refuse([](json& j) { j["paths"][0]["points"] = "many"; }, "points");
    refuse([](json& j) { j["paths"] = json::object(); }, "paths");
    refuse([](json& j) { j.erase("paths"); }, "paths");
    refuse([](json& j) { j["paths"][0]["steady_paths"] = -3; }, "steady_paths");
    refuse([](json& j) { j["repetitions"] = 5000; }, "repetitions");
    refuse(
        [](json& j) {
            j["paths"][0]["points"] = json::array();
            for (int i = 0; i < 65; ++i) j["paths"][0]["points"].push_back(json{{"replays", 1}});
        },
        "points");
    // Through the whole result too: a variant carrying a bad graph path is a protocol error.
    json v = toJson(variantWith({entry(4, 0.01, 20, 5, {{1, 0.1, 0.2}})}));
    v["graph_path"]["paths"][0]["upload_ms"] = json::array({"fast"});
    VariantResult vr;
    EXPECT_THROW(fromJson(v, vr), ProtocolError);
}

TEST(GraphPathProtocol, TheClientAllowsForTheGraphPathInTimeAndSize) {
    RunRequest req;
    req.stop.wallLimitS = 10;
    const auto deadline = std::chrono::milliseconds(1000);
    const auto plain = requestTimeLimit(req, deadline);
    req.graphPath = GraphPathOptions{{1, 4}, {1, 2}, 9, 60};
    EXPECT_EQ(requestTimeLimit(req, deadline) - plain, std::chrono::milliseconds(61000));
}

TEST(GraphBreakEven, PredictedAndMeasuredOnControlledNumbers) {
    // fixed = 3 × 0.1 ms; stream 20 µs vs graph 5 µs per path → R* = 300 / 15 = 20.
    // Totals: the graph loses at R = 16 (by 0.1 ms) and wins at R = 32 (by 0.3 ms) → crossing at
    // 16 + 16 × 0.1 / 0.4 = 20.
    const GraphBreakEvenSummary s = summarizeGraphPath(
        entry(4, 0.1, 20, 5, {{1, 0.05, 0.35}, {16, 0.35, 0.45}, {32, 0.7, 0.4}, {64, 1.3, 0.6}}));
    EXPECT_DOUBLE_EQ(s.fixedMs, 0.3);
    EXPECT_DOUBLE_EQ(s.streamPathUs, 20);
    EXPECT_DOUBLE_EQ(s.graphPathUs, 5);
    ASSERT_TRUE(s.predicted);
    EXPECT_NEAR(*s.predicted, 20.0, 1e-9);
    ASSERT_EQ(s.points.size(), 4u);
    EXPECT_DOUBLE_EQ(s.points[1].streamMs, 0.35); // median of {s, 2s, s}
    EXPECT_DOUBLE_EQ(s.points[1].graphQ3Ms, quantileSorted({0.45, 0.45, 1.35}, 0.75));
    ASSERT_TRUE(s.measured);
    EXPECT_EQ(*s.measured, 32);
    ASSERT_TRUE(s.crossing);
    EXPECT_NEAR(*s.crossing, 20.0, 1e-9);

    // No saving per path: no prediction; never winning: no measured break-even.
    const GraphBreakEvenSummary none =
        summarizeGraphPath(entry(1, 0.1, 5, 6, {{1, 0.01, 0.4}, {64, 0.3, 0.7}}));
    EXPECT_FALSE(none.predicted);
    EXPECT_FALSE(none.measured);
    EXPECT_FALSE(none.crossing);
    // Winning at the smallest R: measured there, nothing bracketed to interpolate.
    const GraphBreakEvenSummary first =
        summarizeGraphPath(entry(64, 0.01, 300, 60, {{2, 0.6, 0.2}, {4, 1.2, 0.3}}));
    ASSERT_TRUE(first.measured);
    EXPECT_EQ(*first.measured, 2);
    EXPECT_FALSE(first.crossing);
}

TEST(GraphBreakEven, CountListsAreCheckedItemByItem) {
    EXPECT_EQ(parseCountList("1,4,16,64", 4096), (std::vector<int>{1, 4, 16, 64}));
    EXPECT_EQ(parseCountList(" 2 , 8", 100), (std::vector<int>{2, 8}));
    for (const char* bad : {"", "1,,4", "1,4,", "0", "-1", "4x", "1.5", "5000", "99999999999"})
        EXPECT_THROW(parseCountList(bad, 4096), std::invalid_argument) << bad;
    const auto d = defaultGraphReplays();
    EXPECT_EQ(checkGraphPathOptions(GraphPathOptions{{1}, d, 9, 120}), "") << "the default list is valid";
}

TEST(GraphBreakEven, DocumentMarkdownAndSvg) {
    const VariantResult v =
        variantWith({entry(4, 0.1, 20, 5, {{1, 0.05, 0.35}, {16, 0.35, 0.45}, {32, 0.7, 0.4}}),
                     entry(16, 0.2, 80, 10, {{1, 0.1, 0.7}, {32, 2.6, 0.9}})});
    DeviceInfo dev;
    dev.name = "Test GPU";
    EXPECT_THROW(graphBreakEvenDocument("f.cu", "k", dev, VariantResult{}), std::invalid_argument);
    const json doc = graphBreakEvenDocument("graph_path.cu", "path_<step>", dev, v);
    EXPECT_EQ(doc["schema"], kGraphBreakEvenSchema);
    ASSERT_EQ(doc["paths"].size(), 2u);
    EXPECT_EQ(doc["paths"][0]["path_length"], 4);
    EXPECT_NEAR(doc["paths"][0]["predicted_break_even"].get<double>(), 20.0, 1e-9);
    EXPECT_EQ(doc["paths"][0]["measured_break_even"], 32);
    EXPECT_NEAR(doc["paths"][0]["saving_per_path_us"].get<double>(), 15.0, 1e-9);
    EXPECT_DOUBLE_EQ(doc["kernel_median_ms"].get<double>(), 0.002);
    // Fits over N = 4, 16: stream 20 µs and 80 µs per path → 0 + 5 µs per kernel; instantiate 100
    // and 200 µs → 66.7 µs + 8.33 µs per kernel.
    EXPECT_NEAR(doc["fits"]["stream_path_us"]["per_launch"].get<double>(), 5.0, 1e-9);
    EXPECT_NEAR(doc["fits"]["stream_path_us"]["fixed"].get<double>(), 0.0, 1e-9);
    EXPECT_NEAR(doc["fits"]["instantiate_us"]["per_launch"].get<double>(), 100.0 / 12, 1e-9);
    EXPECT_NEAR(doc["fits"]["graph_path_us"]["per_launch"].get<double>(), 5.0 / 12, 1e-9);
    GraphPathResult raw;
    fromJson(doc["raw"], raw);
    EXPECT_EQ(raw, *v.graphPath) << "every repetition kept in the document";

    const std::string md = graphBreakEvenMarkdown(doc, "Graphs", "H4a. It pays after 3 replays.", "g.svg",
                                                  "lowerscope-cli experiment x.cu -o g", 2.5, 10);
    EXPECT_NE(md.find("# Graphs"), std::string::npos);
    EXPECT_NE(md.find("H4a. It pays after 3 replays."), std::string::npos);
    EXPECT_NE(md.find("![total time vs replays](g.svg)"), std::string::npos);
    EXPECT_NE(md.find("### N = 16"), std::string::npos);
    EXPECT_NE(md.find("| 4 | 100.0 µs"), std::string::npos) << md;       // N = 4 row: capture median
    EXPECT_NE(md.find("| 20.0 | 32 | 20.0 |"), std::string::npos) << md; // predicted, measured, crossing
    EXPECT_NE(md.find("### Cost of one path, N = 4"), std::string::npos);
    EXPECT_NE(md.find("+ 5.000 µs per kernel; graph replay ≈ 3.333 µs + 416.7 ns per kernel."),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("Reproduce:"), std::string::npos);
    EXPECT_EQ(graphBreakEvenMarkdown(doc, "", "", "", "", -1).find("## Cost\n"), std::string::npos);

    const std::string svg = graphBreakEvenSvg(doc);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("path_&lt;step&gt;"), std::string::npos) << "names from the document are escaped";
    EXPECT_EQ(svg.find("path_<step>"), std::string::npos);
    const std::regex dashed("stroke-dasharray");
    EXPECT_EQ(std::distance(std::sregex_iterator(svg.begin(), svg.end(), dashed), std::sregex_iterator()), 4)
        << "one dashed graph line and one legend entry per N";
    EXPECT_NE(svg.find("N=16 graph"), std::string::npos);
    EXPECT_NE(svg.find("crossing at R = 20.0"), std::string::npos);
}

TEST(GraphBreakEven, OddDocumentsNeverThrow) {
    for (const json& d :
         {json(nullptr), json::array(), json{{"paths", 3}}, json{{"paths", json::array({1, "x"})}},
          json{{"paths", json::array({json{{"path_length", "4"}, {"points", json::array()}}})}},
          json{{"paths", json::array({json{
                             {"path_length", 4},
                             {"points", json::array({json{{"replays", -1}},
                                                     json{{"replays", 2}, {"stream_median_ms", "1"}}})}}})},
               {"kernel", 5},
               {"device", "gpu"}}}) {
        EXPECT_NO_THROW(graphBreakEvenSvg(d)) << d.dump();
        EXPECT_NO_THROW(graphBreakEvenMarkdown(d, "t", "h", "s.svg", "c", 2.5, 1)) << d.dump();
    }
}

TEST(GraphBreakEven, ReadsItsDocumentBackAndWhatARerunMeasures) {
    const VariantResult v =
        variantWith({entry(4, 0.1, 20, 5, {{1, 0.05, 0.35}, {16, 0.35, 0.45}, {32, 0.7, 0.4}}),
                     entry(16, 0.2, 80, 10, {{1, 0.1, 0.7}, {32, 2.6, 0.9}})});
    DeviceInfo dev;
    dev.name = "Test\x1b GPU";
    const json doc = graphBreakEvenDocument("graph_path.cu", "path_step", dev, v);
    GraphBreakEvenReadout r;
    std::string why;
    ASSERT_TRUE(readGraphBreakEvenDocument(doc, r, why)) << why;
    EXPECT_EQ(r.kernel, "path_step");
    EXPECT_EQ(r.device.find('\x1b'), std::string::npos) << "control characters escaped";
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_EQ(r.rows[0].pathLength, 4);
    EXPECT_DOUBLE_EQ(*r.rows[0].fixedMs, doc["paths"][0]["fixed_ms"].get<double>());
    EXPECT_DOUBLE_EQ(*r.rows[0].predicted, 20.0);
    EXPECT_EQ(*r.rows[0].measured, 32);
    EXPECT_EQ(r.options.pathLengths, (std::vector<int>{4, 16}));
    EXPECT_EQ(r.options.replays, (std::vector<int>{1, 16, 32})) << "every R measured, sorted";
    EXPECT_EQ(checkGraphPathOptions(r.options), "");

    // The recorded H200 document reads back with what it was measured with.
    std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/graph_break_even.graph.json");
    const json h200 = json::parse(in);
    ASSERT_TRUE(readGraphBreakEvenDocument(h200, r, why)) << why;
    EXPECT_EQ(r.options.pathLengths, (std::vector<int>{1, 4, 16, 64}));
    EXPECT_EQ(r.options.replays, defaultGraphReplays());
    EXPECT_EQ(r.options.repetitions, 9);
    EXPECT_EQ(r.device, "NVIDIA H200");

    // Hostile documents: refused with the reason, `out` untouched.
    const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
        {[](json& d) { d["schema"] = "lowerscope.series/1"; }, "schema"},
        {[](json& d) { d = json::array(); }, "schema"},
        {[](json& d) { d["paths"] = json::array(); }, "1 to 16 paths"},
        {[](json& d) { d["paths"][0]["path_length"] = 1e12; }, "integer path_length"},
        {[](json& d) { d["paths"][0]["path_length"] = 5000; }, "path_lengths: 5000 is not in 1 .. 4096"},
        {[](json& d) { d["paths"][0]["path_length"] = "4"; }, "integer path_length"},
        {[](json& d) { d["paths"][0]["points"][0]["replays"] = 0; }, "replays: 0 is not in 1 .. 100000"},
        {[](json& d) { d["paths"][0]["points"][0]["replays"] = 2.5; }, "integer replay count"},
        {[](json& d) { d["repetitions"] = 1; }, "repetitions: 1 is not in 3 .. 101"},
    };
    for (const auto& [change, expect] : cases) {
        json d = doc;
        change(d);
        GraphBreakEvenReadout out;
        out.kernel = "untouched";
        EXPECT_FALSE(readGraphBreakEvenDocument(d, out, why)) << expect;
        EXPECT_NE(why.find(expect), std::string::npos) << why;
        EXPECT_EQ(out.kernel, "untouched");
    }
    json many = doc;
    for (int i = 0; i < 65; ++i) many["paths"][0]["points"].push_back(json{{"replays", 100 + i}});
    EXPECT_FALSE(readGraphBreakEvenDocument(many, r, why));
    EXPECT_NE(why.find("64 points"), std::string::npos) << why;
}

TEST(GraphBreakEven, TheDocumentOfARecordNeedsItsGraphPath) {
    MeasurementRecord rec;
    EXPECT_THROW(graphBreakEvenOfRecord("f.cu", rec), std::invalid_argument);
    rec.result.variants.push_back(VariantResult{});
    EXPECT_THROW(graphBreakEvenOfRecord("f.cu", rec), std::invalid_argument);
    rec.result.variants[0] = variantWith({entry(4, 0.1, 20, 5, {{1, 0.05, 0.35}})});
    LaunchRecord l;
    l.kernelName = "path_step(int, float, float, float*)";
    rec.launches.push_back(l);
    const json doc = graphBreakEvenOfRecord("graph_path.cu", rec);
    EXPECT_EQ(doc["kernel"], "path_step") << "named without its parameters";
    EXPECT_EQ(doc["file"], "graph_path.cu");
}

TEST(CliGraphBreakEven, BadListsAreUsageErrors) {
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-gbe-usage-" + std::to_string(::getpid()));
    const std::string file = std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/graph_path.cu";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--graph-break-even", "1,x"}, "--graph-break-even: 'x' is not a positive integer"},
        {{"--graph-break-even", "4,4"}, "--graph-break-even: 4 is given twice"},
        {{"--graph-break-even", "1", "--replays", "8,4"}, "--replays: the counts must increase"},
        {{"--graph-break-even", "1", "--replays", "0"}, "--replays: 0 is not in 1 .. 100000"},
        {{"--replays", "1,2"}, "need --graph-break-even"},
        {{"--graph-break-even", "1", "--vary", "-D X=1,2"}, "do not go together"},
    };
    for (const auto& [extra, expect] : cases) {
        std::vector<std::string> args = {"experiment", file};
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {"-o", (dir / "x").string()});
        const ProcessResult r = testutil::runCliOnFakeGpu(args, dir / "cache");
        EXPECT_EQ(r.exitCode, 2) << expect;
        EXPECT_NE(r.stderrText.find(expect), std::string::npos) << r.stderrText;
    }
    EXPECT_FALSE(fs::exists(dir / "x.graph.json"));
    fs::remove_all(dir);
}

TEST(CliGraphBreakEven, MeasuresEveryPathOnTheFakeGpuAndDestroysEveryGraph) {
    static Toolchain tc = discoverToolchain();
    if (!tc.nvcc.found()) GTEST_SKIP() << "nvcc not found";
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-gbe-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::vector<std::string> args = {"experiment",
                                           std::string(LOWERSCOPE_SOURCE_DIR) +
                                               "/docs/examples/graph_path.cu",
                                           "--graph-break-even",
                                           "1,4",
                                           "--replays",
                                           "1,2,64",
                                           "--min-samples",
                                           "3",
                                           "--min-time",
                                           "0",
                                           "--max-time",
                                           "2",
                                           "--title",
                                           "Fake graphs",
                                           "--hypothesis",
                                           "H4a as written",
                                           "-o",
                                           (dir / "g").string()};
    // 50 µs of host time per stream launch, 2 ms per instantiate: at R = 1 the graph must lose
    // (≥ 2 ms against ~0.05–0.2 ms), at R = 64 with N = 4 it must win (≥ 12.8 ms against ~2 ms).
    const std::map<std::string, std::string> env = {{"FAKE_HOST_LAUNCH_US", "50"},
                                                    {"FAKE_HOST_INSTANTIATE_US", "2000"},
                                                    {"FAKE_GRAPH_LOG", (dir / "graphs.log").string()}};
    const ProcessResult r = testutil::runCliOnFakeGpu(args, dir / "cache", env);
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::ifstream in(dir / "g.graph.json");
    const json doc = json::parse(in);
    EXPECT_EQ(doc["schema"], kGraphBreakEvenSchema);
    EXPECT_EQ(doc["kernel"], "path_step");
    EXPECT_EQ(doc["note"], "");
    ASSERT_EQ(doc["paths"].size(), 2u);
    for (const json& p : doc["paths"]) {
        const int n = p["path_length"].get<int>();
        EXPECT_GE(p["instantiate_ms"].get<double>(), 2.0) << "the fake's instantiate cost is in it";
        EXPECT_GT(p["capture_ms"].get<double>(), 0.0);
        EXPECT_GE(p["stream_path_us"].get<double>(), 50.0 * n) << "N launches of 50 µs each";
        EXPECT_LT(p["graph_path_us"].get<double>(), p["stream_path_us"].get<double>());
        ASSERT_TRUE(p["predicted_break_even"].is_number());
        EXPECT_GE(p["steady_paths"].get<int>(), 16);
        ASSERT_EQ(p["points"].size(), 3u);
        for (const json& q : p["points"]) EXPECT_EQ(q["repetitions"], 9) << "≥ 9 repetitions of every total";
        EXPECT_GT(p["points"][0]["graph_median_ms"].get<double>(),
                  p["points"][0]["stream_median_ms"].get<double>())
            << "one replay cannot pay for a 2 ms instantiate";
        EXPECT_GE(p["points"][2]["stream_median_ms"].get<double>(), 64 * 0.05 * n);
    }
    const json& four = doc["paths"][1];
    EXPECT_GT(four["predicted_break_even"].get<double>(), 2.0);
    EXPECT_LT(four["predicted_break_even"].get<double>(), 64.0);
    EXPECT_EQ(four["measured_break_even"], 64);
    ASSERT_TRUE(four["measured_crossing"].is_number());
    EXPECT_GT(four["measured_crossing"].get<double>(), 2.0);
    EXPECT_LT(four["measured_crossing"].get<double>(), 64.0);
    // Every graph made (warm-up, costs, steady state, one per total, the hot mode's own) destroyed.
    const std::string log = readAll(dir / "graphs.log");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        log, m, std::regex(R"(graphs created (\d+) destroyed (\d+) execs created (\d+) destroyed (\d+))")))
        << log;
    EXPECT_EQ(m[1], m[2]) << log;
    EXPECT_EQ(m[3], m[4]) << log;
    EXPECT_GE(std::stoi(m[1]), 2 * (1 + 9 + 1 + 3 * 9)) << log;
    const std::string md = readAll(dir / "g.md");
    EXPECT_NE(md.find("# Fake graphs"), std::string::npos);
    EXPECT_NE(md.find("H4a as written"), std::string::npos);
    EXPECT_NE(md.find("--graph-break-even 1,4 --replays 1,2,64"), std::string::npos) << md;
    EXPECT_EQ(md.find(dir.string()), std::string::npos) << "no folder of this machine in the report";
    EXPECT_EQ(readAll(dir / "g.svg").rfind("<svg", 0), 0u);

    // A wall limit that passes at once: the runner stops and says where; the report still comes.
    std::vector<std::string> limited = args;
    limited.insert(limited.end() - 2, {"--graph-max-time", "0.001"});
    const ProcessResult s = testutil::runCliOnFakeGpu(limited, dir / "cache", env);
    ASSERT_EQ(s.exitCode, 0) << s.stderrText;
    std::ifstream in2(dir / "g.graph.json");
    const json cut = json::parse(in2);
    EXPECT_NE(cut["note"].get<std::string>().find("wall limit"), std::string::npos) << cut["note"];
    EXPECT_LT(cut["paths"].size(), 2u) << "N = 4 never started";
    EXPECT_NE(readAll(dir / "g.md").find("Stopped early"), std::string::npos);
    fs::remove_all(dir);
}

TEST(CliGraphBreakEven, AFailingGraphCallEndsTheRequestAndLeavesNoGraphBehind) {
    static Toolchain tc = discoverToolchain();
    if (!tc.nvcc.found()) GTEST_SKIP() << "nvcc not found";
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-gbe-fail-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // Only the graph path builds graphs of 3 nodes (hot mode's replay graph has ~100): the failure
    // lands there, with a graph and its instance alive (launch) or half built (instantiate).
    for (const char* fail : {"launch:3", "instantiate:3"}) {
        const std::vector<std::string> args = {"experiment",
                                               std::string(LOWERSCOPE_SOURCE_DIR) +
                                                   "/docs/examples/graph_path.cu",
                                               "--graph-break-even",
                                               "3",
                                               "--min-samples",
                                               "3",
                                               "--min-time",
                                               "0",
                                               "--max-time",
                                               "1",
                                               "-o",
                                               (dir / "g").string()};
        const std::map<std::string, std::string> env = {{"FAKE_GRAPH_FAIL", fail},
                                                        {"FAKE_GRAPH_LOG", (dir / "graphs.log").string()}};
        fs::remove(dir / "graphs.log");
        const ProcessResult r = testutil::runCliOnFakeGpu(args, dir / "cache", env);
        EXPECT_EQ(r.exitCode, 1) << fail << ": " << r.stderrText;
        EXPECT_NE(r.stderrText.find(std::string(fail).rfind("launch", 0) == 0 ? "cuGraphLaunch"
                                                                              : "cuGraphInstantiate"),
                  std::string::npos)
            << r.stderrText;
        EXPECT_NE(r.stderrText.find("graph_path"), std::string::npos)
            << "the stage is named: " << r.stderrText;
        EXPECT_FALSE(fs::exists(dir / "g.graph.json"));
        const std::string log = readAll(dir / "graphs.log");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(
            log, m,
            std::regex(R"(graphs created (\d+) destroyed (\d+) execs created (\d+) destroyed (\d+))")))
            << fail << ": " << log;
        EXPECT_EQ(m[1], m[2]) << fail << ": " << log;
        EXPECT_EQ(m[3], m[4]) << fail << ": " << log;
    }
    fs::remove_all(dir);
}
