// Kernels inside real programs in the GUI (issue 29): File → Profile a program… builds the
// CaptureSpec its fields describe (metrics save the selected launches and appear as --metrics in
// the CLI line), runs the capture showing the program's output (bounded, escaped) and Cancel kills
// the program's process group; metrics without a saved launch are said. A capture document opens
// as its kernel table sorted by total time, and a kernel opens from its saved cubin in the code
// panes (SASS only, said so, when the cubin has no line info), with its launch's profile when one
// was taken on its replay.

#include "window_fixture.h"

#include "core/build/cache.h"
#include "core/capture/capture_document.h"
#include "core/capture/capture_events.h"
#include "core/capture/capture_metrics.h"
#include "core/capture/launch_snapshot.h"
#include "core/run/buffer_data.h"
#include "views/capture/capture_form.h"
#include "views/capture/capture_model.h"
#include "views/capture/capture_room.h"
#include "views/capture/capture_view.h"
#include "views/capture/profile_dialog.h"
#include "views/common/build_job.h"
#include "views/common/workspace.h"
#include "views/shell/main_window.h"

#include <QCoreApplication>
#include <QSettings>
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fstream>

using namespace lowerscope;
using namespace lowerscope::capture;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

CapturedLaunch launch(uint32_t corr, const std::string& name, uint64_t start, uint64_t ns, int64_t grid, int64_t block) {
    CapturedLaunch k;
    k.pid = 100;
    k.correlationId = corr;
    k.name = name;
    k.grid = {grid, 1, 1};
    k.block = {block, 1, 1};
    k.startNs = start;
    k.endNs = start + ns;
    return k;
}

// A process that is gone (or a zombie nobody reaped yet).
bool processGone(qint64 pid) {
    if (::kill(pid_t(pid), 0) != 0) return true;
    const QByteArray stat = readAll(QStringLiteral("/proc/%1/stat").arg(pid));
    const qsizetype close = stat.lastIndexOf(')');
    return close > 0 && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

} // namespace

class CaptureGuiTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

    // Saves `cubin` in `dir` as the injection would (HASH.cubin); its module event line.
    static std::string saveModule(const QString& dir, const QString& cubinPath, uint32_t moduleId) {
        const QByteArray bytes = readAll(cubinPath);
        if (bytes.isEmpty()) return {};
        const std::string hash = xxh3Hex(bytes.constData(), size_t(bytes.size()));
        QFile out(QDir(dir).filePath(QString::fromStdString(hash) + QStringLiteral(".cubin")));
        if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size()) return {};
        return moduleEventLine({100, moduleId, hash, uint64_t(bytes.size())});
    }

    // A capture document in `dir`: softmax_kernel (largest total), helper (no module saved) and
    // add_kernel (smallest total), launched out of order; the two Triton cubins of the test data
    // saved as its modules. `extraCubin` (with kernel `extraKernel`) is added as a third module.
    // `savedLaunch`: add_kernel's selected launch (corr 5) was saved for replay (a snapshot entry).
    QString writeCapture(const QString& dir, const QString& extraCubin = {}, const std::string& extraKernel = {},
                         bool savedLaunch = false) {
        QDir().mkpath(dir);
        const QString triton = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/triton/cache/");
        CaptureLog log;
        log.addLine(processEventLine(100, "130001", ""));
        log.addLine(deviceEventLine({100, 0, "NVIDIA H100 80GB HBM3", 9, 0}));
        log.addLine(saveModule(dir, triton + QStringLiteral("GVJ5JLWJO4FI5T6C3ZJORNRNHWSRSYR6A5QVSPS2G2X3LGKK4TOA/add_kernel.cubin"), 1));
        log.addLine(saveModule(dir, triton + QStringLiteral("VDXPK52OS4ZNXWGUDBVOPY7MBOXKAFHCBK37AWJFRJW6GUCSXLXQ/softmax_kernel.cubin"), 2));
        if (!extraCubin.isEmpty()) log.addLine(saveModule(dir, extraCubin, 3));
        // add_kernel: 3 × 10 µs = 30 µs; softmax_kernel: 2 × 50 µs = 100 µs; helper: 4 × 15 µs = 60 µs.
        uint32_t corr = 1;
        uint64_t t = 1000;
        log.addLine(kernelEventLine(launch(corr++, "add_kernel", t += 100000, 10000, 64, 128)));
        log.addLine(kernelEventLine(launch(corr++, "_Z6helperv", t += 100000, 15000, 8, 256)));
        log.addLine(kernelEventLine(launch(corr++, "softmax_kernel", t += 100000, 50000, 1024, 128)));
        log.addLine(kernelEventLine(launch(corr++, "_Z6helperv", t += 100000, 14000, 8, 256)));
        log.addLine(kernelEventLine(launch(corr++, "add_kernel", t += 100000, 9000, 64, 128)));
        log.addLine(kernelEventLine(launch(corr++, "_Z6helperv", t += 100000, 16000, 8, 256)));
        log.addLine(kernelEventLine(launch(corr++, "softmax_kernel", t += 100000, 50000, 1024, 128)));
        log.addLine(kernelEventLine(launch(corr++, "add_kernel", t += 100000, 11000, 64, 128)));
        log.addLine(kernelEventLine(launch(corr++, "_Z6helperv", t += 100000, 15000, 8, 256)));
        if (!extraKernel.empty()) log.addLine(kernelEventLine(launch(corr++, extraKernel, t += 100000, 1000, 1, 32)));
        if (savedLaunch) {
            LaunchSnapshot snap;
            snap.pid = 100;
            snap.correlationId = 5; // add_kernel's second launch: the one the filter selects
            snap.name = "add_kernel";
            snap.grid = {64, 1, 1};
            snap.block = {128, 1, 1};
            snap.regions.push_back({0x5b0000000000, 256, snapshotFileName(100, 5, "before", 0x5b0000000000), "", false});
            log.addLine(snapshotEventLine(snap));
        }
        log.addLine(endEventLine(100, 0));
        const auto modules = describeModules(log, dir.toStdString());
        CaptureRunInfo run;
        run.program = "./train";
        run.args = {"--steps", "2"};
        const QString path = QDir(dir).filePath(QStringLiteral("train.capture.json"));
        const auto doc = captureDocument(log, run, {"add", 1, 1}, modules,
                                         savedLaunch ? snapshotFolderName(path.toStdString()) : std::string());
        std::ofstream(path.toStdString()) << doc.dump(1);
        return path;
    }

    static bool toolsFound() {
        const Toolchain& tc = cachedToolchain();
        return tc.nvdisasm.found() && tc.cuobjdump.found();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", m_tmp.filePath(QStringLiteral("cache")).toLocal8Bit());
    }

    void argumentsSplitLikeAShell() {
        QStringList words;
        QString error;
        QVERIFY(splitShellWords(QStringLiteral("  --size 4096 'a b' c\\ d \"e \\\"f\\\" $HOME\" ''  x'y'z "), words, error));
        QCOMPARE(words, (QStringList{QStringLiteral("--size"), QStringLiteral("4096"), QStringLiteral("a b"),
                                     QStringLiteral("c d"), QStringLiteral("e \"f\" $HOME"), QString(),
                                     QStringLiteral("xyz")}));
        QCOMPARE(joinShellWords(words).isEmpty(), false);
        QStringList back;
        QVERIFY(splitShellWords(joinShellWords(words), back, error));
        QCOMPARE(back, words);
        QVERIFY(!splitShellWords(QStringLiteral("a 'b"), words, error));
        QVERIFY2(error.contains(QLatin1Char('\'')), qPrintable(error));
        QVERIFY(!splitShellWords(QStringLiteral("a \"b"), words, error));
        QVERIFY(!splitShellWords(QStringLiteral("a\\"), words, error));
    }

    void fieldsBuildTheCaptureSpec() {
        const QString inject = testutil::writeFile(m_tmp, QStringLiteral("libfake_inject.so"), "not a library");
        CaptureFormFields f;
        f.program = QStringLiteral(" python3 ");
        f.arguments = QStringLiteral("train.py --name 'my run' --lr=0.1");
        f.workingDir = m_tmp.path();
        f.environment = QStringLiteral("# a comment\nCUDA_VISIBLE_DEVICES=1\n\n  OMP_NUM_THREADS=4  \nEMPTY=\nWITH_EQ=a=b\n");
        f.kernelRegex = QStringLiteral("gemm|softmax");
        f.launchSkip = QStringLiteral("2");
        f.launchCount = QStringLiteral("3");
        f.output = QStringLiteral("out/run.capture.json");
        f.injectionLibrary = inject;
        CaptureSpec spec;
        QString error;
        QVERIFY2(captureSpecFromFields(f, spec, error), qPrintable(error));
        QCOMPARE(spec.argv, (std::vector<std::string>{"python3", "train.py", "--name", "my run", "--lr=0.1"}));
        QCOMPARE(QString::fromStdString(spec.workingDir), m_tmp.path());
        QCOMPARE(spec.env, (std::map<std::string, std::string>{
                               {"CUDA_VISIBLE_DEVICES", "1"}, {"OMP_NUM_THREADS", "4"}, {"EMPTY", ""}, {"WITH_EQ", "a=b"}}));
        QCOMPARE(spec.filter.kernelRegex, std::string("gemm|softmax"));
        QCOMPARE(spec.filter.skip, uint64_t(2));
        QVERIFY(spec.filter.count.has_value());
        QCOMPARE(*spec.filter.count, uint64_t(3));
        // A relative output is inside the working folder.
        QCOMPARE(QString::fromStdString(spec.outputPath), QDir(m_tmp.path()).filePath(QStringLiteral("out/run.capture.json")));
        QCOMPARE(QString::fromStdString(spec.injectionLibrary), inject);
        QVERIFY(spec.cancel == nullptr);
        QCOMPARE(spec.timeout.count(), 0);

        // Empty skip and count: every matching launch.
        f.launchSkip.clear();
        f.launchCount.clear();
        QVERIFY2(captureSpecFromFields(f, spec, error), qPrintable(error));
        QCOMPARE(spec.filter.skip, uint64_t(0));
        QVERIFY(!spec.filter.count.has_value());

        // Each invalid field is refused, naming the field.
        const auto refused = [&](CaptureFormFields bad, const QString& field) {
            CaptureSpec s;
            QString why;
            if (captureSpecFromFields(bad, s, why)) return QStringLiteral("accepted");
            return why.startsWith(field) ? QString() : why;
        };
        CaptureFormFields bad = f;
        bad.program = QStringLiteral("  ");
        QCOMPARE(refused(bad, QStringLiteral("Program")), QString());
        bad = f;
        bad.arguments = QStringLiteral("'unterminated");
        QCOMPARE(refused(bad, QStringLiteral("Arguments")), QString());
        bad = f;
        bad.environment = QStringLiteral("GOOD=1\nnot an assignment");
        QCOMPARE(refused(bad, QStringLiteral("Environment, line 2")), QString());
        bad = f;
        bad.environment = QStringLiteral("1BAD=x");
        QCOMPARE(refused(bad, QStringLiteral("Environment, line 1")), QString());
        bad = f;
        bad.environment = QStringLiteral("CUDA_INJECTION64_PATH=/tmp/x.so");
        QCOMPARE(refused(bad, QStringLiteral("Environment, line 1")), QString());
        bad = f;
        bad.kernelRegex = QStringLiteral("gemm(");
        QCOMPARE(refused(bad, QStringLiteral("Kernel filter")), QString());
        bad = f;
        bad.launchSkip = QStringLiteral("-1");
        QCOMPARE(refused(bad, QStringLiteral("Launch skip")), QString());
        bad = f;
        bad.launchCount = QStringLiteral("0");
        QCOMPARE(refused(bad, QStringLiteral("Launch count")), QString());
        bad = f;
        bad.launchCount = QStringLiteral("two");
        QCOMPARE(refused(bad, QStringLiteral("Launch count")), QString());
        bad = f;
        bad.output.clear();
        QCOMPARE(refused(bad, QStringLiteral("Output")), QString());
        bad = f;
        bad.workingDir = m_tmp.filePath(QStringLiteral("no-such-folder"));
        QCOMPARE(refused(bad, QStringLiteral("Working folder")), QString());
        bad = f;
        bad.injectionLibrary = m_tmp.filePath(QStringLiteral("missing.so"));
        QCOMPARE(refused(bad, QStringLiteral("No injection library")), QString());
    }

    void dialogFieldsAndMetricsChoice() {
        ProfileProgramDialog d(std::make_shared<JobTracker>(), false);
        CaptureFormFields f;
        f.program = QStringLiteral("./bench");
        f.arguments = QStringLiteral("--n 'a b'");
        f.workingDir = m_tmp.path();
        f.environment = QStringLiteral("A=1");
        f.kernelRegex = QStringLiteral("gemm");
        f.launchCount = QStringLiteral("1");
        f.output = QStringLiteral("x.capture.json");
        d.setFields(f);
        const CaptureFormFields back = d.fields();
        QCOMPARE(back.program, f.program);
        QCOMPARE(back.arguments, f.arguments);
        QCOMPARE(back.environment, f.environment);
        QCOMPARE(back.kernelRegex, f.kernelRegex);
        QCOMPARE(back.launchCount, f.launchCount);
        const QString cmd = d.equivalentCommand();
        QVERIFY2(cmd.contains(QStringLiteral("lowerscope-cli capture --kernel gemm --launch-count 1 -o ")), qPrintable(cmd));
        QVERIFY2(cmd.contains(QStringLiteral("-- ./bench --n 'a b'")), qPrintable(cmd));
        QVERIFY2(cmd.contains(QStringLiteral("env A=1")), qPrintable(cmd));
        QVERIFY(d.defaultOutput().endsWith(QStringLiteral("/captures/bench.capture.json")));
        QVERIFY2(!cmd.contains(QStringLiteral("--metrics")), qPrintable(cmd));
        // The metrics can be asked for: each box is enabled, and ticking them puts --metrics on the
        // CLI line (in the CLI's order) and makes the capture save the selected launches.
        QVERIFY(captureSpecHasMetrics());
        for (int i = 0; i < 3; ++i) {
            QCheckBox* box = d.metricsBox(i);
            QVERIFY(box);
            QVERIFY(box->isEnabled());
        }
        f.injectionLibrary = testutil::writeFile(m_tmp, QStringLiteral("libfake_inject.so"), "fake");
        d.setFields(f);
        CaptureSpec spec;
        QString why;
        QVERIFY2(captureSpecFromFields(d.fields(), spec, why), qPrintable(why));
        QVERIFY(!spec.saveLaunches);
        d.metricsBox(2)->click(); // samples
        d.metricsBox(0)->click(); // kernel
        QVERIFY(d.fields().metricsKernel && d.fields().metricsSamples && !d.fields().metricsInstructions);
        const QString withMetrics = d.equivalentCommand();
        QVERIFY2(withMetrics.contains(QStringLiteral("lowerscope-cli capture --kernel gemm --launch-count 1 --metrics "
                                                     "kernel,samples -o ")),
                 qPrintable(withMetrics));
        QVERIFY2(d.findChild<QLabel*>(QStringLiteral("captureCommand"))->text().contains(QStringLiteral("--metrics kernel,samples")),
                 qPrintable(d.findChild<QLabel*>(QStringLiteral("captureCommand"))->text()));
        QVERIFY2(captureSpecFromFields(d.fields(), spec, why), qPrintable(why));
        QVERIFY(spec.saveLaunches);
        // Serialised kernels: the box reaches the spec and the equivalent command.
        QVERIFY(!spec.serializeKernels);
        auto* serialize = d.findChild<QCheckBox*>(QStringLiteral("captureSerialize"));
        QVERIFY(serialize && serialize->isEnabled());
        serialize->click();
        QVERIFY2(captureSpecFromFields(d.fields(), spec, why), qPrintable(why));
        QVERIFY(spec.serializeKernels);
        QVERIFY2(d.equivalentCommand().contains(QStringLiteral("--metrics kernel,samples --serialize-kernels -o ")),
                 qPrintable(d.equivalentCommand()));
        serialize->click();
        QCOMPARE(captureMetrics(d.fields()), (std::vector<ProfileCollection>{ProfileCollection::Kernel, ProfileCollection::Samples}));
        // Without a launch count the first matching launch is the one saved, as the CLI does with
        // --metrics; the line says so.
        f.launchCount.clear();
        f.metricsKernel = f.metricsInstructions = f.metricsSamples = true;
        d.setFields(f);
        QVERIFY2(captureSpecFromFields(d.fields(), spec, why), qPrintable(why));
        QVERIFY(spec.saveLaunches);
        QVERIFY(spec.filter.count.has_value());
        QCOMPARE(*spec.filter.count, uint64_t(1));
        QVERIFY2(d.equivalentCommand().contains(QStringLiteral("--launch-count 1 --metrics kernel,instructions,samples")),
                 qPrintable(d.equivalentCommand()));
        // Unticked again: nothing saved, no --metrics.
        for (int i = 0; i < 3; ++i) d.metricsBox(i)->setChecked(false);
        QVERIFY2(captureSpecFromFields(d.fields(), spec, why), qPrintable(why));
        QVERIFY(!spec.saveLaunches);
        QVERIFY(!spec.filter.count.has_value());
        QVERIFY(!d.equivalentCommand().contains(QStringLiteral("--metrics")));
        // An invalid field is said in the dialog and nothing starts.
        f.kernelRegex = QStringLiteral("(");
        d.setFields(f);
        QVERIFY(!d.start());
        QVERIFY(!d.isRunning());
        QVERIFY(!d.errorLabel()->isHidden());
        QVERIFY2(d.errorLabel()->text().startsWith(QStringLiteral("Kernel filter")), qPrintable(d.errorLabel()->text()));
    }

    // The entries a run used come back in the next dialog (QSettings, in a folder of the test's
    // own), the serialise box included.
    void theEntriesOfARunAreRemembered() {
        QTemporaryDir dir;
        QCoreApplication::setOrganizationName(QStringLiteral("lowerscope-test"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.filePath(QStringLiteral("settings")));
        CaptureFormFields f;
        f.program = QStringLiteral("/bin/true");
        f.arguments = QStringLiteral("--steps 2");
        f.workingDir = dir.path();
        f.kernelRegex = QStringLiteral("gemm");
        f.serializeKernels = true;
        f.output = QStringLiteral("run.capture.json");
        f.injectionLibrary = testutil::writeFile(dir, QStringLiteral("libfake_inject.so"), "fake");
        {
            ProfileProgramDialog d(std::make_shared<JobTracker>(), true);
            d.setFields(f);
            QSignalSpy finished(&d, &ProfileProgramDialog::finished);
            QVERIFY(d.start());
            QVERIFY(finished.count() == 1 || finished.wait(15000));
        }
        ProfileProgramDialog again(std::make_shared<JobTracker>(), true);
        const CaptureFormFields g = again.fields();
        QCOMPARE(g.program, f.program);
        QCOMPARE(g.arguments, f.arguments);
        QCOMPARE(g.kernelRegex, f.kernelRegex);
        QVERIFY(g.serializeKernels);
        QVERIFY(again.findChild<QCheckBox*>(QStringLiteral("captureSerialize"))->isChecked());
    }

    void cancelKillsTheProgramsProcessGroup() {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("sleep.pid"));
        // The program starts a child of its own and waits: Cancel must end both (the process group).
        const QString script = testutil::writeFile(
            dir, QStringLiteral("prog.sh"),
            QStringLiteral("#!/bin/sh\necho started\nsleep 60 &\necho $! > '%1'\nwait\n").arg(pidFile).toUtf8());
        QVERIFY(QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QString inject = testutil::writeFile(dir, QStringLiteral("libfake_inject.so"), "fake");
        auto jobs = std::make_shared<JobTracker>();
        ProfileProgramDialog d(jobs, false);
        CaptureFormFields f;
        f.program = script;
        f.workingDir = dir.path();
        f.output = QStringLiteral("out/prog.capture.json");
        f.injectionLibrary = inject;
        d.setFields(f);
        QSignalSpy finished(&d, &ProfileProgramDialog::finished);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(d.start());
        QVERIFY(d.isRunning());
        QVERIFY(d.cancelButton()->isEnabled());
        QVERIFY(!d.profileButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile) && !readAll(pidFile).trimmed().isEmpty(), 10000);
        const qint64 sleepPid = readAll(pidFile).trimmed().toLongLong();
        QVERIFY(sleepPid > 0);
        QVERIFY(!processGone(sleepPid));
        QTRY_VERIFY_WITH_TIMEOUT(d.statusLabel()->text().startsWith(QStringLiteral("Running prog.sh")), 5000);
        QTest::mouseClick(d.cancelButton(), Qt::LeftButton);
        QVERIFY(finished.count() == 1 || finished.wait(15000));
        QVERIFY2(clock.elapsed() < 30000, "the program ran on after Cancel");
        QVERIFY(!d.isRunning());
        const QList<QVariant> args = finished.takeFirst();
        QCOMPARE(args.at(0).toBool(), true); // the document is still written
        QTRY_VERIFY_WITH_TIMEOUT(processGone(sleepPid), 5000);
        QVERIFY2(d.statusLabel()->text().contains(QStringLiteral("cancelled")), qPrintable(d.statusLabel()->text()));
        // Nothing initialised CUDA: said so in the dialog.
        QVERIFY2(d.errorLabel()->text().contains(QStringLiteral("No kernel launch was recorded")),
                 qPrintable(d.errorLabel()->text()));
        CaptureSummary s;
        std::string error;
        QVERIFY2(readCaptureFile(args.at(1).toString().toStdString(), s, error), error.c_str());
        QVERIFY(s.cancelled);
        QVERIFY(d.profileButton()->isEnabled());
        QVERIFY(!d.cancelButton()->isEnabled());
    }

    void aProgramThatCannotStartIsSaid() {
        QTemporaryDir dir;
        ProfileProgramDialog d(std::make_shared<JobTracker>(), false);
        CaptureFormFields f;
        f.program = dir.filePath(QStringLiteral("no-such-program"));
        f.output = dir.filePath(QStringLiteral("x.capture.json"));
        f.injectionLibrary = testutil::writeFile(dir, QStringLiteral("libfake_inject.so"), "fake");
        d.setFields(f);
        QSignalSpy finished(&d, &ProfileProgramDialog::finished);
        QVERIFY(d.start());
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QVERIFY2(d.errorLabel()->text().contains(QStringLiteral("cannot start")), qPrintable(d.errorLabel()->text()));
    }

    // The program's stdout and stderr in the dialog while it runs: the newest lines, at most 200
    // of them, control characters shown escaped (an escape sequence is not obeyed), kept after it
    // ends.
    void theProgramsOutputIsShownBoundedAndEscaped() {
        QTemporaryDir dir;
        const QString go = dir.filePath(QStringLiteral("go"));
        const QString script = testutil::writeFile(
            dir, QStringLiteral("talk.sh"),
            QStringLiteral("#!/bin/sh\ni=1\nwhile [ $i -le 500 ]; do echo \"line $i\"; i=$((i+1)); done\n"
                           "printf 'to stderr \\033[31mred\\033[0m\\n' >&2\n"
                           "while [ ! -e '%1' ]; do sleep 0.05; done\necho finished\n")
                .arg(go)
                .toUtf8());
        QVERIFY(QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        ProfileProgramDialog d(std::make_shared<JobTracker>(), false);
        CaptureFormFields f;
        f.program = script;
        f.workingDir = dir.path();
        f.output = QStringLiteral("talk.capture.json");
        f.injectionLibrary = testutil::writeFile(dir, QStringLiteral("libfake_inject.so"), "fake");
        d.setFields(f);
        QPlainTextEdit* out = d.programOutput();
        QVERIFY(out);
        QVERIFY(out->isReadOnly());
        QSignalSpy finished(&d, &ProfileProgramDialog::finished);
        QVERIFY(d.start());
        // While the program still runs (it waits for `go`), its output is in the dialog.
        QTRY_VERIFY_WITH_TIMEOUT(out->toPlainText().contains(QStringLiteral("to stderr")), 10000);
        QVERIFY(d.isRunning());
        const QString text = out->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("line 500\n")), qPrintable(text.right(200)));
        QVERIFY2(text.contains(QStringLiteral("to stderr \\x1b[31mred\\x1b[0m")), qPrintable(text.right(200)));
        QVERIFY2(!text.contains(QChar(0x1b)), "a control character reached the widget");
        // Bounded: the newest lines, the dropped ones counted.
        QVERIFY2(!text.contains(QStringLiteral("line 300\n")), qPrintable(text.left(200)));
        QVERIFY2(text.startsWith(QStringLiteral("[301 earlier lines not kept]")), qPrintable(text.left(200)));
        QVERIFY2(out->blockCount() <= 201, qPrintable(QString::number(out->blockCount())));
        QFile(go).open(QIODevice::WriteOnly);
        QVERIFY(finished.count() == 1 || finished.wait(15000));
        QVERIFY2(out->toPlainText().endsWith(QStringLiteral("finished")), qPrintable(out->toPlainText().right(100)));
        // A new run starts with an empty area.
        QFile::remove(go);
        f.program = QStringLiteral("/bin/true");
        d.setFields(f);
        QVERIFY(d.start());
        QVERIFY(out->toPlainText().isEmpty());
        QVERIFY(finished.wait(15000));
    }

    // Metrics ticked for a program that saved no launch (no CUDA here): the capture is written
    // and the dialog says that nothing could be profiled, instead of failing silently.
    void metricsWithoutASavedLaunchAreSaid() {
        QTemporaryDir dir;
        const QString script = testutil::writeFile(dir, QStringLiteral("nocuda.sh"), "#!/bin/sh\necho no kernels here\n");
        QVERIFY(QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        ProfileProgramDialog d(std::make_shared<JobTracker>(), false);
        CaptureFormFields f;
        f.program = script;
        f.workingDir = dir.path();
        f.output = QStringLiteral("n.capture.json");
        f.metricsInstructions = true;
        f.injectionLibrary = testutil::writeFile(dir, QStringLiteral("libfake_inject.so"), "fake");
        d.setFields(f);
        QSignalSpy finished(&d, &ProfileProgramDialog::finished);
        QVERIFY(d.start());
        QVERIFY(!d.metricsBox(1)->isEnabled()); // not changed while it runs
        QVERIFY(finished.wait(15000));
        QCOMPARE(finished.first().at(0).toBool(), true);
        QVERIFY(d.lastResult().metricsAsked);
        QVERIFY(d.lastResult().profiles.launches.empty());
        const QString error = d.errorLabel()->text();
        QVERIFY2(!d.errorLabel()->isHidden() && error.contains(QStringLiteral("no launch was saved for its replay")), qPrintable(error));
        QVERIFY2(d.programOutput()->toPlainText().contains(QStringLiteral("no kernels here")), qPrintable(d.programOutput()->toPlainText()));
        QVERIFY(d.metricsBox(1)->isEnabled());
    }

    void eventsCounterCountsCompleteKernelLines() {
        QTemporaryDir dir;
        const QString doc = dir.filePath(QStringLiteral("a.capture.json"));
        QDir(dir.path()).mkpath(QStringLiteral(".lowerscope-events-abc123"));
        const QString events = dir.filePath(QStringLiteral(".lowerscope-events-abc123/events-7.jsonl"));
        CaptureEventsCounter counter(doc, QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(counter.poll(), quint64(0));
        QFile f(events);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(processEventLine(7, "1", "") + kernelEventLine(launch(1, "k", 0, 5, 1, 1)) +
                                          kernelEventLine(launch(2, "k", 10, 5, 1, 1))));
        const std::string partial = kernelEventLine(launch(3, "k", 20, 5, 1, 1));
        f.write(QByteArray::fromStdString(partial.substr(0, partial.size() / 2)));
        f.flush();
        QCOMPARE(counter.poll(), quint64(2)); // the torn last line waits
        f.write(QByteArray::fromStdString(partial.substr(partial.size() / 2)));
        f.flush();
        QCOMPARE(counter.poll(), quint64(3));
        QCOMPARE(counter.poll(), quint64(3)); // nothing counted twice
        QCOMPARE(counter.processes(), 1);
    }

    void captureTableIsSortedByTotal() {
        const QString path = writeCapture(m_tmp.filePath(QStringLiteral("table")));
        CaptureDocumentView doc;
        QString error;
        QVERIFY2(readCaptureView(path, doc, error), qPrintable(error));
        CaptureView view;
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setDocument(doc);
        view.resize(1000, 400);
        view.show();
        QTableView* t = view.table();
        QCOMPARE(t->model()->rowCount(), 3);
        const auto cell = [t](int row, int col) { return t->model()->index(row, col).data().toString(); };
        // softmax 100 µs, helper 60 µs, add 30 µs: largest total first.
        QCOMPARE(cell(0, CaptureKernelModel::ColName), QStringLiteral("softmax_kernel"));
        QCOMPARE(cell(1, CaptureKernelModel::ColName), QStringLiteral("helper"));
        QCOMPARE(cell(2, CaptureKernelModel::ColName), QStringLiteral("add_kernel"));
        QCOMPARE(cell(0, CaptureKernelModel::ColTotal), QStringLiteral("100.000"));
        QCOMPARE(cell(1, CaptureKernelModel::ColLaunches), QStringLiteral("4"));
        QCOMPARE(cell(2, CaptureKernelModel::ColMin), QStringLiteral("9.000"));
        QCOMPARE(cell(2, CaptureKernelModel::ColMax), QStringLiteral("11.000"));
        QVERIFY2(cell(2, CaptureKernelModel::ColMedian).startsWith(QStringLiteral("10.000  [")),
                 qPrintable(cell(2, CaptureKernelModel::ColMedian)));
        QCOMPARE(cell(0, CaptureKernelModel::ColShare), QStringLiteral("52.6 %")); // 100 of 190 µs
        QCOMPARE(cell(0, CaptureKernelModel::ColShape), QStringLiteral("1024 / 128"));
        QCOMPARE(cell(1, CaptureKernelModel::ColShape), QStringLiteral("8 / 256"));
        // The filter (add, skip 1, count 1) selected one launch of add_kernel.
        QCOMPARE(cell(2, CaptureKernelModel::ColSelected), QStringLiteral("1"));
        QCOMPARE(cell(0, CaptureKernelModel::ColSelected), QString());
        // Sorting by another column, then the document again: back to total order.
        t->sortByColumn(CaptureKernelModel::ColLaunches, Qt::DescendingOrder);
        QCOMPARE(cell(0, CaptureKernelModel::ColName), QStringLiteral("helper"));
        view.setDocument(doc);
        QCOMPARE(cell(0, CaptureKernelModel::ColName), QStringLiteral("softmax_kernel"));
        // The notes say that helper's module was not saved; the summary names the program and device.
        QVERIFY2(view.notes()->toPlainText().contains(QStringLiteral("helper()")), qPrintable(view.notes()->toPlainText()));
        QVERIFY2(view.summaryLabel()->text().contains(QStringLiteral("./train --steps 2")), qPrintable(view.summaryLabel()->text()));
        QVERIFY2(view.summaryLabel()->text().contains(QStringLiteral("H100")), qPrintable(view.summaryLabel()->text()));
        QVERIFY2(view.summaryLabel()->text().contains(QStringLiteral("3 kernels, 9 launches")), qPrintable(view.summaryLabel()->text()));
    }

    void openingACaptureAndDoubleClickingAKernel() {
        if (!toolsFound()) QSKIP("nvdisasm or cuobjdump not found (run scripts/bootstrap)");
        const QString path = writeCapture(m_tmp.filePath(QStringLiteral("open")));
        auto w = testutil::makeTestWindow();
        CaptureRoom* room = w->captureRoom();
        QVERIFY(room);
        // File → Profile a program… is in the File menu.
        bool inMenu = false;
        for (QAction* a : w->menuBar()->actions())
            if (a->menu())
                for (QAction* b : a->menu()->actions()) inMenu |= b->objectName() == QStringLiteral("profileProgramAction");
        QVERIFY(inMenu);

        QSignalSpy shown(room, &CaptureRoom::kernelShown);
        QVERIFY(w->openFile(path)); // File → Open on the document
        CaptureView* view = room->view();
        QCOMPARE(view->table()->model()->rowCount(), 3);
        QVERIFY(w->pane(QStringLiteral("capture"))->isVisible());
        // The largest kernel with a saved cubin opens first.
        QVERIFY(testutil::waitForBuilds(w->session()));
        QVERIFY2(shown.count() == 1 || shown.wait(10000), qPrintable(view->bannerText()));
        QCOMPARE(shown.takeFirst().at(0).toString(), QStringLiteral("softmax_kernel"));
        QCOMPARE(QString::fromStdString(w->session()->kernel()->mangled), QStringLiteral("softmax_kernel"));
        QVERIFY(w->session()->isInputMode());
        QVERIFY(w->session()->inputPath().endsWith(QStringLiteral(".cubin")));

        // Double-click add_kernel's row: its cubin opens and it is the kernel shown.
        QTableView* t = view->table();
        const int row = view->rowOfKernel(2);
        QCOMPARE(t->model()->index(row, 0).data().toString(), QStringLiteral("add_kernel"));
        const QRect rect = t->visualRect(t->model()->index(row, CaptureKernelModel::ColName));
        QVERIFY2(rect.isValid() && t->viewport()->rect().contains(rect.center()),
                 qPrintable(QStringLiteral("row %1 at %2,%3 in a viewport of %4×%5")
                                .arg(row).arg(rect.center().x()).arg(rect.center().y())
                                .arg(t->viewport()->width()).arg(t->viewport()->height())));
        // A double click as a user makes it: the first click selects, the second opens.
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, rect.center());
        QVERIFY2(view->bannerText().startsWith(QStringLiteral("Opening add_kernel")), qPrintable(view->bannerText()));
        QVERIFY(testutil::waitForBuilds(w->session()));
        QVERIFY2(shown.count() == 1 || shown.wait(10000), qPrintable(view->bannerText()));
        QCOMPARE(shown.first().at(0).toString(), QStringLiteral("add_kernel"));
        QCOMPARE(QString::fromStdString(w->session()->kernel()->mangled), QStringLiteral("add_kernel"));
        QVERIFY(!w->session()->kernel()->sass.instructions.empty());
        QVERIFY2(!view->bannerText().isEmpty(), "the banner says what opened");

        // helper() has no saved module: double-clicking it says so and opens nothing.
        const QString input = w->session()->inputPath();
        const int helperRow = view->rowOfKernel(1);
        const QPoint helperAt = t->visualRect(t->model()->index(helperRow, 0)).center();
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, helperAt);
        QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, helperAt);
        QVERIFY2(view->bannerText().contains(QStringLiteral("cannot be opened")), qPrintable(view->bannerText()));
        QCOMPARE(w->session()->inputPath(), input);
        QVERIFY(!w->session()->isBuilding());
    }

    void aCubinWithoutLineInfoOpensSassOnly() {
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !toolsFound()) QSKIP("nvcc, nvdisasm or cuobjdump not found");
        QTemporaryDir dir;
        const QString cu = testutil::writeFile(dir, QStringLiteral("k.cu"),
                                               "extern \"C\" __global__ void plain_scale(float* p) { p[threadIdx.x] *= 2.0f; }\n");
        const QString cubin = dir.filePath(QStringLiteral("k.cubin"));
        QProcess nvcc;
        nvcc.start(QString::fromStdString(tc.nvcc.path),
                   {QStringLiteral("-cubin"), QStringLiteral("-arch=sm_90"), cu, QStringLiteral("-o"), cubin});
        QVERIFY(nvcc.waitForFinished(120000));
        QVERIFY2(nvcc.exitCode() == 0, nvcc.readAllStandardError().constData());
        const QString path = writeCapture(dir.filePath(QStringLiteral("cap")), cubin, "plain_scale");
        auto w = testutil::makeTestWindow();
        QVERIFY(w->openCapture(path, QStringLiteral("plain_scale")));
        QSignalSpy shown(w->captureRoom(), &CaptureRoom::kernelShown);
        QVERIFY(testutil::waitForBuilds(w->session()));
        QVERIFY(shown.count() == 1 || shown.wait(10000));
        QCOMPARE(shown.first().at(1).toBool(), false); // no source
        const QString banner = w->captureRoom()->view()->bannerText();
        QVERIFY2(banner.startsWith(QStringLiteral("SASS only")) && banner.contains(QStringLiteral("-lineinfo")), qPrintable(banner));
        QCOMPARE(QString::fromStdString(w->session()->kernel()->mangled), QStringLiteral("plain_scale"));
        // A kernel the capture does not hold is refused with the reason.
        QString error;
        QVERIFY(!w->openCapture(path, QStringLiteral("no_such_kernel"), &error));
        QVERIFY2(error.contains(QStringLiteral("add_kernel")), qPrintable(error));
    }

    // A launch profiled on its replay (STEM.launches/ID/profile.json): listed in the Capture pane's
    // notes, and opened with its kernel in the Profile pane and on the SASS rows — the profile is
    // keyed to the captured cubin's digest, which is the build the pane opens. One keyed to another
    // cubin is said in the banner, not shown.
    void aProfiledLaunchOpensWithItsKernel() {
        if (!toolsFound()) QSKIP("nvdisasm or cuobjdump not found (run scripts/bootstrap)");
        const QString dir = m_tmp.filePath(QStringLiteral("profiled"));
        const QString path = writeCapture(dir, {}, {}, true);
        const QByteArray cubin = readAll(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/triton/cache/"
                                                        "GVJ5JLWJO4FI5T6C3ZJORNRNHWSRSYR6A5QVSPS2G2X3LGKK4TOA/add_kernel.cubin"));
        QVERIFY(!cubin.isEmpty());
        const auto writeProfile = [&](const std::string& digest) {
            const nlohmann::json doc{{"schema", "lowerscope.profile/1"},
                                     {"kernel", "add_kernel"},
                                     {"cubin_digest", digest},
                                     {"file", "add_kernel.cubin"},
                                     {"build_options", "(captured)"},
                                     {"instructions", {{{"address", 0}, {"profiled", true},
                                                        {"counts", {{"smsp__sass_inst_executed", 64}}}}}}};
            const std::string out = capturedProfilePath(path.toStdString(), "100-5");
            QDir().mkpath(QFileInfo(QString::fromStdString(out)).absolutePath());
            std::ofstream(out) << doc.dump(1);
            return QFileInfo(QString::fromStdString(out)).absoluteFilePath();
        };
        const QString profile = writeProfile(digestHex(cubin.constData(), size_t(cubin.size())));

        auto w = testutil::makeTestWindow();
        CaptureRoom* room = w->captureRoom(); // the window gives it MainWindow::openProfile
        QSignalSpy shown(room, &CaptureRoom::kernelShown);
        QVERIFY(w->openCapture(path, QStringLiteral("add_kernel")));
        QCOMPARE(room->launchProfiles().size(), 1);
        QCOMPARE(room->launchProfiles().first().launch, QStringLiteral("100-5"));
        QCOMPARE(room->launchProfiles().first().path, profile);
        QVERIFY2(room->view()->notes()->toPlainText().contains(
                     QStringLiteral("Launch 100-5 of add_kernel was profiled on its replay: train.capture.launches/100-5/profile.json")),
                 qPrintable(room->view()->notes()->toPlainText()));
        QVERIFY(testutil::waitForBuilds(w->session()));
        QVERIFY2(shown.count() == 1 || shown.wait(10000), qPrintable(room->view()->bannerText()));
        const QString banner = room->view()->bannerText();
        QVERIFY2(banner.contains(QStringLiteral("The profile of its replayed launch 100-5 is shown in the Profile pane")),
                 qPrintable(banner));
        QCOMPARE(room->openedProfile(), profile);

        // Keyed to another cubin: the banner says why it is not shown.
        writeProfile("0123456789abcdef");
        shown.clear();
        QVERIFY(w->openCapture(path, QStringLiteral("add_kernel")));
        QVERIFY(testutil::waitForBuilds(w->session()));
        QVERIFY2(shown.count() == 1 || shown.wait(10000), qPrintable(room->view()->bannerText()));
        QVERIFY2(room->view()->bannerText().contains(QStringLiteral("The profile of its launch 100-5 is not shown")),
                 qPrintable(room->view()->bannerText()));
        QVERIFY(room->openedProfile().isEmpty());

        // Without an opener the banner names the document.
        room->setProfileOpener({});
        shown.clear();
        QVERIFY(w->openCapture(path, QStringLiteral("add_kernel")));
        QVERIFY(testutil::waitForBuilds(w->session()));
        QVERIFY2(shown.count() == 1 || shown.wait(10000), qPrintable(room->view()->bannerText()));
        QVERIFY2(room->view()->bannerText().contains(QStringLiteral("Its replayed launch 100-5 has a profile: ") + profile),
                 qPrintable(room->view()->bannerText()));
    }
};

QTEST_MAIN(CaptureGuiTest)
#include "test_capture_gui.moc"
