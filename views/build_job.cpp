#include "views/build_job.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <mutex>

namespace lowerscope {

const Toolchain& cachedToolchain() {
    static std::once_flag once;
    static Toolchain toolchain;
    std::call_once(once, [] { toolchain = discoverToolchain(); });
    return toolchain;
}

std::shared_ptr<BuildSnapshot> runRealBuild(const BuildRequest& request, std::atomic<bool>* cancel) {
    auto snap = std::make_shared<BuildSnapshot>();
    snap->jobId = request.jobId;
    snap->sourcePath = request.sourcePath;
    snap->builtText = request.text;
    snap->options = request.options;

    // The editor may be ahead of the file on disk, so the build always compiles a copy of the
    // editor text. Same file name, so the line info and diagnostics name the file the user sees.
    QDir().mkpath(request.workDir);
    const QString name = request.displayName.isEmpty() ? QStringLiteral("untitled.cu") : request.displayName;
    snap->buildPath = QDir(request.workDir).filePath(name);
    {
        QFile f(snap->buildPath);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            snap->error = QStringLiteral("cannot write %1: %2").arg(snap->buildPath, f.errorString());
            snap->result.error = snap->error.toStdString();
            return snap;
        }
        f.write(request.text.toUtf8());
    }
    if (!request.sourcePath.isEmpty() && !request.sourcePath.startsWith(QLatin1Char(':')))
        snap->options.includeDirs.push_back(QFileInfo(request.sourcePath).absolutePath().toStdString());

    const Toolchain& toolchain = cachedToolchain();
    BuildControl control;
    control.cancel = cancel;
    snap->result = buildFile(toolchain, snap->buildPath.toStdString(), snap->options, control);
    // Show the options the user chose (without the include dir added for the copy).
    snap->options = request.options;
    if (!snap->result.ok && !snap->result.error.empty()) snap->error = QString::fromStdString(snap->result.error);
    if (snap->result.ok && !(cancel && cancel->load())) {
        QElapsedTimer t;
        t.start();
        snap->model = buildLoweringModel(snap->result);
        snap->modelMs = double(t.nsecsElapsed()) / 1e6;
    }
    return snap;
}

} // namespace lowerscope
