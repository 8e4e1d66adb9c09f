// Experiment 4 (CUDA Graph break-even) in the examples gallery (issue 15): the gallery's graph
// entry opens its kernel source in the editor, its write-up and the recorded table per N; Rerun on
// my GPU measures the graph path through the real runner on the fake GPU (host costs set so that
// the numbers can only come from this run) and shows them beside the recorded ones with their own
// report and chart; a failing run, Cancel and hostile recorded documents leave what is shown as it
// was and say why.
#include "core/build/toolchain.h"
#include "core/experiment/graph_break_even.h"
#include "core/run/measurement.h"
#include "example_files.h"
#include "views/common/build_job.h"
#include "views/code/code_editor.h"
#include "views/experiment/gallery.h"
#include "views/experiment/graph_break_even_model.h"
#include "views/experiment/graph_break_even_view.h"
#include "views/shell/main_window.h"
#include "views/code/ptx_model.h"
#include "views/code/ptx_pane.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/code/source_pane.h"
#include "views/common/workspace.h"
#include "window_fixture.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocument>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace lowerscope;

namespace {

using testutil::kExamples;
using testutil::maybeScreenshot;
using testutil::readJson;

const QString kId = QStringLiteral("graph_break_even");

double value(const GraphBreakEvenModel* m, int row, int column) {
    return m->index(row, column).data(GraphBreakEvenModel::ValueRole).toDouble();
}

// Whether the browser finds image `name` and it is a picture (not an empty or unreadable one).
bool imageLoads(QTextBrowser* b, const QString& name) {
    QVariant v = b->document()->resource(QTextDocument::ImageResource, QUrl(name));
    if (!v.isValid()) v = b->loadResource(QTextDocument::ImageResource, QUrl(name));
    switch (v.typeId()) {
    case QMetaType::QImage:
        return !v.value<QImage>().isNull();
    case QMetaType::QPixmap:
        return !v.value<QPixmap>().isNull();
    case QMetaType::QByteArray:
        return !QImage::fromData(v.toByteArray()).isNull();
    default:
        qWarning() << name << "is a" << v.typeName();
        return false;
    }
}

} // namespace

class GraphGalleryTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void initTestCase() { testutil::useScratchDirs(m_tmp); }

    void manifestHasTheGraphEntryWithItsFiles() {
        std::optional<GalleryEntry> e;
        for (const GalleryEntry& g : bundledGallery())
            if (g.id == kId) e = g;
        QVERIFY(e);
        QCOMPARE(e->kind, QStringLiteral("graph"));
        QCOMPARE(e->graph, QStringLiteral("graph_break_even.graph.json"));
        QCOMPARE(e->source, QStringLiteral("graph_path.cu"));
        QCOMPARE(e->sidecar, QStringLiteral("graph_path.json"));
        for (const QString& f : e->files()) QVERIFY2(QFile::exists(galleryResource(f)), qPrintable(f));
        // A graph entry needs its document; names must be plain like every other kind's.
        QList<GalleryEntry> out;
        QString error;
        QStringList problems;
        const QByteArray text = R"js({"schema": "lowerscope.gallery/1", "entries": [
            {"id": "g", "title": "Fine", "kind": "graph", "graph": "../x/g.graph.json", "source": "g.cu"},
            {"id": "nodoc", "title": "No document", "kind": "graph", "writeup": "a.md"},
            {"id": "path", "title": "Path", "kind": "graph", "graph": "a b.graph.json"}]})js";
        QVERIFY(readGalleryManifest(text, out, error, &problems));
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.front().graph, QStringLiteral("g.graph.json"));
        QCOMPARE(problems.size(), 2);
    }

    void galleryOpensTheGraphEntry() {
        auto w = testutil::makeTestWindow();
        QVERIFY(w->openBundledExperiment(kId));
        // The kernel source in the editor, from a copy (saving never touches the bundle).
        QVERIFY(w->sourcePane()->editor()->text().contains(QStringLiteral("__global__ void path_step")));
        QVERIFY(w->session()->displayName().endsWith(QStringLiteral("graph_path.cu")));
        QVERIFY(!w->session()->sourcePath().startsWith(QLatin1Char(':')));
        GraphBreakEvenView* v = w->graphView();
        QVERIFY(v && v->isVisible());
        QAbstractItemModelTester tester(v->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The write-up with its chart.
        QVERIFY(v->writeUp()->toPlainText().contains(QStringLiteral("Hypothesis")));
        QVERIFY(imageLoads(v->writeUp(), QStringLiteral("graph_break_even.svg")));
        // The recorded table: one row per N with the document's numbers.
        const nlohmann::json doc = readJson(kExamples + QStringLiteral("graph_break_even.graph.json"));
        const GraphBreakEvenModel* m = v->model();
        QCOMPARE(m->rowCount(), int(doc["paths"].size()));
        QCOMPARE(m->rowCount(), 4);
        for (int r = 0; r < m->rowCount(); ++r) {
            const auto& p = doc["paths"][size_t(r)];
            QCOMPARE(value(m, r, GraphBreakEvenModel::PathLength), p["path_length"].get<double>());
            QCOMPARE(value(m, r, GraphBreakEvenModel::Fixed), p["fixed_ms"].get<double>());
            QCOMPARE(value(m, r, GraphBreakEvenModel::StreamPath), p["stream_path_us"].get<double>());
            QCOMPARE(value(m, r, GraphBreakEvenModel::GraphPath), p["graph_path_us"].get<double>());
            QCOMPARE(value(m, r, GraphBreakEvenModel::Predicted), p["predicted_break_even"].get<double>());
            QCOMPARE(value(m, r, GraphBreakEvenModel::Measured), p["measured_break_even"].get<double>());
            QCOMPARE(m->index(r, GraphBreakEvenModel::Fixed).data().toString(),
                     QString::fromStdString(formatDuration(p["fixed_ms"].get<double>())));
            // Nothing of this GPU yet: its columns are hidden and empty.
            QVERIFY(
                !m->index(r, GraphBreakEvenModel::MineFixed).data(GraphBreakEvenModel::ValueRole).isValid());
        }
        QVERIFY(v->table()->isColumnHidden(GraphBreakEvenModel::MineFixed));
        QVERIFY(!v->table()->isColumnHidden(GraphBreakEvenModel::Measured));
        // What a rerun measures is what was recorded.
        QCOMPARE(v->recordedOptions().pathLengths, (std::vector<int>{1, 4, 16, 64}));
        QCOMPARE(v->recordedOptions().replays, defaultGraphReplays());
        QCOMPARE(v->recordedOptions().repetitions, 9);
        QVERIFY(v->rerunButton()->isVisible() && v->rerunButton()->isEnabled());
        QVERIFY(!w->rerunBundledGraph(QStringLiteral("ffma_chains")));
        QVERIFY(!w->rerunBundledGraph(QStringLiteral("no_such_example")));

        // The source pane, PTX and SASS show graph_path.cu once built (as any opened file).
        if (!testutil::haveBuildTools()) QSKIP("nvcc/nvdisasm not found (run scripts/bootstrap)");
        QVERIFY(testutil::waitForBuilds(w->session()));
        QVERIFY2(w->kernelCombo()->currentText().contains(QStringLiteral("path_step")),
                 qPrintable(w->kernelCombo()->currentText()));
        QVERIFY(w->ptxPane()->model()->rowCount() > 0);
        QVERIFY(w->sassPane()->model()->rowCount() > 0);
    }

    void rerunTakesItsRequestFromTheRecordedDocument() {
        auto w = testutil::makeTestWindow();
        QVERIFY(w->openBundledExperiment(kId));
        GraphBreakEvenView* v = w->graphView();
        std::optional<LocalGraphBreakEvenRequest> seen;
        v->setBackend([&seen](const LocalGraphBreakEvenRequest& r, std::atomic<bool>*,
                              const std::function<void(const std::string&)>&) {
            seen = r;
            LocalGraphBreakEvenOutcome out;
            out.error = "KernelFault: a fault of the test [CUDA_ERROR_ILLEGAL_ADDRESS]";
            return out;
        });
        QSignalSpy done(v, &GraphBreakEvenView::runFinished);
        v->rerunButton()->click();
        QVERIFY(done.wait(10000));
        QVERIFY(seen);
        QCOMPARE(seen->graphPath.pathLengths, (std::vector<int>{1, 4, 16, 64}));
        QCOMPARE(seen->graphPath.replays, defaultGraphReplays());
        QCOMPARE(seen->kernel, std::string("path_step"));
        QCOMPARE(seen->fileName, std::string("graph_path.cu"));
        QVERIFY(QFile::exists(QString::fromStdString(seen->sourcePath)));
        // The sidecar's launch: 4096 floats, 16 blocks of 256.
        QVERIFY(std::find(seen->launch.args.begin(), seen->launch.args.end(), "n=4096") !=
                seen->launch.args.end());
        QVERIFY(seen->options.defines.empty() && !seen->options.fastMath);
        // A failure says so and loses nothing recorded.
        QVERIFY(!done.front().front().toBool());
        QVERIFY2(v->statusLabel()->text().contains(QStringLiteral("ILLEGAL_ADDRESS")),
                 qPrintable(v->statusLabel()->text()));
        QCOMPARE(v->model()->rowCount(), 4);
        QVERIFY(v->mine().is_null());
        QVERIFY(v->rerunButton()->isEnabled());
    }

    void hostileRecordedDocumentsAreRefused() {
        GraphBreakEvenView view;
        const nlohmann::json good = readJson(kExamples + QStringLiteral("graph_break_even.graph.json"));
        QString error;
        QVERIFY2(view.setRecorded(good, &error), qPrintable(error));
        auto with = [&](const std::function<void(nlohmann::json&)>& change) {
            nlohmann::json d = good;
            change(d);
            return QByteArray::fromStdString(d.dump());
        };
        nlohmann::json many = good;
        for (int i = 0; i < 17; ++i) many["paths"].push_back(good["paths"][0]);
        const QList<QPair<QString, QByteArray>> cases = {
            {QStringLiteral("schema"), with([](nlohmann::json& d) { d["schema"] = "lowerscope.series/1"; })},
            {QStringLiteral("4096"), with([](nlohmann::json& d) { d["paths"][1]["path_length"] = 100000; })},
            {QStringLiteral("integer path_length"),
             with([](nlohmann::json& d) { d["paths"][1]["path_length"] = 1e30; })},
            {QStringLiteral("integer path_length"),
             with([](nlohmann::json& d) { d["paths"][0]["path_length"] = 4.5; })},
            {QStringLiteral("given twice"),
             with([](nlohmann::json& d) { d["paths"][1]["path_length"] = 1; })},
            {QStringLiteral("100000"),
             with([](nlohmann::json& d) { d["paths"][0]["points"][3]["replays"] = 1000000; })},
            {QStringLiteral("16777216"), with([](nlohmann::json& d) {
                 d["paths"][3]["path_length"] = 4096;
                 d["paths"][3]["points"][14]["replays"] = 100000;
             })},
            {QStringLiteral("repetitions"), with([](nlohmann::json& d) { d["repetitions"] = 5000; })},
            {QStringLiteral("1 to 16 paths"), QByteArray::fromStdString(many.dump())},
            {QStringLiteral("1 to 16 paths"), with([](nlohmann::json& d) { d["paths"] = "all"; })},
            {QStringLiteral("deep"), QByteArray(200, '[') + QByteArray(200, ']')},
            {QStringLiteral("larger"), QByteArray(int(kMaxGraphBreakEvenDocumentBytes) + 16, ' ')},
            {QStringLiteral("parse"), "{\"schema\": "},
        };
        for (const auto& [expect, bytes] : cases) {
            QString why;
            QVERIFY2(!view.setRecordedBytes(bytes, &why), qPrintable(expect));
            QVERIFY2(!why.isEmpty(), qPrintable(expect));
            QVERIFY2(why.contains(expect, Qt::CaseInsensitive) || expect == QLatin1String("parse") ||
                         expect == QLatin1String("deep") || expect == QLatin1String("larger"),
                     qPrintable(expect + QStringLiteral(": ") + why));
            QCOMPARE(view.model()->rowCount(), 4); // what was shown stays
            QCOMPARE(view.recordedOptions().pathLengths, (std::vector<int>{1, 4, 16, 64}));
            QVERIFY2(!view.setMine(nlohmann::json::parse(bytes.toStdString(), nullptr, false), &why),
                     qPrintable(expect));
        }
        // Names with markup or control characters are shown as text.
        nlohmann::json odd = good;
        odd["kernel"] = "<img src=x onerror=1>\x1b[2J";
        QVERIFY(view.setRecorded(odd));
        QLabel* header = view.findChild<QLabel*>(QStringLiteral("graphHeader"));
        QCOMPARE(header->textFormat(), Qt::PlainText);
        QVERIFY(!header->text().contains(QChar(0x1b)));
    }

    void rerunOnTheFakeGpuShowsThisGpuBesideTheRecorded() {
        if (!testutil::haveBuildTools()) QSKIP("nvcc/nvdisasm not found (run scripts/bootstrap)");
        testutil::useFakeGpu(true);
        // Host costs of the fake that no H200 has: 30 µs per stream launch, 2 ms per instantiate.
        // The numbers shown for this GPU can only come from this run.
        qputenv("FAKE_HOST_LAUNCH_US", "30");
        qputenv("FAKE_HOST_INSTANTIATE_US", "2000");
        auto w = testutil::makeTestWindow();
        QVERIFY(w->openBundledExperiment(kId));
        GraphBreakEvenView* v = w->graphView();
        // The recorded run goes to R = 1024 at N = 64: at the fake's 30 µs per launch that is minutes.
        // Show a recorded document with fewer N and R (what a rerun measures is what is shown).
        nlohmann::json recorded = readJson(kExamples + QStringLiteral("graph_break_even.graph.json"));
        recorded["paths"].erase(recorded["paths"].begin() + 2, recorded["paths"].end());
        for (auto& p : recorded["paths"]) {
            nlohmann::json keep = nlohmann::json::array();
            for (const auto& q : p["points"])
                if (q["replays"] == 1 || q["replays"] == 2 || q["replays"] == 64) keep.push_back(q);
            p["points"] = keep;
        }
        recorded["repetitions"] = 5;
        QString error;
        QVERIFY2(v->setRecorded(recorded, &error), qPrintable(error));
        QSignalSpy done(v, &GraphBreakEvenView::runFinished);
        QVERIFY2(w->rerunBundledGraph(kId, &error), qPrintable(error));
        QVERIFY(v->isRunning());
        QVERIFY(v->cancelButton()->isEnabled());
        QVERIFY(!v->rerunButton()->isEnabled());
        QVERIFY(done.wait(240000));
        QVERIFY2(done.front().front().toBool(), qPrintable(done.front().at(1).toString()));

        // This GPU's numbers beside the recorded ones, per N.
        const GraphBreakEvenModel* m = v->model();
        QVERIFY(m->mine().has_value());
        QCOMPARE(m->mine()->device, std::string("Fake GPU"));
        QVERIFY(!v->table()->isColumnHidden(GraphBreakEvenModel::MineFixed));
        QCOMPARE(m->rowCount(), 2);
        for (int r = 0; r < m->rowCount(); ++r) {
            const double n = value(m, r, GraphBreakEvenModel::PathLength);
            const double fixed = value(m, r, GraphBreakEvenModel::MineFixed);
            QVERIFY2(fixed >= 2.0, qPrintable(QString::number(fixed))); // the fake's 2 ms instantiate
            QVERIFY(value(m, r, GraphBreakEvenModel::Fixed) < 0.5);     // the H200's: tens of µs
            QVERIFY(value(m, r, GraphBreakEvenModel::MineStreamPath) >= 30 * n); // N launches of 30 µs
            QVERIFY(value(m, r, GraphBreakEvenModel::MineGraphPath) <
                    value(m, r, GraphBreakEvenModel::MineStreamPath));
            QVERIFY(m->index(r, GraphBreakEvenModel::MinePredicted)
                        .data(GraphBreakEvenModel::ValueRole)
                        .isValid());
            QCOMPARE(m->index(r, GraphBreakEvenModel::MineFixed).data().toString(),
                     QString::fromStdString(formatDuration(fixed)));
            // The recorded numbers are still the recorded ones.
            QCOMPARE(value(m, r, GraphBreakEvenModel::Fixed),
                     recorded["paths"][size_t(r)]["fixed_ms"].get<double>());
        }
        // N = 4: one replay cannot pay for 2 ms; 64 replays of 4 × 30 µs saved can.
        QCOMPARE(value(m, 1, GraphBreakEvenModel::MineMeasured), 64.0);
        QCOMPARE(v->mine()["paths"][1]["points"].size(), size_t(3));
        // Its report and chart in the "This GPU" tab, shown.
        QCOMPARE(v->tabs()->currentWidget(), static_cast<QWidget*>(v->mineReport()));
        QVERIFY(v->tabs()->tabText(1).contains(QStringLiteral("Fake GPU")));
        const QString report = v->mineReport()->toPlainText();
        QVERIFY2(report.contains(QStringLiteral("Experiment 4 on this GPU")), qPrintable(report.left(400)));
        QVERIFY(report.contains(QStringLiteral("path_step")));
        QVERIFY(report.contains(QStringLiteral("--graph-break-even 1,4 --replays 1,2,64")));
        QVERIFY(imageLoads(v->mineReport(), QStringLiteral("this_gpu.graph_break_even.svg")));
        v->resize(1400, 950);
        QTest::qWait(100);
        maybeScreenshot(v, QStringLiteral("gallery_graph.png"));

        // A failing graph call: a clear message; what was shown (recorded and this GPU) stays.
        const nlohmann::json before = v->mine();
        qputenv("FAKE_GRAPH_FAIL", "launch:4"); // the path of N = 4
        QSignalSpy failed(v, &GraphBreakEvenView::runFinished);
        QVERIFY(w->rerunBundledGraph(kId, &error));
        QVERIFY(failed.wait(240000));
        qunsetenv("FAKE_GRAPH_FAIL");
        QVERIFY(!failed.front().front().toBool());
        QVERIFY2(v->statusLabel()->text().contains(QStringLiteral("cuGraphLaunch")),
                 qPrintable(v->statusLabel()->text()));
        QCOMPARE(v->mine(), before);
        QCOMPARE(m->rowCount(), 2);

        // Cancel: the job stops and says so; nothing is lost.
        QSignalSpy cancelled(v, &GraphBreakEvenView::runFinished);
        QVERIFY(w->rerunBundledGraph(kId, &error));
        v->cancelButton()->click();
        QVERIFY(cancelled.wait(240000));
        QVERIFY(!cancelled.front().front().toBool());
        QVERIFY2(v->statusLabel()->text().contains(QStringLiteral("cancelled")),
                 qPrintable(v->statusLabel()->text()));
        QCOMPARE(v->mine(), before);
        QVERIFY(v->rerunButton()->isEnabled());
        testutil::useFakeGpu(false);
        qunsetenv("FAKE_HOST_LAUNCH_US");
        qunsetenv("FAKE_HOST_INSTANTIATE_US");
    }
};

QTEST_MAIN(GraphGalleryTest)
#include "test_graph_gallery.moc"
