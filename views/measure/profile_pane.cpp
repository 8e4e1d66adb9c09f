// The Profile pane (profile_pane.h).
#include "views/measure/profile_pane.h"

#include "views/common/job_tracker.h"
#include "views/measure/measure_pane.h"
#include "views/common/workspace.h"

#include "core/run/buffer_data.h"
#include "core/run/profile_join.h"

#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace lowerscope {

namespace {

// What people call the default kernel metrics (the raw name is the tooltip).
QString metricLabel(const std::string& name) {
    static const std::map<std::string, const char*> labels = {
        {"gpu__time_duration.sum", "Duration"},
        {"dram__bytes_read.sum", "DRAM read"},
        {"dram__bytes_write.sum", "DRAM written"},
        {"lts__t_sector_hit_rate.pct", "L2 hit rate"},
        {"lts__t_bytes.sum", "L2 bytes"},
        {"l1tex__t_sector_hit_rate.pct", "L1 hit rate"},
        {"l1tex__t_bytes.sum", "L1 bytes"},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved occupancy"},
        {"smsp__issue_active.avg.pct_of_peak_sustained_active", "Issue slots busy"},
        {"sm__inst_executed.avg.per_cycle_active", "IPC (per SM)"},
        {"smsp__inst_executed.sum", "Warp instructions"},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput"},
        {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory throughput"},
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput"},
        {"smsp__sass_average_branch_targets_threads_uniform.pct", "Branch efficiency"},
        {"smsp__thread_inst_executed_per_inst_executed.ratio", "Threads per instruction"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "Shared bank conflicts"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "  of loads"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "  of stores"},
        {"sm__cycles_elapsed.avg.per_second", "SM clock"},
    };
    auto it = labels.find(name);
    return it != labels.end() ? QString::fromLatin1(it->second) : QString::fromStdString(name);
}

QString valueText(const ProfileMetric& m) {
    if (m.unit == "nanosecond") return QString::fromStdString(formatDuration(m.value * 1e-6));
    if (m.unit == "byte") {
        if (m.value >= 1e9) return QStringLiteral("%1 GB").arg(m.value / 1e9, 0, 'f', 2);
        if (m.value >= 1e6) return QStringLiteral("%1 MB").arg(m.value / 1e6, 0, 'f', 2);
        if (m.value >= 1e3) return QStringLiteral("%1 KB").arg(m.value / 1e3, 0, 'f', 1);
        return QStringLiteral("%1 B").arg(m.value, 0, 'f', 0);
    }
    if (isPercentMetric(m)) return QStringLiteral("%1 %").arg(m.value, 0, 'f', 1);
    if (m.name == "sm__cycles_elapsed.avg.per_second") return QStringLiteral("%1 MHz").arg(m.value / 1e6, 0, 'f', 0);
    if (m.value == std::floor(m.value) && std::fabs(m.value) < 1e15)
        return QString::fromStdString(formatCount(uint64_t(std::max(0.0, m.value))));
    return QString::number(m.value, 'g', 4);
}

// 0..100 for metrics that are a share of a peak (bars), else -1.
double percentOf(const ProfileMetric& m) {
    return isPercentMetric(m) ? std::clamp(m.value, 0.0, 100.0) : -1;
}

QProgressBar* bar(double percent, const QString& text) {
    auto* b = new QProgressBar;
    b->setRange(0, 1000);
    b->setValue(int(std::lround(percent * 10)));
    b->setFormat(text);
    b->setTextVisible(true);
    b->setMaximumHeight(18);
    b->setMinimumWidth(170);
    return b;
}

} // namespace

ProfilePane::ProfilePane(Workspace* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_backend(runProfileJob) {
    m_jobs = session && session->jobs() ? session->jobs() : std::make_shared<JobTracker>();
    buildUi();
    if (session) {
        connect(session, &Workspace::snapshotChanged, this, &ProfilePane::apply);
        connect(session, &Workspace::kernelChanged, this, &ProfilePane::apply);
        connect(session, &Workspace::attributionChanged, this, &ProfilePane::apply);
    }
    apply();
}

ProfilePane::~ProfilePane() {
    if (m_jobs) m_jobs->cancelOwnedBy(this, true);
}

void ProfilePane::buildUi() {
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    m_run = new QPushButton(tr("Profile"), this);
    m_run->setToolTip(tr("Collect kernel metrics, per-instruction counts and stall samples for one launch of the "
                         "current build (the launch of the Measure pane), through the runner and CUPTI"));
    m_runTip = m_run->toolTip();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_status = new QLabel(tr("No profile. Press Profile, or File → Open profile…"), this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(m_run);
    row->addWidget(m_cancel);
    row->addWidget(m_status, 1);
    top->addLayout(row);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_metrics = new QTableWidget(0, 2, split);
    m_metrics->setHorizontalHeaderLabels({tr("Kernel metric"), tr("Value")});
    m_metrics->verticalHeader()->setVisible(false);
    m_metrics->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_metrics->horizontalHeader()->setStretchLastSection(true);
    m_metrics->horizontalHeader()->setMinimumSectionSize(60);
    // Name and a readable bar ("4066 GFLOP/s of 66908") side by side, whatever the dock's width.
    m_metrics->setMinimumWidth(320);
    m_metrics->setWordWrap(false);
    m_metrics->verticalHeader()->setDefaultSectionSize(20);
    m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_metrics->setSelectionMode(QAbstractItemView::NoSelection);

    m_chart = new QChartView(split);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumWidth(230);

    m_hotTable = new QTableWidget(0, 5, split);
    m_hotTable->setHorizontalHeaderLabels({tr("Share"), tr("Line"), tr("SASS"), tr("Executed"), tr("Top stall reasons")});
    m_hotTable->verticalHeader()->setVisible(false);
    m_hotTable->horizontalHeader()->setStretchLastSection(true);
    m_hotTable->setWordWrap(false);
    m_hotTable->setMinimumWidth(240);
    m_hotTable->verticalHeader()->setDefaultSectionSize(20);
    m_hotTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_hotTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_hotTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_hotTable->setToolTip(tr("Source lines by their share of the kernel's stall samples (or of its executed "
                              "instructions when no samples were taken); click one to select it in every pane"));
    split->addWidget(m_metrics);
    split->addWidget(m_chart);
    split->addWidget(m_hotTable);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 5);
    split->setSizes({320, 230, 330});
    top->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, [this] { run(); });
    connect(m_cancel, &QPushButton::clicked, this, &ProfilePane::cancel);
    connect(m_hotTable, &QTableWidget::cellClicked, this, [this](int r, int) {
        if (r < 0 || r >= int(m_hot.size()) || !m_session) return;
        m_session->selectSourceLineIn(m_hot[size_t(r)].file, m_hot[size_t(r)].line);
    });
}

void ProfilePane::setSessionB(Workspace* b, std::function<bool()> active) {
    m_sessionB = b;
    m_activeB = std::move(active);
    if (b) {
        connect(b, &Workspace::snapshotChanged, this, &ProfilePane::apply);
        connect(b, &Workspace::kernelChanged, this, &ProfilePane::apply);
    }
}

bool ProfilePane::requestFor(Workspace* ws, ProfileJobRequest& request, QString& why) const {
    QString unused;
    if (!MeasurePane::sideFromSession(ws, QStringLiteral("A"), request.side, unused)) {
        why = tr("Build the kernel first.");
        return false;
    }
    SnapshotPtr snap = ws->snapshot();
    const KernelModel* k = ws->kernel();
    request.sass = std::shared_ptr<const SassFunction>(snap, &k->sass);
    request.arch = snap->model.arch;
    if (m_launch) request.launch = m_launch();
    else request.launch = defaultLaunch(request.side.file, k->name, request.side.params);
    if (m_runner) request.runnerCommand = m_runner();
    return true;
}

quint64 ProfilePane::run() {
    ProfileJobRequest a;
    QString why;
    if (!requestFor(m_session, a, why)) {
        m_status->setText(why);
        return 0;
    }
    std::optional<ProfileJobRequest> b;
    if (m_sessionB && m_activeB && m_activeB()) {
        ProfileJobRequest rb;
        QString whyB;
        if (requestFor(m_sessionB, rb, whyB)) b = std::move(rb);
    }
    if (m_running) m_jobs->cancel(m_running);
    const QString name = QString::fromStdString(a.side.signature);
    m_status->setText(b ? tr("Profiling A and B: starting the runner…") : tr("Profiling %1: starting the runner…").arg(name));
    QPointer<ProfilePane> self(this);
    auto backend = m_backend;
    const quint64 id = m_jobs->start<Outcomes>(
        this, QStringLiteral("profile"), b ? tr("Profile A/B") : tr("Profile %1").arg(name),
        [backend, a, b, self](quint64 jobId, std::atomic<bool>* cancel) mutable {
            auto one = [&](ProfileJobRequest& r, const QString& label) {
                r.jobId = jobId;
                ProfileStageFn stage = [self, jobId, label](const std::string& c) {
                    QMetaObject::invokeMethod(
                        self.data(),
                        [self, jobId, label, c] {
                            if (self && self->m_running == jobId)
                                self->m_status->setText(self->tr("Profiling%1: collecting %2…")
                                                            .arg(label.isEmpty() ? QString() : QStringLiteral(" ") + label,
                                                                 QString::fromStdString(c)));
                        },
                        Qt::QueuedConnection);
                };
                try {
                    return backend(r, cancel, stage);
                } catch (const std::exception& e) {
                    ProfileJobOutcome out;
                    out.jobId = jobId;
                    out.launchError = e.what();
                    return out;
                }
            };
            Outcomes out;
            out.a = one(a, b ? QStringLiteral("A") : QString());
            if (b && !(cancel && cancel->load())) out.b = one(*b, QStringLiteral("B"));
            return out;
        },
        [this](quint64 jobId, Outcomes outcomes, bool) { onFinished(jobId, outcomes); });
    m_running = id;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    return id;
}

void ProfilePane::setDeviceAvailability(bool available, const QString& reason) {
    m_deviceOk = available;
    m_run->setEnabled(available && !m_running);
    m_run->setToolTip(available ? m_runTip : tr("No GPU to profile on: %1").arg(reason));
    if (!available && !m_running && !m_profile)
        m_status->setText(tr("Profiling needs a GPU where the runner runs: %1. A recorded profile opens with "
                             "File → Open profile…").arg(reason));
}

void ProfilePane::cancel() {
    if (m_running) {
        m_jobs->cancel(m_running);
        m_status->setText(tr("Cancelling: stopping the runner…"));
    }
}

std::shared_ptr<const ProfileDocument> ProfilePane::documentOf(const ProfileJobOutcome& o, const QString& label,
                                                               QStringList& errors, int& exitCode) const {
    const QString prefix = label.isEmpty() ? QString() : label + QStringLiteral(": ");
    if (!o.launchError.empty()) {
        errors << prefix + tr("not profiled: %1").arg(QString::fromStdString(o.launchError));
        exitCode = std::max(exitCode, 1);
        return nullptr;
    }
    for (const auto& e : o.result.errors) errors << prefix + QString::fromStdString(e);
    exitCode = std::max(exitCode, o.result.exitCode);
    if (!o.result.document.contains("device")) return nullptr;
    try {
        return std::make_shared<const ProfileDocument>(readProfileDocument(o.result.document));
    } catch (const std::exception& e) {
        errors << prefix + QString::fromUtf8(e.what());
        return nullptr;
    }
}

void ProfilePane::onFinished(quint64 jobId, const Outcomes& outcomes) {
    if (jobId != m_running) return;
    m_running = 0;
    m_run->setEnabled(m_deviceOk);
    m_cancel->setEnabled(false);
    if (outcomes.a.cancelled || (outcomes.b && outcomes.b->cancelled)) {
        m_status->setText(tr("Profile cancelled."));
        emit jobFinished(jobId, false);
        return;
    }
    QStringList errors;
    int exitCode = 0;
    const bool both = outcomes.b.has_value();
    auto docA = documentOf(outcomes.a, both ? QStringLiteral("A") : QString(), errors, exitCode);
    std::shared_ptr<const ProfileDocument> docB;
    if (both) docB = documentOf(*outcomes.b, QStringLiteral("B"), errors, exitCode);
    if (docB) m_profileB = docB;
    if (docA) {
        setProfile(docA, std::make_shared<const nlohmann::json>(outcomes.a.result.document));
        emit profileCollected(docA);
    } else if (docB) {
        apply();
    }
    if (docB) emit profileCollectedB(docB);
    if (!errors.isEmpty()) {
        const QString head = exitCode == 2 ? tr("Profiling is not available here (timing still works): ")
                                           : tr("Some collections failed: ");
        m_status->setText(head + errors.join(QStringLiteral("; ")));
    }
    emit jobFinished(jobId, errors.isEmpty());
}

void ProfilePane::setProfileB(std::shared_ptr<const ProfileDocument> doc) {
    m_profileB = std::move(doc);
    apply();
}

QString ProfilePane::setProfile(std::shared_ptr<const ProfileDocument> doc, std::shared_ptr<const nlohmann::json> source) {
    m_profile = std::move(doc);
    m_profileSource = m_profile ? std::move(source) : nullptr;
    apply();
    return m_note;
}

void ProfilePane::clearViews() {
    // Every build without a profile comes here: once cleared, a new chart and heat signal per build
    // would be work for nothing.
    if (m_viewsClear) return;
    m_viewsClear = true;
    m_metrics->setRowCount(0);
    m_hotTable->setRowCount(0);
    m_hot.clear();
    m_flops = {};
    m_roofline = {};
    fillChart();
    emit heatChanged({}, {});
}

void ProfilePane::apply() {
    applyViews();
    emit profileApplied();
}

void ProfilePane::applyViews() {
    m_note.clear();
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    const KernelModel* k = m_session ? m_session->kernel() : nullptr;
    if (!m_profile) {
        clearViews();
        return;
    }
    if (!snap || !k) {
        clearViews();
        m_status->setText(tr("A profile is loaded; it shows when its build is open."));
        return;
    }
    const std::vector<uint8_t>& cubin = snap->result.cubin;
    if (auto why = profileDocumentMismatch(*m_profile, digestHex(cubin.data(), cubin.size()), k->sass, k->mangled)) {
        m_note = QString::fromStdString(*why);
        clearViews();
        m_status->setText(tr("Stale profile, not shown: %1. Profile again.").arg(m_note));
        return;
    }
    const ProfileJoin join = joinProfiles(k->sass, {&m_profile->rows}, m_session->attribution());
    const uint64_t samples = join.kernel.sampleTotal();
    const uint64_t executed = join.kernel.count("smsp__sass_inst_executed");
    m_bySamples = samples > 0;
    auto weightOf = [&](const ProfileTotals& t) {
        return m_bySamples ? double(t.sampleTotal()) : double(t.count("smsp__sass_inst_executed"));
    };
    const double all = m_bySamples ? double(samples) : double(executed);

    // Hot lines and heat.
    m_hot.clear();
    std::map<std::string, std::vector<std::pair<int, double>>> heat;
    double hottest = 0;
    for (const auto& l : join.sourceLines) hottest = std::max(hottest, weightOf(l.totals));
    for (const auto& l : join.sourceLines) {
        const double w = weightOf(l.totals);
        if (w <= 0) continue;
        heat[l.file].emplace_back(l.line, w / hottest);
        HotLine h;
        h.file = l.file;
        h.line = l.line;
        h.share = all > 0 ? w / all : 0;
        h.instructions = l.instructions;
        h.executed = l.totals.count("smsp__sass_inst_executed");
        h.samples = l.totals.sampleTotal();
        QStringList rs;
        for (const auto& [reason, share] : stallShares(l.totals, 3))
            rs << QStringLiteral("%1 %2 %").arg(QString::fromStdString(reason)).arg(100.0 * share, 0, 'f', 0);
        h.reasons = rs.join(QStringLiteral(", "));
        m_hot.push_back(std::move(h));
    }
    std::stable_sort(m_hot.begin(), m_hot.end(), [](const HotLine& a, const HotLine& b) { return a.share > b.share; });
    std::vector<std::pair<int, double>> ptxHeat;
    double ptxHottest = 0;
    for (const auto& l : join.ptxLines) ptxHottest = std::max(ptxHottest, weightOf(l.totals));
    for (const auto& l : join.ptxLines)
        if (const double w = weightOf(l.totals); w > 0) ptxHeat.emplace_back(l.line, w / ptxHottest);

    m_showsB = false;
    if (m_profileB && m_sessionB && m_activeB && m_activeB()) {
        const SnapshotPtr snapB = m_sessionB->snapshot();
        const KernelModel* kb = m_sessionB->kernel();
        if (snapB && kb) {
            const auto& cb = snapB->result.cubin;
            m_showsB = !profileDocumentMismatch(*m_profileB, digestHex(cb.data(), cb.size()), kb->sass, kb->mangled);
        }
    }
    m_viewsClear = false;
    m_flops = countFlops(k->sass, join);
    const DeviceInfo* dev = m_profile->device ? &*m_profile->device : nullptr;
    m_roofline = rooflinePoint(m_flops, m_profile->metrics, dev ? dev->fp32PeakGflops : 0, dev ? dev->peakBandwidthGBs : 0);
    fillMetrics(dev);
    fillHot();
    fillChart();
    m_status->setText(tr("Profile of %1%2: %3 executed warp instructions%4.%5")
                          .arg(QString::fromStdString(k->name))
                          .arg(dev ? tr(" on %1").arg(QString::fromStdString(dev->name)) : QString())
                          .arg(QString::fromStdString(formatCount(executed)))
                          .arg(samples ? tr(", %1 stall samples").arg(QString::fromStdString(formatCount(samples)))
                                       : QString())
                          .arg(m_showsB ? tr(" B's metrics beside A's; per-row deltas in Compare A/B.") : QString()));
    emit heatChanged(heat, ptxHeat);
}

void ProfilePane::fillMetrics(const DeviceInfo* dev) {
    m_metrics->setRowCount(0);
    m_metrics->setColumnCount(m_showsB ? 4 : 2);
    m_metrics->setHorizontalHeaderLabels(m_showsB ? QStringList{tr("Kernel metric"), tr("A"), tr("B"), tr("B/A")}
                                                  : QStringList{tr("Kernel metric"), tr("Value")});
    auto addRow = [this](const QString& label, const QString& tip, QWidget* widget, const QString& text) {
        const int r = m_metrics->rowCount();
        m_metrics->insertRow(r);
        auto* name = new QTableWidgetItem(label);
        name->setToolTip(tip);
        m_metrics->setItem(r, 0, name);
        if (widget) m_metrics->setCellWidget(r, 1, widget);
        else m_metrics->setItem(r, 1, new QTableWidgetItem(text));
    };
    const auto& ms = m_profile->metrics;
    // Derived rates against the device's peaks first: what the kernel achieved of what exists.
    const ProfileMetric* ns = findMetric(ms, "gpu__time_duration.sum");
    const ProfileMetric* rd = findMetric(ms, "dram__bytes_read.sum");
    const ProfileMetric* wr = findMetric(ms, "dram__bytes_write.sum");
    if (dev && ns && ns->value > 0 && rd && wr && dev->peakBandwidthGBs > 0) {
        const double gbs = (rd->value + wr->value) / ns->value; // bytes per ns = GB/s
        const QString how = tr("(dram__bytes_read.sum + dram__bytes_write.sum) / gpu__time_duration.sum");
        const QString text = tr("%1 GB/s of %2").arg(gbs, 0, 'f', 0).arg(dev->peakBandwidthGBs, 0, 'f', 0);
        // A rate above the device's peak (5 % for its datasheet rounding) cannot be a fact.
        if (gbs > 1.05 * dev->peakBandwidthGBs)
            addRow(tr("DRAM bandwidth"), how + QStringLiteral("\n") + tr("Impossible value: above the device's peak"),
                   nullptr, tr("⚠ impossible (%1)").arg(text));
        else
            addRow(tr("DRAM bandwidth"), how, bar(100 * gbs / dev->peakBandwidthGBs, text), {});
    }
    if (m_roofline.valid && dev && dev->fp32PeakGflops > 0) {
        addRow(tr("FP32 rate (from counts)"),
               tr("Floating-point operations counted from the executed instructions (FFMA = 2) per second"),
               bar(100 * m_roofline.gflops / dev->fp32PeakGflops,
                   tr("%1 GFLOP/s of %2").arg(m_roofline.gflops, 0, 'f', 0).arg(dev->fp32PeakGflops, 0, 'f', 0)),
               {});
    }
    for (const auto& m : ms) {
        const double pct = percentOf(m);
        QString tip = QString::fromStdString(m.name) + (m.unit.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(m.unit)));
        if (const auto problem = metricRangeProblem(m)) {
            // An impossible value is flagged, never drawn as a fact (issue 35 item 5).
            tip += QStringLiteral("\n") + tr("Impossible value: %1").arg(QString::fromStdString(*problem));
            addRow(metricLabel(m.name), tip, nullptr, tr("⚠ impossible (%1)").arg(valueText(m)));
            m_metrics->item(m_metrics->rowCount() - 1, 1)->setToolTip(tip);
        } else if (pct >= 0) {
            addRow(metricLabel(m.name), tip, bar(pct, valueText(m)), {});
        } else {
            addRow(metricLabel(m.name), tip, nullptr, valueText(m));
        }
        if (!m_showsB) continue;
        const int r = m_metrics->rowCount() - 1;
        if (const ProfileMetric* mb = findMetric(m_profileB->metrics, m.name)) {
            m_metrics->setItem(r, 2, new QTableWidgetItem(valueText(*mb)));
            auto* ratio = new QTableWidgetItem(m.value != 0 ? QStringLiteral("%1").arg(mb->value / m.value, 0, 'f', 3)
                                                            : QStringLiteral("–"));
            ratio->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_metrics->setItem(r, 3, ratio);
        }
    }
}

void ProfilePane::fillHot() {
    m_hotTable->setRowCount(0);
    const std::string main = m_session ? m_session->mainRecordedFile() : std::string();
    const size_t n = std::min<size_t>(m_hot.size(), 50);
    m_hotTable->setRowCount(int(n));
    for (size_t i = 0; i < n; ++i) {
        const HotLine& h = m_hot[i];
        const QString file = h.file == main ? QString() : QFileInfo(QString::fromStdString(h.file)).fileName() + QLatin1Char(':');
        const int r = int(i);
        m_hotTable->setItem(r, 0, new QTableWidgetItem(QStringLiteral("%1 %").arg(100 * h.share, 0, 'f', 1)));
        m_hotTable->setItem(r, 1, new QTableWidgetItem(file + QString::number(h.line)));
        m_hotTable->setItem(r, 2, new QTableWidgetItem(QString::number(h.instructions)));
        m_hotTable->setItem(r, 3, new QTableWidgetItem(QString::fromStdString(formatCount(h.executed))));
        m_hotTable->setItem(r, 4, new QTableWidgetItem(h.reasons));
        m_hotTable->item(r, 1)->setToolTip(QString::fromStdString(h.file));
    }
    m_hotTable->resizeColumnsToContents();
    m_hotTable->horizontalHeaderItem(0)->setText(m_bySamples ? tr("Samples %") : tr("Executed %"));
}

void ProfilePane::fillChart() {
    auto* chart = new QChart;
    // setChart() releases the previous chart without deleting it.
    struct Swap {
        QChartView* view;
        QChart* chart;
        ~Swap() {
            QChart* old = view->chart();
            view->setChart(chart);
            if (old != chart) delete old;
        }
    } swap{m_chart, chart};
    chart->setTitle(tr("Roofline (FLOPs from executed instructions)"));
    chart->legend()->setVisible(false);
    chart->setMargins(QMargins(2, 2, 2, 2));
    const RooflinePoint& p = m_roofline;
    if (!p.valid) {
        chart->setTitle(m_profile ? tr("Roofline: %1").arg(QString::fromStdString(p.why.empty() ? "no profile" : p.why))
                                  : tr("Roofline: no profile"));
        return;
    }
    // Whole decades around the point and the ridge, so the log axis labels powers of ten.
    const double xMin = std::pow(10.0, std::floor(std::log10(std::min(p.intensity, p.ridge) / 3)));
    const double xMax = std::pow(10.0, std::ceil(std::log10(std::max(p.intensity, p.ridge) * 3)));
    auto* roof = new QLineSeries;
    roof->append(xMin, xMin * p.peakGBs);
    roof->append(p.ridge, p.peakGflops);
    roof->append(xMax, p.peakGflops);
    auto* point = new QScatterSeries;
    point->setMarkerSize(11);
    point->append(p.intensity, p.gflops);
    chart->addSeries(roof);
    chart->addSeries(point);
    auto* x = new QLogValueAxis;
    x->setTitleText(tr("FLOP per DRAM byte"));
    // A label per decade does not fit a pane a third of the window wide past four decades.
    x->setBase(std::log10(xMax / xMin) > 4 ? 100 : 10);
    x->setLabelFormat(QStringLiteral("%g"));
    x->setRange(xMin, xMax);
    x->setMinorTickCount(0);
    auto* y = new QLogValueAxis;
    y->setTitleText(tr("GFLOP/s"));
    y->setLabelFormat(QStringLiteral("%g"));
    const double yLow = std::max(1e-3, std::min(p.gflops, xMin * p.peakGBs) / 3);
    y->setRange(std::pow(10.0, std::floor(std::log10(yLow))), std::pow(10.0, std::ceil(std::log10(p.peakGflops * 1.5))));
    y->setMinorTickCount(0);
    QFont small = x->labelsFont();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 2));
    x->setLabelsFont(small);
    y->setLabelsFont(small);
    x->setTitleFont(small);
    y->setTitleFont(small);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (auto* s : {static_cast<QAbstractSeries*>(roof), static_cast<QAbstractSeries*>(point)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    QFont titleFont = chart->titleFont();
    titleFont.setPointSizeF(std::max(7.0, titleFont.pointSizeF() - 1));
    chart->setTitleFont(titleFont);
    chart->setTitle(tr("%1 bound: %2 % of the roof<br>%3 GFLOP/s at %4 FLOP/B")
                        .arg(QString::fromStdString(p.bound))
                        .arg(100 * p.fractionOfRoof, 0, 'f', 1)
                        .arg(p.gflops, 0, 'f', 0)
                        .arg(p.intensity, 0, 'g', 3));
}

} // namespace lowerscope
