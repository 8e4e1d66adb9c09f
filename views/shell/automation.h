#pragma once
// Headless automation of the main window, for tests, docs and the README's demo command:
//   lowerscope FILE.cu [build options] [--frame call-site|callee|any] --select-line [HEADER:]N
//              [--select-sass ADDR] --screenshot OUT.png --dump-state OUT.json --quit-after-build
// After the first build finishes (ok or failed), picks the kernel (--kernel), sets the attribution
// of inlined code, selects the
// line (or the SASS instruction, as a click on its row would), lets the window lay out and
// paint, writes the screenshot and the state JSON, and (with quitAfterBuild) quits with status
// 0 = build ok, 1 = build failed / cancelled, 3 = timed out, 4 = screenshot or state not written.

#include "core/analysis/lowering.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <optional>

namespace lowerscope {

class MainWindow;

struct AutomationOptions {
    int selectLine = 0;
    QString selectFile; // "" = the open document; else a file the code maps to (a header), by path or unique name
    long long selectSass = -1; // SASS address to select as a click on its row (after any line); -1 = none
    QString kernel; // the kernel to show first, as --kernel names it (LoweringModel::kernel); "" = the first
    std::optional<InlineAttribution> attribution; // "Inlined code →" to set first; nullopt = leave it
    QString screenshot;
    QString dumpState;
    bool quitAfterBuild = false;
    bool profileDialog = false; // File → Profile a program… is open: the screenshot is of it
    int timeoutMs = 300000;
    bool active() const {
        return selectLine > 0 || selectSass >= 0 || attribution || !kernel.isEmpty() || !screenshot.isEmpty() ||
               !dumpState.isEmpty() || quitAfterBuild || profileDialog;
    }
};

class AutomationDriver : public QObject {
    Q_OBJECT
public:
    AutomationDriver(MainWindow* window, AutomationOptions options, QObject* parent = nullptr);
    // Waits for the build that is running (or the next one).
    void start();
    int exitCode() const { return m_exitCode; }

signals:
    void finished(int exitCode);

private:
    void onBuildDone();
    void finish();

    QPointer<MainWindow> m_window;
    AutomationOptions m_options;
    bool m_done = false;
    bool m_waitingForB = false;
    int m_exitCode = 0;
};

} // namespace lowerscope
