#pragma once
// Project flags from a compilation database (compile_commands.json, as CMake's
// CMAKE_EXPORT_COMPILE_COMMANDS or Bear write it): the entry for one file becomes BuildOptions.
//
// The database is untrusted input. Only flags this reader knows are taken, each mapped onto a
// BuildOptions field (include dirs, defines, -std, the arch list, optimisation levels, the
// floating-point switches, -lineinfo/-G, -maxrregcount, -Xptxas options and a short list of
// device-relevant nvcc flags); everything else (host compiler options, -Xcompiler, -ccbin, output
// and dependency-file flags, unknown flags) is dropped and listed. The result then passes through
// checkBuildOptions like any other options, so nothing from the file reaches nvcc unvalidated.

#include "core/build/build_options.h"

#include <nlohmann/json_fwd.hpp>

#include <set>
#include <string>
#include <vector>

namespace lowerscope {

// What a database entry contributes.
struct ProjectOptions {
    std::string database;            // the compile_commands.json read (absolute)
    std::string directory;           // the entry's working directory (relative paths resolve there)
    BuildOptions options;            // defaults, overridden by the entry's flags
    std::vector<std::string> archs;  // every real arch the entry builds (-arch, -gencode code=sm_XX),
                                     // in order; options.arch is the first
    std::set<std::string> fromProject; // BuildOptions JSON keys the entry set ("arch", "defines", ...)
    std::set<std::string> overridden;  // keys the user changed on top of the project (flags, the GUI)
    std::vector<std::string> dropped;  // flags not taken (host-only or unknown), as written
};

// Reads `databasePath` (a compile_commands.json, or a folder holding one) and returns the options
// of the entry whose "file" is `sourcePath` (compared after resolving both against their
// directories and symlinks). Throws std::runtime_error with a clear message when the database
// cannot be read or parsed, when it has no entry for the file ("… has no entry for k.cu; it lists
// 12 files, e.g. …"), or when the resulting options fail checkBuildOptions.
ProjectOptions projectOptions(const std::string& databasePath, const std::string& sourcePath);

// {"database", "directory", "archs", "from_project": [keys], "overridden": [keys], "dropped": [...]}.
nlohmann::json projectJson(const ProjectOptions& project);

// Maps one compile command (argv, the compiler first) onto `out`. Exposed for tests; never throws.
void applyCompileCommand(const std::vector<std::string>& argv, const std::string& directory, ProjectOptions& out);

// Splits a "command" string the way the database's writers quote it: splitShellWords
// (core/build/process.h), the one rule. Throws std::runtime_error on an unterminated quote or a
// trailing backslash.
std::vector<std::string> splitCommandLine(const std::string& command);

} // namespace lowerscope
