#pragma once
// The input description of a build: what kind of file it is, where it is, and the options that
// apply to it. Each kind runs its own stages (stages.h):
//   CudaSource  .cu              compile (nvcc) → disassemble
//   Ptx         .ptx             assemble (ptxas) → disassemble
//   Cubin       .cubin (CUDA ELF) disassemble

#include "core/build/build_options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lowerscope {

enum class InputKind : uint8_t { CudaSource, Ptx, Cubin };

// "cuda", "ptx", "cubin" (the JSON and CLI spelling).
const char* inputKindName(InputKind kind);
// The kind named by inputKindName's spelling; nullopt for anything else.
std::optional<InputKind> inputKindFromName(std::string_view name);

// The kind of `path` by its contents where they tell (a CUDA ELF is a cubin whatever its name; PTX
// text starts with comments and a `.version` directive), else by its extension (.ptx, .cubin;
// anything else is CUDA source, as nvcc would treat it). Reads at most the first 4 KiB; an
// unreadable file is classified by its extension alone. Never throws.
InputKind detectInputKind(const std::string& path);

struct BuildInput {
    InputKind kind = InputKind::CudaSource;
    std::string path;      // the file to build, as the user named it
    // CUDA source: all of them. PTX: arch ("" = the PTX's own `.target`), ptxasOpt, lineinfo,
    // deviceDebug (-g), maxRegCount and extraPtxasFlags. Cubin: none.
    BuildOptions options;
};

// The description of `path` built with `options`: its kind from detectInputKind.
BuildInput describeInput(const std::string& path, const BuildOptions& options);

} // namespace lowerscope
