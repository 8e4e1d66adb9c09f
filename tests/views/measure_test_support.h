#pragma once

// Fixtures shared by test_compare_measure and test_experiment_record: repository files, a real
// sm_90 listing pair, the measurement document, the runner binary, a fake build, loopback ports and
// a non-blank-image check. Needs the LOWERSCOPE_SOURCE_DIR and LOWERSCOPE_BINARY_DIR definitions.

#include "core/parse/sass_parser.h"
#include "views/common/build_job.h"
#include "views/compare/diff_view.h"
#include "views/common/workspace.h"

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QString>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace lowerscope::testutil {

inline QString repo(const QString& rel) { return QDir(QStringLiteral(LOWERSCOPE_SOURCE_DIR)).filePath(rel); }

inline std::string readAll(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A real sm_90 pair from scripts/gen-diff-data (nvcc 13 + nvdisasm output).
inline CompareSide realSide(const QString& variant, const QString& label) {
    const QString base = repo(QStringLiteral("tests/data/diff/fast_math.%1").arg(variant));
    SassListing l = parseSassTexts(readAll(base + QStringLiteral(".sass")), "", readAll(base + QStringLiteral(".live.sass")));
    CompareSide side;
    if (l.functions.empty()) return side;
    side.valid = true;
    side.label = label;
    side.kernel = QString::fromStdString(l.functions[0].name);
    side.arch = QStringLiteral("sm_90");
    side.sass = l.functions[0];
    // Registers as cuobjdump -res-usage reported them for this build.
    QRegularExpression reg(QStringLiteral("REG:(\\d+)"));
    auto m = reg.match(QString::fromStdString(readAll(base + QStringLiteral(".res.txt"))));
    if (m.hasMatch()) side.resources.registers = m.captured(1).toInt();
    return side;
}

// The measurement document the pane tests render: a real GPU result when one is committed,
// else the clearly labelled synthetic fixture.
inline QString resultFixture() {
    for (const char* rel : {"tests/data/run/fast_math.compare.json", "tests/data/run/compare.json",
                            "tests/data/measure/synthetic_compare.json"}) {
        if (QFileInfo::exists(repo(QString::fromLatin1(rel)))) return repo(QString::fromLatin1(rel));
    }
    return {};
}

inline QString runnerPath() {
    const QString p = QDir(QStringLiteral(LOWERSCOPE_BINARY_DIR)).filePath(QStringLiteral("app/lowerscope-runner"));
    return QFileInfo::exists(p) ? p : QString();
}

// A fake build: one kernel "k" with no parameters; counts builds.
inline std::shared_ptr<BuildSnapshot> fakeBuild(const BuildRequest& r, std::atomic<int>* counter) {
    if (counter) counter->fetch_add(1);
    auto snap = std::make_shared<BuildSnapshot>();
    snap->sourcePath = r.sourcePath;
    snap->builtText = r.text;
    snap->options = r.options;
    snap->result.ok = true;
    snap->result.cubin = {0x7f, 'E', 'L', 'F'};
    KernelModel k;
    k.name = "k()";
    k.mangled = "_Z1kv";
    snap->model.kernels.push_back(k);
    snap->model.arch = r.options.arch;
    return snap;
}

inline bool waitForGoodSnapshot(Workspace& s) {
    if (s.snapshot() && s.snapshot()->ok()) return true;
    QSignalSpy spy(&s, &Workspace::snapshotChanged);
    return spy.wait(10000) && s.snapshot() && s.snapshot()->ok();
}

// A free TCP port on loopback (bound to 0, read back, released), or 0.
inline int freePort() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    close(fd);
    return port;
}

inline bool canConnect(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(uint16_t(port));
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    close(fd);
    return ok;
}

inline bool nonBlank(const QString& png) {
    QImage img(png);
    if (img.isNull() || img.width() < 50) return false;
    const QRgb first = img.pixel(0, 0);
    for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7)
            if (img.pixel(x, y) != first) return true;
    return false;
}

} // namespace lowerscope::testutil
