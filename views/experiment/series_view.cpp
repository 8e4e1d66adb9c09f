// The series view (series_view.h).
#include "views/experiment/series_view.h"

#include "core/bounded_json.h"
#include "views/common/build_job.h"
#include "views/measure/cost_panel.h"
#include "views/common/job_tracker.h"
#include "views/experiment/series_model.h"
#include "views/common/theme.h"
#include "views/common/worker_job.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPushButton>
#include <QSaveFile>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

namespace lowerscope {

namespace {

// The chart's y unit for a largest value in ms: the series spans microseconds to seconds.
std::pair<double, QString> yUnit(double maxMs) {
    if (maxMs < 1e-3) return {1e6, QStringLiteral("ns")};
    if (maxMs < 1) return {1e3, QStringLiteral("µs")};
    if (maxMs < 1e3) return {1, QStringLiteral("ms")};
    return {1e-3, QStringLiteral("s")};
}

} // namespace

SeriesView::SeriesView(QWidget* parent, std::shared_ptr<JobTracker> jobs)
    : QWidget(parent), m_jobs(jobs ? std::move(jobs) : std::make_shared<JobTracker>()),
      m_backend(runLocalSeriesJob) {
    m_model = new SeriesModel(this);
    m_header =
        new QLabel(tr("No series yet: write a Vary spec in the experiment card and Run series, or open a "
                      ".series.json (File → Open series…)."),
                   this);
    m_header->setObjectName(QStringLiteral("seriesHeader"));
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chart = new QChartView(new QChart, this);
    m_chart->setObjectName(QStringLiteral("seriesChart"));
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(220);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("seriesTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_cost = new CostPanel(this);
    m_writeUp = new QTextBrowser(this);
    m_writeUp->setObjectName(QStringLiteral("seriesWriteUp"));
    m_writeUp->setOpenLinks(false); // a document's links lead nowhere from here
    m_writeUp->hide();
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("seriesStatus"));
    m_status->setWordWrap(true);
    m_rerunButton = new QPushButton(tr("Rerun on my GPU"), this);
    m_rerunButton->setToolTip(
        tr("Build and measure every point of this series on this machine's GPU; your numbers "
           "appear next to the recorded ones"));
    m_rerunButton->hide();
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setEnabled(false);
    m_job.runButton = m_rerunButton;
    m_job.cancelButton = m_cancelButton;
    m_exportButton = new QPushButton(tr("Export .series.json…"), this);
    m_exportButton->setEnabled(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_rerunButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_exportButton);
    buttons->addWidget(m_status, 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_chart);
    split->addWidget(m_table);
    // The chart is what is read; the table has one row per point (at most a dozen or so).
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({600, 220});
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_header);
    leftLayout->addWidget(split, 1);
    leftLayout->addWidget(m_cost);
    leftLayout->addLayout(buttons);
    auto* outer = new QSplitter(Qt::Horizontal, this);
    outer->addWidget(left);
    outer->addWidget(m_writeUp);
    outer->setStretchFactor(0, 3);
    outer->setStretchFactor(1, 2);
    outer->setSizes({900, 650});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(outer);

    connect(m_rerunButton, &QPushButton::clicked, this, [this] {
        if (m_rerun) m_rerun();
    });
    connect(m_cancelButton, &QPushButton::clicked, this, &SeriesView::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        const bool mine = !m_mine.is_null();
        const QString path = QFileDialog::getSaveFileName(this, tr("Export series"), QString(),
                                                          tr("Series (*.series.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !exportDocument(path, mine, &error)) m_status->setText(error);
    });
    rebuildChart();
}

SeriesView::~SeriesView() {
    // The job's result would come back to a dead view: stop it and wait (it holds no pointer to us
    // but its runner should not outlive the window).
    m_jobs->cancelOwnedBy(this, true);
}

bool SeriesView::setDocument(const nlohmann::json& document, QString* error) {
    SeriesSummary s;
    std::string why;
    if (!readSeriesDocument(document, s, why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    m_document = document;
    m_mine = nullptr;
    m_model->setSeries(s);
    QString header =
        tr("<b>%1</b> of %2, varying <code>%3</code>")
            .arg(QString::fromStdString(s.kernel).toHtmlEscaped(), QString::fromStdString(s.file).toHtmlEscaped(), QString::fromStdString(s.vary).toHtmlEscaped());
    if (!s.device.empty()) header += tr(" — measured on %1").arg(QString::fromStdString(s.device).toHtmlEscaped());
    m_header->setText(header);
    m_exportButton->setEnabled(true);
    m_table->resizeColumnsToContents();
    rebuildChart();
    updateCost();
    return true;
}

bool SeriesView::openFile(const QString& path, QString* error) {
    std::string text, why;
    JsonLimits limits;
    limits.maxBytes = kMaxSeriesDocumentBytes;
    if (!readFileBounded(path.toStdString(), text, why, limits)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    const std::optional<nlohmann::json> d = parseJsonBounded(text, why, limits);
    if (!d) {
        if (error) *error = tr("%1: %2").arg(path, QString::fromStdString(why));
        return false;
    }
    QString e;
    if (!setDocument(*d, &e)) {
        if (error) *error = tr("%1: %2").arg(path, e);
        return false;
    }
    return true;
}

bool SeriesView::setMine(const nlohmann::json& document, QString* error) {
    SeriesSummary s;
    std::string why;
    if (!readSeriesDocument(document, s, why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    m_mine = document;
    m_model->setMine(s);
    m_table->resizeColumnsToContents();
    rebuildChart();
    updateCost();
    return true;
}

bool SeriesView::hasSeries() const {
    return !m_document.is_null();
}

void SeriesView::clear() {
    m_document = nullptr;
    m_mine = nullptr;
    m_model->setSeries({});
    m_header->setText(tr("No series."));
    m_exportButton->setEnabled(false);
    rebuildChart();
    updateCost();
}

bool SeriesView::exportDocument(const QString& path, bool mine, QString* error) const {
    const nlohmann::json& d = mine ? m_mine : m_document;
    if (d.is_null()) {
        if (error) *error = tr("No series to export.");
        return false;
    }
    QSaveFile f(path);
    const QByteArray bytes = QByteArray::fromStdString(d.dump(1) + "\n");
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

void SeriesView::setWriteUp(const QString& markdown, const QStringList& searchPaths) {
    m_writeUp->setSearchPaths(searchPaths);
    m_writeUp->setMarkdown(markdown);
    m_writeUp->setVisible(!markdown.isEmpty());
}

void SeriesView::setRerunHandler(std::function<void()> rerun) {
    m_rerun = std::move(rerun);
    m_rerunButton->setVisible(bool(m_rerun));
}

quint64 SeriesView::run(const LocalSeriesRequest& request, Target target) {
    m_job.supersede(*m_jobs);
    m_status->setText(tr("Building %1 points…").arg(request.spec.values.size()));
    const quint64 id = startWorkerJob<LocalSeriesOutcome>(
        *m_jobs, this, QStringLiteral("series"), tr("Series %1").arg(QString::fromStdString(request.spec.text)), request,
        m_backend,
        [this](quint64 jobId, const std::string& stage) {
            if (m_job.running == jobId) m_status->setText(tr("Series: %1…").arg(QString::fromStdString(stage)));
        },
        [this, target](quint64 jobId, const LocalSeriesOutcome& outcome) {
            finished(jobId, outcome, target);
        });
    m_job.started(id);
    return id;
}

void SeriesView::cancel() {
    m_job.cancel(*m_jobs, m_status);
}

void SeriesView::finished(quint64 jobId, const LocalSeriesOutcome& outcome, Target target) {
    if (!m_job.finish(jobId)) return; // superseded
    QString message;
    bool ok = outcome.ok;
    if (outcome.cancelled) {
        message = tr("Series cancelled.");
        ok = false;
    } else if (!ok) {
        message = tr("Series failed: %1").arg(QString::fromStdString(outcome.error));
    } else {
        QString error;
        ok = target == Target::Mine ? setMine(outcome.document, &error)
                                    : setDocument(outcome.document, &error);
        message = ok ? tr("Series measured: %1 points.").arg(outcome.document["points"].size())
                     : tr("Series result unreadable: %1").arg(error);
    }
    showJobStatus(m_status, message, outcome.warnings);
    emit runFinished(ok, message);
}

void SeriesView::rebuildChart() {
    auto* chart = new QChart;
    chart->setTheme(Theme::isDark() ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->legend()->setAlignment(Qt::AlignBottom);
    const SeriesSummary& s = m_model->series();
    if (s.points.empty()) {
        chart->setTitle(tr("Median time per point"));
        m_chart->setChart(chart); // the view deletes the previous chart
        return;
    }
    chart->setTitle(
        tr("%1: median time per launch vs %2 (band: 95 % interval)").arg(QString::fromStdString(s.kernel), QString::fromStdString(s.name)));
    double maxMs = 0, minMs = std::numeric_limits<double>::infinity();
    for (const auto& p : s.points) maxMs = std::max(maxMs, p.ciHighMs), minMs = std::min(minMs, p.ciLowMs);
    if (const auto& mine = m_model->mine())
        for (const auto& p : mine->points) maxMs = std::max(maxMs, p.ciHighMs), minMs = std::min(minMs, p.ciLowMs);
    const auto [scale, unit] = yUnit(maxMs);

    auto* axisX = new QCategoryAxis;
    axisX->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axisX->setRange(-0.5, double(s.points.size()) - 0.5);
    for (size_t i = 0; i < s.points.size(); ++i) {
        // Category labels must be unique; the value is shorter than the label when there is one.
        QString label = QString::fromStdString(s.points[i].value.empty() ? s.points[i].label : s.points[i].value);
        while (axisX->categoriesLabels().contains(label)) label += QLatin1Char(' ');
        axisX->append(label, double(i));
    }
    axisX->setTitleText(QString::fromStdString(s.name));
    auto* axisY = new QValueAxis;
    // From 0 when the points differ a lot; around the points when they are close (a 2 % difference
    // drawn from 0 is a flat line), and the axis title says so.
    const bool zoomed = std::isfinite(minMs) && minMs > 0.5 * maxMs;
    const double span = maxMs - (std::isfinite(minMs) ? minMs : 0);
    const double low = zoomed ? std::max(0.0, minMs - 0.25 * std::max(span, 0.01 * maxMs)) : 0;
    const double high = zoomed ? maxMs + 0.25 * std::max(span, 0.01 * maxMs) : maxMs * 1.1;
    axisY->setRange(low * scale, high * scale);
    axisY->setTitleText(zoomed ? tr("time per launch (%1; axis not from 0)").arg(unit) : tr("time per launch (%1)").arg(unit));
    if (!zoomed) axisY->applyNiceNumbers();
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);

    // One median line with its interval band per series: recorded (or this run) and the rerun.
    auto addSeries = [&](const QString& name, const QColor& color,
                         const std::vector<std::pair<size_t, const SeriesRow*>>& rows) {
        auto* lo = new QLineSeries;
        auto* hi = new QLineSeries;
        auto* median = new QLineSeries;
        auto* dots = new QScatterSeries;
        for (const auto& [x, r] : rows) {
            lo->append(double(x), r->ciLowMs * scale);
            hi->append(double(x), r->ciHighMs * scale);
            median->append(double(x), r->medianMs * scale);
            dots->append(double(x), r->medianMs * scale);
        }
        auto* band = new QAreaSeries(hi, lo);
        band->setName(tr("%1: 95 % interval").arg(name));
        QColor fill = color;
        fill.setAlpha(60);
        band->setBrush(fill);
        band->setPen(QPen(fill, 1));
        median->setName(name);
        median->setPen(QPen(color, 2));
        dots->setColor(color);
        dots->setBorderColor(color);
        dots->setMarkerSize(8);
        for (QAbstractSeries* x : std::initializer_list<QAbstractSeries*>{band, median, dots}) {
            chart->addSeries(x);
            x->attachAxis(axisX);
            x->attachAxis(axisY);
        }
        // One legend entry per series: the title says what the band is.
        chart->legend()->markers(dots).first()->setVisible(false);
        chart->legend()->markers(band).first()->setVisible(false);
    };
    std::vector<std::pair<size_t, const SeriesRow*>> rows;
    for (size_t i = 0; i < s.points.size(); ++i) rows.emplace_back(i, &s.points[i]);
    const bool hasMine = m_model->mine().has_value();
    addSeries(hasMine ? tr("recorded") + (s.device.empty() ? QString() : tr(" (%1)").arg(QString::fromStdString(s.device)))
                      : tr("this series"),
              QColor(0x1f, 0x6f, 0xb4), rows);
    if (hasMine) {
        std::vector<std::pair<size_t, const SeriesRow*>> mineRows;
        for (size_t i = 0; i < s.points.size(); ++i)
            if (const SeriesRow* r = m_model->mineRow(int(i))) mineRows.emplace_back(i, r);
        const std::string& device = m_model->mine()->device;
        if (!mineRows.empty())
            addSeries(tr("this GPU") + (device.empty() ? QString() : tr(" (%1)").arg(QString::fromStdString(device))),
                      QColor(0xd9, 0x5f, 0x0e), mineRows);
    }
    m_chart->setChart(chart);
}

void SeriesView::updateCost() {
    std::vector<std::pair<QString, double>> variants;
    const bool hasMine = m_model->mine().has_value();
    // The cost of the user's own numbers when they have them: that is the GPU they pay for.
    const SeriesSummary& s = hasMine ? *m_model->mine() : m_model->series();
    for (const auto& p : s.points) variants.emplace_back(QString::fromStdString(p.label), p.medianMs);
    m_cost->setVariants(variants);
}

} // namespace lowerscope
