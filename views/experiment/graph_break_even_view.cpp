// Experiment 4 in the examples gallery (graph_break_even_view.h).
#include "views/experiment/graph_break_even_view.h"

#include "core/bounded_json.h"
#include "views/common/build_job.h"
#include "views/experiment/graph_break_even_model.h"
#include "views/common/job_tracker.h"
#include "views/common/worker_job.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>

namespace lowerscope {

namespace {

QString commaList(const std::vector<int>& v, const QString& separator = QStringLiteral(",")) {
    QStringList out;
    for (int x : v) out << QString::number(x);
    return out.join(separator);
}

// The chart of the user's run, as the "This GPU" report names it.
const QString kMineChart = QStringLiteral("this_gpu.graph_break_even.svg");

enum Tab { RecordedTab, MineTab };

// The "This GPU" report: its chart is the run's, made here; nothing else it names is looked up.
class MineReportBrowser : public QTextBrowser {
public:
    using QTextBrowser::QTextBrowser;
    QImage chart;
    QVariant loadResource(int type, const QUrl& url) override {
        if (type == QTextDocument::ImageResource && url == QUrl(kMineChart)) return chart;
        return {};
    }
};

bool readDocument(const nlohmann::json& document, GraphBreakEvenReadout& out, QString* error) {
    std::string why;
    if (readGraphBreakEvenDocument(document, out, why)) return true;
    if (error) *error = QString::fromStdString(why);
    return false;
}

} // namespace

GraphBreakEvenView::GraphBreakEvenView(QWidget* parent, std::shared_ptr<JobTracker> jobs)
    : QWidget(parent), m_jobs(jobs ? std::move(jobs) : std::make_shared<JobTracker>()),
      m_backend(runLocalGraphBreakEvenJob) {
    m_model = new GraphBreakEvenModel(this);
    m_header = new QLabel(tr("No graph break-even document."), this);
    m_header->setObjectName(QStringLiteral("graphHeader"));
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::PlainText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("graphTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    m_writeUp = new QTextBrowser(this);
    m_writeUp->setObjectName(QStringLiteral("graphWriteUp"));
    m_writeUp->setOpenLinks(false); // the owner decides which links lead anywhere
    m_mineReport = new MineReportBrowser(this);
    m_mineReport->setObjectName(QStringLiteral("graphMineReport"));
    m_mineReport->setOpenLinks(false);
    m_mineReport->setPlainText(
        tr("Rerun on my GPU builds the kernel here and measures the same path lengths and replay counts "
           "as the recorded run; the report and chart of your run appear in this tab, and your numbers "
           "beside the recorded ones in the table above."));
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("graphTabs"));
    m_tabs->addTab(m_writeUp, tr("Recorded"));
    m_tabs->addTab(m_mineReport, tr("This GPU"));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("graphStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_rerunButton = new QPushButton(tr("Rerun on my GPU"), this);
    m_rerunButton->setToolTip(tr("Build the kernel and measure its graph path on this machine's GPU with the "
                                 "recorded path lengths and replay counts; your numbers appear next to the "
                                 "recorded ones"));
    m_rerunButton->hide();
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setEnabled(false);
    m_job.runButton = m_rerunButton;
    m_job.cancelButton = m_cancelButton;

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_rerunButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_status, 1);
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->addWidget(m_table);
    m_split->addWidget(m_tabs);
    // The table has a row per N (four or so); the write-up with its chart is what is read at length.
    m_split->setStretchFactor(0, 0);
    m_split->setStretchFactor(1, 1);
    m_split->setSizes({190, 700});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_header);
    layout->addWidget(m_split, 1);
    layout->addLayout(buttons);

    connect(m_rerunButton, &QPushButton::clicked, this, [this] {
        if (m_rerun) m_rerun();
    });
    connect(m_cancelButton, &QPushButton::clicked, this, &GraphBreakEvenView::cancel);
    showMineColumns(false);
}

GraphBreakEvenView::~GraphBreakEvenView() {
    // The runner should not outlive the window: stop the job and wait for it.
    m_jobs->cancelOwnedBy(this, true);
}

void GraphBreakEvenView::showMineColumns(bool on) {
    for (int c = 0; c < GraphBreakEvenModel::ColumnCount; ++c)
        if (GraphBreakEvenModel::isMineColumn(c)) m_table->setColumnHidden(c, !on);
    m_table->resizeColumnsToContents();
}

bool GraphBreakEvenView::setRecorded(const nlohmann::json& document, QString* error) {
    GraphBreakEvenReadout r;
    if (!readDocument(document, r, error)) return false;
    m_recorded = document;
    m_mine = nullptr;
    m_model->setRecorded(r);
    QString header =
        tr("%1 of %2: a path of N launches from the stream against the same path as a CUDA graph")
            .arg(QString::fromStdString(r.kernel), QString::fromStdString(r.file));
    if (!r.device.empty()) header += tr(" — recorded on %1").arg(QString::fromStdString(r.device));
    const QString sep = QStringLiteral(", ");
    header += tr(". Path lengths N = %1; replays R = %2.")
                  .arg(commaList(r.options.pathLengths, sep), commaList(r.options.replays, sep));
    m_header->setText(header);
    m_tabs->setTabText(RecordedTab,
                       r.device.empty() ? tr("Recorded") : tr("Recorded (%1)").arg(QString::fromStdString(r.device)));
    m_tabs->setTabText(MineTab, tr("This GPU"));
    m_tabs->setCurrentIndex(RecordedTab);
    showMineColumns(false);
    // The table as high as its rows, the rest for the write-up.
    const int tableHeight = m_table->horizontalHeader()->sizeHint().height() +
                            m_model->rowCount() * m_table->verticalHeader()->defaultSectionSize() +
                            2 * m_table->frameWidth() + 2;
    m_split->setSizes({tableHeight, std::max(300, m_split->height() - tableHeight)});
    return true;
}

bool GraphBreakEvenView::setRecordedBytes(const QByteArray& bytes, QString* error) {
    JsonLimits limits;
    limits.maxBytes = kMaxGraphBreakEvenDocumentBytes;
    limits.maxDepth = 16;
    std::string why;
    const std::optional<nlohmann::json> d =
        parseJsonBounded(std::string_view(bytes.constData(), size_t(bytes.size())), why, limits);
    if (!d) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    return setRecorded(*d, error);
}

bool GraphBreakEvenView::setMine(const nlohmann::json& document, QString* error) {
    GraphBreakEvenReadout r;
    if (!readDocument(document, r, error)) return false;
    m_mine = document;
    m_model->setMine(r);
    showMineColumns(true);
    // The report and chart of the run, as `lowerscope-cli experiment --graph-break-even` writes them.
    const QString command =
        QStringLiteral("lowerscope-cli experiment %1 --graph-break-even %2 --replays %3 -o this_gpu")
            .arg(QString::fromStdString(r.file), commaList(r.options.pathLengths), commaList(r.options.replays));
    const std::string title =
        "Experiment 4 on this GPU" + (r.device.empty() ? std::string() : " (" + r.device + ")");
    const std::string md = graphBreakEvenMarkdown(
        document, title, "The recorded run's, in the Recorded tab: this run measures the same N and R here.",
        kMineChart.toStdString(), command.toStdString());
    const QByteArray svg = QByteArray::fromStdString(graphBreakEvenSvg(document));
    static_cast<MineReportBrowser*>(m_mineReport)->chart = QImage::fromData(svg, "SVG");
    m_mineReport->setMarkdown(QString::fromStdString(md));
    m_tabs->setTabText(MineTab, r.device.empty() ? tr("This GPU") : tr("This GPU (%1)").arg(QString::fromStdString(r.device)));
    return true;
}

const GraphPathOptions& GraphBreakEvenView::recordedOptions() const {
    return m_model->recorded().options;
}

std::string GraphBreakEvenView::recordedKernel() const {
    return m_model->recorded().kernel;
}

void GraphBreakEvenView::setWriteUp(const QString& markdown, const QStringList& searchPaths) {
    m_writeUp->setSearchPaths(searchPaths);
    m_writeUp->setMarkdown(markdown);
}

void GraphBreakEvenView::setRerunHandler(std::function<void()> rerun) {
    m_rerun = std::move(rerun);
    m_rerunButton->setVisible(bool(m_rerun));
}

quint64 GraphBreakEvenView::run(const LocalGraphBreakEvenRequest& request) {
    m_job.supersede(*m_jobs);
    m_status->setText(tr("Building %1…").arg(QString::fromStdString(request.fileName)));
    const quint64 id = startWorkerJob<LocalGraphBreakEvenOutcome>(
        *m_jobs, this, QStringLiteral("graph"), tr("Graph break-even of %1").arg(QString::fromStdString(request.fileName)),
        request, m_backend,
        [this](quint64 jobId, const std::string& stage) {
            if (m_job.running == jobId) m_status->setText(tr("Graph break-even: %1…").arg(QString::fromStdString(stage)));
        },
        [this](quint64 jobId, const LocalGraphBreakEvenOutcome& outcome) { finished(jobId, outcome); });
    m_job.started(id);
    return id;
}

void GraphBreakEvenView::cancel() {
    m_job.cancel(*m_jobs, m_status);
}

void GraphBreakEvenView::finished(quint64 jobId, const LocalGraphBreakEvenOutcome& outcome) {
    if (!m_job.finish(jobId)) return; // superseded
    QString message;
    bool ok = outcome.ok;
    // A failed or cancelled run leaves what is shown (the recorded numbers, an earlier run) as it was.
    if (outcome.cancelled) {
        message = tr("Rerun cancelled; the recorded numbers are unchanged.");
        ok = false;
    } else if (!ok) {
        message = tr("Rerun failed: %1").arg(QString::fromStdString(outcome.error));
    } else {
        QString error;
        ok = setMine(outcome.document, &error);
        if (ok) {
            message =
                tr("Measured on this GPU: %n path length(s), beside the recorded ones; the report is in the "
                   "\"This GPU\" tab.",
                   "", int(outcome.document["paths"].size()));
            if (!m_model->mine()->note.empty()) message += QLatin1Char(' ') + QString::fromStdString(m_model->mine()->note);
            m_tabs->setCurrentIndex(MineTab);
        } else {
            message = tr("Rerun result unreadable: %1").arg(error);
        }
    }
    showJobStatus(m_status, message, outcome.warnings);
    emit runFinished(ok, message);
}

} // namespace lowerscope
