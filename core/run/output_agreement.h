#pragma once
// Output agreement between two variants of a comparison: their output buffers, as read after each
// variant's first launch on the declared inputs, paired by position (the first output of A with
// the first of B, ...), compared element by element within atol + rtol·|a|. Pure functions: the
// runner calls this with the bytes it read back, tests call it with bytes of their own.

#include "core/run/argspec.h"
#include "core/run/protocol.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lowerscope {

// One output buffer of a variant. `data` is borrowed and must outlive the call.
struct OutputBytes {
    std::string name;
    ElemType type = ElemType::F32;
    const std::vector<uint8_t>* data = nullptr;
};

// The agreement of B's outputs with A's (A is the reference), one entry per position present in
// both. Outputs of another element type are a size mismatch; equal bytes always agree (NaNs
// included). When one side has more outputs, the extra ones are not compared.
std::vector<OutputAgreement> agreeOutputs(const std::string& labelA, const std::vector<OutputBytes>& a,
                                          const std::string& labelB, const std::vector<OutputBytes>& b, double atol,
                                          double rtol);

} // namespace lowerscope
