// Injection through the GUI's entry points (issue 13): text typed into the Build options pane and
// the options of an opened session reach the real build (runRealBuild, nvcc) without running a
// command; a session naming a source outside the user's folders is refused. The CLI and core
// entry points are in tests/core/test_injection.cpp. Builds skip without nvcc.
#include "session_fixture.h"

#include "core/build/toolchain.h"
#include "views/common/build_job.h"
#include "views/build/build_options_pane.h"
#include "views/compare/compare_measure.h"
#include "views/experiment/experiment_record.h"
#include "views/common/workspace.h"

#include <QDir>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <sstream>

using namespace lowerscope;

namespace {

const QStringList kPayloads = {
    QStringLiteral("$(touch${IFS}CANARY)"), QStringLiteral("`touch${IFS}CANARY`"),
    QStringLiteral(";touch${IFS}CANARY;"),  QStringLiteral("|touch${IFS}CANARY|"),
    QStringLiteral("&touch${IFS}CANARY&"),  QStringLiteral(">CANARY"),
};

bool haveNvcc() {
    return cachedToolchain().nvcc.found() && cachedToolchain().nvdisasm.found();
}

QString saxpyText() {
    std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu");
    std::ostringstream s;
    s << in.rdbuf();
    return QString::fromStdString(s.str());
}

// Waits for the build started last to finish (ok or not).
bool waitForBuild(Workspace& w) {
    QSignalSpy spy(&w, &Workspace::buildFinished);
    return spy.wait(120000);
}

} // namespace

class TestInjectionGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // Each payload typed into each free-text field of the options pane: nothing runs, and a refused
    // value is said where it is typed (the preview) and in the build's error.
    void optionsPaneTextNeverRuns() {
        if (!haveNvcc()) QSKIP("nvcc/nvdisasm not found");
        QTemporaryDir dir;
        Workspace w;
        w.setDocument(dir.filePath(QStringLiteral("k.cu")), saxpyText());
        BuildOptionsPane pane(&w);
        QList<QLineEdit*> fields;
        // The arch combo's editor (arch lists) is checked against sm_XX by checkBuildOptions; the
        // four free-text fields are the ones a shell payload could pass through.
        for (QLineEdit* e : pane.findChildren<QLineEdit*>())
            if (!e->placeholderText().isEmpty() && !qobject_cast<QComboBox*>(e->parentWidget())) fields << e;
        QCOMPARE(fields.size(), 4); // defines, include dirs, nvcc flags, ptxas flags
        int n = 0, refused = 0;
        for (QLineEdit* field : fields) {
            for (const QString& payload : kPayloads) {
                const QString canary = dir.filePath(QStringLiteral("canary-%1").arg(n++));
                QString text = payload;
                text.replace(QStringLiteral("CANARY"), canary);
                // The fields split at whitespace, so each payload is one word (${IFS} for spaces).
                field->setText(QStringLiteral("X=a") + text);
                w.build();
                QVERIFY(waitForBuild(w));
                QVERIFY2(!QFile::exists(canary),
                         qPrintable(field->placeholderText() + QStringLiteral(": ") + text));
                const SnapshotPtr last = w.lastAttempt();
                QVERIFY(last);
                if (last->result.setupError) {
                    ++refused;
                    QVERIFY2(last->error.contains(QStringLiteral("would be interpreted by the shell")),
                             qPrintable(last->error));
                    QVERIFY(pane.preview()->toPlainText().contains(QStringLiteral("Not built:")));
                }
                field->clear();
            }
        }
        qInfo("%d cases through the options pane, %d refused", n, refused);
        QVERIFY(refused > 0);
    }

    // A session whose options carry shell syntax is refused before anything is shown or built,
    // whatever the trust answer; the current session is unchanged.
    void sessionWithShellSyntaxIsRefused() {
        QTemporaryDir dir;
        std::atomic<int> builds{0};
        testutil::SessionFixture mine([&builds](const BuildRequest& r, std::atomic<bool>* c) {
            ++builds;
            return runRealBuild(r, c);
        });
        Workspace& a = mine.a;
        ExperimentController& controller = *mine.controller;
        const QStringList& reported = mine.reported;
        int prompts = 0;
        controller.setTrustPrompt([&prompts](const QString&, const QStringList&) {
            ++prompts;
            return true;
        });
        int n = 0;
        for (int slot = 0; slot < 4; ++slot) {
            for (const QString& payload : kPayloads) {
                const QString canary = dir.filePath(QStringLiteral("canary-s%1").arg(n++));
                std::string p = payload.toStdString();
                p.replace(p.find("CANARY"), 6, canary.toStdString());
                ExperimentData theirs;
                theirs.sourceName = QStringLiteral("theirs.cu");
                theirs.sourceText = saxpyText();
                BuildOptions& o = theirs.a.options;
                if (slot == 0) o.defines = {"X=" + p};
                if (slot == 1) o.includeDirs = {"/x/" + p};
                if (slot == 2) o.extraNvccFlags = {"-Xcompiler=-DY=" + p};
                if (slot == 3) o.extraPtxasFlags = {"--x" + p};
                const QString path = dir.filePath(QStringLiteral("theirs.lowerscope"));
                QString error;
                QVERIFY2(saveExperiment(theirs, path, error), qPrintable(error));
                const int before = builds.load();
                const bool opened = controller.openSession(path);
                if (opened) QVERIFY(waitForBuild(a));
                QTest::qWait(50);
                QVERIFY2(!QFile::exists(canary), p.c_str());
                if (!opened) {
                    QCOMPARE(builds.load(), before);
                    QCOMPARE(a.text(), QStringLiteral("// mine\n"));
                    QVERIFY2(reported.last().contains(QStringLiteral("would be interpreted by the shell")),
                             qPrintable(reported.last()));
                } else {
                    // Accepted values (literal inside nvcc's quotes) were listed for consent.
                    QVERIFY(prompts > 0);
                    a.setDocument(QStringLiteral("mine.cu"), QStringLiteral("// mine\n"));
                }
            }
        }
        QVERIFY(!reported.isEmpty());
    }

    // A session whose source name (file and folder) holds shell syntax: opened inside the session's
    // folder, built from a safe-named copy, nothing runs.
    void sessionSourceNameWithShellSyntaxNeverRuns() {
        if (!haveNvcc()) QSKIP("nvcc/nvdisasm not found");
        QTemporaryDir dir;
        testutil::SessionFixture mine;
        Workspace& a = mine.a;
        ExperimentController& controller = *mine.controller;
        const QStringList& reported = mine.reported;
        controller.setTrustPrompt([](const QString&, const QStringList&) { return true; });
        int n = 0;
        for (const QString& payload : kPayloads) {
            const QString canary = QStringLiteral("canary-n%1").arg(n++);
            QString text = payload;
            // Relative: nvcc's steps run in the GUI's working directory, which is the test's.
            text.replace(QStringLiteral("CANARY"), canary);
            ExperimentData theirs;
            theirs.sourceName = QStringLiteral("d%1/k%1.cu").arg(text);
            theirs.sourceText = saxpyText();
            const QString path = dir.filePath(QStringLiteral("theirs.lowerscope"));
            QString error;
            QVERIFY(saveExperiment(theirs, path, error));
            QVERIFY2(controller.openSession(path), qPrintable(reported.isEmpty() ? QString() : reported.last()));
            QVERIFY(waitForBuild(a));
            QVERIFY2(!QFile::exists(canary) && !QFile::exists(dir.filePath(canary)), qPrintable(text));
            QVERIFY2(a.lastAttempt() && a.lastAttempt()->result.ok, qPrintable(a.lastAttempt()->error));
        }
    }

    // A session naming its source outside the session's folder and the current directory is refused
    // (nothing read or written there later: Save, sidecars, the build's include path).
    void sessionSourceOutsideTheFoldersIsRefused() {
        QTemporaryDir dir;
        testutil::SessionFixture mine(
            [](const BuildRequest&, std::atomic<bool>*) { return std::make_shared<BuildSnapshot>(); });
        Workspace& a = mine.a;
        ExperimentController& controller = *mine.controller;
        const QStringList& reported = mine.reported;
        controller.setTrustPrompt([](const QString&, const QStringList&) { return true; });
        QDir(dir.path()).mkpath(QStringLiteral("s"));
        for (const QString& name :
             {QStringLiteral("../../../../../../etc/passwd"), QStringLiteral("/etc/passwd")}) {
            ExperimentData theirs;
            theirs.sourceName = name;
            theirs.sourceText = QStringLiteral("// theirs\n");
            const QString path = dir.filePath(QStringLiteral("s/theirs.lowerscope"));
            QString error;
            QVERIFY(saveExperiment(theirs, path, error));
            QVERIFY(!controller.openSession(path));
            QVERIFY2(reported.last().contains(QStringLiteral("source.name")), qPrintable(reported.last()));
            QCOMPARE(a.sourcePath(), QStringLiteral("mine.cu"));
        }
        // Inside the session's folder: opened, under its resolved path.
        ExperimentData ok;
        ok.sourceName = QStringLiteral("k.cu");
        ok.sourceText = QStringLiteral("// ok\n");
        const QString path = dir.filePath(QStringLiteral("s/ok.lowerscope"));
        QString error;
        QVERIFY(saveExperiment(ok, path, error));
        QVERIFY(controller.openSession(path));
        QVERIFY(QFileInfo(a.sourcePath()).isAbsolute());
        QCOMPARE(QFileInfo(a.sourcePath()).fileName(), QStringLiteral("k.cu"));
    }
};

QTEST_MAIN(TestInjectionGui)
#include "test_injection_gui.moc"
