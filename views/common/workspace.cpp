#include "views/common/workspace.h"

#include "core/analysis/selection_key.h"
#include "core/build/lifetime.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace lowerscope {

Workspace::Workspace(QObject* parent, std::shared_ptr<JobTracker> jobs)
    : QObject(parent), m_backend(runRealBuild),
      m_jobs(jobs ? std::move(jobs) : std::make_shared<JobTracker>()) {
    qRegisterMetaType<SnapshotPtr>("lowerscope::SnapshotPtr");
    m_workDir = QDir(QDir::tempPath())
                    .filePath(QStringLiteral("lowerscope-%1").arg(QCoreApplication::applicationPid()));
    // Removed by the watchdog should the GUI be killed (core/build/lifetime.h).
    watchDirectory(QDir(m_workDir).absolutePath().toStdString());
}

Workspace::~Workspace() {
    // Kill every child and wait for this workspace's jobs, so none writes into the work folder
    // removed below.
    m_jobs->cancelOwnedBy(this, true);
    if (m_workDir.contains(QStringLiteral("lowerscope-"))) QDir(m_workDir).removeRecursively();
    unwatchDirectory(QDir(m_workDir).absolutePath().toStdString());
}

QString Workspace::displayName() const {
    return m_path.isEmpty() ? QStringLiteral("untitled.cu") : QFileInfo(m_path).fileName();
}

void Workspace::setDocument(const QString& path, const QString& text) {
    m_inputPath.clear();
    m_variant.clear();
    m_path = path;
    m_text = text;
    m_good.reset();
    m_last.reset();
    m_kernel = -1;
    m_selection = {};
    m_requestOrigin = Selection::Origin::None;
    m_requestFile.clear();
    m_openedIncludes.clear();
    m_headerEdits.clear(); // the window asked about them first (MainWindow::maybeSave)
    emit documentChanged();
    emit snapshotChanged();
    emit selectionChanged();
    updateStale();
}

void Workspace::setInput(const QString& path) {
    setDocument(path, QString());
    m_inputPath = path;
}

void Workspace::setProject(const std::optional<ProjectOptions>& project) {
    m_project = project;
    if (project) {
        // A project that builds several archs builds each; the Input box switches between them.
        BuildOptions o = project->options;
        if (project->archs.size() > 1) {
            o.arch.clear();
            for (const auto& a : project->archs) o.arch += (o.arch.empty() ? "" : ",") + a;
            m_project->options.arch = o.arch;
        }
        setOptions(o);
    }
    emit projectChanged();
}

void Workspace::setVariant(const QString& variant, bool rebuild) {
    if (variant == m_variant) return;
    m_variant = variant;
    if (rebuild) build();
}

void Workspace::setEditorText(const QString& text) {
    if (text == m_text) return;
    m_text = text;
    updateStale();
    emit editorTextChanged();
}

void Workspace::setOptions(const BuildOptions& options) {
    if (options == m_options) return;
    m_options = options;
    emit optionsChanged();
}

std::vector<std::string> Workspace::previewCommand() const {
    std::vector<std::string> argv{"nvcc"};
    for (auto& a : toNvccArgs(m_options)) argv.push_back(a);
    const std::string name = displayName().toStdString();
    const std::string stem = QFileInfo(displayName()).completeBaseName().toStdString();
    argv.insert(argv.end(), {"-cubin", "-o", stem + ".cubin", name});
    return argv;
}

quint64 Workspace::build() {
    // A newer build supersedes the running one: kill its children now; its result is dropped.
    if (m_currentJob) m_jobs->cancel(m_currentJob);
    // The compiler reads headers from disk: edited ones are saved first, so the build sees them.
    if (QString error; !saveHeaderEdits(&error)) emit headerSaveFailed(error);

    BuildRequest request;
    request.sourcePath = m_path;
    request.displayName = displayName();
    request.text = m_text;
    request.options = m_options;
    request.inputPath = m_inputPath;
    request.variant = m_variant;

    const bool wasBusy = isBuilding();
    auto backend = m_backend;
    const QString workRoot = m_workDir;
    const quint64 id = m_jobs->start<SnapshotPtr>(
        this, QStringLiteral("build"), tr("Build of %1").arg(request.displayName),
        [backend, request, workRoot](quint64 jobId, std::atomic<bool>* cancel) mutable {
            request.jobId = jobId;
            // One folder per job: a superseded job may still be writing its copy.
            request.workDir = QDir(workRoot).filePath(QString::number(jobId));
            std::shared_ptr<BuildSnapshot> snap;
            try {
                snap = backend(request, cancel);
            } catch (const std::exception& e) {
                // The pipeline promises not to throw; a bug there must not take the GUI down.
                snap = std::make_shared<BuildSnapshot>();
                snap->error = QStringLiteral("internal error: %1").arg(QString::fromUtf8(e.what()));
            }
            if (!snap) snap = std::make_shared<BuildSnapshot>();
            snap->jobId = request.jobId;
            if (cancel->load()) snap->result.cancelled = true;
            return SnapshotPtr(snap);
        },
        [this](quint64 jobId, SnapshotPtr result, bool cancelled) { onJobDone(jobId, result, cancelled); });
    m_currentJob = id;
    emit buildStarted(id);
    if (!wasBusy) emit busyChanged(true);
    return id;
}

void Workspace::cancelBuild() {
    if (m_currentJob) m_jobs->cancel(m_currentJob);
}

void Workspace::onJobDone(quint64 id, const SnapshotPtr& result, bool cancelled) {
    if (id != m_currentJob) return; // superseded: a newer job owns the UI
    emit busyChanged(false);
    if (result->result.cancelled || cancelled) {
        m_lastCancelled = true;
        emit buildCancelled(id);
        return;
    }
    m_lastCancelled = false;
    SnapshotPtr snap = result;
    m_last = snap;
    if (isInputMode() && !snap->shownSource.isEmpty() &&
        (snap->shownSource != m_path || snap->builtText != m_text)) {
        // The source the input's line info names: shown (without resetting the listing).
        m_path = snap->shownSource;
        m_text = snap->builtText;
        emit documentChanged();
    }
    if (!snap->variant.isEmpty()) m_variant = snap->variant;
    if (snap->ok()) {
        QString previousKernel;
        if (const KernelModel* k = kernel()) previousKernel = QString::fromStdString(k->mangled);
        // A PTX line or SASS address means nothing in the new build (code added above shifts them
        // all): the selection is carried over by source position (core/analysis/selection_key.h).
        SassKey sassSelection;
        PtxKey ptxSelection;
        if (m_good && m_requestOrigin == Selection::Origin::Sass) {
            if (const KernelModel* k = kernel()) sassSelection = sassKey(*k, m_requestAddress);
        } else if (m_good && m_requestOrigin == Selection::Origin::Ptx) {
            ptxSelection = ptxKey(m_good->model.ptx, m_requestLine);
        }
        const std::string oldMain = mainRecordedFile();
        m_good = snap;
        m_kernel = snap->model.kernels.empty() ? -1 : 0;
        for (int i = 0; i < int(snap->model.kernels.size()); ++i)
            if (QString::fromStdString(snap->model.kernels[size_t(i)].mangled) == previousKernel) m_kernel = i;
        // Each build compiles its own copy of the document (build_job.h), so the line info of
        // the new build names it by another path: the keys follow the document, not the copy.
        const std::string newMain = mainRecordedFile();
        if (!oldMain.empty() && sassSelection.file == oldMain) sassSelection.file = newMain;
        if (!oldMain.empty() && ptxSelection.file == oldMain) ptxSelection.file = newMain;
        if (sassSelection.valid()) {
            if (const auto found = findSass(snap->model, sassSelection); found && found->kernel == m_kernel)
                m_requestAddress = found->address;
        } else if (ptxSelection.valid()) {
            if (const auto found = findPtx(snap->model.ptx, ptxSelection)) m_requestLine = *found;
        }
        emit snapshotChanged();
        emit kernelChanged(m_kernel);
        recomputeSelection();
    }
    updateStale();
    emit buildFinished(id, snap);
}

QString Workspace::buildStatus() const {
    if (isBuilding()) return QStringLiteral("building");
    if (m_lastCancelled) return QStringLiteral("cancelled");
    if (!m_last) return QStringLiteral("none");
    return m_last->ok() ? QStringLiteral("ok") : QStringLiteral("failed");
}

void Workspace::updateStale() {
    const bool stale = (m_good && m_good->builtText != m_text) || (m_last && !m_last->ok() && m_good) ||
                       (m_good && !m_headerEdits.empty());
    if (stale == m_stale) return;
    m_stale = stale;
    emit staleChanged(stale);
}

const KernelModel* Workspace::kernel() const {
    if (!m_good || m_kernel < 0 || m_kernel >= int(m_good->model.kernels.size())) return nullptr;
    return &m_good->model.kernels[size_t(m_kernel)];
}

void Workspace::setKernelIndex(int index) {
    if (!m_good || index < 0 || index >= int(m_good->model.kernels.size()) || index == m_kernel) return;
    m_kernel = index;
    emit kernelChanged(index);
    recomputeSelection();
}

void Workspace::setAttribution(InlineAttribution attribution) {
    if (attribution == m_attribution) return;
    m_attribution = attribution;
    emit attributionChanged();
    recomputeSelection();
}

bool Workspace::isMainFile(const std::string& file) const {
    if (file.empty()) return false;
    const QString name = QFileInfo(QString::fromStdString(file)).fileName();
    return name == displayName();
}

int Workspace::sourceLineForLoc(const std::optional<SourceLoc>& loc) const {
    if (!loc || !loc->valid()) return 0;
    if (m_attribution == InlineAttribution::CallSite) {
        const SourceFrame f = loc->callSite();
        return isMainFile(f.file) ? f.line : 0;
    }
    return isMainFile(loc->file) ? loc->line : 0;
}

std::pair<std::string, int> Workspace::sourcePositionForLoc(const std::optional<SourceLoc>& loc) const {
    if (!loc || !loc->valid()) return {};
    if (m_attribution == InlineAttribution::CallSite) {
        const SourceFrame f = loc->callSite();
        return {f.file, f.line};
    }
    return {loc->file, loc->line};
}

std::string Workspace::mainRecordedFile() const {
    if (!m_good) return {};
    for (const auto& f : m_good->model.files)
        if (f.kind == SourceFileKind::Main) return f.path;
    // Inputs opened as they are have no Main file: the one named like the document.
    for (const auto& f : m_good->model.files)
        if (isMainFile(f.path)) return f.path;
    return m_good->buildPath.toStdString();
}

std::vector<ShownSourceFile> Workspace::sourceFiles() const {
    std::vector<ShownSourceFile> out;
    if (!m_good) return out;
    const std::string main = mainRecordedFile();
    out.push_back(ShownSourceFile{main, m_path, true, false, !isInputMode(), displayName()});
    // Only files the core found viewable: the user's own (under the document's folder or an -I
    // folder) and the toolkit's headers (under the include folders of the nvcc that built), that
    // exist here. A path from line info never leads the pane anywhere else (docs/SECURITY.md).
    for (const auto& f : m_good->model.files) {
        if (f.path == main || !f.viewable || f.resolved.empty()) continue;
        if (f.kind != SourceFileKind::Project && f.kind != SourceFileKind::Toolkit) continue;
        if (isMainFile(f.path)) continue; // the original of the build copy
        const QString resolved = QString::fromStdString(f.resolved);
        ShownSourceFile shown{f.path, resolved, false, f.kind == SourceFileKind::Toolkit, false, QFileInfo(resolved).fileName()};
        shown.editable = !shown.toolkit && !isInputMode();
        if (shown.toolkit) {
            // "cuda/std/__cmath/..." says more than a bare file name among the toolkit's headers.
            for (const auto& dir : m_good->sources.toolkitIncludeDirs) {
                const QString rel = QDir(QString::fromStdString(dir)).relativeFilePath(resolved);
                if (!rel.startsWith(QLatin1String(".."))) {
                    shown.label = rel;
                    break;
                }
            }
        }
        out.push_back(std::move(shown));
    }
    // Headers opened from an include line, checked again against this build's folders.
    for (const auto& opened : m_openedIncludes) {
        const QString path = QString::fromStdString(opened);
        if (std::any_of(out.begin(), out.end(), [&](const ShownSourceFile& f) { return f.path == path; })) continue;
        if (viewableSourcePath(opened, m_good->sources) != opened) continue;
        out.push_back(ShownSourceFile{opened, path, false, false, !isInputMode(), QFileInfo(path).fileName()});
        for (const auto& dir : m_good->sources.toolkitIncludeDirs) {
            const QString rel = QDir(QString::fromStdString(dir)).relativeFilePath(path);
            if (!rel.startsWith(QLatin1String(".."))) {
                out.back().toolkit = true;
                out.back().editable = false;
                out.back().label = rel;
                break;
            }
        }
    }
    return out;
}

bool Workspace::setHeaderText(const QString& path, const QString& text) {
    if (path.isEmpty()) return false;
    const auto files = sourceFiles();
    const bool offered = std::any_of(files.begin(), files.end(),
                                     [&](const ShownSourceFile& f) { return !f.main && f.editable && f.path == path; });
    // Only the user's own headers this build offers: no other path is ever written.
    if (!offered) return false;
    auto it = m_headerEdits.find(path);
    if (it != m_headerEdits.end() && it->second == text) return true;
    m_headerEdits[path] = text;
    updateStale();
    emit headerEditsChanged();
    return true;
}

QString Workspace::headerText(const QString& path) const {
    const auto it = m_headerEdits.find(path);
    return it == m_headerEdits.end() ? QString() : it->second;
}

QStringList Workspace::editedHeaders() const {
    QStringList out;
    for (const auto& [path, text] : m_headerEdits) out << path;
    return out;
}

bool Workspace::saveHeaderEdits(QString* error) {
    if (m_headerEdits.empty()) return true;
    bool ok = true;
    for (auto it = m_headerEdits.begin(); it != m_headerEdits.end();) {
        QSaveFile f(it->first);
        if (f.open(QIODevice::WriteOnly) && f.write(it->second.toUtf8()) >= 0 && f.commit()) {
            it = m_headerEdits.erase(it);
            continue;
        }
        if (ok && error) *error = tr("Cannot save %1: %2").arg(it->first, f.errorString());
        ok = false;
        ++it;
    }
    updateStale();
    emit headerEditsChanged();
    return ok;
}

void Workspace::discardHeaderEdits() {
    if (m_headerEdits.empty()) return;
    m_headerEdits.clear();
    updateStale();
    emit headerEditsChanged();
}

std::string Workspace::openInclude(const QString& lineText, const std::string& fromRecorded, QString* error) {
    auto fail = [error](const QString& why) {
        if (error) *error = why;
        return std::string();
    };
    const auto include = parseIncludeDirective(lineText.toStdString());
    if (!include) return fail(tr("not an #include line"));
    if (!m_good) return fail(tr("nothing is built yet: the include folders are not known"));
    const auto files = sourceFiles();
    QString from;
    for (const auto& f : files)
        if (fromRecorded.empty() ? f.main : f.recorded == fromRecorded) from = f.path;
    const std::string fromDir = from.isEmpty() ? std::string() : QFileInfo(from).absolutePath().toStdString();
    std::string why;
    const std::string found = resolveInclude(*include, fromDir, m_good->sources, why);
    if (found.empty()) return fail(QString::fromStdString(why));
    const QString path = QString::fromStdString(found);
    for (const auto& f : files)
        if (f.path == path || (f.main && !f.path.isEmpty() && QFileInfo(f.path).canonicalFilePath() == path))
            return f.recorded;
    if (std::find(m_openedIncludes.begin(), m_openedIncludes.end(), found) == m_openedIncludes.end())
        m_openedIncludes.push_back(found);
    return found;
}

const std::vector<QString>& Workspace::sassSourceLabels() const {
    sassSourceLines();
    return m_labels;
}

const std::vector<int>& Workspace::sassSourceLines() const {
    ListingKey key = listingKey();
    if (key.sameAs(m_linesKey) && key.identity) return m_lines;
    m_lines.clear();
    m_labels.clear();
    if (const KernelModel* k = kernel()) {
        // sourceLineForLoc for each row, without its per-row costs: the location is not copied,
        // and whether a file is the open document is decided once per distinct file name (a
        // 100k-row listing names a handful) instead of building QFileInfos per row.
        std::unordered_map<std::string_view, bool> isMain;
        const std::string* lastFile = nullptr; // runs of one file skip the hash
        bool lastIsMain = false;
        const QString name = key.name;
        const auto& entries = k->correlation.sassEntries; // one per instruction, in row order
        const auto& instructions = k->sass.instructions;
        m_lines.reserve(instructions.size());
        m_labels.resize(instructions.size());
        // "file:line" of rows in other files, one shared string per distinct position.
        std::map<std::pair<std::string_view, int>, QString> labels;
        for (size_t i = 0; i < instructions.size(); ++i) {
            const uint32_t address = instructions[i].address;
            const SourceLoc* loc = nullptr;
            if (i < entries.size() && entries[i].address == address)
                loc = entries[i].source.valid() ? &entries[i].source : nullptr;
            else
                loc = k->correlation.findSourceForSass(address);
            if (!loc) {
                m_lines.push_back(0);
                continue;
            }
            const bool callSite = m_attribution == InlineAttribution::CallSite && !loc->inlinedAt.empty();
            const std::string& file = callSite ? loc->inlinedAt.back().file : loc->file;
            const int line = callSite ? loc->inlinedAt.back().line : loc->line;
            if (!lastFile || *lastFile != file) {
                auto [it, fresh] = isMain.try_emplace(file, false);
                if (fresh) it->second = !file.empty() && QFileInfo(QString::fromStdString(file)).fileName() == name;
                lastFile = &file;
                lastIsMain = it->second;
            }
            m_lines.push_back(lastIsMain ? line : 0);
            if (!lastIsMain && !file.empty() && line > 0) {
                auto [it, fresh] = labels.try_emplace({std::string_view(file), line});
                if (fresh) it->second = QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(file)).fileName()).arg(line);
                m_labels[i] = it->second;
            }
        }
    }
    m_linesKey = std::move(key);
    return m_lines;
}

ListingKey Workspace::listingKey() const {
    return ListingKey{m_good, m_good.get(), m_kernel, m_attribution, displayName()};
}

int Workspace::sourceLineForSass(uint32_t address) const {
    const KernelModel* k = kernel();
    return k ? sourceLineForLoc(k->correlation.sourceForSass(address)) : 0;
}

void Workspace::selectSourceLine(int line, bool hover) {
    selectSourceLineIn(std::string(), line, hover);
}

void Workspace::selectSourceLineIn(const std::string& recordedFile, int line, bool hover) {
    const bool main = recordedFile.empty() || recordedFile == mainRecordedFile();
    m_requestOrigin = Selection::Origin::Source;
    m_requestLine = line;
    m_requestFile = main ? std::string() : recordedFile;
    m_selection = {};
    m_selection.origin = Selection::Origin::Source;
    m_selection.hover = hover;
    m_selection.sourceLine = main ? line : 0;
    m_selection.sourceFile = main ? mainRecordedFile() : recordedFile;
    m_selection.fileLine = line;
    if (const KernelModel* k = kernel(); k && line > 0) {
        const std::string file = main ? m_good->buildPath.toStdString() : recordedFile;
        m_selection.ptxLines = k->correlation.ptxLinesForSource(file, line, m_attribution);
        m_selection.sassAddresses = k->correlation.sassForSource(file, line, m_attribution);
        std::sort(m_selection.ptxLines.begin(), m_selection.ptxLines.end());
        std::sort(m_selection.sassAddresses.begin(), m_selection.sassAddresses.end());
        if (!m_selection.ptxLines.empty()) m_selection.focusPtxLine = m_selection.ptxLines.front();
        if (!m_selection.sassAddresses.empty()) m_selection.focusSassAddress = m_selection.sassAddresses.front();
    }
    emit selectionChanged();
}

void Workspace::selectPtxLine(int line) {
    m_requestOrigin = Selection::Origin::Ptx;
    m_requestLine = line;
    m_selection = {};
    m_selection.origin = Selection::Origin::Ptx;
    m_selection.focusPtxLine = line;
    if (line > 0) m_selection.ptxLines = {line};
    if (const KernelModel* k = kernel(); k && line > 0) {
        m_selection.location = k->correlation.sourceForPtx(line);
        m_selection.sourceLine = sourceLineForLoc(m_selection.location);
        std::tie(m_selection.sourceFile, m_selection.fileLine) = sourcePositionForLoc(m_selection.location);
        m_selection.sassAddresses = k->correlation.sassForPtx(line);
        std::sort(m_selection.sassAddresses.begin(), m_selection.sassAddresses.end());
        if (!m_selection.sassAddresses.empty()) m_selection.focusSassAddress = m_selection.sassAddresses.front();
    }
    emit selectionChanged();
}

void Workspace::selectSassAddress(uint32_t address) {
    m_requestOrigin = Selection::Origin::Sass;
    m_requestAddress = address;
    m_selection = {};
    m_selection.origin = Selection::Origin::Sass;
    m_selection.sassAddresses = {address};
    m_selection.focusSassAddress = address;
    if (const KernelModel* k = kernel()) {
        m_selection.location = k->correlation.sourceForSass(address);
        m_selection.sourceLine = sourceLineForLoc(m_selection.location);
        std::tie(m_selection.sourceFile, m_selection.fileLine) = sourcePositionForLoc(m_selection.location);
        const int ptx = k->correlation.ptxLineForSass(address);
        if (ptx > 0) m_selection.ptxLines = {ptx};
        m_selection.focusPtxLine = ptx;
    }
    emit selectionChanged();
}

void Workspace::clearSelection() {
    m_requestOrigin = Selection::Origin::None;
    m_selection = {};
    emit selectionChanged();
}

void Workspace::setLaunchShape(int blockThreads, int dynamicSharedBytes) {
    m_launchThreads = blockThreads;
    m_launchShared = dynamicSharedBytes;
    emit launchShapeChanged(blockThreads, dynamicSharedBytes);
}

void Workspace::setCompareLineDeltas(std::vector<LineDelta> deltas) {
    m_compareDeltas = std::move(deltas);
    emit compareLineDeltasChanged();
}

void Workspace::recomputeSelection() {
    switch (m_requestOrigin) {
    case Selection::Origin::None: break;
    case Selection::Origin::Source: selectSourceLineIn(m_requestFile, m_requestLine); break;
    case Selection::Origin::Ptx: selectPtxLine(m_requestLine); break;
    case Selection::Origin::Sass: selectSassAddress(m_requestAddress); break;
    }
}

} // namespace lowerscope
