#pragma once
// What the gallery's Qt tests share: the source tree's docs/examples, a JSON file read whole, and
// screenshots for docs/screenshots when LOWERSCOPE_SCREENSHOTS names a folder.

#include "views/common/build_job.h"

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QWidget>
#include <nlohmann/json.hpp>

namespace lowerscope::testutil {

inline const QString kExamples = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/docs/examples/");

// The file's JSON; null when it cannot be read, discarded when it does not parse.
inline nlohmann::json readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return nullptr;
    return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

// Autosaves and the build cache of the test in `tmp`, never the user's.
inline void useScratchDirs(const QTemporaryDir& tmp) {
    qputenv("LOWERSCOPE_AUTOSAVE_DIR", tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
    qputenv("LOWERSCOPE_CACHE_DIR", tmp.filePath(QStringLiteral("cache")).toLocal8Bit());
}

inline void maybeScreenshot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("LOWERSCOPE_SCREENSHOTS");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    w->grab().save(dir + QLatin1Char('/') + name);
}

// Whether the build tools the real runs need are here (the caller skips otherwise).
inline bool haveBuildTools() {
    const Toolchain& tc = cachedToolchain();
    return tc.nvcc.found() && tc.nvdisasm.found();
}

#if defined(FAKE_GPU) && defined(RUNNER_BIN)
// Runs go to the real runner on the fake GPU (the test target's FAKE_GPU and RUNNER_BIN), or no
// longer.
inline void useFakeGpu(bool on) {
    for (const auto& [name, value] :
         {std::pair{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, std::pair{"LOWERSCOPE_LIBCUPTI", FAKE_GPU},
          std::pair{"LOWERSCOPE_RUNNER", RUNNER_BIN}}) {
        if (on)
            qputenv(name, value);
        else
            qunsetenv(name);
    }
}
#endif

} // namespace lowerscope::testutil
