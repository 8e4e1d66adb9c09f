#pragma once
// Build options: every user-visible nvcc/ptxas setting, how it maps to an argv, and its validation.

#include <string>
#include <vector>

namespace lowerscope {

// Every user-visible build setting. Maps to exactly one nvcc argv (toNvccArgs). Round-trips
// through JSON (json_io.h) and hashes stably (for the cache).
struct BuildOptions {
    std::string arch = "sm_90";        // sm_XX, sm_XXa, sm_XXf
    int hostOpt = 3;                   // -O<n> (host), 0..3
    int ptxasOpt = 3;                  // -Xptxas -O<n>, 0..3 (not passed with deviceDebug: ptxas
                                       // refuses optimised debugging)
    bool lineinfo = true;              // -lineinfo
    bool deviceDebug = false;          // -G
    bool fastMath = false;             // --use_fast_math
    int ftz = -1;                      // -ftz=true/false; -1 = compiler default (flag omitted)
    int precDiv = -1;                  // -prec-div=...; -1 = default
    int precSqrt = -1;                 // -prec-sqrt=...; -1 = default
    int fmad = -1;                     // -fmad=...; -1 = default
    int maxRegCount = 0;               // -maxrregcount=N; 0 = unlimited (flag omitted)
    bool extraDeviceVectorization = false; // --extra-device-vectorization
    std::string cppStd = "c++17";      // -std=...; "" = compiler default
    std::vector<std::string> defines;  // "X=Y" or "X" → -DX=Y
    std::vector<std::string> includeDirs; // -I<dir>
    std::vector<std::string> extraNvccFlags;  // passed verbatim, one argv element each
    std::vector<std::string> extraPtxasFlags; // each becomes -Xptxas <flag>
    bool operator==(const BuildOptions&) const = default;
};

// The option part of the nvcc argv (no program, no input/output, no -ptx/-cubin mode flag).
std::vector<std::string> toNvccArgs(const BuildOptions& options);

// The ptxas argv options (no program, input or output) for assembling PTX with `options` for
// `arch`: -arch, -O<ptxasOpt> (not with deviceDebug), --generate-line-info (lineinfo) or -g (deviceDebug),
// --maxrregcount, the extra ptxas flags.
std::vector<std::string> toPtxasArgs(const BuildOptions& options, const std::string& arch);

// Human-readable shell-quoted form of an argv, for display only (nothing is run through a shell).
std::string shellQuote(const std::vector<std::string>& argv);

// "" when the options are valid, else one line saying what is wrong (arch not sm_XX[a|f], an -O level
// outside 0..3, a negative maxrregcount, an empty define or include dir, a tri-state not -1/0/1, or
// a value that nvcc's shell would interpret: checkOptionSafety in core/build/option_safety.h).
std::string checkBuildOptions(const BuildOptions& options);

} // namespace lowerscope
