// Untrusted input in the GUI, second sweep (issue 31): the Measure pane never starts ssh with a
// runner host that ssh would read as an option (the pane probes the host as soon as editing ends,
// so a pasted or session-supplied "-oProxyCommand=..." ran its command before); the Source pane
// shows a file a PTX's or cubin's line info names only inside the user's folders (class 4: an
// absolute path elsewhere, one under $HOME or two folders above the input was opened and shown).
#include "session_fixture.h"
#include "window_fixture.h"
#include "views/common/build_job.h"
#include "views/common/dialogs.h"
#include "views/compare/compare_measure.h"
#include "views/experiment/experiment_record.h"
#include "views/common/workspace.h"
#include "views/measure/measure_pane.h"
#include "views/shell/main_window.h"

#include "core/build/process.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QTimer>
#include <QTemporaryDir>

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <atomic>

using namespace lowerscope;

class UntrustedGuiTest : public QObject {
    Q_OBJECT
private slots:
    void optionLikeRunnerHostIsNeverStarted() {
        Workspace ws;
        MeasurePane pane(&ws, nullptr, MeasurePane::Options{false});
        std::atomic<int> started{0};
        std::vector<std::string> seen;
        pane.setProbe([&](const std::vector<std::string>& command, std::string& device, RunErrorKind&, std::string&) {
            ++started;
            seen = command;
            device = "NVIDIA H200";
            return true;
        });
        QSignalSpy probed(&pane, &MeasurePane::deviceProbed);
        for (const char* host : {"-oProxyCommand=touch /tmp/lowerscope-pwned", "-F/tmp/x", "gpu box", "a;id"}) {
            pane.setRemote(QString::fromUtf8(host));
            pane.probeDevice();
            QVERIFY(probed.wait(5000));
            QCOMPARE(started.load(), 0);
            QCOMPARE(pane.deviceState(), MeasurePane::DeviceState::Unavailable);
            QVERIFY(!pane.runAButton()->isEnabled());
        }
        // A plain host is probed, with ssh's options ended before it.
        pane.setRemote(QStringLiteral("gpu-box"));
        pane.probeDevice();
        QVERIFY(probed.wait(5000));
        QCOMPARE(started.load(), 1);
        QCOMPARE(pane.deviceState(), MeasurePane::DeviceState::Available);
        const auto dashes = std::find(seen.begin(), seen.end(), std::string("--"));
        QVERIFY(dashes != seen.end());
        QCOMPARE(*(dashes + 1), std::string("gpu-box"));
    }

    // Class 9: a card field of megabytes on one line is shown cut and read-only (laying it out kept
    // the GUI busy for minutes), and the session keeps it whole.
    void longCardFieldsAreShownBoundedAndKeptWhole() {
        ExperimentCardEditor editor;
        ExperimentCardText card;
        card.hypothesis = QString(2 << 20, QLatin1Char('h'));
        card.result = QStringLiteral("short");
        editor.setCard(card);
        QPlainTextEdit* shown = editor.field(0);
        QVERIFY(shown->toPlainText().size() < 70 * 1024);
        QVERIFY(shown->toPlainText().contains(QStringLiteral("bytes in all")));
        QVERIFY(shown->isReadOnly());
        QVERIFY(!editor.field(3)->isReadOnly());
        QCOMPARE(editor.card().hypothesis.size(), card.hypothesis.size());
        QCOMPARE(editor.card().hypothesis, card.hypothesis);
        QCOMPARE(editor.card().result, QStringLiteral("short"));
        editor.setCard(ExperimentCardText{});
        QVERIFY(!shown->isReadOnly());
        QVERIFY(editor.card().hypothesis.isEmpty());
    }

    // Scripted runs (non-interactive): a session that asks for consent is refused without a modal
    // dialog (one blocked an offscreen run forever), with the reason reported.
    void scriptedRunsNeverWaitForADialog() {
        QTemporaryDir dir;
        ExperimentData theirs;
        theirs.sourceName = QStringLiteral("theirs.cu");
        theirs.sourceText = QStringLiteral("__global__ void k(float* p) { p[0] = 1.0f; }\n");
        theirs.a.options.extraNvccFlags = {"-Xcompiler=-DY=1"};
        const QString path = dir.filePath(QStringLiteral("theirs.lowerscope"));
        QString error;
        QVERIFY2(saveExperiment(theirs, path, error), qPrintable(error));
        testutil::SessionFixture mine;
        Workspace& a = mine.a;
        ExperimentController& controller = *mine.controller;
        // A modal box that appears anyway is recorded and closed, so the test fails instead of hanging.
        bool sawDialog = false;
        QTimer watchdog;
        connect(&watchdog, &QTimer::timeout, [&] {
            if (QWidget* w = QApplication::activeModalWidget()) {
                sawDialog = true;
                w->close();
            }
        });
        watchdog.start(50);
        setDialogsAllowed(false);
        const bool opened = controller.openSession(path);
        setDialogsAllowed(true);
        QVERIFY(!sawDialog);
        QVERIFY(!opened);
        QCOMPARE(a.text(), QStringLiteral("// mine\n"));
    }

    void lineInfoLeadsOnlyIntoTheUsersFolders() {
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found() || !tc.ptxas.found() || !tc.cuobjdump.found())
            QSKIP("the CUDA tools are not all found (run scripts/bootstrap)");
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QDir root(tmp.path());
        QVERIFY(root.mkpath(QStringLiteral("home")) && root.mkpath(QStringLiteral("elsewhere")) &&
                root.mkpath(QStringLiteral("work/a/b")) && root.mkpath(QStringLiteral("cache")));
        qputenv("HOME", root.filePath(QStringLiteral("home")).toLocal8Bit());
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", root.filePath(QStringLiteral("autosave")).toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", root.filePath(QStringLiteral("cache")).toLocal8Bit());
        const QByteArray secret = "// SECRET-TEXT-31-4\n__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n";
        auto writeSource = [&](const QString& rel) {
            QFile f(root.filePath(rel));
            return f.open(QIODevice::WriteOnly) && f.write(secret) == secret.size();
        };
        // A PTX whose .file names `source` (absolute, as nvcc records a path given so), written to `ptx`.
        auto makePtx = [&](const QString& source, const QString& ptx) {
            ProcessSpec s;
            s.argv = {tc.nvcc.path, "-arch=sm_80", "-lineinfo", "-ptx", "-o", root.filePath(ptx).toStdString(),
                      root.filePath(source).toStdString()};
            s.timeout = std::chrono::seconds(180);
            return runProcess(s).ok();
        };
        QVERIFY(writeSource(QStringLiteral("elsewhere/k.cu")) && writeSource(QStringLiteral("home/k.cu")) &&
                writeSource(QStringLiteral("work/k.cu")) && writeSource(QStringLiteral("work/a/b/own.cu")));
        QVERIFY(makePtx(QStringLiteral("elsewhere/k.cu"), QStringLiteral("work/a/b/abs.ptx")));
        QVERIFY(makePtx(QStringLiteral("home/k.cu"), QStringLiteral("work/a/b/home.ptx")));
        QVERIFY(makePtx(QStringLiteral("work/k.cu"), QStringLiteral("work/a/b/above.ptx")));
        QVERIFY(makePtx(QStringLiteral("work/a/b/own.cu"), QStringLiteral("work/a/b/own.ptx")));

        auto w = testutil::makeTestWindow();
        Workspace* ws = w->session();
        for (const char* refused : {"work/a/b/abs.ptx", "work/a/b/home.ptx", "work/a/b/above.ptx"}) {
            QVERIFY(w->openFile(root.filePath(QString::fromUtf8(refused))));
            QVERIFY2(testutil::waitForBuilds(ws), refused);
            QVERIFY2(!ws->text().contains(QStringLiteral("SECRET-TEXT-31-4")), refused);
            QVERIFY2(!ws->sourcePath().endsWith(QStringLiteral(".cu")), qPrintable(ws->sourcePath()));
        }
        // The same PTX beside its source: that source is shown.
        QVERIFY(w->openFile(root.filePath(QStringLiteral("work/a/b/own.ptx"))));
        QVERIFY(testutil::waitForBuilds(ws));
        QCOMPARE(QFileInfo(ws->sourcePath()).fileName(), QStringLiteral("own.cu"));
        QVERIFY(ws->text().contains(QStringLiteral("SECRET-TEXT-31-4")));
    }
};

QTEST_MAIN(UntrustedGuiTest)
#include "test_untrusted_gui.moc"
