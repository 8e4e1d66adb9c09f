// Compare builds and measure (issue 7), GUI side: the diff view shows the core's aligned rows for a
// real listing pair; the measurement pane renders a result document into charts and a verdict;
// jobs report by queued signal, Cancel and faults leave the pane working; the runner is reached
// locally and through ssh to an sshd this test starts on loopback. Every model runs under
// QAbstractItemModelTester. (Sessions and the report: test_experiment_record.cpp.)
//
// LOWERSCOPE_SCREENSHOT_DIR=DIR additionally writes compare.png and measure.png there.
#include "core/analysis/diff.h"
#include "core/run/stats.h"
#include "core/parse/sass_parser.h"
#include "views/compare/compare_measure.h"
#include "views/compare/compare_panel.h"
#include "views/compare/diff_model.h"
#include "views/compare/diff_view.h"
#include "views/experiment/experiment_record.h"
#include "views/common/job_tracker.h"
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

class TestCompareMeasure : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        lowerscopeInitResources();
    }

    // ------------------------------------------------------------------ diff view

    void diffViewShowsCoreAlignedRows() {
        CompareSide a = realSide(QStringLiteral("default"), QStringLiteral("A"));
        CompareSide b = realSide(QStringLiteral("fastmath"), QStringLiteral("B"));
        QVERIFY2(a.valid && b.valid, "tests/data/diff/fast_math.* missing or unparsable");
        DiffView view;
        QAbstractItemModelTester t1(view.diffModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(view.lineModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(view.resourceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setLaunch(256, 0);
        view.setSides(a, b);

        for (bool byOpcode : {false, true}) {
            for (bool rename : {false, true}) {
                view.setOpcodeMode(byOpcode);
                view.setIgnoreRegisterNames(rename);
                DiffOptions o;
                o.mode = byOpcode ? DiffMode::Opcode : DiffMode::Full;
                o.naming = rename ? RegisterNaming::PerFunction : RegisterNaming::Exact;
                const SassDiff expected = diffSass(a.sass, b.sass, o);
                const SassDiffModel* m = view.diffModel();
                QCOMPARE(m->rowCount(), int(expected.rows.size()));
                for (int r = 0; r < m->rowCount(); ++r) {
                    const DiffRow& row = expected.rows[size_t(r)];
                    QCOMPARE(m->index(r, 0).data(SassDiffModel::IndexARole).toInt(), row.a);
                    QCOMPARE(m->index(r, 0).data(SassDiffModel::IndexBRole).toInt(), row.b);
                    QCOMPARE(m->index(r, 0).data(SassDiffModel::StatusRole).toInt(), int(row.status));
                    const QString textA = m->index(r, SassDiffModel::InstructionAColumn).data().toString();
                    QCOMPARE(textA, row.a >= 0 ? QString::fromStdString(a.sass.instructions[size_t(row.a)].text) : QString());
                }
                // The heat strip is the core's density; navigation follows the core's hunks.
                QVERIFY(!view.heatStrip()->heat().empty());
                view.selectRow(-1);
                view.diffTable()->setCurrentIndex({});
                const int first = view.nextDifference();
                QCOMPARE(first, expected.nextDifference(-1));
                if (first >= 0) {
                    QCOMPARE(view.currentRow(), first);
                    const int second = view.nextDifference();
                    QCOMPARE(second, expected.nextDifference(first));
                    const int current = view.currentRow();
                    QCOMPARE(view.previousDifference(), expected.previousDifference(current));
                }
            }
        }
        // fast-math changes this kernel's code: there is something to navigate.
        QVERIFY(view.diffModel()->diff().summary.differences() > 0);

        // Per-line deltas and resources are the core's.
        const auto deltas = lineDeltas(a.sass, b.sass);
        QCOMPARE(view.lineModel()->rowCount(), int(deltas.size()));
        for (const auto& d : deltas) {
            if (d.source.line > 0 && (d.instructionDelta() != 0 || d.stallDelta() != 0)) {
                QVERIFY(!view.marginTextForLine(d.source.line).isEmpty());
                break;
            }
        }
        const auto res = resourceDeltas(a.resources, b.resources, "sm_90", 256, 0);
        QCOMPARE(view.resourceModel()->rowCount(), int(res.size()));
        QCOMPARE(view.resourceModel()->index(0, ResourceDeltaModel::AColumn).data().toString(),
                 QString::number(res[0].a, 'f', 0));

        // The mix chart: A and B bar sets over the mnemonics whose counts differ most.
        const auto series = view.mixChart()->chart()->series();
        QCOMPARE(series.size(), 1);
        auto* bars = qobject_cast<QBarSeries*>(series.first());
        QVERIFY(bars);
        QCOMPARE(bars->count(), 2);
        const auto mix = mnemonicMix(a.sass, b.sass);
        // The largest difference first.
        QCOMPARE(int(bars->barSets()[0]->at(0)), mix.front().a);
        QCOMPARE(int(bars->barSets()[1]->at(0)), mix.front().b);
    }

    void diffViewWithoutBuildsSaysSo() {
        DiffView view;
        QAbstractItemModelTester t(view.diffModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setSides({}, realSide(QStringLiteral("fastmath"), QStringLiteral("B")));
        QCOMPARE(view.diffModel()->rowCount(), 0);
        QVERIFY(view.summaryLabel()->text().contains(QStringLiteral("A")));
        QCOMPARE(view.nextDifference(), -1);
    }

    // -------------------------------------------------------------- measurement pane

    void measurePaneRendersResultDocument() {
        const QString path = resultFixture();
        QVERIFY2(!path.isEmpty(), "no result fixture");
        MeasurePane pane(nullptr, nullptr, MeasurePane::Options{false});
        QString error;
        QVERIFY2(pane.openMeasurementFile(path, &error), qPrintable(error));
        const Measurement* m = pane.measurement();
        QVERIFY(m);
        QCOMPARE(m->variants.size(), size_t(2));
        // The verdict: B faster with the interval of the core's paired-ratio statistics.
        const RatioStats r = compareSamples(m->variants[0].samplesMs, m->variants[1].samplesMs);
        const QString verdict = pane.verdict();
        QVERIFY2(verdict.contains(QStringLiteral("B is %1× faster").arg(1 / r.ratio, 0, 'f', 2)), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("95 % CI %1–%2").arg(1 / r.ciHigh, 0, 'f', 2).arg(1 / r.ciLow, 0, 'f', 2)),
                 qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("outputs match within 1e-6")), qPrintable(verdict));
        if (m->synthetic) QVERIFY(verdict.startsWith(QStringLiteral("[SYNTHETIC DATA]")));

        // Distribution: one box per variant at the core's quartiles (µs for this kernel).
        auto dist = pane.distributionChart()->chart()->series();
        QCOMPARE(dist.size(), 1);
        auto* boxes = qobject_cast<QBoxPlotSeries*>(dist.first());
        QVERIFY(boxes);
        QCOMPARE(boxes->count(), 2);
        const double scale = m->variants[0].stats.max < 1 ? 1e3 : 1;
        for (int i = 0; i < 2; ++i) {
            const SampleStats s = computeStats(m->variants[size_t(i)].samplesMs);
            QVERIFY(qFuzzyCompare(boxes->boxSets()[i]->at(QBoxSet::Median), s.median * scale));
            QVERIFY(qFuzzyCompare(boxes->boxSets()[i]->at(QBoxSet::LowerQuartile), s.q1 * scale));
        }
        // Samples over time, with the clock on its own axis.
        int lines = 0, points = 0;
        for (auto* s : pane.samplesChart()->chart()->series())
            if (auto* l = qobject_cast<QLineSeries*>(s)) {
                ++lines;
                points = std::max(points, int(l->count()));
            }
        QCOMPARE(lines, m->variants[0].clockMhz.empty() ? 2 : 4);
        QCOMPARE(points, int(m->variants[0].samplesMs.size()));
        // The title claims a clock only when one is drawn; the synthetic fixture carries one.
        QCOMPARE(pane.samplesChart()->chart()->title().contains(QStringLiteral("with the SM clock")),
                 !m->variants[0].clockMhz.empty());
        {
            MeasurePane withClock(nullptr, nullptr, MeasurePane::Options{false});
            QString error;
            QVERIFY2(withClock.openMeasurementFile(repo(QStringLiteral("tests/data/measure/synthetic_compare.json")), &error),
                     qPrintable(error));
            QVERIFY(withClock.samplesChart()->chart()->title().contains(QStringLiteral("with the SM clock")));
            int clockLines = 0;
            for (auto* s : withClock.samplesChart()->chart()->series()) clockLines += s->name().endsWith(QStringLiteral("clock"));
            QCOMPARE(clockLines, 2);
        }
        // Speedup with its interval; throughput bars against the device's peaks.
        bool speedBox = false;
        for (auto* s : pane.speedupChart()->chart()->series()) speedBox = speedBox || qobject_cast<QBoxPlotSeries*>(s);
        QVERIFY(speedBox);
        if (m->variants[0].bytes) {
            auto th = pane.throughputChart()->chart()->series();
            QCOMPARE(th.size(), 1);
            QVERIFY(qobject_cast<QBarSeries*>(th.first()));
        }
        QCOMPARE(pane.statsTable()->columnCount(), 3);
        // Cost line from the medians at the chosen price.
        pane.setPricePerGpuHour(3.0);
        const CostLine c = costLine(m->variants[0].stats.median, 3.0);
        QVERIFY2(pane.costText().contains(QString::number(c.gpuSecondsPerMillion, 'f', c.gpuSecondsPerMillion < 10 ? 2 : 1)),
                 qPrintable(pane.costText()));
        QCOMPARE(pane.documents().size(), size_t(1));
    }

    void measurePaneShowsFaultsAndKeepsWorking() {
        MeasurePane pane(nullptr, nullptr, MeasurePane::Options{false});
        const nlohmann::json fault = {{"error",
                                       {{"kind", "kernel_fault"},
                                        {"message", "an illegal memory access was encountered"},
                                        {"cuda_error", "CUDA_ERROR_ILLEGAL_ADDRESS"},
                                        {"fatal", true}}}};
        QVERIFY(pane.showDocument(fault));
        QVERIFY(pane.errorText().contains(QStringLiteral("kernel_fault")));
        QVERIFY(pane.errorText().contains(QStringLiteral("CUDA_ERROR_ILLEGAL_ADDRESS")));
        // Corrupt and future files: a clear error, the shown result untouched.
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"schema\": \"lowerscope.run/1\", \"samples_ms\": [1, \"x\"]");
        f.close();
        QString error;
        QVERIFY(!pane.openMeasurementFile(bad, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!pane.showDocument(nlohmann::json{{"schema", "lowerscope.run/7"}, {"samples_ms", {1.0}}}, &error));
        QVERIFY(error.contains(QStringLiteral("newer")));
        QVERIFY(pane.errorText().contains(QStringLiteral("kernel_fault")));
        QVERIFY(pane.openMeasurementFile(resultFixture(), &error));
        QVERIFY(pane.errorText().isEmpty());
    }

    void measurementParserSurvivesGarbage() {
        for (const char* text : {"", "null", "[]", "{}", "{\"samples_ms\": []}", "{\"samples_ms\": 3}",
                                 "{\"variants\": [1, 2]}", "{\"variants\": {}}", "{\"error\": 5}", "{\"a\": {}, \"b\": {}}",
                                 "{\"samples_ms\": [1e400]}", "{\"result\": {\"variants\": [{\"samples_ms\": [0]}]}}"}) {
            try {
                Measurement m = parseMeasurementText(text);
                (void)verdictText(m);
            } catch (const MeasurementError&) {
            }
        }
        // A runner result line (the protocol's own keys) reads too.
        Measurement m = parseMeasurementText(
            R"({"result": {"id": "1", "device": {"name": "X"}, "variants": [{"label": "", "samples_ms": [1, 2, 3]}]}})");
        QCOMPARE(m.variants.size(), size_t(1));
        QCOMPARE(m.variants[0].stats.median, 2.0);
    }

    void jobsReportByQueuedSignalAndCancel() {
        Workspace a;
        std::atomic<int> builds{0};
        a.setBackend([&builds](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, &builds); });
        a.setDocument(QStringLiteral("k.cu"), QStringLiteral("__global__ void k() {}"));
        a.build();
        QVERIFY(waitForGoodSnapshot(a));
        a.setKernelIndex(0);
        MeasurePane pane(&a, nullptr, MeasurePane::Options{false});
        QVERIFY(pane.runAButton()->isEnabled());
        QVERIFY(!pane.runABButton()->isEnabled()); // no B
        QCOMPARE(pane.run(MeasurePane::Target::AB), quint64(0));
        QVERIFY(!pane.errorText().isEmpty());

        // A slow fake: progress until cancelled.
        std::atomic<bool> sawCancel{false};
        pane.setBackend([&sawCancel](const MeasureRequest& req, std::atomic<bool>* cancel, const MeasureProgressFn& progress) {
            MeasureOutcome out;
            out.jobId = req.jobId;
            for (int i = 0; i < 500 && !cancel->load(); ++i) {
                progress(MeasureProgress{"measure", "A", i, 0.01, i * 0.01});
                QThread::msleep(10);
            }
            sawCancel = cancel->load();
            out.cancelled = sawCancel;
            return out;
        });
        QSignalSpy progressSpy(&pane, &MeasurePane::jobProgress);
        QSignalSpy finished(&pane, &MeasurePane::jobFinished);
        const quint64 id = pane.run(MeasurePane::Target::A);
        QVERIFY(id != 0);
        QVERIFY(pane.isRunning());
        QVERIFY(pane.cancelButton()->isEnabled());
        QVERIFY(progressSpy.wait(5000)); // progress crossed threads while the UI thread stayed free
        pane.cancel();
        QVERIFY(finished.wait(5000));
        QVERIFY(sawCancel);
        QCOMPARE(finished.first().at(1).toBool(), false);
        QVERIFY(!pane.isRunning());

        // A fault: shown as an error; the next job still works.
        pane.setBackend([](const MeasureRequest& req, std::atomic<bool>*, const MeasureProgressFn&) {
            MeasureOutcome out;
            out.jobId = req.jobId;
            out.errorKind = RunErrorKind::KernelFault;
            out.errorMessage = "CUDA_ERROR_ILLEGAL_ADDRESS in first_launch";
            return out;
        });
        finished.clear();
        pane.run(MeasurePane::Target::A);
        QVERIFY(finished.wait(5000));
        QVERIFY(pane.errorText().contains(QStringLiteral("kernel_fault")));
        const nlohmann::json good = nlohmann::json::parse(readAll(resultFixture()));
        pane.setBackend([good](const MeasureRequest& req, std::atomic<bool>*, const MeasureProgressFn&) {
            MeasureOutcome out;
            out.jobId = req.jobId;
            out.ok = true;
            out.document = good;
            return out;
        });
        finished.clear();
        QSignalSpy ready(&pane, &MeasurePane::measurementReady);
        pane.run(MeasurePane::Target::A);
        QVERIFY(finished.wait(5000));
        QCOMPARE(ready.count(), 1);
        QVERIFY(pane.errorText().isEmpty());
        QVERIFY(pane.verdict().contains(QStringLiteral("faster")));
    }

    void measureJobsGoThroughTheWindowsTracker() {
        // One tracker for the window: A's builds, B's builds (the compare panel gives B A's
        // tracker) and the measure pane's jobs all show up in it and are cancelled through it.
        Workspace a;
        a.setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, nullptr); });
        JobTracker& tracker = *a.jobs();
        QSignalSpy started(&tracker, &JobTracker::jobStarted);
        QSignalSpy ended(&tracker, &JobTracker::jobFinished);
        a.setDocument(QStringLiteral("k.cu"), QStringLiteral("__global__ void k() {}"));
        const quint64 build = a.build();
        QCOMPARE(started.count(), 1);
        QCOMPARE(started.first().at(0).toULongLong(), build);
        QVERIFY(waitForGoodSnapshot(a));
        a.setKernelIndex(0);
        QTRY_COMPARE(tracker.count(), 0);
        ComparePanel compare(&a);
        QCOMPARE(compare.sessionB()->jobs().get(), &tracker);
        MeasurePane pane(&a, compare.sessionB(), MeasurePane::Options{false});
        QCOMPARE(&pane.jobs(), &tracker);

        std::atomic<bool> sawCancel{false};
        pane.setBackend([&sawCancel](const MeasureRequest& req, std::atomic<bool>* cancel, const MeasureProgressFn&) {
            MeasureOutcome out;
            out.jobId = req.jobId;
            for (int i = 0; i < 500 && !cancel->load(); ++i) QThread::msleep(10);
            sawCancel = cancel->load();
            out.cancelled = sawCancel;
            return out;
        });
        QSignalSpy finished(&pane, &MeasurePane::jobFinished);
        const quint64 id = pane.run(MeasurePane::Target::A);
        QVERIFY(id > build); // ids come from the one tracker
        const std::vector<JobTracker::JobInfo> jobs = tracker.jobs();
        QCOMPARE(jobs.size(), size_t(1));
        QCOMPARE(jobs[0].id, id);
        QCOMPARE(jobs[0].kind, QStringLiteral("measure"));
        QCOMPARE(jobs[0].owner, static_cast<const QObject*>(&pane));
        QCOMPARE(tracker.count(&pane), 1);
        QCOMPARE(tracker.count(&a), 0);

        // Cancelled from the tracker (as a window-wide "stop all" would), not from the pane.
        QSignalSpy cancelRequested(&tracker, &JobTracker::jobCancelRequested);
        QVERIFY(tracker.cancel(id));
        QCOMPARE(cancelRequested.count(), 1);
        QVERIFY(finished.wait(5000));
        QVERIFY(sawCancel);
        QCOMPARE(finished.first().at(0).toULongLong(), id);
        QCOMPARE(finished.first().at(1).toBool(), false);
        QVERIFY(!pane.isRunning());
        QVERIFY(pane.statusLabel()->text().contains(QStringLiteral("Cancelled")));
        QCOMPARE(tracker.count(), 0);
        QVERIFY(!tracker.isRunning(id));
        QVERIFY(!tracker.cancel(id)); // gone from the tracker once it ended
        const QList<QVariant> last = ended.last();
        QCOMPARE(last.at(0).toULongLong(), id);
        QCOMPARE(last.at(1).toBool(), true);
    }

    void prefillFromSidecar() {
        std::string origin;
        LaunchText l = defaultLaunch(repo(QStringLiteral("kernels/saxpy.cu")).toStdString(),
                                     "saxpy(int, float, float const*, float*)", {}, &origin);
        QVERIFY2(QString::fromStdString(origin).contains(QStringLiteral("saxpy.json")), origin.c_str());
        QCOMPARE(l.grid, std::vector<std::string>{"ceil(n/256)"});
        QCOMPARE(l.args.front(), std::string("n=1<<24"));
        QCOMPARE(l.bytes, std::string("12*n"));
        // No sidecar: a guess from the PTX parameters, one argument per parameter.
        std::vector<PtxParam> params(3);
        params[0].type = "u64";
        params[0].isPointer = true;
        params[1].type = "f32";
        params[2].type = "u32";
        l = defaultLaunch("", "k", params, &origin);
        QCOMPARE(l.args.size(), size_t(3));
        QVERIFY(QString::fromStdString(l.args[0]).contains(QStringLiteral("f32[")));
    }

    void localRunnerWithoutGpuIsAClearError() {
        const QString runner = runnerPath();
        if (runner.isEmpty()) QSKIP("lowerscope-runner not built");
        std::string device, message;
        RunErrorKind errorKind = RunErrorKind::Unknown;
        if (probeRunner({runner.toStdString()}, device, errorKind, message, 20))
            QSKIP("this machine has a GPU; the no-device path is not reachable here");
        const std::string kind = runErrorKindName(errorKind);
        QVERIFY2(errorKind == RunErrorKind::NoDriver || errorKind == RunErrorKind::NoDevice, (kind + ": " + message).c_str());

        // Through the pane: the error shows, the app keeps working.
        Workspace a;
        a.setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r, nullptr); });
        a.setDocument(QStringLiteral("k.cu"), QStringLiteral("__global__ void k() {}"));
        a.build();
        QVERIFY(waitForGoodSnapshot(a));
        a.setKernelIndex(0);
        MeasurePane pane(&a, nullptr, MeasurePane::Options{false});
        qputenv("LOWERSCOPE_RUNNER", runner.toUtf8());
        pane.setLaunch(LaunchText{});
        QSignalSpy finished(&pane, &MeasurePane::jobFinished);
        QVERIFY(pane.run(MeasurePane::Target::A) != 0);
        QVERIFY(finished.wait(30000));
        qunsetenv("LOWERSCOPE_RUNNER");
        QVERIFY2(pane.errorText().contains(QString::fromStdString(kind)), qPrintable(pane.errorText()));
        QVERIFY(pane.runAButton()->isEnabled());
    }

    void sshRunnerOnLoopback() {
        const QString sshd = QStringLiteral("/usr/sbin/sshd");
        const QString ssh = QStandardPaths::findExecutable(QStringLiteral("ssh"));
        const QString keygen = QStandardPaths::findExecutable(QStringLiteral("ssh-keygen"));
        if (!QFileInfo::exists(sshd) || ssh.isEmpty() || keygen.isEmpty()) QSKIP("openssh server/client not installed");
        const QString runner = runnerPath();
        if (runner.isEmpty()) QSKIP("lowerscope-runner not built");
        if (geteuid() == 0 && !QFileInfo::exists(QStringLiteral("/run/sshd"))) QDir().mkpath(QStringLiteral("/run/sshd"));

        QTemporaryDir dir;
        auto run = [](const QString& program, const QStringList& args) {
            QProcess p;
            p.start(program, args);
            return p.waitForFinished(30000) && p.exitCode() == 0;
        };
        QVERIFY(run(keygen, {"-q", "-t", "ed25519", "-N", "", "-f", dir.filePath("host_key")}));
        QVERIFY(run(keygen, {"-q", "-t", "ed25519", "-N", "", "-f", dir.filePath("user_key")}));
        QFile::copy(dir.filePath("user_key.pub"), dir.filePath("authorized_keys"));
        // A free port: bind, read it, release.
        const int port = freePort();
        QVERIFY(port > 0);
        const passwd* pw = getpwuid(geteuid());
        QVERIFY(pw);
        QFile config(dir.filePath("sshd_config"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QStringLiteral("ListenAddress 127.0.0.1\nHostKey %1\nAuthorizedKeysFile %2\nStrictModes no\n"
                                    "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                                    "UsePAM no\nPermitRootLogin yes\nPidFile %3\nLogLevel ERROR\n")
                         .arg(dir.filePath("host_key"), dir.filePath("authorized_keys"), dir.filePath("sshd.pid"))
                         .toUtf8());
        config.close();
        QProcess server;
        server.setProcessChannelMode(QProcess::MergedChannels);
        server.start(sshd, {"-D", "-e", "-p", QString::number(port), "-f", config.fileName(), "-h", dir.filePath("host_key")});
        if (!server.waitForStarted(5000)) QSKIP("sshd does not start here");
        // Wait until it listens.
        bool up = false;
        for (int i = 0; i < 50 && !up; ++i) {
            up = canConnect(port);
            if (!up) QTest::qWait(100);
            if (server.state() != QProcess::Running) break;
        }
        if (!up) {
            const QString log = QString::fromUtf8(server.readAll());
            server.kill();
            server.waitForFinished();
            QSKIP(qPrintable(QStringLiteral("sshd did not come up: ") + log.left(300)));
        }

        const std::vector<std::string> options = {"-p", std::to_string(port), "-i", dir.filePath("user_key").toStdString(),
                                                  "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
                                                  "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                                                  "-o", "IdentitiesOnly=yes"};
        const std::string host = std::string(pw->pw_name) + "@127.0.0.1";
        const auto command = runnerCommandFor(host, options, runner.toStdString());
        QCOMPARE(QString::fromStdString(command.front()), QStringLiteral("ssh"));
        std::string device, message;
        RunErrorKind errorKind = RunErrorKind::Unknown;
        const bool ok = probeRunner(command, device, errorKind, message, 30);
        server.kill();
        server.waitForFinished();
        if (ok) {
            QVERIFY(!device.empty()); // a GPU behind loopback: the runner answered through ssh
        } else {
            // The runner itself answered through ssh: it has no CUDA driver/device here.
            QVERIFY2(errorKind == RunErrorKind::NoDriver || errorKind == RunErrorKind::NoDevice,
                     (std::string(runErrorKindName(errorKind)) + ": " + message).c_str());
        }
        // The pane builds the same command from its preference fields.
        MeasurePane pane(nullptr, nullptr, MeasurePane::Options{false});
        QString opts;
        for (const auto& o : options) opts += QString::fromStdString(o) + QLatin1Char(' ');
        pane.setRemote(QString::fromStdString(host), opts.trimmed(), runner);
        QCOMPARE(pane.runnerCommand(), command);
    }

    // ---------------------------------------------------------------- screenshots

    void screenshots() {
        const QByteArray out = qgetenv("LOWERSCOPE_SCREENSHOT_DIR");
        if (out.isEmpty()) QSKIP("set LOWERSCOPE_SCREENSHOT_DIR to write docs screenshots");
        QDir().mkpath(QString::fromUtf8(out));
        {
            DiffView view;
            view.resize(1400, 820);
            view.setLaunch(256, 0);
            view.setSides(realSide(QStringLiteral("default"), QStringLiteral("A")),
                          realSide(QStringLiteral("fastmath"), QStringLiteral("B")));
            view.show();
            view.detailTabs()->setCurrentIndex(1);
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            view.nextDifference();
            view.nextDifference();
            QTest::qWait(200);
            QVERIFY(view.grab().save(QDir(QString::fromUtf8(out)).filePath(QStringLiteral("compare.png"))));
        }
        {
            MeasurePane pane(nullptr, nullptr, MeasurePane::Options{false});
            pane.resize(1400, 820);
            LaunchText l;
            l.grid = {"ceil(n/256)"};
            l.block = {"256"};
            // The launch of the measurement shown (kernels/fast_math.json, when the real H200
            // compare of tests/data/run/ is there).
            l.args = {"n=1<<24", "x=f32[n]:random(seed=1)", "decay=f32[n]:random(seed=2)", "y=f32[n]:zeros"};
            l.bytes = "12*n";
            l.flops = "20*n";
            pane.setLaunch(l);
            pane.setRemote(QStringLiteral("gpu-box")); // shows the ssh runner command, and no local path
            QString error;
            QVERIFY(pane.openMeasurementFile(resultFixture(), &error));
            pane.show();
            QVERIFY(QTest::qWaitForWindowExposed(&pane));
            QTest::qWait(200);
            QVERIFY(pane.grab().save(QDir(QString::fromUtf8(out)).filePath(QStringLiteral("measure.png"))));
            pane.chartTabs()->setCurrentIndex(1);
            QTest::qWait(100);
            QVERIFY(pane.grab().save(QDir(QString::fromUtf8(out)).filePath(QStringLiteral("measure-samples.png"))));
        }
    }
};

QTEST_MAIN(TestCompareMeasure)
#include "test_compare_measure.moc"
