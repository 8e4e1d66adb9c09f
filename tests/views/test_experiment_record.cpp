// Experiment record (issue 7), GUI side: the untrusted-flags prompt comes before any build; a
// corrupt or future-version session gives a clear error and leaves the current session untouched;
// save → load through the GUI is lossless; the Markdown report is written with non-blank PNG charts.
#include "core/analysis/diff.h"
#include "core/run/stats.h"
#include "core/parse/sass_parser.h"
#include "views/compare/compare_measure.h"
#include "views/compare/compare_panel.h"
#include "views/compare/diff_model.h"
#include "views/compare/diff_view.h"
#include "views/experiment/experiment_record.h"
#include "views/measure/measure_pane.h"
#include "core/run/measurement_data.h"
#include "views/common/workspace.h"
#include "views/common/theme.h"

#include "measure_test_support.h"

#include <QAbstractItemModelTester>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHorizontalBarSeries>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QThread>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

using namespace lowerscope;

using namespace lowerscope::testutil;

class TestExperimentRecord : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        lowerscopeInitResources();
    }

    // ------------------------------------------------------------------ sessions

    // A key this version does not know (a newer Lowerscope's, another tool's) survives open → save.
    void unknownSessionKeysSurviveASaveFromTheGui() {
        QTemporaryDir dir;
        Workspace a;
        a.setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, nullptr); });
        ComparePanel compare(&a);
        compare.sessionB()->setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, nullptr); });
        MeasurePane measure(&a, compare.sessionB(), MeasurePane::Options{false});
        ExperimentCardEditor card;
        ExperimentController controller(&a, &compare, &measure, &card, nullptr);
        controller.setUseSettings(false);
        ExperimentData theirs;
        theirs.sourceName = QStringLiteral("theirs.cu");
        theirs.sourceText = QStringLiteral("__global__ void k() {}\n");
        const nlohmann::json future = {{"counters", {1, 2, 3}}, {"note", "kept"}};
        theirs.extra["from_a_newer_version"] = future;
        const QString in = dir.filePath(QStringLiteral("in.lowerscope")), out = dir.filePath(QStringLiteral("out.lowerscope"));
        QString error;
        QVERIFY2(saveExperiment(theirs, in, error), qPrintable(error));
        QVERIFY(controller.openSession(in));
        QVERIFY(waitForGoodSnapshot(a));
        QVERIFY(controller.saveSession(out));
        const nlohmann::json saved = nlohmann::json::parse(readAll(out));
        QVERIFY2(saved.contains("from_a_newer_version"), saved.dump().c_str());
        QVERIFY2(saved["from_a_newer_version"] == future, saved.dump().c_str());

        // Opening a session without it forgets it: keys belong to the file they came from.
        ExperimentData plain;
        plain.sourceName = QStringLiteral("plain.cu");
        plain.sourceText = QStringLiteral("// plain\n");
        const QString plainPath = dir.filePath(QStringLiteral("plain.lowerscope"));
        QVERIFY(saveExperiment(plain, plainPath, error));
        QVERIFY(controller.openSession(plainPath));
        QVERIFY(controller.saveSession(out));
        QVERIFY(!nlohmann::json::parse(readAll(out)).contains("from_a_newer_version"));
    }

    void untrustedSessionPromptsBeforeBuilding() {
        QTemporaryDir dir;
        Workspace a;
        std::atomic<int> builds{0};
        a.setBackend([&builds](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, &builds); });
        a.setDocument(QStringLiteral("mine.cu"), QStringLiteral("// mine\n"));
        ComparePanel compare(&a);
        compare.sessionB()->setBackend([&builds](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, &builds); });
        MeasurePane measure(&a, compare.sessionB(), MeasurePane::Options{false});
        ExperimentCardEditor card;
        card.setTitle(QStringLiteral("current"));
        ExperimentController controller(&a, &compare, &measure, &card, nullptr);
        controller.setUseSettings(false);
        QStringList reported;
        controller.setErrorReporter([&reported](const QString& t) { reported << t; });
        int prompts = 0, buildsAtPrompt = -1;
        QStringList promptItems;
        bool answer = false;
        controller.setTrustPrompt([&](const QString&, const QStringList& items) {
            ++prompts;
            buildsAtPrompt = builds.load();
            promptItems = items;
            return answer;
        });

        // Someone else's session: B carries -ccbin (runs a program of their choice).
        ExperimentData theirs;
        theirs.title = QStringLiteral("theirs");
        theirs.sourceName = QStringLiteral("theirs.cu");
        theirs.sourceText = QStringLiteral("__global__ void k() {}\n");
        theirs.hasB = true;
        theirs.b.options.extraNvccFlags = {"-ccbin=/tmp/not-a-compiler"};
        theirs.card.hypothesis = QStringLiteral("H");
        const QString path = dir.filePath(QStringLiteral("theirs.lowerscope"));
        QString error;
        QVERIFY2(saveExperiment(theirs, path, error), qPrintable(error));

        const int before = builds.load();
        answer = false;
        QVERIFY(!controller.openSession(path));
        QCOMPARE(prompts, 1);
        QCOMPARE(buildsAtPrompt, before);
        QVERIFY(promptItems.join(QLatin1Char('\n')).contains(QStringLiteral("-ccbin=/tmp/not-a-compiler")));
        QTest::qWait(100);
        QCOMPARE(builds.load(), before); // declined: nothing built, nothing changed
        QCOMPARE(a.text(), QStringLiteral("// mine\n"));
        QCOMPARE(card.title(), QStringLiteral("current"));
        QVERIFY(compare.sessionB()->options().extraNvccFlags.empty());

        answer = true;
        QVERIFY(controller.openSession(path));
        QCOMPARE(prompts, 2);
        QCOMPARE(buildsAtPrompt, before); // asked before the build, which started after the yes
        QVERIFY(waitForGoodSnapshot(a));
        QVERIFY(builds.load() > before);
        QCOMPARE(a.text(), theirs.sourceText);
        QCOMPARE(card.card().hypothesis, QStringLiteral("H"));
        QCOMPARE(compare.sessionB()->options().extraNvccFlags, theirs.b.options.extraNvccFlags);

        // Same flags again: remembered, no second question. A flag-free session never asks.
        QVERIFY(controller.openSession(path));
        QCOMPARE(prompts, 2);
        ExperimentData plain;
        plain.sourceName = QStringLiteral("plain.cu");
        plain.sourceText = QStringLiteral("// plain\n");
        const QString plainPath = dir.filePath(QStringLiteral("plain.lowerscope"));
        QVERIFY(saveExperiment(plain, plainPath, error));
        QVERIFY(controller.openSession(plainPath));
        QCOMPARE(prompts, 2);
        QVERIFY(reported.isEmpty());
    }

    void corruptOrFutureSessionLeavesCurrentOne() {
        QTemporaryDir dir;
        Workspace a;
        a.setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, nullptr); });
        a.setDocument(QStringLiteral("mine.cu"), QStringLiteral("// mine\n"));
        BuildOptions mine;
        mine.maxRegCount = 32;
        a.setOptions(mine);
        ExperimentCardEditor card;
        card.setTitle(QStringLiteral("current"));
        ExperimentController controller(&a, nullptr, nullptr, &card, nullptr);
        controller.setUseSettings(false);
        QStringList reported;
        controller.setErrorReporter([&reported](const QString& t) { reported << t; });
        controller.setTrustPrompt([](const QString&, const QStringList&) { return true; });

        const QString corrupt = dir.filePath(QStringLiteral("corrupt.lowerscope"));
        QFile f(corrupt);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"schema\": \"lowerscope.session/1\", \"source\": ");
        f.close();
        QVERIFY(!controller.openSession(corrupt));
        QCOMPARE(reported.size(), 1);
        QVERIFY(reported[0].contains(QStringLiteral("corrupt.lowerscope")));

        ExperimentData data;
        data.sourceName = QStringLiteral("x.cu");
        nlohmann::json future = experimentToJson(data);
        future["schema"] = "lowerscope.session/9";
        const QString futurePath = dir.filePath(QStringLiteral("future.lowerscope"));
        QFile g(futurePath);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(QByteArray::fromStdString(future.dump()));
        g.close();
        QVERIFY(!controller.openSession(futurePath));
        QCOMPARE(reported.size(), 2);
        QVERIFY2(reported[1].contains(QStringLiteral("newer")), qPrintable(reported[1]));

        QCOMPARE(a.text(), QStringLiteral("// mine\n"));
        QCOMPARE(a.options().maxRegCount, 32);
        QCOMPARE(card.title(), QStringLiteral("current"));
        QVERIFY(controller.sessionPath().isEmpty());
    }

    void saveLoadRoundTripAndReport() {
        QTemporaryDir dir;
        Workspace a;
        a.setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, nullptr); });
        a.setDocument(QStringLiteral("k.cu"), QStringLiteral("__global__ void k() {}\n"));
        ComparePanel compare(&a);
        compare.sessionB()->setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, nullptr); });
        BuildOptions ob;
        ob.fastMath = true;
        compare.setOptionsB(ob);
        MeasurePane measure(&a, compare.sessionB(), MeasurePane::Options{false});
        LaunchText launch;
        launch.grid = {"ceil(n/256)"};
        launch.block = {"256"};
        launch.args = {"n=1<<20", "x=f32[n]"};
        launch.bytes = "8*n";
        measure.setLaunch(launch);
        QString error;
        QVERIFY(measure.openMeasurementFile(resultFixture(), &error));
        ExperimentCardEditor card;
        card.setTitle(QStringLiteral("fast-math on saxpy"));
        card.setCard({QStringLiteral("h"), QStringLiteral("i"), QStringLiteral("m"), QStringLiteral("r"), QStringLiteral("in")});
        ExperimentController controller(&a, &compare, &measure, &card, nullptr);
        controller.setUseSettings(false);
        const QString path = dir.filePath(QStringLiteral("e.lowerscope"));
        QVERIFY(controller.saveSession(path));
        ExperimentData back;
        QVERIFY2(loadExperiment(path, back, error), qPrintable(error));
        const nlohmann::json saved = experimentToJson(controller.gather()), loaded = experimentToJson(back);
        QVERIFY2(saved == loaded, (saved.dump() + "\n!=\n" + loaded.dump()).c_str());
        QCOMPARE(back.launch.bytes, std::string("8*n"));
        QVERIFY(back.b.options.fastMath);
        QCOMPARE(back.measurements.size(), size_t(1));

        // Report: Markdown with the verdict and PNG charts that are not blank.
        a.build();
        QVERIFY(waitForGoodSnapshot(a));
        const QString md = dir.filePath(QStringLiteral("report.md"));
        QVERIFY2(controller.exportReport(md, &error), qPrintable(error));
        const QString text = QString::fromStdString(readAll(md));
        QVERIFY(text.startsWith(QStringLiteral("# fast-math on saxpy")));
        QVERIFY(text.contains(measure.verdict()));
        QVERIFY(text.contains(QStringLiteral("--use_fast_math")));
        for (const char* chart : {"distribution", "samples", "speedup"}) {
            const QString png = dir.filePath(QStringLiteral("report-%1.png").arg(QLatin1String(chart)));
            QVERIFY2(text.contains(QFileInfo(png).fileName()), chart);
            QVERIFY2(nonBlank(png), qPrintable(png));
        }
    }

};

QTEST_MAIN(TestExperimentRecord)
#include "test_experiment_record.moc"
