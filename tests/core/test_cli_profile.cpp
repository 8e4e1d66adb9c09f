// End-to-end: `lowerscope-cli profile` with the real runner against the fake GPU + CUPTI
// (tests/core/run_fakes/fake_gpu.cpp): every collection travels through the runner protocol, is
// checked against the build it was taken on and joined onto the SASS rows and lines of
// lowerscope.profile/1; without CUPTI or counter rights the command says why (exit 2) and still
// writes what it has (issue 14 items 1, 2, 4, 5).
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "fake_gpu_cli.h"
#include "tests/core/build_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct ProfileRun {
    ProcessResult process;
    json doc;
};

// `lowerscope-cli COMMAND kernels/saxpy.cu --runner RUNNER --json OUT ARGS...` against the fakes.
ProfileRun cli(const std::string& command, std::vector<std::string> args, std::map<std::string, std::string> env) {
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-profile-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path out = dir / "profile.json";
    fs::remove(out);
    env.emplace("LOWERSCOPE_CACHE_DIR", (dir / "cache").string());
    env.emplace("LOWERSCOPE_LIBCUDA", FAKE_GPU);
    env.emplace("LOWERSCOPE_LIBCUPTI", FAKE_GPU);
    ProcessSpec spec;
    spec.argv = {LOWERSCOPE_CLI, command, std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu", "--runner",
                 RUNNER_BIN, "--json", out.string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = std::move(env);
    spec.timeout = std::chrono::seconds(300);
    ProfileRun r{runProcess(spec), {}};
    if (fs::exists(out)) {
        std::ifstream in(out);
        r.doc = json::parse(in);
    }
    return r;
}

ProfileRun profile(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    return cli("profile", std::move(args), std::move(env));
}

// compare A = defaults, B = an unused define (the same code), quick timing, with --profile.
ProfileRun compareProfiled(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    std::vector<std::string> all{"--b", "-DUNUSED_BY_SAXPY=1", "--profile", "--min-samples", "3", "--min-time", "0",
                                 "--max-time", "5"};
    all.insert(all.end(), args.begin(), args.end());
    return cli("compare", std::move(all), std::move(env));
}

} // namespace

TEST(CliProfile, EveryCollectionIsJoinedOntoTheBuildsRowsAndLines) {
    REQUIRE_NVCC_AND_NVDISASM();
    ProfileRun r = profile({});
    ASSERT_EQ(r.process.exitCode, 0) << r.process.stderrText;
    const json& d = r.doc;
    EXPECT_EQ(d["schema"], "lowerscope.profile/1");
    EXPECT_EQ(d["kernel"], "_Z5saxpyifPKfPf");
    EXPECT_EQ(d["cubin_digest"].get<std::string>().size(), 16u);
    for (const char* c : {"kernel", "instructions", "samples"}) {
        EXPECT_TRUE(d["collections"][c]["ok"].get<bool>()) << c << ": " << d["collections"][c].dump();
    }
    EXPECT_FALSE(d["metrics"].empty());
    // The fake reports instructions at offsets 0, 16, 32, 48 with 1000 x (n+1) executions.
    uint64_t rows = 0;
    int profiled = 0;
    for (const auto& i : d["instructions"]) {
        const uint64_t n = i["counts"].value("smsp__sass_inst_executed", uint64_t{0});
        rows += n;
        if (i["profiled"].get<bool>()) {
            ++profiled;
            EXPECT_EQ(n, 1000u * (i["address"].get<uint64_t>() / 16 + 1)) << i.dump();
            EXPECT_FALSE(i["opcode"].get<std::string>().empty());
        }
    }
    EXPECT_EQ(profiled, 4);
    EXPECT_EQ(rows, 10000u);
    EXPECT_EQ(d["kernel_totals"]["counts"]["smsp__sass_inst_executed"], 10000u);
    EXPECT_GT(d["kernel_totals"]["sample_total"].get<uint64_t>(), 0u);
    // Source lines (-lineinfo is the default) add up to what the rows with a line carry.
    uint64_t withLine = 0, lines = 0;
    for (const auto& i : d["instructions"]) {
        if (i.contains("line")) {
            withLine += i["counts"].value("smsp__sass_inst_executed", uint64_t{0});
        }
    }
    for (const auto& l : d["lines"]) {
        lines += l["counts"].value("smsp__sass_inst_executed", uint64_t{0});
        EXPECT_NE(l["file"].get<std::string>().find("saxpy.cu"), std::string::npos);
    }
    EXPECT_EQ(lines, withLine);
    EXPECT_GT(lines, 0u);
    EXPECT_FALSE(d["ptx_lines"].empty());
    EXPECT_NE(r.process.stdoutText.find("hottest source lines"), std::string::npos) << r.process.stdoutText;
}

TEST(CliProfile, WithoutCuptiItSaysWhyAndExits2) {
    REQUIRE_NVCC_AND_NVDISASM();
    ProfileRun r = profile({"--metrics", "kernel,instructions"}, {{"LOWERSCOPE_LIBCUPTI", "libcupti-that-does-not-exist.so.13"}});
    EXPECT_EQ(r.process.exitCode, 2) << r.process.stderrText;
    EXPECT_NE(r.process.stderrText.find("no_cupti"), std::string::npos) << r.process.stderrText;
    ASSERT_TRUE(r.doc.is_object()) << "the document is written even when nothing came back";
    EXPECT_FALSE(r.doc["collections"]["kernel"]["ok"].get<bool>());
    EXPECT_EQ(r.doc["collections"]["instructions"]["error"]["kind"], "no_cupti");
    EXPECT_FALSE(r.doc["collections"].contains("samples")) << "only what --metrics asked for";
}

TEST(CliProfile, CountersNotPermittedNamesTheDriverSetting) {
    REQUIRE_NVCC_AND_NVDISASM();
    ProfileRun r = profile({"--metrics", "kernel"}, {{"FAKE_CUPTI_FAIL", "range=35"}});
    EXPECT_EQ(r.process.exitCode, 2) << r.process.stderrText;
    EXPECT_NE(r.process.stderrText.find("NVreg_RestrictProfilingToAdminUsers"), std::string::npos)
        << r.process.stderrText;
    EXPECT_EQ(r.doc["collections"]["kernel"]["error"]["kind"], "profiling_not_permitted");
}

TEST(CliProfile, SampleBufferOverflowRetriesAtALongerPeriod) {
    REQUIRE_NVCC_AND_NVDISASM();
    // The fake overflows below 2^14 cycles: the default 2^11 fails, 2^14 is the first retry.
    ProfileRun r = profile({"--metrics", "samples"}, {{"FAKE_PCSAMPLING_OOM_BELOW", "14"}});
    ASSERT_EQ(r.process.exitCode, 0) << r.process.stderrText;
    EXPECT_TRUE(r.doc["collections"]["samples"]["ok"].get<bool>());
    EXPECT_EQ(r.doc["samples"]["period_log2"], 14);
    EXPECT_NE(r.doc["collections"]["samples"]["note"].get<std::string>().find("2^14"), std::string::npos);
    EXPECT_GT(r.doc["samples"]["total"].get<uint64_t>(), 0u);
    // Two retries at most (2^14, 2^17): an overflow that persists is reported, not looped on.
    ProfileRun never = profile({"--metrics", "samples"}, {{"FAKE_PCSAMPLING_OOM_BELOW", "31"}});
    EXPECT_EQ(never.process.exitCode, 1) << never.process.stderrText;
    EXPECT_FALSE(never.doc["collections"]["samples"]["ok"].get<bool>());
    EXPECT_NE(never.process.stderrText.find("OUT_OF_MEMORY"), std::string::npos) << never.process.stderrText;
}

TEST(CliProfile, UnknownCollectionIsAUsageError) {
    ProfileRun r = profile({"--metrics", "kernel,cycles"});
    EXPECT_EQ(r.process.exitCode, 2);
    EXPECT_NE(r.process.stderrText.find("unknown collection 'cycles'"), std::string::npos) << r.process.stderrText;
}

TEST(CliCompareProfile, BothSidesGetCountersMetricDeltasAndRowDeltasOnTheAlignedDiff) {
    REQUIRE_NVCC_AND_NVDISASM();
    ProfileRun r = compareProfiled({});
    ASSERT_EQ(r.process.exitCode, 0) << r.process.stderrText;
    ASSERT_TRUE(r.doc.contains("profile")) << r.doc.dump().substr(0, 400);
    const json& p = r.doc["profile"];
    EXPECT_TRUE(p["ok"].get<bool>()) << p["errors"].dump();
    EXPECT_EQ(p["a"]["schema"], "lowerscope.profile/1");
    EXPECT_EQ(p["b"]["schema"], "lowerscope.profile/1");
    EXPECT_EQ(p["a"]["kernel"], "_Z5saxpyifPKfPf");
    // Both sides ran the same metrics on the fake: every metric has a delta row with B/A = 1.
    ASSERT_FALSE(p["metric_deltas"].empty());
    EXPECT_EQ(p["metric_deltas"].size(), p["a"]["metrics"].size());
    for (const auto& m : p["metric_deltas"]) {
        EXPECT_DOUBLE_EQ(m["delta"].get<double>(), 0.0) << m.dump();
        if (!m["ratio"].is_null()) EXPECT_DOUBLE_EQ(m["ratio"].get<double>(), 1.0) << m.dump();
    }
    // The fake counts 1000 x (offset/16 + 1) at offsets 0..48: four executed rows per side, aligned
    // equal (the define changes no code), so each row carries the same count on both sides.
    ASSERT_EQ(p["rows"].size(), 4u) << p["rows"].dump();
    for (const auto& row : p["rows"]) {
        EXPECT_EQ(row["status"], "equal") << row.dump();
        EXPECT_EQ(row["address_a"], row["address_b"]);
        EXPECT_EQ(row["executed_a"].get<uint64_t>(), 1000u * (row["address_a"].get<uint64_t>() / 16 + 1)) << row.dump();
        EXPECT_EQ(row["executed_delta"].get<int64_t>(), 0);
    }
    EXPECT_NE(r.process.stdoutText.find("counters (one profiled launch each)"), std::string::npos) << r.process.stdoutText;
    EXPECT_NE(r.process.stdoutText.find("SASS rows that changed most"), std::string::npos);
    // The timing part is what it always was.
    EXPECT_EQ(r.doc["schema"], "lowerscope.compare/1");
}

TEST(CliCompareProfile, ProfilingUnavailableNeverBreaksTheTiming) {
    REQUIRE_NVCC_AND_NVDISASM();
    ProfileRun r = compareProfiled({}, {{"LOWERSCOPE_LIBCUPTI", "libcupti-that-does-not-exist.so.13"}});
    EXPECT_EQ(r.process.exitCode, 0) << r.process.stderrText;
    ASSERT_TRUE(r.doc.contains("profile"));
    EXPECT_FALSE(r.doc["profile"]["ok"].get<bool>());
    EXPECT_NE(r.doc["profile"]["errors"].dump().find("no_cupti"), std::string::npos) << r.doc["profile"]["errors"];
    EXPECT_NE(r.process.stderrText.find("no_cupti"), std::string::npos) << r.process.stderrText;
    EXPECT_NE(r.process.stdoutText.find("B/A = "), std::string::npos) << "the comparison is still printed";
}

TEST(CliCompareProfile, UnknownCollectionIsRefusedBeforeAnythingRuns) {
    ProfileRun r = compareProfiled({"--profile-metrics", "kernel,cycles"});
    EXPECT_EQ(r.process.exitCode, 2);
    EXPECT_NE(r.process.stderrText.find("unknown collection 'cycles'"), std::string::npos) << r.process.stderrText;
    EXPECT_TRUE(r.doc.is_null()) << "nothing measured, nothing written";
}

TEST(CliCompareProfile, ExperimentReportShowsTheCountersOfBothSides) {
    REQUIRE_NVCC_AND_NVDISASM();
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-experiment-profile-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const ProcessResult r = testutil::runCliOnFakeGpu(
        {"experiment", std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu", "--b", "-DUNUSED_BY_SAXPY=1",
         "--profile", "--min-samples", "3", "--min-time", "0", "--max-time", "5", "-o", (dir / "exp").string(),
         "--hypothesis", "an unused define changes nothing"},
        dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    std::ifstream in(dir / "exp.md");
    const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(md.find("## Hardware counters"), std::string::npos) << md;
    EXPECT_NE(md.find("| dram__bytes_read.sum | byte | 8.38861e+06 | 8.38861e+06 | 1.000 |"), std::string::npos) << md;
    EXPECT_NE(md.find("Stall samples of A"), std::string::npos) << md;
    // The session keeps the whole compare document, counters included.
    std::ifstream sin(dir / "exp.lowerscope");
    const json session = json::parse(sin);
    EXPECT_NE(session.dump().find("\"metric_deltas\""), std::string::npos);
    fs::remove_all(dir);
}
