#include "views/capture/capture_room.h"

#include "core/bounded_json.h"
#include "core/build/demangle.h"
#include "core/capture/capture_metrics.h"
#include "core/capture/launch_snapshot.h"
#include "core/untrusted.h"
#include "views/capture/capture_form.h"
#include "views/capture/capture_view.h"
#include "views/capture/profile_dialog.h"
#include "views/common/dialogs.h"
#include "views/common/workspace.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QPlainTextEdit>
#include <QTableView>

#include <algorithm>

namespace lowerscope {

CaptureRoom::CaptureRoom(RoomHost& host, std::function<bool(const QString&)> openInput)
    : QObject(host.hostWindow()), m_host(host), m_openInput(std::move(openInput)) {
    m_view = new CaptureView(host.hostWindow());
    host.registerPane(QStringLiteral("capture"), tr("Capture"), m_view, Qt::BottomDockWidgetArea);
    connect(m_view, &CaptureView::kernelActivated, this, [this](int index) {
        QString error;
        if (!openKernel(index, &error)) m_view->setBanner(error, true);
    });
    Workspace* session = host.session();
    connect(session, &Workspace::buildFinished, this, &CaptureRoom::onBuildDone);
    connect(session, &Workspace::buildCancelled, this, [this] { m_pendingKernel.clear(); });
}

void CaptureRoom::addActions(RoomHost& host) {
    QMenu* file = host.menu(RoomHost::Menu::File);
    QAction* profile = new QAction(tr("Pro&file a program…"), file);
    profile->setObjectName(QStringLiteral("profileProgramAction"));
    profile->setToolTip(tr("Run a program (a benchmark, python3 script.py, …) under the capture: every kernel it "
                           "launches, timed on the GPU, each one openable in the code panes"));
    connect(profile, &QAction::triggered, this, &CaptureRoom::showProfileDialog);
    // Under the Open… entries, before Open recent (the shell's File menu).
    QAction* before = nullptr;
    const auto actions = file->actions();
    for (QAction* a : actions)
        if (a->menu()) {
            before = a;
            break;
        }
    file->insertAction(before, profile);
}

void CaptureRoom::applyTheme() { m_view->applyTheme(); }

bool CaptureRoom::hasDocument() const { return !m_view->document().path.isEmpty(); }

ProfileProgramDialog* CaptureRoom::profileDialog() {
    if (!m_dialog) {
        m_dialog = new ProfileProgramDialog(m_host.session()->jobs(), m_host.persistent(), m_host.hostWindow());
        connect(m_dialog, &ProfileProgramDialog::finished, this,
                [this](bool ok, const QString& path, const QString& message) {
                    m_host.showStatus(message, 10000);
                    if (!ok) return;
                    QString error;
                    if (!m_host.maybeSave()) return; // the document stays in the dialog's output path
                    if (!openCapture(path, {}, &error)) showProblem(m_host.hostWindow(), tr("Open capture"), error);
                });
    }
    return m_dialog;
}

void CaptureRoom::showProfileDialog() {
    ProfileProgramDialog* d = profileDialog();
    d->show();
    d->raise();
    d->activateWindow();
}

bool CaptureRoom::openCapture(const QString& path, const QString& kernel, QString* error) {
    CaptureDocumentView doc;
    QString why;
    if (!readCaptureView(path, doc, why)) {
        if (error) *error = why;
        m_host.showStatus(tr("Cannot open the capture: %1").arg(why), 10000);
        return false;
    }
    m_view->setDocument(doc);
    m_openedProfile.clear();
    findLaunchProfiles();
    if (QDockWidget* d = m_host.pane(QStringLiteral("capture"))) {
        d->show();
        d->raise();
    }
    m_shownKernel.clear();
    m_pendingKernel.clear();
    const auto& kernels = doc.summary.kernels;
    int index = -1;
    if (!kernel.isEmpty()) {
        std::string cubin, e;
        size_t i = 0;
        if (!capture::captureKernelCubin(doc.path.toStdString(), doc.summary, kernel.toStdString(), cubin, i, e)) {
            if (error) *error = QString::fromStdString(e);
            m_view->setBanner(QString::fromStdString(e), true);
            return false;
        }
        index = int(i);
    } else {
        const auto it = std::find_if(kernels.begin(), kernels.end(), [](const auto& k) { return !k.modules.empty(); });
        if (it != kernels.end()) index = int(it - kernels.begin());
    }
    m_host.showStatus(tr("Capture %1: %2").arg(QFileInfo(path).fileName(), countOf(kernels.size(), tr("kernel"), tr("kernels"))), 8000);
    if (index < 0) {
        m_view->setBanner(kernels.empty() ? tr("The capture holds no kernel launch: the notes below say why.")
                                          : tr("No kernel of this capture can be opened: no module was saved with it "
                                               "(see the notes)."),
                          true);
        return true;
    }
    QString openError;
    if (!openKernel(index, &openError)) {
        m_view->setBanner(openError, true);
        if (!kernel.isEmpty()) {
            if (error) *error = openError;
            return false;
        }
    }
    return true;
}

bool CaptureRoom::openKernel(int kernelIndex, QString* error) {
    const CaptureDocumentView& doc = m_view->document();
    const auto& kernels = doc.summary.kernels;
    if (kernelIndex < 0 || size_t(kernelIndex) >= kernels.size()) {
        if (error) *error = tr("No such kernel in the capture");
        return false;
    }
    const capture::CaptureKernelRow& k = kernels[size_t(kernelIndex)];
    const QString name = QString::fromStdString(escapeControl(k.demangled.empty() ? k.name : k.demangled));
    std::string cubin, why;
    size_t found = 0;
    // The same lookup as `lowerscope-cli inspect CAPTURE --kernel NAME`: by its mangled name.
    if (!capture::captureKernelCubin(doc.path.toStdString(), doc.summary, k.name, cubin, found, why)) {
        if (error) *error = tr("%1 cannot be opened: %2").arg(name, QString::fromStdString(why));
        return false;
    }
    if (!m_host.maybeSave()) {
        if (error) *error = tr("Not opened: the open document has unsaved changes");
        return false;
    }
    m_cubin = QFileInfo(QString::fromStdString(cubin)).absoluteFilePath();
    m_pendingKernel = QString::fromStdString(k.name);
    m_shownKernel.clear();
    if (const int row = m_view->rowOfKernel(kernelIndex); row >= 0) m_view->table()->selectRow(row);
    m_view->setBanner(tr("Opening %1 from its cubin %2…").arg(name, QFileInfo(m_cubin).fileName()), false);
    if (!m_openInput(m_cubin)) {
        m_pendingKernel.clear();
        if (error) *error = tr("%1: its cubin %2 could not be opened (%3)").arg(name, m_cubin, m_host.statusText());
        return false;
    }
    // Without auto-build (tests, a scripted run) the window leaves the build to its caller.
    return true;
}

void CaptureRoom::findLaunchProfiles() {
    m_profiles.clear();
    const std::string path = m_view->document().path.toStdString();
    std::string error;
    const auto doc = readJsonFileBounded(path, error);
    std::vector<capture::LaunchSnapshot> snapshots;
    if (!doc || !capture::readSnapshots(*doc, snapshots, error)) return; // the table's reader said enough
    QStringList lines;
    for (const capture::LaunchSnapshot& s : snapshots) {
        const QString profile = QString::fromStdString(capture::capturedProfilePath(path, s.id()));
        if (!QFileInfo(profile).isFile()) continue;
        m_profiles.append({QString::fromStdString(s.id()), QString::fromStdString(s.name), QFileInfo(profile).absoluteFilePath()});
        lines << tr("Launch %1 of %2 was profiled on its replay: %3")
                     .arg(QString::fromStdString(s.id()),
                          QString::fromStdString(escapeControl(boundedText(demangle(s.name), 200))),
                          QString::fromStdString(escapeControl(capture::snapshotFolderName(path) + "/" + s.id() + "/profile.json")));
    }
    if (lines.isEmpty()) return;
    m_view->notes()->appendPlainText(lines.join(QLatin1Char('\n')));
    m_view->notes()->show();
}

QString CaptureRoom::showLaunchProfile(const QString& mangled, bool& problem) {
    problem = false;
    QStringList launches;
    const LaunchProfile* first = nullptr;
    for (const LaunchProfile& p : m_profiles)
        if (p.kernel == mangled) {
            launches << p.launch;
            if (!first) first = &p;
        }
    if (!first) return {};
    const QString others = launches.size() > 1 ? tr(" (%1 of its launches have one; the first is shown)").arg(launches.size()) : QString();
    const QString doc = QFileInfo(first->path).dir().dirName() + QLatin1Char('/') + QFileInfo(first->path).fileName();
    if (!m_openProfile)
        return tr(" Its replayed launch %1 has a profile: %2 (File → Open profile… shows it).").arg(first->launch, first->path);
    QString error;
    if (!m_openProfile(first->path, &error)) {
        problem = true;
        return tr(" The profile of its launch %1 (%2) cannot be read: %3").arg(first->launch, doc, error);
    }
    if (!error.isEmpty()) {
        problem = true;
        return tr(" The profile of its launch %1 is not shown: %2").arg(first->launch, error);
    }
    m_openedProfile = first->path;
    // Opening a profile brings its pane forward; the user is working in this one.
    if (QDockWidget* d = m_host.pane(QStringLiteral("capture")); d && d->isVisible()) d->raise();
    return tr(" The profile of its replayed launch %1 is shown in the Profile pane and on the SASS rows%2.")
        .arg(first->launch, others);
}

void CaptureRoom::onBuildDone() {
    if (m_pendingKernel.isEmpty()) return;
    Workspace* s = m_host.session();
    if (s->isBuilding()) return; // a newer build is on its way
    if (QFileInfo(s->inputPath()).absoluteFilePath() != m_cubin) {
        m_pendingKernel.clear(); // something else was opened meanwhile
        return;
    }
    const QString mangled = m_pendingKernel;
    m_pendingKernel.clear();
    const SnapshotPtr last = s->lastAttempt();
    if (!last || !last->ok()) {
        const QString why = last && !last->error.isEmpty() ? last->error : tr("see the Build output pane");
        m_view->setBanner(tr("The captured cubin did not disassemble: %1").arg(why), true);
        return;
    }
    std::string why;
    const KernelModel* k = last->model.kernel(mangled.toStdString(), &why);
    if (!k) {
        m_view->setBanner(tr("The cubin does not hold the kernel: %1").arg(QString::fromStdString(why)), true);
        return;
    }
    s->setKernelIndex(int(k - last->model.kernels.data()));
    m_shownKernel = mangled;
    const bool lineInfo = std::any_of(k->sass.instructions.begin(), k->sass.instructions.end(),
                                      [](const SassInstruction& i) { return i.source.valid(); });
    QString recorded;
    for (const auto& i : k->sass.instructions)
        if (i.source.valid()) {
            recorded = QString::fromStdString(escapeControl(i.source.callSite().file));
            break;
        }
    const bool sourceShown = lineInfo && !last->shownSource.isEmpty();
    const QString name = QString::fromStdString(escapeControl(k->name.empty() ? k->mangled : k->name));
    const QString cubin = QFileInfo(m_cubin).fileName();
    bool profileProblem = false;
    const QString profile = showLaunchProfile(mangled, profileProblem);
    if (sourceShown) {
        m_view->setBanner(tr("%1: its captured cubin %2, source %3 through its line info.")
                                  .arg(name, cubin, QFileInfo(last->shownSource).fileName()) +
                              profile,
                          profileProblem);
    } else if (!lineInfo) {
        m_view->setBanner(tr("SASS only: the captured cubin of %1 has no line info (build the program with "
                             "-lineinfo to see its source lines here).")
                                  .arg(name) +
                              profile,
                          true);
    } else {
        m_view->setBanner(tr("SASS only: the line info of %1 names %2, which is not here (or outside the folders "
                             "Lowerscope shows sources from).")
                                  .arg(name, recorded) +
                              profile,
                          true);
    }
    emit kernelShown(mangled, sourceShown);
}

} // namespace lowerscope
