// Parameter series and the examples gallery in the GUI (issue 15): the series view over recorded
// .series.json documents (chart, table, the rerun beside them), hostile documents refused with a
// message, the card's Vary field, the gallery manifest (every entry listed, its files bundled, each
// kind opened), the cost line against core's arithmetic, and series runs through the real runner
// on the fake GPU (the card's kind and Rerun on my GPU).
#include "core/build/toolchain.h"
#include "core/experiment/series.h"
#include "core/run/measurement_data.h"
#include "example_files.h"
#include "views/common/build_job.h"
#include "views/compare/compare_measure.h"
#include "views/measure/cost_panel.h"
#include "views/measure/measure_pane.h"
#include "views/experiment/experiment_record.h"
#include "views/experiment/gallery.h"
#include "views/shell/main_window.h"
#include "views/experiment/series_model.h"
#include "views/experiment/series_view.h"
#include "window_fixture.h"

#include <QAbstractItemModelTester>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QTextBrowser>
#include <QTextDocument>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace lowerscope;

namespace {

using testutil::kExamples;
using testutil::maybeScreenshot;
using testutil::readJson;

QList<QLineSeries*> medianLines(QChartView* view) {
    QList<QLineSeries*> out;
    for (QAbstractSeries* s : view->chart()->series())
        if (auto* l = qobject_cast<QLineSeries*>(s); l && s->type() == QAbstractSeries::SeriesTypeLine)
            out << l;
    return out;
}

} // namespace

class SeriesGalleryTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void initTestCase() { testutil::useScratchDirs(m_tmp); }

    void seriesViewShowsTheRecordedPoints() {
        SeriesView view;
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY2(view.openFile(kExamples + QStringLiteral("ffma_chains.series.json"), &error),
                 qPrintable(error));
        const nlohmann::json doc = readJson(kExamples + QStringLiteral("ffma_chains.series.json"));
        const auto& points = doc["points"];
        SeriesModel* m = view.model();
        QCOMPARE(m->rowCount(), int(points.size()));
        QCOMPARE(m->columnCount(), int(SeriesModel::MineMedian)); // no rerun yet
        for (int r = 0; r < m->rowCount(); ++r) {
            const auto& p = points[size_t(r)];
            QCOMPARE(m->index(r, SeriesModel::Point).data().toString(), QString::fromStdString(p["label"]));
            QCOMPARE(m->index(r, SeriesModel::Registers).data().toString(),
                     QString::number(p["registers"].get<int>()));
            QCOMPARE(m->index(r, SeriesModel::Median).data(SeriesModel::MedianMsRole).toDouble(),
                     p["median_ms"].get<double>());
            QCOMPARE(m->index(r, SeriesModel::Median).data().toString(),
                     QString::fromStdString(formatDuration(p["median_ms"].get<double>())));
        }
        QVERIFY(m->index(1, SeriesModel::Ratio)
                    .data()
                    .toString()
                    .startsWith(QString::number(points[1]["ratio_to_first"].get<double>(), 'f', 3)));
        // The chart: one median line with a point per recorded point, its interval band, the
        // labels of the points on the x axis in the order measured.
        const QList<QLineSeries*> lines = medianLines(view.chartView());
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines.front()->count(), int(points.size()));
        int bands = 0;
        for (QAbstractSeries* s : view.chartView()->chart()->series())
            bands += s->type() == QAbstractSeries::SeriesTypeArea;
        QCOMPARE(bands, 1);
        auto* axisX = qobject_cast<QCategoryAxis*>(view.chartView()->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(axisX);
        QCOMPARE(axisX->categoriesLabels().size(), int(points.size()));
        QCOMPARE(axisX->categoriesLabels().front().trimmed(), QStringLiteral("1"));
        // The y values are the medians in the chart's unit (µs here: sub-millisecond kernels).
        const double scale = lines.front()->at(0).y() / points[0]["median_ms"].get<double>();
        QVERIFY2(scale == 1e3 || scale == 1 || scale == 1e6, qPrintable(QString::number(scale)));
        QVERIFY(view.costPanel()->text().contains(QString::fromStdString(points[1]["label"])));
    }

    // Issue 35 item 11: points within a few percent are drawn on an axis around them (from 0 a 2 %
    // difference is a flat line), and the axis title says it does not start at 0; far-apart points
    // keep an axis from 0.
    void closePointsGetAZoomedTimeAxis() {
        nlohmann::json doc = readJson(kExamples + QStringLiteral("ffma_chains.series.json"));
        auto& points = doc["points"];
        while (points.size() > 2) points.erase(points.size() - 1);
        points[1]["median_ms"] = points[0]["median_ms"].get<double>() * 1.02;
        points[1]["ci_low_ms"] = points[1]["median_ms"];
        points[1]["ci_high_ms"] = points[1]["median_ms"];
        SeriesView view;
        QString error;
        QVERIFY2(view.setDocument(doc, &error), qPrintable(error));
        auto* axisY = qobject_cast<QValueAxis*>(view.chartView()->chart()->axes(Qt::Vertical).value(0));
        QVERIFY(axisY);
        QVERIFY2(axisY->min() > 0, qPrintable(QString::number(axisY->min())));
        QVERIFY(axisY->titleText().contains(QStringLiteral("not from 0")));
        const QList<QLineSeries*> lines = medianLines(view.chartView());
        QVERIFY(axisY->min() < lines.front()->at(0).y() && lines.front()->at(1).y() < axisY->max());
        // 2x apart: from 0 again.
        points[1]["median_ms"] = points[0]["median_ms"].get<double>() * 3;
        points[1]["ci_low_ms"] = points[1]["median_ms"];
        points[1]["ci_high_ms"] = points[1]["median_ms"];
        QVERIFY2(view.setDocument(doc, &error), qPrintable(error));
        axisY = qobject_cast<QValueAxis*>(view.chartView()->chart()->axes(Qt::Vertical).value(0));
        QCOMPARE(axisY->min(), 0.0);
    }

    void rerunAppearsBesideTheRecordedNumbers() {
        SeriesView view;
        const nlohmann::json recorded = readJson(kExamples + QStringLiteral("ffma_chains.series.json"));
        QVERIFY(view.setDocument(recorded));
        // "My GPU": the same points twice as slow, one point missing.
        nlohmann::json mine = recorded;
        for (auto& p : mine["points"])
            for (const char* k : {"median_ms", "ci_low_ms", "ci_high_ms"}) p[k] = p[k].get<double>() * 2;
        mine["points"].erase(mine["points"].end() - 1);
        mine["device"]["name"] = "Test GPU";
        QString error;
        QVERIFY2(view.setMine(mine, &error), qPrintable(error));
        SeriesModel* m = view.model();
        QCOMPARE(m->columnCount(), int(SeriesModel::ColumnCount));
        QCOMPARE(m->index(0, SeriesModel::MineMedian).data(SeriesModel::MedianMsRole).toDouble(),
                 2 * recorded["points"][0]["median_ms"].get<double>());
        QCOMPARE(m->index(m->rowCount() - 1, SeriesModel::MineMedian).data().toString(), QStringLiteral("–"));
        const QList<QLineSeries*> lines = medianLines(view.chartView());
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[1]->count(), m->rowCount() - 1);
        QVERIFY(lines[1]->name().contains(QStringLiteral("Test GPU")));
        // Showing another series drops the rerun.
        QVERIFY(view.openFile(kExamples + QStringLiteral("sgemm_ptxas_opt.series.json")));
        QCOMPARE(m->columnCount(), int(SeriesModel::MineMedian));
        QCOMPARE(medianLines(view.chartView()).size(), 1);
    }

    void hostileSeriesDocumentsAreRefusedWithAMessage() {
        SeriesView view;
        QVERIFY(view.openFile(kExamples + QStringLiteral("ffma_chains.series.json")));
        const int rows = view.model()->rowCount();
        auto write = [&](const QString& name, const QByteArray& bytes) {
            const QString path = m_tmp.filePath(name);
            QFile f(path);
            f.open(QIODevice::WriteOnly);
            f.write(bytes);
            return path;
        };
        nlohmann::json many{{"schema", "lowerscope.series/1"}, {"points", nlohmann::json::array()}};
        for (int i = 0; i < 100; ++i) many["points"].push_back({{"label", "x"}, {"median_ms", 1.0}});
        const QList<QPair<QString, QByteArray>> cases = {
            {QStringLiteral("schema"), R"({"schema": "lowerscope.compare/1", "points": []})"},
            {QStringLiteral("no points"), R"({"schema": "lowerscope.series/1", "points": {}})"},
            {QStringLiteral("median"),
             R"({"schema": "lowerscope.series/1", "points": [{"median_ms": "fast"}]})"},
            {QStringLiteral("at most"), QByteArray::fromStdString(many.dump())},
            {QStringLiteral("deep"), QByteArray(200, '[') + QByteArray(200, ']')},
            {QStringLiteral("larger"), QByteArray(int(kMaxSeriesDocumentBytes) + 16, ' ')},
            {QStringLiteral("parse"), "{\"schema\": "},
        };
        for (const auto& [expect, bytes] : cases) {
            QString error;
            QVERIFY2(!view.openFile(write(QStringLiteral("bad.series.json"), bytes), &error),
                     qPrintable(expect));
            QVERIFY2(!error.isEmpty(), qPrintable(expect));
            QVERIFY2(error.contains(expect, Qt::CaseInsensitive) || expect == QLatin1String("median") ||
                         expect == QLatin1String("parse") || expect == QLatin1String("larger"),
                     qPrintable(expect + QStringLiteral(": ") + error));
            QCOMPARE(view.model()->rowCount(), rows); // what was shown stays
        }
        // Labels with markup or control characters are shown as text.
        nlohmann::json odd = readJson(kExamples + QStringLiteral("ffma_chains.series.json"));
        odd["kernel"] = "<img src=x onerror=1>";
        odd["points"][0]["label"] = "\x1b[2Jcleared";
        QVERIFY(view.setDocument(odd));
        QVERIFY(!view.model()->index(0, SeriesModel::Point).data().toString().contains(QChar(0x1b)));
        QVERIFY(!view.findChild<QLabel*>(QStringLiteral("seriesHeader"))
                     ->text()
                     .contains(QStringLiteral("<img")));
    }

    void cardVaryFieldValidatesInline() {
        ExperimentCardEditor card;
        QSignalSpy requested(&card, &ExperimentCardEditor::runSeriesRequested);
        card.varyEdit()->setText(QStringLiteral("-D CHAINS=1"));
        QVERIFY(!card.runSeriesButton()->isEnabled());
        QVERIFY(!card.varyError()->isHidden());
        QVERIFY2(card.varyError()->text().contains(QStringLiteral("at least two")),
                 qPrintable(card.varyError()->text()));
        card.varyEdit()->setText(QStringLiteral("-D CHAINS=1,$(id)"));
        QVERIFY(card.varyError()->text().contains(QStringLiteral("not a plain value")));
        QVERIFY(!card.runSeriesButton()->isEnabled());
        card.varyEdit()->setText(QStringLiteral("-D CHAINS=1,2,4"));
        QVERIFY(card.varyError()->isHidden());
        QVERIFY(card.runSeriesButton()->isEnabled());
        card.runSeriesButton()->click();
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.front().front().toString(), QStringLiteral("-D CHAINS=1,2,4"));
    }

    void costLineIsCoresArithmetic() {
        CostPanel cost;
        cost.setPricePerGpuHour(3.0);
        cost.setLaunchesPerRequest(4);
        cost.setVariants(
            {{QStringLiteral("A"), 2.0}, {QStringLiteral("B"), 1.5}, {QStringLiteral("bad"), -1}});
        const CostLine a = costLine(2.0, 3.0, 4), b = costLine(1.5, 3.0, 4);
        const QString t = cost.text();
        QVERIFY2(t.contains(QString::number(a.gpuSecondsPerMillion, 'f', 1)), qPrintable(t));
        QVERIFY2(t.contains(QStringLiteral("$%1").arg(a.costPerMillion, 0, 'f', 2)), qPrintable(t));
        QVERIFY2(t.contains(QStringLiteral("$%1").arg(b.costPerMillionRequests, 0, 'f', 2)), qPrintable(t));
        QVERIFY2(t.contains(QString::fromStdString(formatDuration(b.gpuMsPerRequest))), qPrintable(t));
        QVERIFY2(t.contains(QStringLiteral("%1 % vs A").arg(100 * costChange(a, b), 0, 'f', 1)),
                 qPrintable(t));
        QVERIFY(!t.contains(QStringLiteral("bad")));
        // A new price changes the text at once.
        cost.setPricePerGpuHour(6.0);
        QVERIFY(
            cost.text().contains(QStringLiteral("$%1").arg(costLine(2.0, 6.0, 4).costPerMillion, 0, 'f', 2)));
    }

    void galleryManifestListsEveryEntryWithItsFilesBundled() {
        // The bundled manifest is the source one, and none of its entries was skipped.
        const nlohmann::json source = readJson(kExamples + QStringLiteral("gallery.json"));
        QString error;
        const QList<GalleryEntry> entries = bundledGallery(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(entries.size(), int(source["entries"].size()));
        QStringList ids;
        for (const GalleryEntry& g : entries) {
            ids << g.id;
            QVERIFY2(!g.files().isEmpty(), qPrintable(g.id));
            for (const QString& f : g.files())
                QVERIFY2(QFile::exists(galleryResource(f)),
                         qPrintable(g.id + QStringLiteral(": ") + f + QStringLiteral(" not bundled")));
        }
        for (const char* id :
             {"ffma_chain", "ffma_chain_profile", "fast_math", "ffma_chains", "ffma_warps_c1",
              "ffma_warps_c8", "sgemm_ptxas_opt", "sgemm_maxrregcount", "sgemm_maxrregcount_profile"})
            QVERIFY2(ids.contains(QString::fromLatin1(id)), id);
        QCOMPARE(MainWindow::bundledExperiments().size(), entries.size());
    }

    void hostileManifestEntriesAreSkipped() {
        QList<GalleryEntry> out;
        QString error;
        QStringList problems;
        QVERIFY(!readGalleryManifest("[]", out, error));
        QVERIFY(!readGalleryManifest(R"({"schema": "other", "entries": []})", out, error));
        const QByteArray text = R"js({"schema": "lowerscope.gallery/1", "entries": [
            {"id": "ok", "title": "Fine", "kind": "report", "writeup": "../x/README.md"},
            {"id": "evil", "title": "Defines", "kind": "series", "series": "a.series.json", "defines": ["X=$(id)"]},
            {"id": "space", "title": "Name", "kind": "report", "writeup": "a b.md"},
            {"id": "../up", "title": "Id", "kind": "report", "writeup": "a.md"},
            {"id": "nofile", "title": "No file", "kind": "session"},
            {"id": "kind", "title": "Kind", "kind": "binary", "writeup": "a.md"},
            {"id": "arg", "title": "Arg", "kind": "series", "series": "a.series.json", "args": ["N=M\nK"]},
            7]})js";
        QVERIFY2(readGalleryManifest(text, out, error, &problems), qPrintable(error));
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.front().writeup, QStringLiteral("README.md")); // only the file name is kept
        QCOMPARE(problems.size(), 7);
        // Nothing outside the bundle is read through it.
        QByteArray bytes;
        QVERIFY(!readGalleryFile(QStringLiteral("../main.cpp"), bytes));
        QVERIFY(!readGalleryFile(QStringLiteral("/etc/passwd"), bytes));
    }

    void galleryOpensSeriesAndReportEntries() {
        auto w = testutil::makeTestWindow();
        // Whether there is a GPU decides the rerun button (issue 35 item 6): wait for the probe.
        QTRY_VERIFY_WITH_TIMEOUT(w->measurePane()->deviceState() == MeasurePane::DeviceState::Available ||
                                     w->measurePane()->deviceState() == MeasurePane::DeviceState::Unavailable,
                                 60000);
        const bool gpu = w->measurePane()->deviceState() == MeasurePane::DeviceState::Available;
        for (const GalleryEntry& g : bundledGallery()) {
            if (g.kind == QLatin1String("session")) continue; // test_profile_pane opens (and builds) those
            if (g.kind == QLatin1String("graph")) continue;   // test_graph_gallery opens those
            QVERIFY2(w->openBundledExperiment(g.id), qPrintable(g.id));
            if (g.kind == QLatin1String("series")) {
                SeriesView* v = w->galleryView();
                QVERIFY(v && v->isVisible());
                const nlohmann::json doc = readJson(kExamples + g.series);
                QCOMPARE(v->model()->rowCount(), int(doc["points"].size()));
                QVERIFY2(v->writeUp()->isVisible() &&
                             v->writeUp()->toPlainText().contains(QStringLiteral("Hypothesis")),
                         qPrintable(g.id));
                // The chart image of the write-up is found in the bundle.
                for (const QString& image : g.images)
                    QVERIFY2(
                        !v->writeUp()
                                ->document()
                                ->resource(QTextDocument::ImageResource, QUrl(image))
                                .isNull() ||
                            !v->writeUp()->loadResource(QTextDocument::ImageResource, QUrl(image)).isNull(),
                        qPrintable(image));
                // Rerun on my GPU: offered with a GPU; without one disabled, saying why.
                QVERIFY(v->rerunButton()->isVisible());
                QCOMPARE(v->rerunButton()->isEnabled(), gpu);
                if (!gpu) QVERIFY2(v->rerunButton()->toolTip().contains(QStringLiteral("No GPU")), qPrintable(v->rerunButton()->toolTip()));
                if (g.id == QLatin1String("ffma_chains")) {
                    v->resize(1600, 1000);
                    QTest::qWait(50);
                    maybeScreenshot(v, QStringLiteral("series-ffma_chains-1600x1000.png"));
                }
            } else {
                auto* writeUp = qobject_cast<QTextBrowser*>(w->writeUpWindow());
                QVERIFY(writeUp && writeUp->isVisible());
                QVERIFY(!writeUp->toPlainText().trimmed().isEmpty());
                if (g.id == QLatin1String("gemm_epilogue")) {
                    writeUp->resize(1000, 1000);
                    QTest::qWait(50);
                    maybeScreenshot(writeUp, QStringLiteral("gallery-report-gemm_epilogue-1000x1000.png"));
                }
            }
        }
        // File → Examples lists every entry of the manifest.
        QMenu* examples = nullptr;
        for (QMenu* m : w->findChildren<QMenu*>())
            if (m->title() == QStringLiteral("E&xamples")) examples = m;
        QVERIFY(examples);
        QCOMPARE(examples->actions().size(), bundledGallery().size());
        examples->popup(QPoint(0, 0));
        QTest::qWait(50);
        maybeScreenshot(examples, QStringLiteral("gallery-menu.png"));
        examples->hide();
        QVERIFY(!w->openBundledExperiment(QStringLiteral("no_such_example")));
        QVERIFY(!w->rerunBundledSeries(QStringLiteral("overview")));
        // A link to another example's write-up opens it; any other link is not followed.
        QVERIFY(w->openBundledExperiment(QStringLiteral("ffma_chains")));
        emit w->galleryView()->writeUp()->anchorClicked(QUrl(QStringLiteral("sgemm_ptxas_opt.md")));
        QTRY_COMPARE(w->galleryView()->model()->series().vary, std::string("--ptxas-opt=0,1,2,3"));
        emit w->galleryView()->writeUp()->anchorClicked(QUrl(QStringLiteral("file:///etc/passwd")));
        QTest::qWait(20);
        QCOMPARE(w->galleryView()->model()->series().vary, std::string("--ptxas-opt=0,1,2,3"));
    }

    void seriesTravelsWithTheSession() {
        auto w = testutil::makeTestWindow();
        QStringList reported;
        w->experiment()->setErrorReporter([&reported](const QString& e) { reported << e; });
        QString error;
        QVERIFY2(w->openSeries(kExamples + QStringLiteral("ffma_chains.series.json"), &error),
                 qPrintable(error));
        const QString path = m_tmp.filePath(QStringLiteral("with-series.lowerscope"));
        QVERIFY2(w->experiment()->saveSession(path), qPrintable(reported.join(QLatin1Char('\n'))));
        const nlohmann::json saved = readJson(path);
        QCOMPARE(saved["series"]["vary"], nlohmann::json("-D CHAINS=1,2,4,8,16"));
        auto writeSession = [&](const QString& name, const nlohmann::json& doc) {
            const QString p = m_tmp.filePath(name);
            QFile f(p);
            f.open(QIODevice::WriteOnly);
            f.write(QByteArray::fromStdString(doc.dump()));
            return p;
        };
        // Another session without a series clears the pane; the saved one brings it back.
        nlohmann::json withoutSeries = saved;
        withoutSeries.erase("series");
        QVERIFY(
            w->experiment()->openSession(writeSession(QStringLiteral("plain.lowerscope"), withoutSeries)));
        QVERIFY(!w->seriesPane()->hasSeries());
        QCOMPARE(w->seriesPane()->model()->rowCount(), 0);
        QVERIFY(w->experiment()->openSession(path));
        QCOMPARE(w->seriesPane()->model()->rowCount(), 5);
        // A session whose series is hostile still opens; its series is not shown, and it says so.
        nlohmann::json hostile = saved;
        hostile["series"]["points"] = "lots";
        QVERIFY(w->experiment()->openSession(writeSession(QStringLiteral("hostile.lowerscope"), hostile)));
        QVERIFY(w->statusBar()->currentMessage().contains(QStringLiteral("not shown")));
    }

    void seriesRunsThroughTheFakeGpu() {
        if (!testutil::haveBuildTools()) QSKIP("nvcc/nvdisasm not found (run scripts/bootstrap)");
        testutil::useFakeGpu(true);
        // The gallery's Rerun on my GPU: the bundled source and sidecar, every point built here.
        auto w = testutil::makeTestWindow();
        QVERIFY(w->openBundledExperiment(QStringLiteral("sgemm_maxrregcount_profile")));
        SeriesView* v = w->galleryView();
        QSignalSpy done(v, &SeriesView::runFinished);
        QString error;
        QVERIFY2(w->rerunBundledSeries(QStringLiteral("sgemm_maxrregcount_profile"), &error),
                 qPrintable(error));
        QVERIFY(v->isRunning());
        QVERIFY(done.wait(240000));
        QVERIFY2(done.front().front().toBool(), qPrintable(done.front().at(1).toString()));
        QVERIFY(v->model()->mine().has_value());
        QCOMPARE(v->model()->columnCount(), int(SeriesModel::ColumnCount));
        for (int r = 0; r < v->model()->rowCount(); ++r)
            QVERIFY2(v->model()->mineRow(r) && v->model()->mineRow(r)->medianMs > 0,
                     qPrintable(QString::number(r)));
        // The points were built with their own options: 32 and 40 registers at most.
        QVERIFY(v->model()->mine()->points[0].registers <= 32);
        QCOMPARE(medianLines(v->chartView()).size(), 2);
        v->resize(1600, 1000);
        QTest::qWait(50);
        maybeScreenshot(v, QStringLiteral("series-rerun-sgemm_maxrregcount_profile-1600x1000.png"));

        // The card's Run series over A: a define series of the open source, measured here.
        QVERIFY(w->openFile(kExamples + QStringLiteral("ffma_chains.cu")));
        QVERIFY(testutil::waitForBuilds(w->session()));
        QSignalSpy paneDone(w->seriesPane(), &SeriesView::runFinished);
        w->experimentCard()->setVarySpec(QStringLiteral("-D CHAINS=1,4"));
        QVERIFY(w->experimentCard()->runSeriesButton()->isEnabled());
        w->experimentCard()->runSeriesButton()->click();
        QVERIFY(w->seriesPane()->isRunning());
        QVERIFY(paneDone.wait(240000));
        QVERIFY2(paneDone.front().front().toBool(), qPrintable(paneDone.front().at(1).toString()));
        QCOMPARE(w->seriesPane()->model()->rowCount(), 2);
        QCOMPARE(w->seriesPane()->model()->index(1, SeriesModel::Point).data().toString(),
                 QStringLiteral("CHAINS=4"));
        QVERIFY(w->seriesPane()->model()->series().points[0].registers <
                w->seriesPane()->model()->series().points[1].registers);
        w->resize(1600, 1000);
        QTest::qWait(100);
        maybeScreenshot(w.get(), QStringLiteral("series-pane-card-run-1600x1000.png"));
        // Export writes the document as it was measured.
        const QString out = m_tmp.filePath(QStringLiteral("mine.series.json"));
        QVERIFY(w->seriesPane()->exportDocument(out, false, &error));
        QVERIFY(w->openSeries(out, &error));

        // Cancel: the job stops and says so.
        w->experimentCard()->setVarySpec(QStringLiteral("-D CHAINS=1,2,4,8,16"));
        QSignalSpy cancelled(w->seriesPane(), &SeriesView::runFinished);
        w->experimentCard()->runSeriesButton()->click();
        w->seriesPane()->cancel();
        QVERIFY(cancelled.wait(240000));
        QVERIFY(!cancelled.front().front().toBool());
        testutil::useFakeGpu(false);
    }
};

QTEST_MAIN(SeriesGalleryTest)
#include "test_series_gallery.moc"
