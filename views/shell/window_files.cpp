// The main window's files (see main_window.h): opening any input, a project, examples; saving;
// recent files; recovering autosaved edits; dropped files.
#include "views/shell/main_window.h"

#include "core/build/compile_db.h"
#include "core/capture/capture_document.h"
#include "core/build/input.h"
#include "core/build/json_io.h"
#include "core/parse/ptx_parser.h"
#include "views/code/code_editor.h"
#include "views/code/sass_filter.h"
#include "views/code/source_pane.h"
#include "views/common/dialogs.h"
#include "views/common/input_file.h"
#include "views/common/workspace.h"
#include "views/compare/compare_panel.h"
#include "views/shell/autosave.h"

#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QFileDialog>

namespace lowerscope {

namespace {
// A text file's contents ("" when unreadable); at most 64 MiB (a PTX file, never a binary).
QString readTextFile(const QString& path) {
    QString text, error;
    return readUserTextFile(path, kMaxSourceBytes, "a PTX file", text, error) ? text : QString();
}
} // namespace

bool MainWindow::openFile(const QString& path) {
    const QFileInfo info(path);
    // A capture document (lowerscope-cli capture, File → Profile a program…): its kernel table,
    // and its largest kernel's saved cubin opened as the input.
    if (info.isFile() && capture::looksLikeCaptureDocument(path.toStdString())) {
        QString error;
        if (openCapture(path, {}, &error)) return true;
        if (isVisible()) showProblem(this, tr("Open capture"), error);
        return false;
    }
    const InputKind kind = detectInputKind(path.toStdString());
    // PTX opens in the editor unless its line info names sources that exist: then, like a binary,
    // it opens as it is and the source pane shows those sources.
    bool asIs = kind != InputKind::CudaSource && kind != InputKind::Ptx;
    if (kind == InputKind::Ptx) {
        const PtxListing ptx = parsePtx(readTextFile(path).toStdString());
        for (const auto& [index, file] : ptx.files)
            asIs |= QFileInfo(QString::fromStdString(file)).isFile() ||
                    QFileInfo(info.dir(), QString::fromStdString(file)).isFile();
    }
    if (asIs || kind == InputKind::Ptx) {
        if (!info.exists()) {
            statusBar()->showMessage(tr("Cannot open %1: no such file").arg(path), 10000);
            return false;
        }
        // The input's own arch (a PTX's .target, a binary's first cubin) unless one is typed.
        BuildOptions o = m_session->options();
        o.arch.clear();
        m_session->setProject(std::nullopt);
        m_session->setOptions(o);
    }
    if (asIs) {
        m_debounce->stop();
        m_autosave->discard();
        m_session->setInput(info.absoluteFilePath());
        m_source->editor()->setReadOnly(true);
        m_modified = false;
        updateTitle();
        addRecent(info.absoluteFilePath());
        if (m_opts.autoBuildOnOpen) build();
        return true;
    }
    QString text, error;
    if (!readUserTextFile(path, kMaxSourceBytes, "a source file", text, error)) {
        if (isVisible()) showProblem(this, tr("Open"), error);
        statusBar()->showMessage(error, 10000);
        return false;
    }
    m_source->editor()->setReadOnly(false);
    if (kind == InputKind::CudaSource && m_session->options().arch.empty()) {
        // Back from a binary or PTX (their own arch): a source needs one.
        BuildOptions o = m_session->options();
        o.arch = BuildOptions{}.arch;
        m_session->setOptions(o);
    }
    // The project remembered for this file comes back with it (before the build starts).
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (kind == InputKind::CudaSource) switchDocumentOptions(abs);
    m_session->setProject(std::nullopt);
    if (m_opts.useSettings && kind == InputKind::CudaSource) {
        const QString db = QSettings().value(QStringLiteral("projects/") + QString::fromUtf8(abs.toUtf8().toBase64())).toString();
        if (!db.isEmpty()) {
            try {
                m_session->setProject(projectOptions(db.toStdString(), abs.toStdString()));
            } catch (const std::exception& e) {
                statusBar()->showMessage(tr("Project not applied: %1").arg(QString::fromUtf8(e.what())), 10000);
            }
        }
    }
    loadText(abs, text);
    m_modified = false;
    updateTitle();
    addRecent(abs);
    return true;
}

namespace {
// The QSettings key of a file's remembered build options.
QString documentOptionsKey(const QString& file) {
    return QStringLiteral("documentOptions/") + QString::fromLatin1(file.toUtf8().toBase64());
}
} // namespace

void MainWindow::rememberDocumentOptions() {
    const QString current = m_session->isInputMode() ? QString() : m_session->sourcePath();
    if (!m_opts.useSettings || current.isEmpty() || current.startsWith(QLatin1Char(':'))) return;
    QSettings().setValue(documentOptionsKey(current), QByteArray::fromStdString(nlohmann::json(m_session->options()).dump()));
}

void MainWindow::switchDocumentOptions(const QString& next) {
    const QString current = m_session->isInputMode() ? QString() : m_session->sourcePath();
    if (current == next) return; // the same file again keeps its options
    rememberDocumentOptions();
    // Options belong to the document (issue 35 item 3): the next file starts from its own remembered
    // set, else the defaults. Only the arch carries over: it names the user's GPU, not the file.
    BuildOptions o;
    if (!m_session->options().arch.empty()) o.arch = m_session->options().arch;
    if (m_opts.useSettings) {
        const QByteArray saved = QSettings().value(documentOptionsKey(next)).toByteArray();
        const auto j = nlohmann::json::parse(saved.toStdString(), nullptr, false);
        if (!saved.isEmpty() && j.is_object()) o = readBuildOptions(j, "documentOptions", [](auto&&...) {});
    }
    m_session->setOptions(o);
    // B starts as A again, and the SASS filter of the previous file goes.
    if (m_compare) {
        m_compare->setFollowA(true);
        m_compare->copyOptionsFromA();
    }
    if (m_filter) m_filter->clearFilter();
}

bool MainWindow::openProject(const QString& databasePath, QString* error) {
    const QString file = m_session->isInputMode() ? QString() : m_session->sourcePath();
    try {
        if (file.isEmpty() || file.startsWith(QLatin1Char(':'))) throw std::runtime_error("open a .cu file first");
        m_session->setProject(projectOptions(databasePath.toStdString(), file.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Project not applied: %1").arg(QString::fromUtf8(e.what())), 10000);
        return false;
    }
    if (m_opts.useSettings)
        QSettings().setValue(QStringLiteral("projects/") + QString::fromUtf8(file.toUtf8().toBase64()),
                             QFileInfo(databasePath).absoluteFilePath());
    const auto& p = *m_session->project();
    statusBar()->showMessage(tr("Project %1: %2 option(s) from the project, %3 flag(s) not used")
                                 .arg(QString::fromStdString(p.database))
                                 .arg(p.fromProject.size())
                                 .arg(p.dropped.size()),
                             10000);
    return true;
}

void MainWindow::loadText(const QString& path, const QString& text) {
    m_debounce->stop();
    m_autosave->discard();
    m_source->editor()->setReadOnly(false);
    m_session->setDocument(path, text);
    m_modified = false;
    updateTitle();
    if (m_opts.autoBuildOnOpen) build();
}

void MainWindow::openExample() {
    QFile f(QStringLiteral(":/examples/reduction.cu"));
    if (!f.open(QIODevice::ReadOnly)) return;
    loadText(QStringLiteral(":/examples/reduction.cu"), QString::fromUtf8(f.readAll()));
}

bool MainWindow::save() {
    // Save saves the edited headers too (a build would save them anyway).
    if (QString error; !m_session->saveHeaderEdits(&error)) {
        statusBar()->showMessage(error, 10000);
        return false;
    }
    const QString path = m_session->sourcePath();
    if (path.isEmpty() || path.startsWith(QLatin1Char(':'))) {
        const QString target = QFileDialog::getSaveFileName(this, tr("Save CUDA source"), m_session->displayName(),
                                                            tr("CUDA sources (*.cu *.cuh)"));
        return !target.isEmpty() && saveAs(target);
    }
    return saveAs(path);
}

bool MainWindow::saveAs(const QString& path) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(m_session->text().toUtf8()) < 0 || !f.commit()) {
        statusBar()->showMessage(tr("Cannot save %1: %2").arg(path, f.errorString()), 10000);
        return false;
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (abs != m_session->sourcePath()) {
        // Keep the listing: only the name changed. setDocument would drop it, so rebuild instead.
        const QString text = m_session->text();
        m_session->setDocument(abs, text);
        build();
    }
    m_modified = false;
    m_autosave->discard();
    addRecent(abs);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(abs), 4000);
    return true;
}

bool MainWindow::maybeSave() {
    if (!dialogsAllowed() && isVisible() && (m_modified || m_session->hasHeaderEdits())) {
        // Nobody to ask (a scripted run): the edits stay, the document is not replaced.
        showProblem(this, tr("Unsaved changes"), tr("%1 has unsaved changes; kept, not replaced").arg(m_session->displayName()));
        return false;
    }
    if (m_session->hasHeaderEdits() && isVisible()) {
        QStringList names;
        for (const QString& p : m_session->editedHeaders()) names << QFileInfo(p).fileName();
        const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                                  tr("%1 has unsaved changes. Save them?").arg(names.join(QStringLiteral(", "))),
                                                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        if (answer == QMessageBox::Cancel) return false;
        if (answer == QMessageBox::Discard) {
            m_session->discardHeaderEdits();
        } else if (QString error; !m_session->saveHeaderEdits(&error)) {
            statusBar()->showMessage(error, 10000);
            return false;
        }
    }
    if (!m_modified || !isVisible()) return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                              tr("%1 has unsaved changes. Save them?").arg(m_session->displayName()),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::addRecent(const QString& path) {
    if (path.startsWith(QLatin1Char(':'))) return;
    m_recent.removeAll(path);
    m_recent.prepend(path);
    while (m_recent.size() > 10) m_recent.removeLast();
    rebuildRecentMenu();
    if (m_opts.useSettings) QSettings().setValue(QStringLiteral("recentFiles"), m_recent);
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    for (const QString& p : std::as_const(m_recent))
        m_recentMenu->addAction(p, this, [this, p] {
            if (maybeSave()) openFile(p);
        });
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::updateTitle() {
    const bool unsaved = m_modified || m_session->hasHeaderEdits();
    setWindowTitle(QStringLiteral("%1%2 — Lowerscope").arg(m_session->displayName(), unsaved ? QStringLiteral(" •") : QString()));
}

void MainWindow::offerRecovery() {
    if (!dialogsAllowed()) return; // the autosaves stay for the next interactive start
    for (const Autosave::Entry& e : Autosave::orphans()) {
        const QString name = e.originalPath.isEmpty() ? tr("an untitled buffer") : e.originalPath;
        const auto answer = QMessageBox::question(
            this, tr("Recover unsaved edits"),
            tr("Lowerscope did not exit cleanly. Unsaved edits of %1 from %2 were kept.\nRecover them?")
                .arg(name, e.saved.toString()),
            QMessageBox::Yes | QMessageBox::No);
        if (answer == QMessageBox::Yes) {
            loadText(e.originalPath, Autosave::readText(e));
            m_modified = true;
            updateTitle();
        }
        Autosave::remove(e);
        if (answer == QMessageBox::Yes) break;
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_autosave->discard();
    if (m_opts.useSettings) saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile()) return;
    if (maybeSave()) openFile(urls.front().toLocalFile());
    event->acceptProposedAction();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // The editor would paste a dropped file's path as text; open the file instead.
    if (event->type() == QEvent::DragEnter || event->type() == QEvent::Drop) {
        auto* de = static_cast<QDropEvent*>(event);
        if (de->mimeData() && de->mimeData()->hasUrls()) {
            if (event->type() == QEvent::DragEnter) static_cast<QDragEnterEvent*>(event)->acceptProposedAction();
            else dropEvent(de);
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

} // namespace lowerscope
