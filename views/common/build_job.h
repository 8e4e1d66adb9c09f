#pragma once
// One background build: the request (editor text + options), the immutable snapshot it produces,
// and the pluggable backend that turns one into the other (the real pipeline by default; tests may
// install their own).

#include "core/build/build.h"
#include "core/analysis/lowering.h"

#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

namespace lowerscope {

struct BuildRequest {
    quint64 jobId = 0;
    QString sourcePath;    // the file the editor shows ("" for an unsaved buffer)
    QString displayName;   // file name shown to the user and used for the build copy
    QString text;          // the editor text to build
    BuildOptions options;  // arch may list several ("sm_80,sm_90"): each is built, `variant` shown
    QString workDir;       // where the build copy of `text` is written (per-session temp dir)
    // Inputs opened as they are (a cubin, a binary, a Triton folder, PTX next to its sources):
    // built from this path instead of a copy of `text`; "" = build the editor text.
    QString inputPath;
    QString variant;       // the arch (of several) or the member of a binary / Triton cache to show
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
    // Where the document, the project's folders and the toolkit's include folders were for this
    // build (what model.files was classified by; what a header may be opened from).
    SourceContext sources;
    QString error;         // pipeline failure text (missing tool, I/O); compile errors are diagnostics
    double modelMs = 0;    // time spent assembling the lowering model
    // What the Input box offers: the archs of a several-arch build, the embedded cubins/PTX of a
    // binary or the kernels of a Triton cache, and which one this snapshot shows.
    QStringList variants;
    QString variant;
    // Input mode: the source file named by the line info (shown in the source pane), or the input
    // itself when it is text (PTX) and no source exists; "" for a binary without line info.
    QString shownSource;
    bool ok() const { return result.ok; }
};
using SnapshotPtr = std::shared_ptr<const BuildSnapshot>;

// Runs one build on the calling (worker) thread. `cancel` may be set from another thread.
using BuildBackend = std::function<std::shared_ptr<BuildSnapshot>(const BuildRequest&, std::atomic<bool>* cancel)>;

// The real pipeline: writes the text to workDir/displayName (adding the original file's folder to
// the include path so relative #includes still resolve) or takes request.inputPath as it is,
// discovers the toolchain, runs buildInput (each arch of a list, the variant's shown) and
// buildLoweringModel.
std::shared_ptr<BuildSnapshot> runRealBuild(const BuildRequest& request, std::atomic<bool>* cancel);

// The source file to show for an input opened as it is: the file most of the first kernel's SASS
// maps to (call sites, via line info), when it exists and is a source file (.cu, .cuh, .h, .hpp,
// .py, ...); a Triton kernel's relative `.file` is looked up next to its cache folder. "" when none.
QString sourceForInput(const BuildSnapshot& snapshot);

// Toolchain discovery is slow (it runs the tools); done once per process on a worker and cached.
const Toolchain& cachedToolchain();

} // namespace lowerscope
