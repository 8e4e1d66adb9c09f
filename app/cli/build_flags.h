#pragma once
// The build flags shared by `build`, `inspect`, `run` and (as a string) `compare --a/--b`.

#include "core/build/build.h"
#include "core/build/compile_db.h"
#include "core/build/process.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lowerscope::cli {

// Adds --arch, --opt, --ptxas-opt, --fast-math, --ftz/--prec-div/--prec-sqrt/--fmad true|false,
// --maxrregcount, --no-lineinfo, -G/--device-debug, --extra-device-vectorization, --std, -D
// (repeatable), -I (repeatable), --nvcc-flag (repeatable), --ptxas-flag (repeatable) to `cmd`,
// writing into `options` (which must outlive the parse). Values are range-checked by CLI11 (usage
// error); the arch format is checked by checkBuildOptions() when building.
void addBuildOptionFlags(CLI::App& cmd, BuildOptions& options);

// Parses a flag string such as "--arch sm_90 --fast-math -D N=4" with the same flags. Quotes
// ('..' and "..") and backslash escapes group words as in a shell (nothing is expanded). Throws
// std::invalid_argument with a readable message on unknown flags, bad values, stray positional
// words or unbalanced quotes; the result also passes checkBuildOptions().
// With `base`, the flags given apply on top of it (overlayGivenFlags) instead of the defaults.
BuildOptions parseBuildOptionString(const std::string& flags, const BuildOptions* base = nullptr);

// The flags that say what to open besides the file: --project (a compile_commands.json, or its
// folder) and --member (which embedded cubin/PTX of a binary, or which kernel of a Triton cache).
struct InputFlags {
    std::string project;
    std::string member;
};
void addInputFlags(CLI::App& cmd, InputFlags& flags);

// --project on the commands that build two sides from option strings (diff, compare): the
// database (compile_commands.json or its folder) is the base of --a and --b.
void addProjectBaseFlag(CLI::App& cmd, std::string& project);

// `base` with every build flag the user gave on `cmd` applied: scalars replace, repeatable flags
// (-D, -I, --nvcc-flag, --ptxas-flag) add to base's lists. `givenKeys` receives the BuildOptions
// JSON keys of the flags given ("arch", "defines", ...).
BuildOptions overlayGivenFlags(const CLI::App& cmd, const BuildOptions& base, const BuildOptions& given,
                               std::set<std::string>* givenKeys = nullptr);

// --project on `run` and `profile`: `options` becomes the project's options for `file` under the
// flags given on `cmd`. False, with the reason on stderr after `prefix` ("lowerscope-cli run"),
// when the database cannot be read or has no entry for the file; `options` is then unchanged.
bool applyProjectFlag(const CLI::App& cmd, const std::string& project, const std::string& file, BuildOptions& options,
                      const char* prefix);

// What to build for `file`: its kind (input.h), the project's options (when --project) under the
// flags the user gave, one input per architecture when --arch lists several (sm_80,sm_90) or the
// project builds several and --arch was not given. Without --arch, a PTX input keeps its .target
// and a container picks its first cubin. Throws std::runtime_error with a readable message (a
// database without the file, invalid options).
struct ResolvedInputs {
    std::vector<BuildInput> inputs;          // at least one
    std::optional<ProjectOptions> project;   // when --project was given
};
ResolvedInputs resolveInputs(const CLI::App& cmd, const std::string& file, const BuildOptions& parsed,
                             const InputFlags& flags);

// splitShellWords (core/build/process.h) is the word-splitting rule for flag lists.
using lowerscope::splitShellWords;

} // namespace lowerscope::cli
