#pragma once
// The source files a build's code maps to (the opened file, the project's headers, the toolkit's
// headers), classified and resolved to paths that can be opened, and the lookup of a file the
// user names (`inspect --line hdr.cuh:12`). The compiler records paths as it saw them (absolute,
// or relative to where nvcc ran, sometimes with `..` inside); every comparison here is on the
// canonical form, falling back to the lexical one for files that do not exist.

#include "core/build/input.h"
#include "core/build/toolchain.h"
#include "core/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lowerscope {

struct LoweringModel;

// Where a file comes from.
enum class SourceFileKind : uint8_t {
    Main,    // the file that was built (the opened .cu)
    Project, // under the main file's folder or an include directory of the build
    Toolkit, // under the CUDA toolkit (cuda_runtime, sm_*_intrinsics.hpp, cub, ...): read-only
    System   // anything else (the host compiler's headers, ...): read-only
};

// "main", "project", "toolkit", "system".
const char* sourceFileKindName(SourceFileKind kind);

// What the classification needs to know about the build. Empty fields are allowed: without a
// main file nothing is Main; without toolkit folders nothing is Toolkit.
struct SourceContext {
    std::string mainFile;                 // the .cu that was built, as given (relative to the cwd or absolute)
    std::vector<std::string> projectDirs; // include directories (-I); the main file's folder is always one
    std::vector<std::string> toolkitDirs; // CUDA toolkit roots, e.g. the folder above nvcc's bin/
    // The include folders of the toolkit whose nvcc built (toolkitIncludeDirsOf its root): the only
    // toolkit files that may be read and shown (SourceFileInfo::viewable).
    std::vector<std::string> toolkitIncludeDirs;
};

// The context of one build input: a CUDA source is the Main file (other kinds have none: their
// line info names files the user did not open); its folder and the -I directories of its options
// are the project; the toolkit is where the toolchain's nvcc and ptxas live, and its include
// folders are those of nvcc's toolkit (the headers that build was compiled against).
SourceContext sourceContextFor(const BuildInput& input, const Toolchain& toolchain);

// One file code maps to.
struct SourceFileInfo {
    std::string path;         // as recorded by the compiler: the key used in SourceLoc::file
    std::string resolved;     // canonical absolute path when the file exists here, else ""
    SourceFileKind kind = SourceFileKind::System;
    bool readOnly = true;     // Toolkit and System files are shown read-only
    // The file may be read and shown (`resolved` is set): a Main or Project file, or a Toolkit file
    // under SourceContext::toolkitIncludeDirs. Never a System file nor any other path line info
    // names (line info of an untrusted input is untrusted: docs/SECURITY.md).
    bool viewable = false;
    int instructions = 0;     // SASS instructions whose inline chain passes through the file
    int callSites = 0;        // SASS instructions whose outermost frame (call site) is in the file
    bool operator==(const SourceFileInfo&) const = default;
};

// The toolkit root of an nvcc path ("/usr/local/cuda/bin/nvcc" → "/usr/local/cuda"); "" if unknown.
std::string toolkitRootOf(const std::string& nvccPath);

// The include folders of a toolkit root that exist, canonical: <root>/include and
// <root>/targets/*/include (where nvcc.profile points nvcc's -I and -isystem). Empty for "".
std::vector<std::string> toolkitIncludeDirsOf(const std::string& toolkitRoot);

// Whether `path` (any form; symbolic links are resolved) names a regular file that may be shown
// read from disk for this build: the Main file, a file under the main file's folder or a project
// folder, or a file under a toolkit include folder. Returns its canonical path, or "" when not.
std::string viewableSourcePath(const std::string& path, const SourceContext& context);

// An `#include "name"` or `#include <name>` directive (blanks allowed around `#` and the name).
struct IncludeDirective {
    std::string name;    // as written between the quotes or brackets
    bool angled = false; // <name>
};

// The directive on one line of source text; nullopt when the line is not one (a macro include,
// a comment, an unterminated name).
std::optional<IncludeDirective> parseIncludeDirective(std::string_view line);

// The file an include directive names for this build, as the compiler looks for it: "name" in
// `includingDir` (the folder of the file that includes it; "" = none) first, then in each -I
// folder (context.projectDirs), then in the toolkit's include folders; <name> skips the first. The
// first file found decides, and it must be viewable (viewableSourcePath): one that leads outside
// the user's folders and the toolkit's include folders is refused, never opened. Returns its
// canonical path, or "" with `error` set to one line saying why.
std::string resolveInclude(const IncludeDirective& include, const std::string& includingDir,
                           const SourceContext& context, std::string& error);

// Classifies one recorded path.
SourceFileKind classifySourceFile(const std::string& recordedPath, const SourceContext& context);

// A PtxListing with only the `.file` table of `ptxText` filled (a line scan, no full parse), for
// collectSourceFiles when no model is built.
PtxListing ptxFileTable(std::string_view ptxText);

// Every file that the SASS instructions of `sass` (any frame) or the PTX `.file` table of `ptx`
// name, classified, counted and sorted: Main first, then Project, Toolkit, System, each by path.
// `sass` may be empty (a build without a model: the PTX table alone, counts 0).
std::vector<SourceFileInfo> collectSourceFiles(const PtxListing& ptx, const std::vector<const SassFunction*>& sass,
                                           const SourceContext& context);

// The recorded path that `query` names among `files`: the same path, else the same canonical
// path, else the only file whose path ends with `query` in whole components (a file name, or
// "include/gemm.cuh"). On failure returns "" and sets `error` to one
// line saying why, listing the candidates when the file name is ambiguous (or every file when
// none matches). `query` empty or "-" names the Main file.
std::string resolveSourceQuery(const std::vector<SourceFileInfo>& files, const std::string& query, std::string& error);

} // namespace lowerscope
