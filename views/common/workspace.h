#pragma once
// The workspace facade (hotspot's PerfParser / RenderDoc's ICaptureContext pattern): owns the open
// document, the build options, the background build jobs and the current selection. Every pane
// observes its signals and calls its slots; panes never call each other.
//
// Builds run as jobs of the window's JobTracker (views/common/job_tracker.h; shared with the other
// workspace and the measure pane), each with its job id. A newer build supersedes (and cancels)
// an older one, whose result is then dropped. Results reach the UI thread through the tracker;
// nothing arrives after this object is destroyed.

#include "core/analysis/diff.h"
#include "views/common/build_job.h"
#include "views/common/job_tracker.h"

#include "core/build/compile_db.h"

#include <QObject>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace lowerscope {

// What the linked panes highlight. Computed by the session from the core's Correlation; panes
// only look rows up.
struct Selection {
    enum class Origin { None, Source, Ptx, Sass };
    Origin origin = Origin::None;
    bool hover = false;                   // from a mouse hover rather than a click / cursor move
    int sourceLine = 0;                   // line in the open document, 0 = none (or another file)
    std::vector<int> ptxLines;            // module PTX line numbers (1-based), ascending
    std::vector<uint32_t> sassAddresses;  // SASS addresses of the current kernel, ascending
    int focusPtxLine = 0;                 // the PTX line to scroll to (origin Ptx/Sass)
    std::optional<uint32_t> focusSassAddress; // the SASS row to scroll to (origin Sass)
    std::optional<SourceLoc> location;    // full source location with inline chain (Ptx/Sass origin)
    // The selected position in any file the code maps to (the open document or a header), under
    // the current attribution: the path as the compiler recorded it ("" = none) and its line.
    std::string sourceFile;
    int fileLine = 0;
    bool empty() const { return origin == Origin::None; }
};

// What a listing pane shows: the listing (by identity, held weakly so no dropped listing is kept
// alive), the kernel, the inline attribution and the document's name. The workspace signals a
// new build with snapshotChanged and kernelChanged both; a pane that compares keys reloads once.
struct ListingKey {
    std::weak_ptr<const BuildSnapshot> snapshot;
    const BuildSnapshot* identity = nullptr;
    int kernel = -1;
    InlineAttribution attribution = InlineAttribution::CallSite;
    QString name;
    // Equal keys name the same live listing (an expired one's address may have been reused).
    bool sameAs(const ListingKey& o) const {
        return identity == o.identity && !(identity && snapshot.expired()) && kernel == o.kernel &&
               attribution == o.attribution && name == o.name;
    }
};

// A file the Source pane can show: the open document, a header of the user's or a header of the
// toolkit the build used, that the current build's line info names.
struct ShownSourceFile {
    std::string recorded; // the path as the compiler recorded it (the key in SourceLoc::file)
    QString path;         // where it is read from (canonical); the open document's own path for it
    bool main = false;    // the open document (editable); headers are shown read-only
    bool toolkit = false; // under an include folder of the toolkit whose nvcc built (read-only)
    bool editable = false; // a header of the user's (not the toolkit's, not in input mode)
    QString label;        // what the file selector says: the file name, a toolkit header's path
                          // below its include folder ("cuda/std/cmath")
};

class Workspace : public QObject {
    Q_OBJECT
public:
    // `jobs`: the window's job tracker; none: this workspace makes one of its own.
    explicit Workspace(QObject* parent = nullptr, std::shared_ptr<JobTracker> jobs = {});
    ~Workspace() override;
    // The tracker this workspace's builds run on (give it to the window's other job owners).
    const std::shared_ptr<JobTracker>& jobs() const { return m_jobs; }

    // Replaces the build function (tests install fakes). Default: runRealBuild.
    void setBackend(BuildBackend backend) { m_backend = std::move(backend); }
    // Where build copies of the editor text are written (default: a private temp dir).
    void setWorkDir(const QString& dir) { m_workDir = dir; }

    // ---- document
    void setDocument(const QString& path, const QString& text); // a file was opened / saved as
    // Opens an input as it is (a cubin, a binary, a Triton folder, PTX beside its sources): builds
    // use the path itself; after each build the source pane shows the source its line info names
    // (read-only). setDocument leaves this mode.
    void setInput(const QString& path);
    bool isInputMode() const { return !m_inputPath.isEmpty(); }
    QString inputPath() const { return m_inputPath; }
    void setEditorText(const QString& text);                    // every edit
    QString sourcePath() const { return m_path; }
    QString displayName() const;
    QString text() const { return m_text; }

    // ---- build options
    const BuildOptions& options() const { return m_options; }
    void setOptions(const BuildOptions& options);
    // The project (compile database entry) the options came from; nullopt when none. Setting one
    // replaces the options with the project's.
    const std::optional<ProjectOptions>& project() const { return m_project; }
    void setProject(const std::optional<ProjectOptions>& project);
    // Which of several builds the panes show: an arch of an arch list, a binary's member, a Triton
    // cache's kernel (BuildSnapshot::variants). Rebuilds (a cache hit once built) unless told not to.
    QString variant() const { return m_variant; }
    void setVariant(const QString& variant, bool rebuild = true);
    // The nvcc command the next build will run first (for the live preview).
    std::vector<std::string> previewCommand() const;

    // ---- builds
    quint64 build();          // starts a background build of the current text; returns its id
    void cancelBuild();       // sets the cancel flag of the running build (its children are killed)
    bool isBuilding() const { return m_currentJob != 0 && m_jobs->isRunning(m_currentJob); }
    quint64 currentJob() const { return m_currentJob; }
    SnapshotPtr snapshot() const { return m_good; }       // last successful build (what panes show)
    SnapshotPtr lastAttempt() const { return m_last; }    // last finished build, ok or not
    // True while the editor text differs from the text of the listing shown (or the last build
    // failed): correlation is dimmed.
    bool isStale() const { return m_stale; }
    QString buildStatus() const; // "none", "building", "ok", "failed", "cancelled"
    int jobsInFlight() const { return m_jobs->count(this); }

    // ---- kernels
    int kernelIndex() const { return m_kernel; }
    const KernelModel* kernel() const;
    void setKernelIndex(int index);

    // ---- linking
    InlineAttribution attribution() const { return m_attribution; }
    void setAttribution(InlineAttribution attribution);
    const Selection& selection() const { return m_selection; }
    void selectSourceLine(int line, bool hover = false);
    // A line of any file of sourceFiles() (its recorded path); the open document's recorded path
    // is the same as selectSourceLine.
    void selectSourceLineIn(const std::string& recordedFile, int line, bool hover = false);
    void selectPtxLine(int line);
    void selectSassAddress(uint32_t address);
    void clearSelection();
    // Source line a SASS instruction / PTX line is attributed to under the current attribution,
    // and whether it is in the open document. 0 when unknown.
    int sourceLineForSass(uint32_t address) const;
    int sourceLineForLoc(const std::optional<SourceLoc>& loc) const;
    // sourceLineForSass of every instruction of the current kernel, in row order (empty without
    // one). Computed once per listing, kernel, attribution and document name, for all panes.
    const std::vector<int>& sassSourceLines() const;
    // Per row, "file:line" when the row's attributed line is in another file than the open
    // document (a header), else "" (computed with sassSourceLines).
    const std::vector<QString>& sassSourceLabels() const;
    // The (recorded file, line) a location is attributed to under the current attribution, in any
    // file; {"", 0} when unknown. AnyFrame shows the innermost frame, as Callee does.
    std::pair<std::string, int> sourcePositionForLoc(const std::optional<SourceLoc>& loc) const;
    // The files the Source pane offers for the current build: the open document first, then every
    // file of the user's (under the document's folder or an include directory of the build), then
    // every header under an include folder of the build's toolkit, that the line info names and
    // that exists here, by path (SourceFileInfo::viewable: no other path from line info is ever
    // read). Empty without a build.
    std::vector<ShownSourceFile> sourceFiles() const;
    // The recorded path of the open document in the current build ("" when none).
    std::string mainRecordedFile() const;
    // Ctrl+click on an include line: the file `lineText`'s `#include "..."` / `#include <...>`
    // names, looked up as the compiler does for this build (core resolveInclude: the including
    // file's folder, the -I folders, the toolkit's include folders) from the file of
    // sourceFiles() recorded as `fromRecorded` ("" = the document). A file not offered yet joins
    // sourceFiles() (recorded as its canonical path) until another document is opened. Returns the
    // recorded path to show, or "" with `error` saying why (not an include line, nothing built,
    // not found, outside your folders and the toolkit's include folders: never opened).
    std::string openInclude(const QString& lineText, const std::string& fromRecorded, QString* error);

    // ---- edits of the user's headers (issue 12). The compiler reads headers from disk, so an
    // edited header is saved before each build (and by save): the build sees what the pane shows.
    // Only files sourceFiles() offers as editable are accepted; false otherwise.
    bool setHeaderText(const QString& path, const QString& text);
    // The unsaved text of a header (its ShownSourceFile::path), or a null QString when unedited.
    QString headerText(const QString& path) const;
    bool hasHeaderEdits() const { return !m_headerEdits.empty(); }
    QStringList editedHeaders() const;
    // Writes every edited header (QSaveFile); false with `error` naming the first that failed
    // (the others are still written; failed ones stay edited).
    bool saveHeaderEdits(QString* error = nullptr);
    void discardHeaderEdits();
    ListingKey listingKey() const;
    // Asks the source pane to show a location (diagnostic clicked).
    void revealSource(int line, int column) { emit sourceRevealRequested(line, column); }

    // ---- what other panes publish about this document (so no pane calls another)
    // The block size (threads) and dynamic shared memory (bytes) the measure pane would launch
    // with; occupancy figures elsewhere follow it. 0 threads: not known yet.
    void setLaunchShape(int blockThreads, int dynamicSharedBytes);
    int launchBlockThreads() const { return m_launchThreads; }
    int launchDynamicShared() const { return m_launchShared; }
    // Per-source-line differences of the compare pane's build B against this build (B − A);
    // empty while there is no pair to compare.
    void setCompareLineDeltas(std::vector<LineDelta> deltas);
    const std::vector<LineDelta>& compareLineDeltas() const { return m_compareDeltas; }

signals:
    void documentChanged();
    void editorTextChanged(); // the user edited the text (autosave, auto-build)
    void headerEditsChanged(); // a header was edited, saved or its edits dropped (dirty markers, auto-build)
    void headerSaveFailed(const QString& error); // a build could not save an edited header first
    void optionsChanged();
    void projectChanged();
    void buildStarted(quint64 jobId);
    void buildFinished(quint64 jobId, lowerscope::SnapshotPtr snapshot); // ok or failed
    void buildCancelled(quint64 jobId);
    void busyChanged(bool busy);
    void snapshotChanged();   // a new good listing (panes reload)
    void kernelChanged(int index);
    void attributionChanged();
    void selectionChanged();
    void staleChanged(bool stale);
    void sourceRevealRequested(int line, int column);
    void launchShapeChanged(int blockThreads, int dynamicSharedBytes);
    void compareLineDeltasChanged();

private:
    void onJobDone(quint64 id, const SnapshotPtr& result, bool cancelled);
    void updateStale();
    void recomputeSelection();
    bool isMainFile(const std::string& file) const;

    BuildBackend m_backend;
    std::shared_ptr<JobTracker> m_jobs;
    QString m_workDir;
    QString m_path;
    QString m_text;
    QString m_inputPath;
    QString m_variant;
    BuildOptions m_options;
    std::optional<ProjectOptions> m_project;
    quint64 m_currentJob = 0;
    SnapshotPtr m_good;
    SnapshotPtr m_last;
    bool m_lastCancelled = false;
    bool m_stale = false;
    int m_kernel = -1;
    InlineAttribution m_attribution = InlineAttribution::CallSite;
    Selection m_selection;
    // What the last selection request was, so it can be recomputed after a rebuild (a SASS
    // address or PTX line is first carried over to the new build by its source position).
    Selection::Origin m_requestOrigin = Selection::Origin::None;
    int m_requestLine = 0;
    std::string m_requestFile; // origin Source: the recorded file of a header line ("" = the document)
    std::vector<std::string> m_openedIncludes; // canonical paths opened by openInclude, in order
    std::map<QString, QString> m_headerEdits;  // header path (ShownSourceFile::path) → unsaved text
    uint32_t m_requestAddress = 0;
    int m_launchThreads = 0;
    int m_launchShared = 0;
    std::vector<LineDelta> m_compareDeltas;
    // sassSourceLines() and what it was computed for.
    mutable ListingKey m_linesKey;
    mutable std::vector<int> m_lines;
    mutable std::vector<QString> m_labels;
};

} // namespace lowerscope

Q_DECLARE_METATYPE(lowerscope::SnapshotPtr)
