#include "views/common/build_job.h"

#include "core/build/cache.h"
#include "core/build/option_safety.h"
#include "core/build/triton.h"
#include "core/untrusted.h"
#include "views/common/input_file.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

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

// True when the editor's text is the saved file's content (a real file, not a resource).
bool editorMatchesDisk(const BuildRequest& request) {
    if (request.sourcePath.isEmpty() || request.sourcePath.startsWith(QLatin1Char(':'))) return false;
    const QFileInfo fi(request.sourcePath);
    const QByteArray text = request.text.toUtf8();
    if (!fi.isFile() || fi.size() != text.size()) return false;
    std::string disk, error;
    return readInputFile(request.sourcePath.toStdString(), kMaxSourceBytes, "a source file", disk, error) &&
           QByteArray::fromStdString(disk) == text;
}

// Where an edited text's build copy goes: a folder of the user's build cache named by the file
// and the text (the session's work folder when the cache folder cannot be made).
QString editCopyDir(const BuildRequest& request) {
    const QByteArray id = request.sourcePath.toUtf8() + '\0' + request.displayName.toUtf8() + '\0' + request.text.toUtf8();
    const QString dir = QDir(QString::fromStdString(cacheDirectory()))
                            .filePath(QStringLiteral("edits/") + QString::fromStdString(xxh3Hex(id.constData(), size_t(id.size()))));
    if (QDir().mkpath(dir)) return dir;
    QDir().mkpath(request.workDir);
    return request.workDir;
}

// Writes `bytes` to `path` through a temporary name and a rename: two builds of the same text
// may write the same copy at once, and neither may see half a file.
bool writeCopy(const QString& path, const QByteArray& bytes, QString* why) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        *why = f.errorString();
        return false;
    }
    return true;
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
        // A path named by an input's line info may only lead into the user's folders
        // (docs/SECURITY.md, "Files named by line info"): the input's folder (for a Triton cache
        // root, the folder holding it, where its scripts live), the build's -I folders and the
        // folder Lowerscope was started in. Never the home folder as a whole, an absolute path
        // elsewhere or folders above the input.
        std::vector<std::string> roots{QDir::currentPath().toStdString()};
        const QFileInfo in(input);
        QDir dir = in.isDir() ? QDir(in.absoluteFilePath()) : in.dir();
        if (snap.result.inputKind == "triton") {
            if (isTritonKernelFolder(input.toStdString())) dir.cdUp(); // the kernel folder's cache root
            dir.cdUp();
        }
        roots.push_back(dir.absolutePath().toStdString());
        for (const auto& d : snap.options.includeDirs) roots.push_back(d);
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
    } else if (editorMatchesDisk(request)) {
        // The editor holds the file as it is saved: build the file itself, as the CLI does, so the
        // cache key is the CLI's (same path, same options) and a rebuild, a return to an arch or
        // the next launch is a cache hit (core/build/cache.h).
        snap->buildPath = QFileInfo(request.sourcePath).absoluteFilePath();
        input = describeInput(snap->buildPath.toStdString(), request.options);
    } else {
        // The editor is ahead of the file on disk: compile a copy of its text. Same file name, so
        // the line info and diagnostics name the file the user sees; the folder is named by the
        // text and the file, so building the same text again is a cache hit too.
        const QString name = request.displayName.isEmpty() ? QStringLiteral("untitled.cu") : request.displayName;
        const QString copyDir = editCopyDir(request);
        snap->buildPath = QDir(copyDir).filePath(name);
        if (QString why; !writeCopy(snap->buildPath, request.text.toUtf8(), &why)) {
            snap->error = QStringLiteral("cannot write %1: %2").arg(snap->buildPath, why);
            snap->result.error = snap->error.toStdString();
            return snap;
        }
        BuildOptions options = request.options;
        if (!request.sourcePath.isEmpty() && !request.sourcePath.startsWith(QLatin1Char(':'))) {
            // The file's own folder, for its "..." includes. A folder name nvcc's shell would
            // interpret (core/build/option_safety.h) is reached through a safe-named link instead.
            QString dir = QFileInfo(request.sourcePath).absolutePath();
            if (!checkOptionValue("include dir", dir.toStdString(), OptionSlot::IncludeDir).empty()) {
                const QString link = QDir(copyDir).filePath(QStringLiteral("source-folder"));
                if (QFileInfo(link).symLinkTarget() == dir) dir = link;
                else if (QFile::remove(link), QFile::link(dir, link)) dir = link;
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
        QString text, error;
        snap->builtText = !snap->shownSource.isEmpty() &&
                                  readUserTextFile(snap->shownSource, kMaxSourceBytes, "a source file", text, error)
                              ? text
                              : QString();
        if (!snap->shownSource.isEmpty()) snap->buildPath = snap->shownSource;
    }
    return snap;
}

} // namespace lowerscope
