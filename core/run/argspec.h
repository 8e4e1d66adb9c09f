#pragma once
// Kernel argument specs and launch configurations, resolved against a kernel's PTX parameters.
//
//   scalars   n=1<<24   a=2.5   iters=65536
//   buffers   x=f32[n]  x=f32[n]:random  y=f32[n]:zeros|ones|iota|const(3)|random(seed=7)
//             |random(seed=7, run=32) (runs of 32 equal values)
//             element types f16 bf16 f32 f64 i8 u8 i32 u32 i64 u64; the default init is seeded random
//   tensor maps  tmA=tensormap(A, bf16, dims=[K,M], box=[64,128], swizzle=128B)   (tensor_map.h)
//   raw bytes    p=bytes(i32:1,2 f32:0.5 pad:4)  p=bytes(hex:00ff..)  p=bytes(zeros) (tensor_map.h)
//   sizes, grid, block, cluster and dynamic shared memory are expressions (expr.h) of the scalars
//   and of `grid`/`block` (total blocks / threads per block) and grid_x.. block_z.
//
// Arguments match the kernel's parameters by position; names are for expressions and reports.
// "Lets" define scalars and buffers that are not passed to the kernel (the buffer behind a tensor
// map, sizes the kernel does not take). The kernels/*.json sidecar format (one object per kernel:
// name, grid, block, args, outputs, bytes, flops, optional lets, cluster, shared and description)
// is parsed here too.
//
// Every failure throws ArgSpecError with a message meant for the user (it names the argument,
// the parameter and what was expected).

#include "core/model.h"
#include "core/run/expr.h"
#include "core/run/tensor_map.h"

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

struct ArgSpecError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class ElemType : uint8_t { F16, BF16, F32, F64, I8, U8, I32, U32, I64, U64 };

int elemSize(ElemType type);                              // bytes per element
std::string elemTypeName(ElemType type);                  // "f32"
std::optional<ElemType> parseElemType(const std::string& name);  // "f32" → F32; nullopt if unknown
bool isFloatType(ElemType type);

enum class InitKind : uint8_t { Random, Zeros, Ones, Iota, Const };

// How a buffer is filled before a run. Random: floats uniform in [-1, 1), signed integers uniform
// in [-128, 127], unsigned in [0, 255], from a counter-based generator keyed by `seed`.
// `run` > 1 (random(seed=N, run=R)) gives runs of R consecutive elements one shared value: data
// that is uniform per warp when R = 32 and a warp's threads read consecutive elements.
struct BufferInit {
    InitKind kind = InitKind::Random;
    uint64_t seed = 0;
    double value = 0;        // for Const
    int64_t run = 1;         // Random: elements per drawn value (1 .. 2^30)
    bool operator==(const BufferInit&) const = default;
};
std::string initToString(const BufferInit& init);  // "random(seed=7)", "random(seed=7, run=32)", "const(3)", "zeros"

// One parsed `name=...` argument (not yet evaluated).
struct ArgSpec {
    std::string text;     // as given
    std::string name;
    bool isBuffer = false;
    Expr value;           // scalar value expression
    ElemType type = ElemType::F32;  // buffer element type
    Expr count;           // buffer element count expression
    BufferInit init;      // buffer initialisation
    bool seedGiven = false; // random(seed=N) given explicitly
    bool isTensorMap = false; // tensormap(...)
    TensorMapArg tensorMap;
    bool isBytes = false;   // bytes(...)
    BytesArg bytes;
};
ArgSpec parseArgSpec(const std::string& text);

// A launch as the user or a sidecar describes it: everything still text.
struct LaunchSpec {
    std::string kernel;                // name as written (plain or mangled)
    std::vector<std::string> grid;     // 1..3 expressions (x, y, z)
    std::vector<std::string> block;    // 1..3 expressions
    std::string sharedBytes;           // dynamic shared memory expression; "" = 0
    std::vector<std::string> args;     // arg specs in parameter order
    std::vector<std::string> lets;     // scalar and buffer specs not passed to the kernel
    std::vector<std::string> cluster;  // 0 or 1..3 expressions: thread block cluster dims (x, y, z)
    std::vector<std::string> outputs;  // names of output buffers; empty = every non-const buffer
    std::string bytes;                 // bytes moved, expression; "" = not declared
    std::string flops;                 // floating-point operations, expression; "" = not declared
    std::string description;
};

// Parses a kernels/*.json sidecar ({"description", "kernels": [{...}]}). Grid/block entries may be
// numbers, strings or arrays of either.
std::vector<LaunchSpec> parseSidecar(const std::string& jsonText);
// Reads and parses the sidecar file at `path`.
std::vector<LaunchSpec> loadSidecar(const std::string& path);
// `kernels/saxpy.cu` → `kernels/saxpy.json`.
std::string sidecarPathFor(const std::string& sourcePath);

struct ResolvedBuffer {
    std::string name;
    ElemType type = ElemType::F32;
    int64_t count = 0;
    BufferInit init;
    bool output = false;
    int64_t bytes() const { return count * elemSize(type); }
};

// One kernel parameter with its place in the parameter buffer.
struct ResolvedParam {
    std::string name;          // argument name
    std::string ptxName;       // PTX parameter name
    std::string ptxType;       // "u32", ...
    int offset = 0;            // bytes from the start of the parameter buffer (ABI alignment)
    int size = 0;              // bytes
    int align = 0;             // bytes
    int buffer = -1;           // index into ResolvedLaunch::buffers, or -1 for a scalar
    int tensorMap = -1;        // index into ResolvedLaunch::tensorMaps: by value (size 128) or by
                               // pointer to a device copy (size 8)
    std::vector<uint8_t> scalar; // little-endian bytes of the scalar value (size bytes)
    std::string valueText;     // the evaluated value for reports ("16777216", "2.5", "f32[16777216]")
};

struct ResolvedLaunch {
    std::string kernel;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t sharedBytes = 0;
    std::array<uint32_t, 3> cluster{0, 0, 0}; // thread block cluster; all 0 = launched without one
    std::vector<ResolvedParam> params;
    std::vector<ResolvedBuffer> buffers;     // the args' buffers in order, then the lets'
    std::vector<TensorMapSpec> tensorMaps;
    int paramBytes = 0;                 // size of the packed parameter buffer
    std::optional<double> bytes;        // declared bytes moved per launch
    std::optional<double> flops;        // declared FLOPs per launch
    std::vector<std::string> warnings;  // e.g. a scalar given to a parameter that looks like a pointer
    // The parameter buffer with scalars filled in and buffer slots zero (the runner writes device
    // addresses at their offsets).
    std::vector<uint8_t> packedParams() const;
};

// Evaluates `spec` and matches its args against `params` (from the PTX `.entry`). `signature` is
// the demangled kernel signature ("saxpy(int, float, float const*, float*)", "" if unknown); it
// picks the default outputs (non-const pointers) when spec.outputs is empty — all buffers when
// it is unknown. Checks: argument count, buffer ↔ 64-bit parameter, scalar size/range/type,
// grid/block limits (block ≤ 1024 threads, grid y/z ≤ 65535), parameter buffer ≤ 32764 bytes;
// a tensor map fits its parameter (128 bytes by value, 8 by pointer), its buffer and the driver's
// rules (checkTensorMap); raw bytes have the parameter's size; a cluster divides the grid and has
// at most 16 blocks.
ResolvedLaunch resolveLaunch(const LaunchSpec& spec, const std::vector<PtxParam>& params,
                             const std::string& signature = "");

// Indices (0-based) of the pointer parameters in a demangled signature that are not pointers to
// const. Empty optional when the signature cannot be split into parameters.
std::optional<std::vector<bool>> nonConstPointerParams(const std::string& signature);

} // namespace lowerscope
