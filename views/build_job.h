#pragma once
// One background build: the request (editor text + options), the immutable snapshot it produces,
// and the pluggable backend that turns one into the other (the real pipeline by default; tests may
// install their own).

#include "core/build/build.h"
#include "core/analysis/lowering.h"

#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace lowerscope {

struct BuildRequest {
    quint64 jobId = 0;
    QString sourcePath;    // the file the editor shows ("" for an unsaved buffer)
    QString displayName;   // file name shown to the user and used for the build copy
    QString text;          // the editor text to build
    BuildOptions options;
    QString workDir;       // where the build copy of `text` is written (per-session temp dir)
};

// Everything one finished build produced. Immutable once published; shared by every pane.
struct BuildSnapshot {
    quint64 jobId = 0;
    QString sourcePath;
    QString buildPath;     // the path actually compiled (recorded by the compiler in line info)
    QString builtText;
    BuildOptions options;
    BuildResult result;
    LoweringModel model;   // empty unless result.ok
    QString error;         // pipeline failure text (missing tool, I/O); compile errors are diagnostics
    double modelMs = 0;    // time spent assembling the lowering model
    bool ok() const { return result.ok; }
};
using SnapshotPtr = std::shared_ptr<const BuildSnapshot>;

// Runs one build on the calling (worker) thread. `cancel` may be set from another thread.
using BuildBackend = std::function<std::shared_ptr<BuildSnapshot>(const BuildRequest&, std::atomic<bool>* cancel)>;

// The real pipeline: writes the text to workDir/displayName (adding the original file's folder to
// the include path so relative #includes still resolve), discovers the toolchain, runs buildFile
// and buildLoweringModel.
std::shared_ptr<BuildSnapshot> runRealBuild(const BuildRequest& request, std::atomic<bool>* cancel);

// Toolchain discovery is slow (it runs the tools); done once per process on a worker and cached.
const Toolchain& cachedToolchain();

} // namespace lowerscope
