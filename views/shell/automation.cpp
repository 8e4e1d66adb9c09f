#include "views/shell/automation.h"

#include "views/capture/capture_room.h"
#include "views/capture/profile_dialog.h"
#include "views/compare/compare_panel.h"
#include "views/shell/main_window.h"
#include "views/common/workspace.h"

#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace lowerscope {

AutomationDriver::AutomationDriver(MainWindow* window, AutomationOptions options, QObject* parent)
    : QObject(parent), m_window(window), m_options(std::move(options)) {}

void AutomationDriver::start() {
    Workspace* s = m_window->session();
    connect(s, &Workspace::buildFinished, this, &AutomationDriver::onBuildDone);
    connect(s, &Workspace::buildCancelled, this, &AutomationDriver::onBuildDone);
    QTimer::singleShot(m_options.timeoutMs, this, [this] {
        if (m_done) return;
        std::fprintf(stderr, "lowerscope: no build finished within %d ms\n", m_options.timeoutMs);
        m_exitCode = 3;
        finish();
    });
    if (!s->isBuilding() && !s->lastAttempt()) m_window->build();
}

void AutomationDriver::onBuildDone() {
    if (m_done) return;
    Workspace* s = m_window->session();
    if (s->isBuilding()) return; // a newer build is running: wait for it
    m_exitCode = s->buildStatus() == QLatin1String("ok") ? 0 : 1;
    // Comparing: B builds after A; the picture should show the diff, so wait for B too.
    if (m_exitCode == 0 && m_window->compareMode() && m_window->comparePanel()) {
        Workspace* b = m_window->comparePanel()->sessionB();
        if (b->isBuilding() || !b->lastAttempt()) {
            if (!m_waitingForB) {
                m_waitingForB = true;
                connect(b, &Workspace::buildFinished, this, &AutomationDriver::onBuildDone);
                connect(b, &Workspace::buildCancelled, this, &AutomationDriver::onBuildDone);
            }
            return;
        }
    }
    if (!m_options.kernel.isEmpty()) {
        // A header's lines have code in the kernel instantiated from it, not in the first one.
        std::string why;
        const SnapshotPtr snap = s->snapshot();
        const KernelModel* k = snap ? snap->model.kernel(m_options.kernel.toStdString(), &why) : nullptr;
        if (k) s->setKernelIndex(int(k - snap->model.kernels.data()));
        else std::fprintf(stderr, "lowerscope: --kernel: %s\n", snap ? why.c_str() : "nothing was built");
    }
    if (m_options.attribution) {
        // Through the toolbar's combo, as a user would: it keeps the menu's Ctrl+I check in step.
        if (auto* combo = m_window->findChild<QComboBox*>(QStringLiteral("attributionCombo"))) {
            const int i = combo->findData(int(*m_options.attribution));
            if (i >= 0) combo->setCurrentIndex(i);
        }
    }
    if (m_options.selectLine > 0 && !m_options.selectFile.isEmpty()) {
        QString error;
        if (!m_window->selectSourceLineIn(m_options.selectFile, m_options.selectLine, &error))
            std::fprintf(stderr, "lowerscope: --select-line %s:%d: %s\n", qPrintable(m_options.selectFile),
                         m_options.selectLine, qPrintable(error));
    } else if (m_options.selectLine > 0) {
        m_window->selectSourceLine(m_options.selectLine);
    }
    if (m_options.selectSass >= 0) {
        const KernelModel* k = s->kernel();
        const auto address = uint32_t(m_options.selectSass);
        const bool known = k && uint64_t(m_options.selectSass) <= UINT32_MAX &&
                           std::any_of(k->sass.instructions.begin(), k->sass.instructions.end(),
                                       [address](const SassInstruction& i) { return i.address == address; });
        if (known) s->selectSassAddress(address);
        else std::fprintf(stderr, "lowerscope: --select-sass 0x%llx: no instruction of the kernel shown is at that address\n",
                          m_options.selectSass);
    }
    // Let the selection propagate and the docks settle before grabbing.
    QTimer::singleShot(200, this, &AutomationDriver::finish);
}

void AutomationDriver::finish() {
    if (m_done || !m_window) return;
    m_done = true;
    if (!m_options.screenshot.isEmpty()) {
        QDir().mkpath(QFileInfo(m_options.screenshot).absolutePath());
        QString error;
        QWidget* dialog = m_options.profileDialog ? m_window->captureRoom()->profileDialog() : nullptr;
        if (dialog) QApplication::processEvents();
        if (dialog ? !dialog->grab().save(m_options.screenshot, "PNG") : !m_window->saveScreenshot(m_options.screenshot, &error)) {
            std::fprintf(stderr, "lowerscope: screenshot failed: %s\n", qPrintable(error));
            m_exitCode = 4;
        } else {
            std::printf("screenshot: %s\n", qPrintable(QFileInfo(m_options.screenshot).absoluteFilePath()));
        }
    }
    if (!m_options.dumpState.isEmpty()) {
        QFile f(m_options.dumpState);
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            f.write(QByteArray::fromStdString(m_window->dumpState().dump(2) + "\n"));
            std::printf("state: %s\n", qPrintable(QFileInfo(m_options.dumpState).absoluteFilePath()));
        } else {
            std::fprintf(stderr, "lowerscope: cannot write %s\n", qPrintable(m_options.dumpState));
            m_exitCode = 4;
        }
    }
    std::fflush(stdout);
    emit finished(m_exitCode);
    if (m_options.quitAfterBuild) QCoreApplication::exit(m_exitCode);
}

} // namespace lowerscope
