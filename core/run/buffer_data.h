#pragma once
// Host-side buffer contents for kernel runs: initial data (seeded random, zeros, iota, ...), the
// poison patterns that tell whether a kernel wrote every output element, digests of outputs, and
// element-wise comparison of two outputs (max abs / rel error, mismatches beyond a tolerance).
// Pure functions over byte vectors; the runner uses them, and so can tests and the CLI.

#include "core/run/argspec.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lowerscope {

uint16_t floatToHalf(float v);      // IEEE binary16, round to nearest even
float halfToFloat(uint16_t h);
uint16_t floatToBfloat16(float v);  // round to nearest even; NaN stays NaN
float bfloat16ToFloat(uint16_t h);

// `count` elements of `type` filled per `init`, little-endian.
std::vector<uint8_t> makeBufferData(ElemType type, int64_t count, const BufferInit& init);

// Element `index` of `data` as a double (for comparisons and reports).
double elementAsDouble(ElemType type, const uint8_t* data, int64_t index);

// The two poison byte patterns: every byte 0xFF (NaN for floats, -1 for signed integers), then
// every byte 0xA5. An element counts as written when it differs from the pattern after at least
// one of two launches, one over each pattern.
constexpr uint8_t kPoisonA = 0xFF;
constexpr uint8_t kPoisonB = 0xA5;

// Number of elements (of `elemBytes` each) that still hold the poison `pattern` byte in every byte.
// When `stillPoisoned` is non-null it gets (or is and-ed with, when the same size) one flag per element.
int64_t countPoisoned(const std::vector<uint8_t>& data, int elemBytes, uint8_t pattern,
                      std::vector<bool>* stillPoisoned = nullptr);

// 64-bit XXH3 of the bytes as 16 lower-case hex digits.
std::string digestHex(const void* data, size_t bytes);

// Result of comparing a buffer `b` against a reference `a` of the same type and count.
struct BufferComparison {
    int64_t count = 0;        // elements compared
    int64_t mismatches = 0;   // elements with |a-b| > atol + rtol·|a|, or NaN in one only
    double maxAbsError = 0;   // over elements where both are finite
    double maxRelError = 0;   // |a-b| / max(|a|, |b|), over elements where both are finite and not both 0
    int64_t firstMismatch = -1; // index of the first mismatching element
    bool sizeMismatch = false;  // different types or counts: nothing compared
    bool agree() const { return !sizeMismatch && mismatches == 0; }
};
BufferComparison compareBuffers(ElemType type, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                double atol, double rtol);

} // namespace lowerscope
