#pragma once
// The input description of a build: what kind of file it is, where it is, and the options that
// apply to it. Each kind runs its own stages (stages.h):
//   CudaSource  .cu              compile (nvcc) → disassemble
//   Ptx         .ptx             assemble (ptxas) → disassemble
//   Cubin       .cubin (CUDA ELF) disassemble
//   Fatbin, Object, SharedLibrary, Executable
//               .fatbin, .o, .so, programs: extract one embedded cubin (cuobjdump) → disassemble,
//               or one embedded PTX → assemble → disassemble
//   Triton      a Triton cache folder of one kernel: its cubin (else its PTX) with the metadata

#include "core/build/build_options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lowerscope {

enum class InputKind : uint8_t { CudaSource, Ptx, Cubin, Fatbin, Object, SharedLibrary, Executable, Triton };

// "cuda", "ptx", "cubin", "fatbin", "object", "shared-library", "executable", "triton" (the JSON
// and CLI spelling).
const char* inputKindName(InputKind kind);
// The kind named by inputKindName's spelling; nullopt for anything else.
std::optional<InputKind> inputKindFromName(std::string_view name);

// True for the kinds that embed CUDA code in a container (fatbin, object, library, program).
bool isContainer(InputKind kind);

// The kind of `path` by its contents where they tell (a folder is a Triton kernel; a CUDA ELF is a
// cubin whatever its name; a host ELF is an object, library or program by its ELF type; a fatbin
// has its magic number; PTX text starts with comments and a `.version` directive), else by its
// extension (.ptx, .cubin, .fatbin, .o, .so; anything else is CUDA source, as nvcc would treat it).
// Reads at most the first 4 KiB; an unreadable file is classified by its extension alone.
// Never throws.
InputKind detectInputKind(const std::string& path);

struct BuildInput {
    InputKind kind = InputKind::CudaSource;
    std::string path;      // the file to build, as the user named it
    // CUDA source: all of them. PTX: arch ("" = the PTX's own `.target`), ptxasOpt, lineinfo,
    // deviceDebug (-g), maxRegCount and extraPtxasFlags. Cubin, Triton: none. Containers: those
    // of PTX when the chosen member is PTX, and arch picks the default member.
    BuildOptions options;
    // Containers: the embedded cubin or PTX to build, by the name `cuobjdump -lelf -lptx` lists
    // ("saxpy.sm_90.cubin"); "" = the first cubin with kernels (for options.arch when it has one).
    std::string member;
};

// The description of `path` built with `options`: its kind from detectInputKind.
BuildInput describeInput(const std::string& path, const BuildOptions& options);

} // namespace lowerscope
