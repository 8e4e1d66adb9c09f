#pragma once
// The main window as the Qt tests drive it, in one place: no saved settings, no recovery dialog,
// no auto-build (each test builds when it means to), shown; and waiting for builds.

#include "views/shell/main_window.h"
#include "views/common/workspace.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <memory>

namespace lowerscope::testutil {

// Writes `text` to `name` inside `dir` (its folders must exist); the path, or "" when it could not.
inline QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    f.write(text);
    return path;
}

inline std::unique_ptr<MainWindow> makeTestWindow() {
    MainWindow::Options o;
    o.useSettings = false;
    o.offerRecovery = false;
    auto w = std::make_unique<MainWindow>(o);
    w->setAutoBuild(false);
    w->show();
    return w;
}

// Waits for the build that is running (or starts one) and any that follows it; true when the last
// one succeeded.
inline bool waitForBuilds(Workspace* ws, int timeoutMs = 240000) {
    QSignalSpy done(ws, &Workspace::buildFinished);
    if (!ws->isBuilding()) ws->build();
    if (!done.wait(timeoutMs)) return false;
    while (ws->isBuilding())
        if (!done.wait(timeoutMs)) return false;
    return ws->lastAttempt() && ws->lastAttempt()->ok();
}

} // namespace lowerscope::testutil
