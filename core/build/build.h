#pragma once
// Build pipeline: an input (a .cu, a .ptx or a cubin, see input.h) → PTX, cubin, SASS text,
// resources and diagnostics, through the stages its kind needs (stages.h), behind a
// content-addressed cache (cache.h). The toolchain runs without a shell, tool runs that do not
// depend on each other in parallel.

#include "core/build/build_options.h"
#include "core/build/input.h"
#include "core/build/toolchain.h"
#include "core/model.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lowerscope {

// One tool invocation as run.
struct CommandRecord {
    std::string stage;              // "ptx", "cubin", "sass", "sass-ptx-lines", "res-usage", ...
    std::vector<std::string> argv;
    int exitCode = 0;               // -1 when it did not start, 128+N when killed by signal N
    double wallMs = 0;
    std::string stdoutText;         // kept only where small or needed (tool output shown to the user)
    std::string stderrText;
};

// Everything produced for one kernel (one `.entry`).
struct KernelArtifacts {
    std::string name;        // demangled for display, e.g. "saxpy(int, float, float const*, float*)"
    std::string mangled;     // symbol as in PTX / cubin
    Resources resources;
    std::string ptx;         // this kernel's `.entry` text (header line to closing brace); the module
                             // PTX (directives, .func, globals) is BuildResult::ptx
    std::string sass;        // nvdisasm -c -hex -gi text, this function only
    std::string sassPtxLines;// nvdisasm -c -hex -gi -gp text, this function only ("" when unavailable)
    int ptxFirstLine = 0;    // 1-based line in BuildResult::ptx where `ptx` starts (-gp numbers are
                             // module lines: module line = ptxFirstLine + slice line - 1)
    int launchThreads = 0;   // threads per block the input's metadata names (Triton: num_warps × 32);
                             // 0 = unknown
    int launchSharedBytes = -1; // dynamic shared memory per block the metadata names (Triton: shared);
                                // -1 = unknown
};

// One piece of CUDA code embedded in a container (fatbin, object, library, program).
struct EmbeddedCode {
    std::string name;                  // as `cuobjdump -lelf -lptx` lists it: "saxpy.sm_90.cubin"
    bool isPtx = false;                // PTX (assembled when chosen) rather than a cubin
    std::string arch;                  // "sm_90" (PTX: the arch it is assembled for)
    std::vector<std::string> kernels;  // mangled names (cubins: from the symbol table; PTX: its entries)
    bool operator==(const EmbeddedCode&) const = default;
};

struct BuildResult {
    bool ok = false;                       // true: cubin built and disassembled
    std::string error;                     // set when !ok and the failure is not a compile error
    bool compileError = false;             // nvcc/ptxas reported errors (see diagnostics)
    bool cancelled = false;
    bool cacheHit = false;
    std::string arch;                      // the SASS architecture of the cubin ("sm_90"; "" when unknown)
    std::string inputKind;                 // inputKindName() of what was built ("cuda", "ptx", ...)
    std::vector<EmbeddedCode> embedded;    // containers: every embedded cubin and PTX, in listing order
    std::string member;                    // containers: the name of the one built (see BuildInput::member)
    std::string toolchainFingerprint;      // versions of the tools used
    std::string cacheKey;                  // hex digest
    std::vector<Diagnostic> diagnostics;
    std::vector<CommandRecord> commands;
    std::map<std::string, double> timingsMs; // stage → wall ms, plus "total"
    std::string ptx;                       // whole module PTX
    std::vector<uint8_t> cubin;            // whole cubin (for the runner)
    std::vector<KernelArtifacts> kernels;  // one per __global__ function, in PTX order
    bool setupError = false;               // !ok because a required tool is missing, the source cannot be
                                           // read or the options are invalid (CLI exit 2); see error
};

// Controls for one build. The cancel flag may be set from any thread; running children are killed.
struct BuildControl {
    std::atomic<bool>* cancel = nullptr;
    std::chrono::milliseconds timeout{120000};   // per tool run
    bool useCache = true;
    std::string cacheDir;                        // "" = default (cacheDirectory())
};

// Builds `input` with the stages of its kind. Never throws for tool failures: they are reported in
// the result (setupError for a missing tool, an unreadable input or invalid options).
BuildResult buildInput(const Toolchain& toolchain, const BuildInput& input, const BuildControl& control = {});

// Builds the file at `path` as detectInputKind classifies it: buildInput(describeInput(path, options)).
BuildResult buildFile(const Toolchain& toolchain, const std::string& path, const BuildOptions& options,
                      const BuildControl& control = {});

// $LOWERSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/lowerscope, else ~/.cache/lowerscope.
std::string cacheDirectory();

} // namespace lowerscope
