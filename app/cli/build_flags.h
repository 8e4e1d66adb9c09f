#pragma once
// The build flags shared by `build`, `inspect`, `run` and (as a string) `compare --a/--b`.

#include "core/build/build.h"

#include <CLI/CLI.hpp>

#include <string>

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
BuildOptions parseBuildOptionString(const std::string& flags);

// Splits `text` into words like a shell would (quotes, backslashes; no expansion). Throws
// std::invalid_argument on an unterminated quote or a trailing backslash.
std::vector<std::string> splitShellWords(const std::string& text);

} // namespace lowerscope::cli
