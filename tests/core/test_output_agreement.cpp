// core/run/output_agreement.h: B's outputs against A's, paired by position, within atol + rtol·|a|.
#include "core/run/output_agreement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace lowerscope;

namespace {

std::vector<uint8_t> floats(const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * sizeof(float));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

} // namespace

TEST(OutputAgreement, EqualBytesAgreeAsTheSameDigest) {
    const auto a = floats({1, 2, 3, std::numeric_limits<float>::quiet_NaN()});
    const auto b = a;
    const auto g = agreeOutputs("A", {{"y", ElemType::F32, &a}}, "B", {{"y", ElemType::F32, &b}}, 1e-5, 1e-4);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(g[0].name, "y");
    EXPECT_EQ(g[0].labelA, "A");
    EXPECT_EQ(g[0].labelB, "B");
    EXPECT_TRUE(g[0].sameDigest);
    EXPECT_TRUE(g[0].agree); // NaN at the same place, same bytes
    EXPECT_EQ(g[0].count, 4);
}

TEST(OutputAgreement, WithinAndBeyondTolerance) {
    const auto a = floats({1.0f, 100.0f, -2.0f});
    const auto close = floats({1.0f + 5e-6f, 100.0f + 5e-3f, -2.0f});
    const auto far = floats({1.0f, 101.0f, -2.5f});
    auto g = agreeOutputs("A", {{"y", ElemType::F32, &a}}, "B", {{"y", ElemType::F32, &close}}, 1e-5, 1e-4);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_FALSE(g[0].sameDigest);
    EXPECT_TRUE(g[0].agree);
    EXPECT_EQ(g[0].mismatches, 0);
    EXPECT_GT(g[0].maxAbsError, 0);
    g = agreeOutputs("A", {{"y", ElemType::F32, &a}}, "B", {{"y", ElemType::F32, &far}}, 1e-5, 1e-4);
    EXPECT_FALSE(g[0].agree);
    EXPECT_EQ(g[0].mismatches, 2);
    EXPECT_EQ(g[0].firstMismatch, 1);
    EXPECT_NEAR(g[0].maxAbsError, 1.0, 1e-6);
}

TEST(OutputAgreement, PairedByPositionWithTypeAndSizeMismatches) {
    const auto a1 = floats({1, 2});
    const auto a2 = floats({3, 4});
    const auto b1 = floats({1, 2, 3});
    const std::vector<uint8_t> b2(8, 0);
    // Outputs pair by position, whatever their names; B's extra output is not compared.
    const auto g = agreeOutputs("A", {{"x", ElemType::F32, &a1}, {"y", ElemType::F32, &a2}}, "B",
                                {{"p", ElemType::F32, &b1}, {"q", ElemType::I32, &b2}, {"r", ElemType::F32, &b1}}, 0,
                                0);
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[0].name, "x");
    EXPECT_TRUE(g[0].sizeMismatch); // 2 against 3 elements
    EXPECT_FALSE(g[0].agree);
    EXPECT_EQ(g[1].name, "y");
    EXPECT_TRUE(g[1].sizeMismatch); // f32 against i32
    EXPECT_FALSE(g[1].agree);
    // No outputs on one side: nothing to pair.
    EXPECT_TRUE(agreeOutputs("A", {}, "B", {{"p", ElemType::F32, &b1}}, 0, 0).empty());
}
