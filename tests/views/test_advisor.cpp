// The advisor in the GUI (issue 34): the findings of a recorded profile (docs/examples) shown in
// the Profile pane on the build it was taken on, an evidence row clicked selecting its SASS row;
// without a profile, the findings of the build and the launch alone (as `advise --static`); and
// Test this without a GPU: refused with a clear reason when the Measure pane's probe found none,
// and, when the runner cannot start, ended as a failed test that is still recorded as an
// experiment entry of the session (saved with it and read back). Needs nvcc and nvdisasm.
#include "window_fixture.h"
#include "views/advise/advise_room.h"
#include "views/advise/findings_panel.h"
#include "views/compare/compare_measure.h"
#include "views/experiment/experiment_record.h"
#include "views/measure/measure_pane.h"
#include "views/measure/profile_pane.h"
#include "views/shell/main_window.h"
#include "views/common/build_job.h"
#include "views/common/workspace.h"

#include <QDir>
#include <QFrame>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace lowerscope;

class AdvisorTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_w;

    Workspace* ws() { return m_w->session(); }
    FindingsPanel* panel() { return m_w->adviseRoom()->findings(); }

    // Opens `source`, builds it, picks `mangled` and shows the recorded profile `profile`.
    void open(const char* source, const char* mangled, const char* profile) {
        QVERIFY(m_w->openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/") + QLatin1String(source)));
        QVERIFY(testutil::waitForBuilds(ws()));
        const auto& kernels = ws()->snapshot()->model.kernels;
        int index = -1;
        for (size_t i = 0; i < kernels.size(); ++i)
            if (kernels[i].mangled == mangled) index = int(i);
        QVERIFY2(index >= 0, mangled);
        ws()->setKernelIndex(index);
        QString error;
        QVERIFY2(m_w->openProfile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/") + QLatin1String(profile), &error),
                 qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(m_w->profilePane()->showsProfile());
    }

    // Opens `source`, builds it and picks `mangled`, with no profile shown.
    void openWithoutProfile(const char* source, const char* mangled) {
        QVERIFY(m_w->openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/") + QLatin1String(source)));
        QVERIFY(testutil::waitForBuilds(ws()));
        const auto& kernels = ws()->snapshot()->model.kernels;
        int index = -1;
        for (size_t i = 0; i < kernels.size(); ++i)
            if (kernels[i].mangled == mangled) index = int(i);
        QVERIFY2(index >= 0, mangled);
        ws()->setKernelIndex(index);
        QVERIFY(!m_w->profilePane()->showsProfile());
    }

    int variantOf(const std::string& finding) {
        for (size_t i = 0; i < panel()->variants().size(); ++i)
            if (panel()->variants()[i].findingId == finding) return int(i);
        return -1;
    }

private slots:
    void initTestCase() {
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", m_tmp.filePath(QStringLiteral("cache")).toLocal8Bit());
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found()) QSKIP("nvcc/nvdisasm not found (run scripts/bootstrap)");
        m_w = testutil::makeTestWindow();
    }

    void findingsOfARecordedProfileAreShown() {
        QVERIFY(!panel()->fromProfile());
        QVERIFY(panel()->statusLabel()->text().contains(QStringLiteral("No profile")));
        // act_skip branches around inactive elements: half the lanes idle, on the branch of line 41.
        open("docs/examples/sparse_skip.cu", "_Z8act_skipifiPKfPf", "docs/examples/sparse_skip_random_s50.profile.json");
        QCOMPARE(panel()->findings().size(), size_t(1));
        const Finding& f = panel()->findings().front();
        QCOMPARE(QString::fromStdString(f.id), QStringLiteral("divergence"));
        QVERIFY(panel()->statusLabel()->text().contains(QStringLiteral("1 finding")));
        QTableWidget* t = panel()->evidenceTable(0);
        QVERIFY(t);
        QVERIFY(t->isVisible());
        QCOMPARE(t->rowCount(), 1);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("0x0140"));
        QCOMPARE(t->item(0, 1)->text(), QStringLiteral("BRA"));
        QCOMPARE(t->item(0, 2)->text(), QStringLiteral("41"));
        QVERIFY(t->item(0, 3)->text().contains(QStringLiteral("divergent")));
        // The card says the limiter, the prediction with its formula and the confidence.
        QVERIFY(panel()->findChild<QFrame*>(QStringLiteral("finding_divergence")));
        QStringList texts;
        for (QLabel* l : panel()->findChildren<QLabel*>()) texts << l->text();
        const QString all = texts.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("46 % of the lanes are idle")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("1 − i × u = 1 − 0.463 × 0.964 = 0.553")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Confidence low")), qPrintable(all));
        // Code changes only: no variant, so no Test this.
        QVERIFY(panel()->variants().empty());
        QVERIFY(!panel()->testButton(0));
    }

    void clickingAnEvidenceRowSelectsItsSassRow() {
        QTableWidget* t = panel()->evidenceTable(0);
        QVERIFY(t);
        ws()->selectSourceLine(1);
        QVERIFY(!ws()->selection().focusSassAddress);
        const QRect r = t->visualItemRect(t->item(0, 2));
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(int(ws()->selection().origin), int(Selection::Origin::Sass));
        QVERIFY(ws()->selection().focusSassAddress);
        QCOMPARE(*ws()->selection().focusSassAddress, 0x140u);
        QCOMPARE(ws()->selection().sourceLine, 41);
    }

    void aProfileOfAnotherBuildHasNoFindingsOfItsOwn() {
        BuildOptions o = ws()->options();
        o.ptxasOpt = 0;
        ws()->setOptions(o);
        QVERIFY(testutil::waitForBuilds(ws()));
        QVERIFY(!m_w->profilePane()->showsProfile());
        // The build alone speaks now: no divergence (that needs the profile's counts).
        QVERIFY(!panel()->fromProfile());
        for (const Finding& f : panel()->findings()) QVERIFY2(f.id != "divergence", f.id.c_str());
        QVERIFY(panel()->statusLabel()->text().contains(QStringLiteral("No profile")));
        o.ptxasOpt = 3;
        ws()->setOptions(o);
        QVERIFY(testutil::waitForBuilds(ws()));
        QCOMPARE(panel()->findings().size(), size_t(1));
    }

    void withoutAProfileTheBuildAndTheLaunchGiveFindings() {
        // regs_heavy (docs/examples/advisor_cases.cu): 64 live floats per thread, so registers limit
        // occupancy; the launch (ceil(n/256) blocks of the sidecar) is resolved from its expressions.
        openWithoutProfile("docs/examples/advisor_cases.cu", "_Z10regs_heavyiPKfPf");
        QVERIFY(!panel()->fromProfile());
        const QString status = panel()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("from the build and the launch alone")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("132 SMs assumed")), qPrintable(status));
        const int v = variantOf("occupancy.registers");
        QVERIFY(v >= 0);
        QVERIFY(panel()->variants()[size_t(v)].optionFlags.rfind("--maxrregcount ", 0) == 0 ||
                panel()->variants()[size_t(v)].optionFlags.find("MIN_BLOCKS") != std::string::npos);
        QPushButton* b = panel()->testButton(size_t(v));
        QVERIFY(b && b->isEnabled());
        // A launch that fits in one wave at today's occupancy: every block resident, nothing to gain.
        MeasurePane* m = m_w->measurePane();
        LaunchText l = m->launch();
        const LaunchText before = l;
        l.grid = {QStringLiteral("100").toStdString()};
        m->setLaunch(l);
        QCOMPARE(variantOf("occupancy.registers"), -1);
        m->setLaunch(before);
        QVERIFY(variantOf("occupancy.registers") >= 0);
    }

    void testThisWithoutAGpuSaysSoAndRecordsNothing() {
        // regs_heavy: the register caps and __launch_bounds__ variants Lowerscope can build and measure.
        const int v = variantOf("occupancy.registers");
        QVERIFY(v >= 0);
        QPushButton* b = panel()->testButton(size_t(v));
        QVERIFY(b && b->isEnabled());
        QCOMPARE(b->text(), QStringLiteral("Test this"));
        MeasurePane* m = m_w->measurePane();
        m->setProbe([](const std::vector<std::string>&, std::string&, RunErrorKind& kind, std::string& message) {
            kind = RunErrorKind::NoDevice;
            message = "no CUDA device";
            return false;
        });
        QSignalSpy probed(m, &MeasurePane::deviceProbed);
        m->probeDevice();
        QVERIFY(probed.wait(10000));
        QTest::mouseClick(b, Qt::LeftButton);
        QVERIFY(!panel()->isTesting());
        QVERIFY2(panel()->errorText().contains(QStringLiteral("needs a GPU")), qPrintable(panel()->errorText()));
        QVERIFY(panel()->errorLabel()->isVisible());
        QVERIFY(panel()->entries().empty());
    }

    void aRunnerThatCannotStartEndsAFailedTestThatIsRecorded() {
        MeasurePane* m = m_w->measurePane();
        m->setProbe([](const std::vector<std::string>&, std::string& device, RunErrorKind&, std::string&) {
            device = "a GPU the probe believes in";
            return true;
        });
        QSignalSpy probed(m, &MeasurePane::deviceProbed);
        m->probeDevice();
        QVERIFY(probed.wait(10000));
        // The runner the test starts does not exist: B is built, the measurement cannot start.
        qputenv("LOWERSCOPE_RUNNER", m_tmp.filePath(QStringLiteral("no-such-runner")).toLocal8Bit());
        const int v = variantOf("occupancy.registers");
        QVERIFY(v >= 0);
        QSignalSpy finished(panel(), &FindingsPanel::testFinished);
        QTest::mouseClick(panel()->testButton(size_t(v)), Qt::LeftButton);
        QVERIFY2(panel()->isTesting(), qPrintable(panel()->errorText()));
        QCOMPARE(panel()->testButton(size_t(v))->text(), QStringLiteral("Testing…"));
        QVERIFY(finished.wait(240000));
        QCOMPARE(finished.front().at(1).toBool(), false);
        QVERIFY2(panel()->errorText().contains(QStringLiteral("not measured")), qPrintable(panel()->errorText()));
        QCOMPARE(panel()->entries().size(), size_t(1));
        const AdviceEntry& e = panel()->entries().front();
        QCOMPARE(e.verdict, QStringLiteral("failed"));
        QCOMPARE(e.variant, QString::fromStdString(panel()->variants()[size_t(v)].id));
        QVERIFY(e.optionsB.contains(QStringLiteral("sm_")));
        QVERIFY(e.card.hypothesis.contains(QStringLiteral("register")));
        QVERIFY(e.measurement.is_null());
        QLabel* verdict = panel()->verdictLabel(size_t(v));
        QVERIFY(verdict && verdict->isVisible());
        QVERIFY2(verdict->text().contains(QStringLiteral("failed")), qPrintable(verdict->text()));
        QCOMPARE(panel()->testButton(size_t(v))->text(), QStringLiteral("Test this"));

        // The entry is part of the session: saved, read back, and shown again after a reopen.
        const QString path = m_tmp.filePath(QStringLiteral("advised.lowerscope"));
        QVERIFY(m_w->experiment()->saveSession(path));
        ExperimentData read;
        QString error;
        QVERIFY2(loadExperiment(path, read, error), qPrintable(error));
        QCOMPARE(read.advice.size(), size_t(1));
        QCOMPARE(read.advice.front(), e);
        panel()->setEntries({});
        QVERIFY(!panel()->verdictLabel(size_t(v))->isVisible());
        m_w->experiment()->setTrustPrompt([](const QString&, const QStringList&) { return true; });
        QString reported;
        m_w->experiment()->setErrorReporter([&reported](const QString& text) { reported = text; });
        // The session names its source inside the repository: open it from there (a root the
        // session's paths may lead into).
        const QString cwd = QDir::currentPath();
        QDir::setCurrent(QStringLiteral(LOWERSCOPE_SOURCE_DIR));
        const bool opened = m_w->experiment()->openSession(path);
        QDir::setCurrent(cwd);
        QVERIFY2(opened, qPrintable(reported));
        QCOMPARE(panel()->entries().size(), size_t(1));
        qunsetenv("LOWERSCOPE_RUNNER");
    }
};

QTEST_MAIN(AdvisorTest)
#include "test_advisor.moc"
