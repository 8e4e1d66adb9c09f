// The main window's state (see main_window.h): build controls, the kernel box, the selection in
// the status bar, the build status, and the automation dump and screenshot.
#include "views/shell/main_window.h"

#include "core/build/kernel_name.h"
#include "views/code/code_editor.h"
#include "views/code/ptx_model.h"
#include "views/code/ptx_pane.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/code/source_pane.h"
#include "views/common/stale_banner.h"
#include "views/common/theme.h"
#include "views/common/workspace.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>

namespace lowerscope {

void MainWindow::setBuildOptions(const BuildOptions& options) { m_session->setOptions(options); }
void MainWindow::setAutoBuild(bool on) { m_autoBuildAction->setChecked(on); }
bool MainWindow::autoBuild() const { return m_autoBuildAction->isChecked(); }
void MainWindow::setAutoBuildDelay(int ms) { m_debounce->setInterval(ms); }

void MainWindow::build() {
    m_debounce->stop();
    m_session->build();
}

void MainWindow::cancelBuild() { m_session->cancelBuild(); }

void MainWindow::updateKernelCombo() {
    const QSignalBlocker block(m_kernelCombo);
    m_kernelCombo->clear();
    if (const SnapshotPtr snap = m_session->snapshot()) {
        for (const KernelModel& k : snap->model.kernels) {
            const QString name = QString::fromStdString(k.name.empty() ? k.mangled : k.name);
            m_kernelCombo->addItem(name, QString::fromStdString(k.mangled));
            m_kernelCombo->setItemData(m_kernelCombo->count() - 1, name, Qt::ToolTipRole);
        }
        m_kernelCombo->setCurrentIndex(m_session->kernelIndex());
    }
    m_kernelCombo->setEnabled(m_kernelCombo->count() > 1);
    m_kernelCombo->setToolTip(m_kernelCombo->currentText());
}

void MainWindow::selectSourceLine(int line) {
    CodeEditor* ed = m_source->editor();
    if (line < 1 || line > ed->lines()) return;
    ed->setCursorPosition(line - 1, 0);
    ed->ensureLineVisibleCentered(line);
    ed->checkCursorLine(); // the source pane selects the line, as for a click
    // The caret may already have been on that line (no move reported): select it explicitly.
    if (m_session->selection().sourceLine != line || m_session->selection().origin != Selection::Origin::Source)
        m_session->selectSourceLine(line);
}

bool MainWindow::selectSourceLineIn(const QString& file, int line, QString* error) {
    const SnapshotPtr snap = m_session->snapshot();
    std::string why;
    const std::string recorded =
        snap ? resolveSourceQuery(snap->model.files, file.toStdString(), why) : std::string();
    if (recorded.empty()) {
        if (error) *error = snap ? QString::fromStdString(why) : tr("nothing is built");
        return false;
    }
    if (recorded == m_session->mainRecordedFile()) {
        selectSourceLine(line);
        return true;
    }
    if (!m_source->showFile(recorded)) {
        if (error) *error = tr("%1 is not a file of yours or a header of the toolkit that exists here").arg(QString::fromStdString(recorded));
        return false;
    }
    // As for the document: the caret moves there and the pane selects the line, as for a click.
    CodeEditor* ed = m_source->headerEditor();
    if (line >= 1 && line <= ed->lines()) {
        ed->setCursorPosition(line - 1, 0);
        ed->ensureLineVisibleCentered(line);
        ed->checkCursorLine();
    }
    const Selection& sel = m_session->selection();
    if (sel.origin != Selection::Origin::Source || sel.sourceFile != recorded || sel.fileLine != line)
        m_session->selectSourceLineIn(recorded, line);
    return true;
}

void MainWindow::updateInfo() {
    const Selection& sel = m_session->selection();
    QString text;
    bool offerAnyFrame = false;
    if (sel.origin == Selection::Origin::Source && (sel.sourceLine > 0 || sel.fileLine > 0)) {
        // A header line names its file.
        const QString where = sel.sourceLine > 0 ? tr("line %1").arg(sel.sourceLine)
                                                 : QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(sel.sourceFile)).fileName()).arg(sel.fileLine);
        text = tr("%1 → %2 PTX line(s), %3 SASS instruction(s)")
                   .arg(where).arg(sel.ptxLines.size()).arg(sel.sassAddresses.size());
        if (sel.sassAddresses.empty() && m_session->kernel()) {
            // Headers hold several kernels (one per instantiation, or one per header): say which
            // other kernels have code on the line, so the kernel box can be switched to one.
            QStringList others;
            const SnapshotPtr snap = m_session->snapshot();
            const std::string file = sel.sourceLine > 0 ? snap->buildPath.toStdString() : sel.sourceFile;
            const int line = sel.sourceLine > 0 ? sel.sourceLine : sel.fileLine;
            for (const KernelModel& k : snap->model.kernels)
                if (&k != m_session->kernel() && !k.correlation.sassForSource(file, line, m_session->attribution()).empty())
                    others << QString::fromStdString(kernelNameWithArgs(k.name));
            // The line's code may be inlined code seen from another frame (a helper's line in
            // call-site mode): say so, with the switch next to it.
            const size_t anyFrame = m_session->attribution() == InlineAttribution::AnyFrame
                                        ? 0
                                        : m_session->kernel()->correlation.sassForSource(file, line, InlineAttribution::AnyFrame).size();
            if (others.isEmpty() && anyFrame > 0) {
                text += tr(" (no code at this line as a call site; %n instruction(s) inlined from it show with frame: "
                           "any or callee)", nullptr, int(anyFrame));
                offerAnyFrame = true;
            } else if (others.isEmpty()) {
                text += tr(" (no code for this line)");
            } else {
                const qsizetype n = others.size();
                while (others.size() > 3) others.removeLast();
                text += tr(" (no code in this kernel; code in %1%2)")
                            .arg(others.join(QStringLiteral(", ")), n > 3 ? tr(" and %1 more").arg(n - 3) : QString());
            }
        }
    } else if (sel.origin == Selection::Origin::Sass || sel.origin == Selection::Origin::Ptx) {
        const QString what = sel.origin == Selection::Origin::Sass && sel.focusSassAddress
                                 ? tr("SASS %1").arg(*sel.focusSassAddress, 4, 16, QLatin1Char('0'))
                                 : tr("PTX line %1").arg(sel.focusPtxLine);
        QString chain;
        if (sel.location && sel.location->valid()) {
            chain = QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(sel.location->file)).fileName()).arg(sel.location->line);
            for (const SourceFrame& f : sel.location->inlinedAt)
                chain += tr(" ← inlined at %1:%2").arg(QFileInfo(QString::fromStdString(f.file)).fileName()).arg(f.line);
        } else {
            chain = tr("no line info");
        }
        text = tr("%1 ← %2").arg(what, chain);
        if (sel.origin == Selection::Origin::Sass && sel.focusPtxLine > 0) text += tr("   (PTX line %1)").arg(sel.focusPtxLine);
    }
    m_info->setText(text);
    m_frameHint->setVisible(offerAnyFrame);
}

void MainWindow::updateStatus() {
    const bool busy = m_session->isBuilding();
    m_cancelAction->setEnabled(busy);
    m_progress->setVisible(busy);
    const QString status = m_session->buildStatus();
    QString text;
    if (busy)
        text = tr("building… %1 s").arg(double(m_elapsed->elapsed()) / 1000.0, 0, 'f', 1);
    else if (status == QLatin1String("ok")) {
        const SnapshotPtr s = m_session->lastAttempt();
        const double total = s && s->result.timingsMs.count("total") ? s->result.timingsMs.at("total") : 0;
        text = tr("built %1 in %2 ms%3").arg(QString::fromStdString(s->options.arch)).arg(total, 0, 'f', 0)
                   .arg(s->result.cacheHit ? tr(" (cache)") : QString());
    } else if (status == QLatin1String("failed")) {
        const SnapshotPtr s = m_session->lastAttempt();
        int errors = 0;
        for (const Diagnostic& d : s->result.diagnostics) errors += d.severity == Severity::Error;
        text = errors ? tr("build failed: %n error(s)", nullptr, errors) : tr("build failed: %1").arg(s->error.left(80));
    } else if (status == QLatin1String("cancelled"))
        text = tr("build cancelled");
    else
        text = tr("not built");
    m_buildLabel->setText(text);
    const QString stale = staleBannerText(*m_session);
    m_staleLabel->setText(stale.isEmpty() ? QString() : tr("STALE"));
    m_staleLabel->setToolTip(stale);
    m_staleLabel->setStyleSheet(stale.isEmpty() ? QString()
                                                : QStringLiteral("QLabel { background: %1; color: %2; padding: 0 6px; font-weight: bold; }")
                                                      .arg(Theme::warningPaper().name(), Theme::editorText().name()));
}

// ---------------------------------------------------------------------------------- automation

nlohmann::json MainWindow::dumpState() const {
    using nlohmann::json;
    json j;
    j["file"] = m_session->sourcePath().toStdString();
    // The selected line of whatever file the Source pane shows: the document's, or a header's
    // (--select-line HEADER:N), with the file it is in.
    const Selection& sel = m_session->selection();
    const bool headerShown = !m_source->shownFile().empty();
    j["selectedLine"] = sel.sourceLine > 0 ? sel.sourceLine : sel.fileLine;
    j["selectedFile"] = sel.sourceLine > 0 ? m_session->sourcePath().toStdString() : sel.sourceFile;
    const KernelModel* k = m_session->kernel();
    j["kernel"] = k ? json(k->name.empty() ? k->mangled : k->name) : json(nullptr);
    j["kernels"] = json::array();
    if (const SnapshotPtr s = m_session->snapshot())
        for (const KernelModel& km : s->model.kernels) j["kernels"].push_back(km.name.empty() ? km.mangled : km.name);
    // What the panes actually highlight (read back from their models and editors).
    json hl;
    hl["ptxLines"] = m_ptx->model()->highlightedLines();
    hl["ptxEditorLines"] = m_ptx->editor()->highlightedLines();
    json addrs = json::array(), hex = json::array();
    for (int row : m_sass->model()->highlightedRows()) {
        const uint32_t a = m_sass->model()->instruction(row)->address;
        addrs.push_back(a);
        hex.push_back(QStringLiteral("0x%1").arg(a, 4, 16, QLatin1Char('0')).toStdString());
    }
    hl["sassAddresses"] = addrs;
    hl["sassAddressesHex"] = hex;
    hl["sourceLines"] = headerShown && m_source->headerEditor() ? m_source->headerEditor()->highlightedLines()
                                                                : m_source->editor()->highlightedLines();
    hl["sourceFile"] = headerShown ? m_source->shownFile() : m_session->sourcePath().toStdString();
    j["highlighted"] = hl;
    j["attribution"] = attributionName(m_session->attribution());
    json panes = json::array();
    for (const QString& id : visiblePaneIds()) panes.push_back(id.toStdString());
    j["visiblePanes"] = panes;
    json b;
    b["status"] = m_session->buildStatus().toStdString();
    b["stale"] = m_session->isStale();
    if (const SnapshotPtr s = m_session->lastAttempt()) {
        b["jobId"] = s->jobId;
        b["arch"] = s->options.arch;
        b["diagnostics"] = s->result.diagnostics.size();
        b["commands"] = json::array();
        for (const CommandRecord& c : s->result.commands) b["commands"].push_back(shellQuote(c.argv));
        if (!s->error.isEmpty()) b["error"] = s->error.toStdString();
    }
    j["build"] = b;
    j["info"] = m_info->text().toStdString();
    j["window"] = {{"width", width()}, {"height", height()}, {"dark", Theme::isDark()}};
    return j;
}

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
    // Lay everything out and paint once before grabbing, so the image is what a user would see.
    QApplication::processEvents();
    const QPixmap pm = grab();
    const QImage img = pm.toImage();
    // Blank check: a real window has many distinct colours; a failed grab is one flat colour.
    bool varied = false;
    if (!img.isNull()) {
        const QRgb first = img.pixel(0, 0);
        for (int y = 0; y < img.height() && !varied; y += 7)
            for (int x = 0; x < img.width(); x += 7)
                if (img.pixel(x, y) != first) { varied = true; break; }
    }
    if (!varied) {
        if (error) *error = tr("the grabbed image is blank");
        return false;
    }
    if (!img.save(path, "PNG")) {
        if (error) *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace lowerscope
