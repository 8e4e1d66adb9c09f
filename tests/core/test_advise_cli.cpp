// `lowerscope-cli advise` end to end with the real runner against the fake GPU + CUPTI
// (tests/core/run_fakes/fake_gpu.cpp): findings from a collected or a given profile, and --test,
// which builds the variant, measures it against the original through the compare path and judges
// the prediction. FAKE_KERNEL_NS_BLOCK=B:NS makes launches with B-thread blocks take NS ns, so the
// block-size variant's measured ratio is known in advance (issue 34); cold mode, one launch per
// sample, so each sample runs with its own block size.
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "core/experiment/experiment_session.h"
#include "fake_gpu_cli.h"
#include "tests/core/build_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path scratch(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("lowerscope-advise-" + std::to_string(::getpid())) / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

json readJson(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

std::string source(const char* rel) { return std::string(LOWERSCOPE_SOURCE_DIR) + "/" + rel; }

// saxpy on blocks of 32 threads: the SM's 32 block slots hold 32 warps, 50 % occupancy.
const std::vector<std::string> kSmallBlocks = {"--block", "32", "--grid", "ceil(n/32)"};

std::vector<std::string> args(std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

const json* testOf(const json& advice, const std::string& finding) {
    for (const auto& t : advice["tests"]) {
        if (t["finding"] == finding) return &t;
    }
    return nullptr;
}

} // namespace

TEST(CliAdvise, FindingsFromACollectedProfileWithEvidenceAndVariants) {
    REQUIRE_NVCC_AND_NVDISASM();
    const fs::path d = scratch("collected");
    const ProcessResult r = testutil::runCliOnFakeGpu(
        args({"advise", source("kernels/saxpy.cu"), "--json", (d / "advice.json").string()}, kSmallBlocks), d / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText << r.stdoutText;
    const json a = readJson(d / "advice.json");
    EXPECT_EQ(a["schema"], "lowerscope.advice/1");
    EXPECT_EQ(a["kernel"], "_Z5saxpyifPKfPf");
    const json* occ = nullptr;
    for (const auto& f : a["findings"]) {
        if (f["id"] == "occupancy.block_size") occ = &f;
        EXPECT_FALSE(f["prediction"]["formula"].get<std::string>().empty()) << f.dump();
    }
    ASSERT_NE(occ, nullptr) << a.dump(1);
    bool variant = false;
    for (const auto& v : a["variants"]) {
        if (v["finding"] == "occupancy.block_size") {
            variant = true;
            EXPECT_EQ(v["block"], json::array({64, 1, 1}));
            EXPECT_EQ(v["grid"][0], (1u << 24) / 64);
        }
    }
    EXPECT_TRUE(variant) << a["variants"].dump(1);
    EXPECT_NE(r.stdoutText.find("[occupancy.block_size]"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("predicted: "), std::string::npos);
}

TEST(CliAdvise, TestHeldWhenTheVariantIsAsFastAsPredictedAndTheRecordIsASession) {
    REQUIRE_NVCC_AND_NVDISASM();
    const fs::path d = scratch("held");
    const ProcessResult r = testutil::runCliOnFakeGpu(
        args({"advise", source("kernels/saxpy.cu"), "--test", "--out", (d / "rec").string(), "--min-samples", "5",
              "--min-time", "0", "--max-time", "5", "--mode", "cold"},
             kSmallBlocks),
        d / "cache", {{"FAKE_KERNEL_NS_BLOCK", "64:5000"}});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText << r.stdoutText;
    const json a = readJson(d / "rec" / "advice.json");
    const json* t = testOf(a, "occupancy.block_size");
    ASSERT_NE(t, nullptr) << a.dump(1);
    EXPECT_EQ((*t)["verdict"], "held") << t->dump();
    // 5 µs against 10 µs, each timed on the Range Profiler's clock, which adds 1.1 µs (fake_gpu.cpp).
    EXPECT_NEAR((*t)["ratio"].get<double>(), 6.1 / 11.1, 0.005);
    EXPECT_TRUE((*t)["significant"].get<bool>());
    EXPECT_TRUE((*t)["direction_right"].get<bool>());
    EXPECT_NEAR((*t)["error"].get<double>(), (*t)["ratio"].get<double>() - (*t)["predicted"].get<double>(), 1e-12);
    // The record: a session whose card holds the finding, the prediction and the verdict.
    const ExperimentSession s = loadSession((*t)["session"].get<std::string>());
    EXPECT_NE(s.card.hypothesis.find("occupancy.block_size"), std::string::npos);
    EXPECT_NE(s.card.result.find("Verdict: held"), std::string::npos) << s.card.result;
    EXPECT_EQ(s.measurements.size(), 1u);
    EXPECT_TRUE(fs::exists((*t)["report"].get<std::string>()));
}

TEST(CliAdvise, TestFailedWhenTheVariantIsSlowerAndTheFailureIsRecordedToo) {
    REQUIRE_NVCC_AND_NVDISASM();
    const fs::path d = scratch("failed");
    const ProcessResult r = testutil::runCliOnFakeGpu(
        args({"advise", source("kernels/saxpy.cu"), "--test", "--out", (d / "rec").string(), "--min-samples", "5",
              "--min-time", "0", "--max-time", "5", "--mode", "cold"},
             kSmallBlocks),
        d / "cache", {{"FAKE_KERNEL_NS_BLOCK", "64:20000"}});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText << r.stdoutText;
    const json a = readJson(d / "rec" / "advice.json");
    const json* t = testOf(a, "occupancy.block_size");
    ASSERT_NE(t, nullptr) << a.dump(1);
    EXPECT_EQ((*t)["verdict"], "failed") << t->dump();
    EXPECT_NEAR((*t)["ratio"].get<double>(), 21.1 / 11.1, 0.01); // 20 µs against 10 µs, + 1.1 µs each
    EXPECT_FALSE((*t)["direction_right"].get<bool>());
    const ExperimentSession s = loadSession((*t)["session"].get<std::string>());
    EXPECT_NE(s.card.result.find("Verdict: failed"), std::string::npos) << s.card.result;
}

TEST(CliAdvise, AProfileOfAnotherKernelIsRefused) {
    REQUIRE_NVCC_AND_NVDISASM();
    const fs::path d = scratch("mismatch");
    const ProcessResult p = testutil::runCliOnFakeGpu(
        {"profile", source("kernels/saxpy.cu"), "--json", (d / "saxpy.profile.json").string()}, d / "cache");
    ASSERT_EQ(p.exitCode, 0) << p.stderrText;
    // The same build's document is taken as it is, with no GPU needed for the advice.
    const ProcessResult same = testutil::runCliOnFakeGpu(
        {"advise", source("kernels/saxpy.cu"), "--profile", (d / "saxpy.profile.json").string()}, d / "cache",
        {{"LOWERSCOPE_LIBCUDA", "/nonexistent/libcuda.so.1"}});
    EXPECT_EQ(same.exitCode, 0) << same.stderrText;
    const ProcessResult other = testutil::runCliOnFakeGpu(
        {"advise", source("kernels/reduction.cu"), "--profile", (d / "saxpy.profile.json").string()}, d / "cache");
    EXPECT_EQ(other.exitCode, 2);
    EXPECT_NE(other.stderrText.find("does not fit this build"), std::string::npos) << other.stderrText;
}

TEST(CliAdvise, TestWithoutOutIsAUsageError) {
    const fs::path d = scratch("usage");
    const ProcessResult r = testutil::runCliOnFakeGpu({"advise", source("kernels/saxpy.cu"), "--test"}, d / "cache");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("--out"), std::string::npos) << r.stderrText;
}

TEST(CliAdvise, StaticAdviceNeedsNoGpuAndProposesTheSidecarsTunables) {
    // docs/examples/advisor_cases.cu strided_sum: 64 blocks of 128 threads, one block per SM on the
    // 132 SMs --static assumes: few warps (UNROLL 1 → 2 and 4) and a grid under one wave (block 64).
    REQUIRE_NVCC_AND_NVDISASM();
    const fs::path d = scratch("static");
    const ProcessResult r = testutil::runCliOnFakeGpu({"advise", source("docs/examples/advisor_cases.cu"), "--kernel",
                                                       "strided_sum", "--static", "--json", (d / "advice.json").string()},
                                                      d / "cache", {{"LOWERSCOPE_LIBCUDA", "/nonexistent/libcuda.so.1"}});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText << r.stdoutText;
    const json a = readJson(d / "advice.json");
    EXPECT_EQ(a["profile"], "static");
    std::set<std::string> flags, findings;
    for (const auto& f : a["findings"]) findings.insert(f["id"].get<std::string>());
    for (const auto& v : a["variants"]) {
        flags.insert(v["option_flags"].get<std::string>() + (v.contains("block") ? " block=" + v["block"][0].dump() : ""));
        EXPECT_FALSE(v["prediction"]["formula"].get<std::string>().empty()) << v.dump();
    }
    EXPECT_TRUE(findings.count("few_warps")) << a["findings"].dump(1);
    EXPECT_TRUE(findings.count("tail")) << a["findings"].dump(1);
    EXPECT_TRUE(flags.count("-D UNROLL=2")) << a["variants"].dump(1);
    EXPECT_TRUE(flags.count("-D UNROLL=4")) << a["variants"].dump(1);
    EXPECT_TRUE(flags.count(" block=64")) << a["variants"].dump(1);

    // The register-heavy kernel: 80 registers, 3 blocks of 256 per SM; the caps and the launch bounds.
    const ProcessResult regs = testutil::runCliOnFakeGpu(
        {"advise", source("docs/examples/advisor_cases.cu"), "--kernel", "regs_heavy", "--static", "--json",
         (d / "regs.json").string()},
        d / "cache", {{"LOWERSCOPE_LIBCUDA", "/nonexistent/libcuda.so.1"}});
    ASSERT_EQ(regs.exitCode, 0) << regs.stderrText;
    const json regsAdvice = readJson(d / "regs.json");
    std::set<std::string> regFlags;
    for (const auto& v : regsAdvice["variants"]) regFlags.insert(v["option_flags"].get<std::string>());
    EXPECT_TRUE(regFlags.count("-D MIN_BLOCKS=4")) << regsAdvice.dump(1);
    // regs_heavy has __launch_bounds__: ptxas would ignore a register cap, so none is offered.
    EXPECT_EQ(std::count_if(regFlags.begin(), regFlags.end(),
                            [](const std::string& f) { return f.rfind("--maxrregcount ", 0) == 0; }),
              0);

    EXPECT_EQ(testutil::runCliOnFakeGpu({"advise", source("kernels/saxpy.cu"), "--static", "--profile", "x.json"}, d / "cache")
                  .exitCode,
              2);
}

TEST(CliAdvise, StaticTestBuildsTheTunableAndThePtxasVariantsAndMeasuresThem) {
    // --static --test on the fake GPU: each variant is built (-D UNROLL=2, -D UNROLL=4, block 64)
    // and measured against the original; every test is recorded, whatever its verdict.
    REQUIRE_NVCC_AND_NVDISASM();
    const fs::path d = scratch("static-test");
    const ProcessResult r = testutil::runCliOnFakeGpu(
        {"advise", source("docs/examples/advisor_cases.cu"), "--kernel", "strided_sum", "--static", "--test", "--out",
         (d / "rec").string(), "--min-samples", "5", "--min-time", "0", "--max-time", "3", "--mode", "cold"},
        d / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText << r.stdoutText;
    const json a = readJson(d / "rec" / "advice.json");
    ASSERT_GE(a["tests"].size(), 3u) << a.dump(1);
    for (const auto& t : a["tests"]) {
        EXPECT_TRUE(t["measured"].get<bool>()) << t.dump();
        EXPECT_TRUE(fs::exists(t["session"].get<std::string>())) << t.dump();
    }
    // A -Xptxas option as B's build: the option string the variant carries passes the argv checks.
    const ProcessResult cg = testutil::runCliOnFakeGpu(
        {"compare", source("kernels/saxpy.cu"), "--b=--ptxas-flag=-dlcm=cg", "--min-samples", "3",
         "--min-time", "0", "--max-time", "2", "--mode", "cold"},
        d / "cache");
    EXPECT_EQ(cg.exitCode, 0) << cg.stderrText << cg.stdoutText;
}
