#include "views/common/build_job.h"

#include "core/build/option_safety.h"
#include "core/build/triton.h"
#include "core/untrusted.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <future>
#include <map>
#include <mutex>

namespace lowerscope {

const Toolchain& cachedToolchain() {
    static std::once_flag once;
    static Toolchain toolchain;
    std::call_once(once, [] { toolchain = discoverToolchain(); });
    return toolchain;
}

namespace {

// Files a source pane may show: sources only, never whatever path a binary's line info names.
bool isSourceFile(const QString& path) {
    static const QStringList exts{QStringLiteral("cu"), QStringLiteral("cuh"), QStringLiteral("h"),
                                  QStringLiteral("hpp"), QStringLiteral("hh"), QStringLiteral("c"),
                                  QStringLiteral("cc"), QStringLiteral("cpp"), QStringLiteral("cxx"),
                                  QStringLiteral("inl"), QStringLiteral("py"), QStringLiteral("ptx")};
    const QFileInfo fi(path);
    return exts.contains(fi.suffix().toLower()) && fi.isFile() && fi.size() < (16 << 20);
}

QStringList splitArchs(const std::string& arch) {
    QStringList out;
    for (const QString& a : QString::fromStdString(arch).split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!out.contains(a.trimmed())) out << a.trimmed();
    return out;
}

} // namespace

QString sourceForInput(const BuildSnapshot& snap) {
    if (snap.model.kernels.empty()) return {};
    std::map<std::string, int> counts;
    for (const auto& i : snap.model.kernels.front().sass.instructions)
        if (i.source.valid()) ++counts[i.source.callSite().file];
    std::vector<std::pair<int, std::string>> byCount;
    for (const auto& [file, n] : counts) byCount.emplace_back(-n, file);
    std::sort(byCount.begin(), byCount.end());
    const QString input = snap.sourcePath;
    for (const auto& [n, file] : byCount) {
        QString path = QString::fromStdString(file);
        if (snap.result.inputKind == "triton") {
            // A cache root: the kernel's folder is the member built.
            std::string folder = input.toStdString();
            if (!isTritonKernelFolder(folder)) folder = QDir(input).filePath(QString::fromStdString(snap.result.member)).toStdString();
            try {
                path = QString::fromStdString(findTritonSource(readTritonKernel(folder), file));
            } catch (const std::exception&) {
                path.clear();
            }
        } else if (QFileInfo(path).isRelative()) {
            path = QFileInfo(input).dir().filePath(path);
        }
        if (path.isEmpty() || !isSourceFile(path)) continue;
        // A path named by a binary's line info may only lead into the user's folders: the current
        // directory, the input's folder and the two above it, the home folder.
        std::vector<std::string> roots{QDir::currentPath().toStdString(), QDir::homePath().toStdString()};
        QDir dir = QFileInfo(input).dir();
        for (int up = 0; up < 3; ++up) {
            roots.push_back(dir.absolutePath().toStdString());
            if (!dir.cdUp()) break;
        }
        std::string resolved, error;
        if (resolveDocumentPath(QFileInfo(path).absoluteFilePath().toStdString(), roots, "the line info's source",
                                resolved, error))
            return QString::fromStdString(resolved);
    }
    return {};
}

std::shared_ptr<BuildSnapshot> runRealBuild(const BuildRequest& request, std::atomic<bool>* cancel) {
    auto snap = std::make_shared<BuildSnapshot>();
    snap->jobId = request.jobId;
    snap->sourcePath = request.sourcePath;
    snap->builtText = request.text;
    snap->options = request.options;

    BuildInput input;
    if (!request.inputPath.isEmpty()) {
        // An input opened as it is: nothing to copy.
        snap->buildPath = request.inputPath;
        input = describeInput(request.inputPath.toStdString(), request.options);
    } else {
        // The editor may be ahead of the file on disk, so the build always compiles a copy of the
        // editor text. Same file name, so the line info and diagnostics name the file the user sees.
        QDir().mkpath(request.workDir);
        const QString name = request.displayName.isEmpty() ? QStringLiteral("untitled.cu") : request.displayName;
        snap->buildPath = QDir(request.workDir).filePath(name);
        QFile f(snap->buildPath);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            snap->error = QStringLiteral("cannot write %1: %2").arg(snap->buildPath, f.errorString());
            snap->result.error = snap->error.toStdString();
            return snap;
        }
        f.write(request.text.toUtf8());
        f.close();
        BuildOptions options = request.options;
        if (!request.sourcePath.isEmpty() && !request.sourcePath.startsWith(QLatin1Char(':'))) {
            // The file's own folder, for its "..." includes. A folder name nvcc's shell would
            // interpret (core/build/option_safety.h) is reached through a safe-named link instead.
            QString dir = QFileInfo(request.sourcePath).absolutePath();
            if (!checkOptionValue("include dir", dir.toStdString(), OptionSlot::IncludeDir).empty()) {
                const QString link = QDir(request.workDir).filePath(QStringLiteral("source-folder"));
                QFile::remove(link);
                if (QFile::link(dir, link)) dir = link;
            }
            options.includeDirs.push_back(dir.toStdString());
        }
        input = describeInput(snap->buildPath.toStdString(), options);
    }
    input.member = request.variant.toStdString();

    // Several archs: each is built (in parallel, so switching between them is a cache hit); the
    // variant's build is the one shown.
    const Toolchain& toolchain = cachedToolchain();
    BuildControl control;
    control.cancel = cancel;
    const QStringList archs = splitArchs(input.options.arch);
    if (archs.size() > 1) {
        input.member.clear();
        snap->variants = archs;
        snap->variant = archs.contains(request.variant) ? request.variant : archs.front();
        std::vector<std::future<BuildResult>> others;
        for (const QString& a : archs) {
            if (a == snap->variant) continue;
            BuildInput other = input;
            other.options.arch = a.toStdString();
            others.push_back(std::async(std::launch::async, [&toolchain, other, control] {
                return buildInput(toolchain, other, control);
            }));
        }
        input.options.arch = snap->variant.toStdString();
        snap->result = buildInput(toolchain, input, control);
        for (auto& o : others) o.get();
    } else {
        snap->result = buildInput(toolchain, input, control);
        for (const auto& e : snap->result.embedded) snap->variants << QString::fromStdString(e.name);
        snap->variant = QString::fromStdString(snap->result.member);
    }
    // Show the options the user chose (without the include dir added for the copy).
    snap->options = request.options;
    if (!snap->result.ok && !snap->result.error.empty()) snap->error = QString::fromStdString(snap->result.error);
    if (snap->result.ok && !(cancel && cancel->load())) {
        QElapsedTimer t;
        t.start();
        // Which file is the document and which are the user's headers (the Source pane's file list).
        snap->sources = sourceContextFor(input, toolchain);
        snap->model = buildLoweringModel(snap->result, snap->sources);
        snap->modelMs = double(t.nsecsElapsed()) / 1e6;
    }
    if (!request.inputPath.isEmpty()) {
        snap->shownSource = sourceForInput(*snap);
        if (snap->shownSource.isEmpty() && input.kind == InputKind::Ptx) snap->shownSource = request.inputPath;
        // The source pane shows that file: the listing was built for exactly that text.
        QFile f(snap->shownSource);
        snap->builtText = !snap->shownSource.isEmpty() && f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll())
                                                                                         : QString();
        if (!snap->shownSource.isEmpty()) snap->buildPath = snap->shownSource;
    }
    return snap;
}

} // namespace lowerscope
