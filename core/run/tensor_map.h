#pragma once
// Tensor maps (Hopper's TMA descriptors) and raw byte aggregates as launch arguments.
//
//   tmA=tensormap(A, bf16, dims=[K,M], box=[64,128], swizzle=128B)
//   tmA=tensormap(A, f32, dims=[K,M], strides=[4*K], box=[32,8], elem_strides=[1,1],
//                 interleave=none, l2promotion=128B, oobfill=zeros)
//   p=bytes(i32:1,2,3 f32:0.5 pad:4)      p=bytes(hex:0011aabb)      p=bytes(zeros)
//
// A tensor map names a buffer argument (`A`, declared in args or lets) and is encoded by the runner
// with cuTensorMapEncodeTiled once the buffer is allocated. It is passed by value to a
// `const __grid_constant__ CUtensorMap` parameter (PTX: `.param .align 64 .b8 p[128]`) or, through
// a 128-byte device copy, to a `const CUtensorMap*` parameter (a 64-bit parameter).
//
// Fields (cuTensorMapEncodeTiled's, innermost dimension first): `dims` 1..5 sizes in elements;
// `strides` the byte strides of dimensions 1..rank-1 (default: packed); `box` the box size per
// dimension (1..256); `elem_strides` (1..8, default 1); `interleave` none|16B|32B (none);
// `swizzle` none|32B|64B|128B (none); `l2promotion` none|64B|128B|256B (none); `oobfill`
// zeros|nan (zeros; nan = NAN_REQUEST_ZERO_FMA). Element types: u8 u16 u32 i32 u64 i64 f16 f32
// f64 bf16 f32ftz tf32 tf32ftz. Every value is an expression of the scalars (expr.h).
//
// Raw bytes fill a by-value parameter of any size byte for byte, exactly as written (no implicit
// padding: write pad:N where the C struct has padding). Items are `TYPE:v1,v2,...` with TYPE one
// of i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64 (values are expressions), `hex:` followed by
// an even number of hex digits, or `pad:N` (N zero bytes); `bytes(zeros)` is the parameter's size
// in zero bytes. The total must equal the parameter's size.
//
// Parsing is bounded (argument text ≤ 64 KiB, ≤ 32764 bytes, ≤ 4096 items) and every failure
// throws ArgSpecError (argspec.h) naming the argument.

#include "core/run/expr.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

// CUtensorMapDataType values (cuda.h).
enum class TensorMapType : uint8_t {
    U8 = 0, U16 = 1, U32 = 2, I32 = 3, U64 = 4, I64 = 5, F16 = 6, F32 = 7, F64 = 8, BF16 = 9,
    F32Ftz = 10, TF32 = 11, TF32Ftz = 12
};
int tensorMapTypeSize(TensorMapType t);
std::string tensorMapTypeName(TensorMapType t);                       // "bf16"
std::optional<TensorMapType> parseTensorMapType(const std::string& name);

// The enums below carry cuda.h's values (CUtensorMapInterleave, CUtensorMapSwizzle,
// CUtensorMapL2promotion, CUtensorMapFloatOOBfill).
enum class TensorMapInterleave : uint8_t { None = 0, B16 = 1, B32 = 2 };
enum class TensorMapSwizzle : uint8_t { None = 0, B32 = 1, B64 = 2, B128 = 3 };
enum class TensorMapL2Promotion : uint8_t { None = 0, B64 = 1, B128 = 2, B256 = 3 };
enum class TensorMapOobFill : uint8_t { Zeros = 0, NanRequestZeroFma = 1 };
std::string interleaveName(TensorMapInterleave v);   // "none", "16B", "32B"
std::string swizzleName(TensorMapSwizzle v);         // "none", "32B", "64B", "128B"
std::string l2PromotionName(TensorMapL2Promotion v); // "none", "64B", "128B", "256B"
std::string oobFillName(TensorMapOobFill v);         // "zeros", "nan"
std::optional<TensorMapInterleave> parseInterleave(const std::string& s);
std::optional<TensorMapSwizzle> parseSwizzle(const std::string& s);
std::optional<TensorMapL2Promotion> parseL2Promotion(const std::string& s);
std::optional<TensorMapOobFill> parseOobFill(const std::string& s);

// A tensor map with every value evaluated: what the runner encodes.
struct TensorMapSpec {
    int buffer = -1;                          // index into the launch's buffers
    TensorMapType type = TensorMapType::F32;
    int rank = 0;                             // 1..5
    std::vector<uint64_t> dims;               // rank sizes, elements, innermost first
    std::vector<uint64_t> strides;            // rank-1 byte strides of dims 1..rank-1
    std::vector<uint32_t> box;                // rank box sizes
    std::vector<uint32_t> elementStrides;     // rank element strides
    TensorMapInterleave interleave = TensorMapInterleave::None;
    TensorMapSwizzle swizzle = TensorMapSwizzle::None;
    TensorMapL2Promotion l2Promotion = TensorMapL2Promotion::None;
    TensorMapOobFill oobFill = TensorMapOobFill::Zeros;
    bool operator==(const TensorMapSpec&) const = default;
};

// "" when `m` is one cuTensorMapEncodeTiled accepts over a buffer of `bufferBytes` bytes (and
// every element it addresses lies inside the buffer), else what is wrong. The rules are the
// driver's (CUDA 12/13 documentation of cuTensorMapEncodeTiled): rank 1..5 (3..5 interleaved),
// dims 1..2^32, strides multiples of 16 (32 interleaved 32B) below 2^40, box 1..256 with box[0] × element size a multiple of 16 (not interleaved) and within the
// swizzle's span, element strides 1..8, 32B interleave only with 32B swizzle.
std::string checkTensorMap(const TensorMapSpec& m, int64_t bufferBytes);
// Bytes from the buffer's start to the end of the last element the map addresses.
uint64_t tensorMapExtentBytes(const TensorMapSpec& m);
// "tensormap(A, bf16, dims=[512,128], box=[64,64], swizzle=128B)" with the values evaluated
// (defaults left out); `bufferName` is the buffer's name.
std::string tensorMapToString(const TensorMapSpec& m, const std::string& bufferName);

// A tensor map as written: the buffer's name and unevaluated expressions.
struct TensorMapArg {
    std::string buffer;
    TensorMapType type = TensorMapType::F32;
    std::vector<Expr> dims, strides, box, elementStrides; // strides/elementStrides may be empty
    TensorMapInterleave interleave = TensorMapInterleave::None;
    TensorMapSwizzle swizzle = TensorMapSwizzle::None;
    TensorMapL2Promotion l2Promotion = TensorMapL2Promotion::None;
    TensorMapOobFill oobFill = TensorMapOobFill::Zeros;
};
// Parses the text between `tensormap(` and its `)`. `argText` names the argument in errors.
TensorMapArg parseTensorMapArg(const std::string& inner, const std::string& argText);

// One item of a raw byte aggregate as written.
struct ByteItem {
    enum class Kind : uint8_t { Value, Hex, Pad } kind = Kind::Value;
    std::string type;          // Value: "i32", "f32", ...
    std::vector<Expr> values;  // Value
    std::vector<uint8_t> hex;  // Hex
    int64_t pad = 0;           // Pad: zero bytes
};
struct BytesArg {
    bool zeros = false;        // bytes(zeros): as many zero bytes as the parameter has
    std::vector<ByteItem> items;
};
// Parses the text between `bytes(` and its `)`.
BytesArg parseBytesArg(const std::string& inner, const std::string& argText);
// Evaluates the items (names through `lookup`) into bytes, little-endian. Throws ArgSpecError.
std::vector<uint8_t> evaluateBytes(const BytesArg& b, int paramSize,
                                   const std::function<ExprValue(const std::string&)>& lookup,
                                   const std::string& argText);

// Splits `text` at commas outside (), [] and {}; items trimmed. Throws ArgSpecError on
// unbalanced brackets (naming `argText`).
std::vector<std::string> splitTopLevel(const std::string& text, const std::string& argText);

} // namespace lowerscope
