// FLOPs counted from the per-instruction thread counts of a real H200 profile
// (docs/examples/ffma_chain.ffma_independent.profile.json, `lowerscope-cli profile`) against what
// the kernel's source says it computes, and the roofline point built from them.
#include "core/parse/sass_parser.h"
#include "core/run/profile_document.h"
#include "core/run/roofline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace lowerscope;

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// ffma_independent from the golden sm_90 listing (the same nvcc and options as the profile).
SassFunction goldenFunction(const std::string& mangled) {
    const SassListing l =
        parseSass(readText(std::string(LOWERSCOPE_SOURCE_DIR) + "/tests/data/sm_90/ffma_chain.sass"));
    for (const auto& f : l.functions)
        if (f.name == mangled) return f;
    return {};
}

SassInstruction parsed(const std::string& mnemonic, std::vector<std::string> operands) {
    SassInstruction i;
    i.mnemonic = mnemonic;
    for (auto& o : operands) i.operands.push_back(Operand{o});
    return i;
}

} // namespace

TEST(Roofline, FlopsPerOpcode) {
    EXPECT_EQ(flopsPerThread(parsed("FFMA", {"R1", "R2", "R3", "R4"})), 2);
    EXPECT_EQ(flopsPerThread(parsed("FMUL", {"R1", "R2", "R3"})), 1);
    EXPECT_EQ(flopsPerThread(parsed("DFMA", {"R2", "R4", "R6", "R8"})), 2);
    EXPECT_EQ(flopsPerThread(parsed("HFMA2", {"R1", "R2", "R3", "R4"})), 4);
    EXPECT_EQ(flopsPerThread(parsed("HFMA2", {"R23", "-RZ", "RZ", "0", "0"})), 0) << "the move idiom computes nothing";
    EXPECT_EQ(flopsPerThread(parsed("IMAD", {"R1", "R2", "R3", "R4"})), 0);
    EXPECT_EQ(flopsPerThread(parsed("MUFU", {"R1", "R2"})), 0);
}

TEST(Roofline, FfmaIndependentOnTheH200CountsWhatTheSourceComputes) {
    const std::string text =
        readText(std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/ffma_chain.ffma_independent.profile.json");
    const ProfileDocument doc = readProfileDocument(text);
    const SassFunction f = goldenFunction(doc.kernel);
    // The same machine code the profile was taken on (line info aside), so offsets line up.
    ASSERT_EQ(sassCodeDigest(f), doc.codeDigest) << "regenerate the golden listing or the profile";
    const ProfileJoin join = joinProfiles(f, {&doc.rows});
    ASSERT_TRUE(join.unmatchedOffsets.empty());
    const FlopCount c = countFlops(f, join);
    ASSERT_TRUE(c.haveThreadCounts);
    // 132 blocks x 32 threads, iters = 65536 of 2 x 8 FFMAs, then the seven adds of the sum and the
    // set-up of x[c]: the FFMAs alone are 2 x 16 x 65536 x 4224 operations.
    const double threads = 132.0 * 32, ffmaOps = 2.0 * 16 * 65536 * threads;
    EXPECT_GE(c.fp32, ffmaOps);
    EXPECT_LE(c.fp32, ffmaOps + 2.0 * 24 * threads) << "at most a few dozen operations per thread beyond the loop";
    EXPECT_EQ(c.fp64, 0);
    EXPECT_EQ(c.fp16, 0) << "the HFMA2.MMA register-move idiom in this listing computes nothing";
    EXPECT_EQ(c.tensorInstructions, 0u);

    // H200 ceilings as the runner reports them (FP32 66.9 TFLOP/s, 4.8 TB/s).
    const RooflinePoint p = rooflinePoint(c, doc.metrics, 66908, 4800);
    ASSERT_TRUE(p.valid) << p.why;
    EXPECT_EQ(p.bound, "compute") << "a few KB of DRAM traffic for 8.9 GFLOP";
    EXPECT_GT(p.intensity, p.ridge);
    EXPECT_NEAR(p.gflops, c.total() / p.seconds * 1e-9, 1e-6 * p.gflops);
    EXPECT_DOUBLE_EQ(p.roofGflops, 66908);
    EXPECT_GT(p.fractionOfRoof, 0.0);
    EXPECT_LT(p.fractionOfRoof, 1.0);
}

TEST(Roofline, MissingPiecesSayWhat) {
    FlopCount none;
    EXPECT_FALSE(rooflinePoint(none, {}, 1, 1).valid);
    EXPECT_NE(rooflinePoint(none, {}, 1, 1).why.find("thread counts"), std::string::npos);
    FlopCount some;
    some.haveThreadCounts = true;
    some.fp32 = 100;
    EXPECT_NE(rooflinePoint(some, {}, 1, 1).why.find("kernel metrics"), std::string::npos);
    const std::vector<ProfileMetric> ms = {{"dram__bytes_read.sum", 50, "byte"},
                                           {"dram__bytes_write.sum", 50, "byte"},
                                           {"gpu__time_duration.sum", 1000, "nanosecond"}};
    EXPECT_NE(rooflinePoint(some, ms, 0, 1).why.find("peaks"), std::string::npos);
    const RooflinePoint p = rooflinePoint(some, ms, 1000, 100); // ridge 10 flop/byte, point at 1
    ASSERT_TRUE(p.valid);
    EXPECT_EQ(p.bound, "memory");
    EXPECT_DOUBLE_EQ(p.intensity, 1.0);
    EXPECT_DOUBLE_EQ(p.roofGflops, 100.0);
    EXPECT_DOUBLE_EQ(p.gflops, 0.1); // 100 flops in 1 µs
}
