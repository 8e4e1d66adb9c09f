// The Measurement pane (measure_pane.h). Over 600 lines because it is one widget with four charts, a
// statistics table, the launch editor and the runner preferences; the charts are the bulk and are
// drawn from core/run/measurement_data.h summaries only.
#include "views/measure/measure_pane.h"

#include "views/measure/cost_panel.h"

#include "core/run/runner_client.h"

#include "views/common/build_job.h"
#include "views/common/workspace.h"
#include "views/common/theme.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace lowerscope {

using nlohmann::json;

namespace {

const QColor kColorA(0x4c, 0x78, 0xa8);
const QColor kColorB(0xf5, 0x85, 0x18);
QColor variantColor(size_t i) { return i == 0 ? kColorA : i == 1 ? kColorB : QColor(0x54, 0xa2, 0x4b); }

QStringList splitList(const QString& text) {
    QStringList out;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) out << part.trimmed();
    return out;
}

std::vector<std::string> toStd(const QStringList& l) {
    std::vector<std::string> v;
    for (const QString& s : l) v.push_back(s.toStdString());
    return v;
}

QString join(const std::vector<std::string>& v, const QString& sep) {
    QStringList l;
    for (const auto& s : v) l << QString::fromStdString(s);
    return l.join(sep);
}

// Chooses a time unit for an axis so labels stay short.
struct TimeUnit {
    double scale; // ms → unit
    QString name;
};
TimeUnit unitFor(double maxMs) {
    if (maxMs < 1) return {1e3, QStringLiteral("µs")};
    if (maxMs < 1000) return {1, QStringLiteral("ms")};
    return {1e-3, QStringLiteral("s")};
}

void resetChart(QChartView* view, const QString& title) {
    QChart* chart = view->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    chart->setTheme(Theme::isDark() ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
}

QChartView* makeChartView(QWidget* parent) {
    auto* v = new QChartView(new QChart, parent);
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumSize(280, 200);
    return v;
}

QString errorExplanation(RunErrorKind kind) {
    switch (kind) {
    case RunErrorKind::KernelFault:
        return QObject::tr("The kernel faulted (its CUDA context is unusable). The runner process ended; the next run "
                           "starts a fresh one.");
    case RunErrorKind::KernelTimeout:
    case RunErrorKind::Deadline:
        return QObject::tr("The kernel did not finish before the deadline; the runner was killed.");
    case RunErrorKind::NoDriver:
    case RunErrorKind::NoDevice:
        return QObject::tr("No GPU here. Set a remote runner host (ssh), or open a result recorded on a GPU machine "
                           "(File → Open measurement).");
    case RunErrorKind::RunnerStart:
    case RunErrorKind::RunnerExited:
        return QObject::tr("The runner could not be started or ended early.");
    case RunErrorKind::BadLaunch:
    case RunErrorKind::BadRequest:
        return QObject::tr("The launch configuration does not fit the kernel.");
    default:
        return {};
    }
}

} // namespace

MeasurePane::MeasurePane(Workspace* a, Workspace* b, const Options& options, QWidget* parent)
    : QWidget(parent), m_opts(options), m_backend(runMeasureJob),
      m_jobs(a ? a->jobs() : std::make_shared<JobTracker>()) {
    buildUi();
    if (m_opts.useSettings) loadSettings();
    setSessions(a, b);
    updateButtons();
}

MeasurePane::~MeasurePane() {
    // Kill a running runner and wait for the worker, so no job reports to a dead pane.
    m_jobs->cancelOwnedBy(this, true);
    if (m_opts.useSettings) saveSettings();
}

void MeasurePane::buildUi() {
    // ---- launch editor
    auto* launchBox = new QGroupBox(tr("Launch"), this);
    m_grid = new QLineEdit(launchBox);
    m_grid->setToolTip(tr("Grid: 1–3 comma-separated expressions of the scalar arguments, e.g. ceil(n/256)"));
    m_block = new QLineEdit(launchBox);
    m_block->setToolTip(tr("Block: 1–3 comma-separated expressions, e.g. 256 or 16,16"));
    m_shared = new QLineEdit(QStringLiteral("0"), launchBox);
    m_shared->setToolTip(tr("Dynamic shared memory per block, bytes (an expression)"));
    m_bytes = new QLineEdit(launchBox);
    m_bytes->setPlaceholderText(tr("e.g. 12*n"));
    m_bytes->setToolTip(tr("Bytes read + written per launch, for GB/s (optional)"));
    m_flops = new QLineEdit(launchBox);
    m_flops->setPlaceholderText(tr("e.g. 2*n"));
    m_flops->setToolTip(tr("Floating-point operations per launch, for FLOP/s (optional)"));
    m_mode = new QComboBox(launchBox);
    m_mode->addItems({QStringLiteral("auto"), QStringLiteral("cold"), QStringLiteral("hot")});
    m_mode->setToolTip(tr("cold: L2 flushed before each sample; hot: CUDA-graph replay of back-to-back launches; "
                          "auto: cold for kernels of 20 µs or more"));
    m_args = new QPlainTextEdit(launchBox);
    m_args->setPlaceholderText(tr("one argument per line, in parameter order:\nn=1<<24\na=2.5\nx=f32[n]:random\n"
                                  "y=f32[n]:zeros"));
    m_args->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_args->setMinimumHeight(90);
    m_origin = new QLabel(launchBox);
    m_origin->setWordWrap(true);
    m_prefill = new QPushButton(tr("Defaults"), launchBox);
    m_prefill->setToolTip(tr("Fill from the kernel's sidecar (kernels/<name>.json) or its PTX signature"));
    auto* form = new QFormLayout;
    form->addRow(tr("Grid"), m_grid);
    form->addRow(tr("Block"), m_block);
    form->addRow(tr("Dyn. shared"), m_shared);
    form->addRow(tr("Mode"), m_mode);
    form->addRow(tr("Bytes/launch"), m_bytes);
    form->addRow(tr("FLOPs/launch"), m_flops);
    auto* launchLayout = new QVBoxLayout(launchBox);
    launchLayout->addLayout(form);
    launchLayout->addWidget(new QLabel(tr("Arguments"), launchBox));
    launchLayout->addWidget(m_args, 1);
    auto* originRow = new QHBoxLayout;
    originRow->addWidget(m_origin, 1);
    originRow->addWidget(m_prefill);
    launchLayout->addLayout(originRow);

    // ---- runner
    auto* runnerBox = new QGroupBox(tr("Runner"), this);
    m_host = new QLineEdit(runnerBox);
    m_host->setPlaceholderText(tr("local (or ssh host, e.g. gpu-box)"));
    m_sshOptions = new QLineEdit(runnerBox);
    m_sshOptions->setPlaceholderText(tr("extra ssh options, e.g. -p 2222"));
    m_remoteCommand = new QLineEdit(runnerBox);
    m_remoteCommand->setPlaceholderText(QStringLiteral("lowerscope-runner"));
    m_commandPreview = new QLabel(runnerBox);
    m_commandPreview->setWordWrap(true);
    m_commandPreview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_target = new QComboBox(runnerBox);
    m_target->addItem(tr("This machine or an ssh host"));
    m_target->addItem(tr("Slurm cluster…"));
    m_target->setToolTip(tr("Where kernels run: the runner here or on the ssh host below, or tasks of a Slurm job "
                            "array (the cluster profile is asked for when chosen, and remembered)"));
    m_editCluster = new QPushButton(tr("Edit…"), runnerBox);
    m_editCluster->setToolTip(tr("Partition, GRES, constraint, account, time limit, tasks at once"));
    auto* targetRow = new QHBoxLayout;
    targetRow->addWidget(m_target, 1);
    targetRow->addWidget(m_editCluster);
    auto* runnerForm = new QFormLayout(runnerBox);
    runnerForm->addRow(tr("Target"), targetRow);
    runnerForm->addRow(tr("Host"), m_host);
    runnerForm->addRow(tr("ssh options"), m_sshOptions);
    runnerForm->addRow(tr("Remote command"), m_remoteCommand);
    runnerForm->addRow(m_commandPreview);

    // ---- run controls
    m_runA = new QPushButton(tr("Run A"), this);
    m_runB = new QPushButton(tr("Run B"), this);
    m_runAB = new QPushButton(tr("Run A/B interleaved"), this);
    m_runAB->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0);
    m_progress->setVisible(false);
    m_progress->setMaximumHeight(14);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_runA);
    runRow->addWidget(m_runB);
    auto* runBox = new QVBoxLayout;
    runBox->addLayout(runRow);
    auto* runRow2 = new QHBoxLayout;
    runRow2->addWidget(m_runAB, 1);
    runRow2->addWidget(m_cancel);
    runBox->addLayout(runRow2);
    runBox->addWidget(m_progress);
    runBox->addWidget(m_status);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(4, 4, 4, 4);
    leftLayout->addWidget(launchBox, 1);
    leftLayout->addLayout(runBox);
    leftLayout->addWidget(runnerBox);
    auto* leftScroll = new QScrollArea(this);
    leftScroll->setWidget(left);
    leftScroll->setWidgetResizable(true);
    leftScroll->setMinimumWidth(250);

    // ---- results
    m_verdict = new QLabel(tr("No measurement yet. Run A/B, or File → Open measurement."), this);
    QFont vf = m_verdict->font();
    vf.setPointSizeF(vf.pointSizeF() * 1.25);
    vf.setBold(true);
    m_verdict->setFont(vf);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setVisible(false);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { background: #fbd5d7; color: #5c0b10; border: 1px solid #c0392b; "
                                          "border-radius: 3px; padding: 6px; }"));
    m_deviceLabel = new QLabel(this);
    m_deviceLabel->setWordWrap(true);

    m_distChart = makeChartView(this);
    m_samplesChart = makeChartView(this);
    m_speedupChart = makeChartView(this);
    m_throughputChart = makeChartView(this);
    m_stats = new QTableWidget(this);
    m_stats->verticalHeader()->hide();
    m_stats->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_distChart, tr("Distribution"));
    m_tabs->addTab(m_samplesChart, tr("Samples && clock"));
    m_tabs->addTab(m_speedupChart, tr("Speedup"));
    m_tabs->addTab(m_throughputChart, tr("Throughput"));
    m_tabs->addTab(m_stats, tr("Statistics"));

    m_cost = new CostPanel(this);

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(4, 4, 4, 4);
    rightLayout->addWidget(m_verdict);
    rightLayout->addWidget(m_error);
    rightLayout->addWidget(m_deviceLabel);
    rightLayout->addWidget(m_tabs, 1);
    rightLayout->addWidget(m_cost);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(leftScroll);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    for (QLineEdit* e : {m_grid, m_block, m_shared, m_bytes, m_flops}) {
        connect(e, &QLineEdit::textEdited, this, [this] {
            m_userEdited = true;
            emit launchEdited();
            emit launchChanged();
        });
    }
    connect(m_block, &QLineEdit::textChanged, this, [this] { emitBlockSize(); });
    connect(m_shared, &QLineEdit::textChanged, this, [this] { emitBlockSize(); });
    connect(m_args, &QPlainTextEdit::textChanged, this, [this] {
        if (m_prefilling) return;
        m_userEdited = true;
        emit launchEdited();
        emit launchChanged();
    });
    connect(m_prefill, &QPushButton::clicked, this, [this] { prefill(); });
    auto preview = [this] {
        m_commandPreview->setText(tr("Runs: %1").arg(join(runnerCommand(), QStringLiteral(" "))));
    };
    for (QLineEdit* e : {m_host, m_sshOptions, m_remoteCommand}) connect(e, &QLineEdit::textChanged, this, preview);
    preview();
    connect(m_target, &QComboBox::activated, this, [this](int index) {
        // Choosing the cluster asks for its profile; a cancelled dialog leaves the target as it was.
        if (index == 1 && !editClusterProfile()) {
            const QSignalBlocker block(m_target);
            m_target->setCurrentIndex(0);
        }
        targetChanged();
    });
    connect(m_editCluster, &QPushButton::clicked, this, [this] {
        if (editClusterProfile()) targetChanged();
    });
    connect(m_runA, &QPushButton::clicked, this, [this] { run(Target::A); });
    connect(m_runB, &QPushButton::clicked, this, [this] { run(Target::B); });
    connect(m_runAB, &QPushButton::clicked, this, [this] { run(Target::AB); });
    connect(m_cancel, &QPushButton::clicked, this, &MeasurePane::cancel);
    resetChart(m_distChart, tr("Sample distribution"));
    resetChart(m_samplesChart, tr("Samples in order"));
    resetChart(m_speedupChart, tr("Speedup"));
    resetChart(m_throughputChart, tr("Throughput vs peak"));
}

void MeasurePane::loadSettings() {
    QSettings s;
    m_host->setText(s.value(QStringLiteral("measure/sshHost")).toString());
    m_sshOptions->setText(s.value(QStringLiteral("measure/sshOptions")).toString());
    m_remoteCommand->setText(s.value(QStringLiteral("measure/remoteCommand")).toString());
    m_cost->setPersistent(true); // price and launches per request, shared with the series view
    m_deadlineS = s.value(QStringLiteral("measure/deadlineS"), 10.0).toDouble();
    m_cluster = loadClusterProfile();
    const QSignalBlocker block(m_target);
    m_target->setCurrentIndex(s.value(QStringLiteral("measure/target")).toString() == QLatin1String("slurm") ? 1 : 0);
    targetChanged();
}

void MeasurePane::saveSettings() {
    QSettings s;
    s.setValue(QStringLiteral("measure/sshHost"), m_host->text());
    s.setValue(QStringLiteral("measure/sshOptions"), m_sshOptions->text());
    s.setValue(QStringLiteral("measure/remoteCommand"), m_remoteCommand->text());
    s.setValue(QStringLiteral("measure/deadlineS"), m_deadlineS);
    s.setValue(QStringLiteral("measure/target"), usesCluster() ? QStringLiteral("slurm") : QStringLiteral("runner"));
    saveClusterProfile(m_cluster);
}

void MeasurePane::setSessions(Workspace* a, Workspace* b) {
    if (m_a) disconnect(m_a, nullptr, this, nullptr);
    if (m_b) disconnect(m_b, nullptr, this, nullptr);
    m_a = a;
    m_b = b;
    auto maybePrefill = [this] {
        // Follow the kernel until the user edits the launch.
        if (!m_userEdited) prefill();
        updateButtons();
    };
    if (m_a) {
        connect(m_a, &Workspace::snapshotChanged, this, maybePrefill);
        connect(m_a, &Workspace::kernelChanged, this, maybePrefill);
        connect(m_a, &Workspace::documentChanged, this, [this] { m_userEdited = false; });
    }
    if (m_b) connect(m_b, &Workspace::snapshotChanged, this, [this] { updateButtons(); });
    if (!m_userEdited) prefill();
    updateButtons();
}

// ------------------------------------------------------------------------------ launch editor

LaunchText MeasurePane::launch() const {
    LaunchText l;
    l.grid = toStd(splitList(m_grid->text()));
    l.block = toStd(splitList(m_block->text()));
    if (l.grid.empty()) l.grid = {"1"};
    if (l.block.empty()) l.block = {"1"};
    l.sharedBytes = m_shared->text().trimmed().isEmpty() ? "0" : m_shared->text().trimmed().toStdString();
    for (const QString& line : m_args->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty()) l.args.push_back(line.trimmed().toStdString());
    l.bytes = m_bytes->text().trimmed().toStdString();
    l.flops = m_flops->text().trimmed().toStdString();
    return l;
}

void MeasurePane::setLaunch(const LaunchText& l) {
    m_prefilling = true;
    m_grid->setText(join(l.grid, QStringLiteral(", ")));
    m_block->setText(join(l.block, QStringLiteral(", ")));
    m_shared->setText(QString::fromStdString(l.sharedBytes.empty() ? "0" : l.sharedBytes));
    m_args->setPlainText(join(l.args, QStringLiteral("\n")));
    m_bytes->setText(QString::fromStdString(l.bytes));
    m_flops->setText(QString::fromStdString(l.flops));
    m_prefilling = false;
    emitBlockSize();
    emit launchChanged();
}

void MeasurePane::setRecordedLaunch(const LaunchText& l, const QString& origin) {
    setLaunch(l);
    m_userEdited = true; // what the session recorded is what it reruns (issue 35 item 7)
    m_prefilledFor = m_a ? m_a->sourcePath() : QString();
    m_prefillOrigin = origin;
    m_origin->setText(tr("From %1").arg(origin));
}

void MeasurePane::prefill() {
    const KernelModel* k = m_a ? m_a->kernel() : nullptr;
    SnapshotPtr snap = m_a ? m_a->snapshot() : nullptr;
    if (!k || !snap) {
        m_prefillOrigin.clear();
        const QString path = m_a ? m_a->sourcePath() : QString();
        // Values filled for another file would be offered for this one: they go until its build
        // gives its own (the user's own edits stay).
        if (!m_userEdited && !m_prefilledFor.isEmpty() && m_prefilledFor != path) {
            setLaunch(LaunchText{}); // empty arguments; not a user edit
            m_prefilledFor.clear();
        }
        m_origin->setText(m_a && (m_a->isBuilding() || !path.isEmpty())
                              ? tr("Launch values follow once %1 is built.").arg(m_a->displayName())
                              : tr("Build A to get default launch values."));
        return;
    }
    std::vector<PtxParam> params;
    PtxLaunchBounds bounds;
    if (k->ptxFunction >= 0 && k->ptxFunction < int(snap->model.ptx.functions.size())) {
        params = snap->model.ptx.functions[size_t(k->ptxFunction)].params;
        bounds = snap->model.ptx.functions[size_t(k->ptxFunction)].launchBounds;
    }
    std::string origin;
    LaunchText l = defaultLaunch(m_a->sourcePath().toStdString(), k->name, params, &origin, &bounds);
    setLaunch(l);
    m_userEdited = false;
    m_prefilledFor = m_a->sourcePath();
    m_prefillOrigin = QString::fromStdString(origin);
    m_origin->setText(tr("From %1").arg(m_prefillOrigin));
}

QString MeasurePane::prefillOrigin() const { return m_prefillOrigin; }

void MeasurePane::emitBlockSize() {
    int threads = 1;
    for (const QString& part : splitList(m_block->text())) {
        bool ok = false;
        int v = part.toInt(&ok);
        if (!ok) return; // an expression: the launch decides; no occupancy hint
        threads *= v;
    }
    bool ok = false;
    int shared = m_shared->text().trimmed().isEmpty() ? 0 : m_shared->text().trimmed().toInt(&ok);
    if (!m_shared->text().trimmed().isEmpty() && !ok) shared = 0;
    emit blockSizeChanged(threads, shared);
}

// ------------------------------------------------------------------------------------ runner

void MeasurePane::setRemote(const QString& host, const QString& sshOptions, const QString& remoteCommand) {
    m_host->setText(host);
    m_sshOptions->setText(sshOptions);
    m_remoteCommand->setText(remoteCommand);
}

QString MeasurePane::remoteHost() const { return m_host->text().trimmed(); }

std::vector<std::string> MeasurePane::runnerCommand() const {
    std::vector<std::string> options;
    for (const QString& o : m_sshOptions->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) options.push_back(o.toStdString());
    const QString remote = m_remoteCommand->text().trimmed();
    return runnerCommandFor(remoteHost().toStdString(), options,
                            remote.isEmpty() ? std::string("lowerscope-runner") : remote.toStdString());
}

bool MeasurePane::usesCluster() const { return m_target->currentIndex() == 1; }

void MeasurePane::setClusterTarget(bool on) {
    {
        const QSignalBlocker block(m_target);
        m_target->setCurrentIndex(on ? 1 : 0);
    }
    targetChanged();
}

void MeasurePane::setClusterProfile(const ClusterProfile& profile) {
    m_cluster = profile;
    targetChanged();
}

bool MeasurePane::editClusterProfile() {
    ClusterDialog dialog(m_cluster, this);
    if (dialog.exec() != QDialog::Accepted) return false;
    m_cluster = dialog.profile();
    return true;
}

void MeasurePane::targetChanged() {
    const bool cluster = usesCluster();
    m_editCluster->setEnabled(cluster);
    for (QLineEdit* e : {m_host, m_sshOptions, m_remoteCommand}) e->setEnabled(!cluster);
    if (cluster) {
        QStringList parts;
        if (!m_cluster.partition.isEmpty()) parts << tr("partition %1").arg(m_cluster.partition);
        if (!m_cluster.gres.isEmpty()) parts << tr("gres %1").arg(m_cluster.gres);
        if (!m_cluster.constraint.isEmpty()) parts << tr("constraint %1").arg(m_cluster.constraint);
        if (!m_cluster.account.isEmpty()) parts << tr("account %1").arg(m_cluster.account);
        if (!m_cluster.timeLimit.isEmpty()) parts << tr("time %1").arg(m_cluster.timeLimit);
        m_commandPreview->setText(tr("Runs: sbatch --array (%1), srun %2 on the node")
                                      .arg(parts.isEmpty() ? tr("cluster defaults") : parts.join(QStringLiteral(", ")),
                                           m_cluster.nodeCommand.isEmpty() ? QStringLiteral("lowerscope-runner")
                                                                           : m_cluster.nodeCommand));
    } else {
        m_commandPreview->setText(tr("Runs: %1").arg(join(runnerCommand(), QStringLiteral(" "))));
    }
    if (m_opts.useSettings) saveSettings(); // remembered at once, not only when the window closes
    if (m_deviceState != DeviceState::Unknown) probeDevice();
}

MeasurePane::SeriesBackend MeasurePane::seriesBackend() const {
    if (!usesCluster()) return runLocalSeriesJob;
    const SlurmOptions options = slurmOptionsFor(m_cluster);
    return [options](const LocalSeriesRequest& r, std::atomic<bool>* cancel,
                     const std::function<void(const std::string&)>& progress) {
        return runSlurmSeriesJob(r, options, cancel, progress);
    };
}

void MeasurePane::setPricePerGpuHour(double price) { m_cost->setPricePerGpuHour(price); }
double MeasurePane::pricePerGpuHour() const { return m_cost->pricePerGpuHour(); }

// -------------------------------------------------------------------------------------- jobs

bool MeasurePane::sideFromSession(Workspace* s, const QString& label, MeasureSide& out, QString& why) {
    SnapshotPtr snap = s ? s->snapshot() : nullptr;
    const KernelModel* k = s ? s->kernel() : nullptr;
    if (!s || !snap || !snap->ok() || !k) {
        why = tr("Build %1 first.").arg(label);
        return false;
    }
    out.label = label.toStdString();
    out.cubin = snap->result.cubin;
    out.mangled = k->mangled;
    out.signature = k->name;
    out.file = s->displayName().toStdString();
    out.buildOptions = shellQuote(toNvccArgs(snap->options));
    if (k->ptxFunction >= 0 && k->ptxFunction < int(snap->model.ptx.functions.size()))
        out.params = snap->model.ptx.functions[size_t(k->ptxFunction)].params;
    return true;
}

quint64 MeasurePane::run(Target target) {
    MeasureRequest request;
    QString why;
    if (target == Target::A || target == Target::AB) {
        MeasureSide a;
        if (!sideFromSession(m_a, QStringLiteral("A"), a, why)) {
            showError(why);
            return 0;
        }
        request.sides.push_back(std::move(a));
    }
    if (target == Target::B || target == Target::AB) {
        MeasureSide b;
        if (!sideFromSession(m_b, QStringLiteral("B"), b, why)) {
            showError(m_b ? why : tr("There is no configuration B (open the Compare pane)."));
            return 0;
        }
        request.sides.push_back(std::move(b));
    }
    if (usesCluster()) {
        if (const QString problem = clusterProfileProblem(m_cluster); !problem.isEmpty()) {
            showError(tr("The cluster profile cannot be used: %1").arg(problem));
            return 0;
        }
    }
    // A newer job supersedes a running one: kill its runner; its result will be dropped.
    if (m_running) m_jobs->cancel(m_running);
    request.launch = launch();
    request.mode = m_mode->currentText().toStdString();
    request.deadlineS = m_deadlineS;
    request.runnerCommand = runnerCommand();
    request.sourceName = m_a ? m_a->displayName().toStdString() : std::string();

    m_error->setVisible(false);
    m_status->setText(tr("Starting the runner (%1)…").arg(QString::fromStdString(request.runnerCommand.empty()
                                                                                    ? std::string()
                                                                                    : request.runnerCommand.front())));
    const QString title = target == Target::AB ? tr("Measure A/B") : target == Target::A ? tr("Measure A") : tr("Measure B");
    QPointer<MeasurePane> self(this);
    MeasureBackend backend = m_backend;
    if (usesCluster()) {
        m_status->setText(tr("Submitting to Slurm…"));
        backend = [options = slurmOptionsFor(m_cluster)](const MeasureRequest& r, std::atomic<bool>* cancel,
                                                         const MeasureProgressFn& progress) {
            return runSlurmMeasureJob(r, options, cancel, progress);
        };
    }
    const quint64 id = m_jobs->start<MeasureOutcome>(
        this, QStringLiteral("measure"), title,
        [backend, request, self](quint64 jobId, std::atomic<bool>* cancel) mutable {
            request.jobId = jobId;
            MeasureProgressFn progress = [self, jobId](const MeasureProgress& p) {
                // Progress crosses to the UI thread by a queued call; a dead pane is skipped.
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, jobId, p] {
                        if (self) self->onProgress(jobId, p);
                    },
                    Qt::QueuedConnection);
            };
            try {
                return backend(request, cancel, progress);
            } catch (const std::exception& e) {
                MeasureOutcome out;
                out.jobId = jobId;
                out.errorKind = RunErrorKind::Internal;
                out.errorMessage = e.what();
                return out;
            }
        },
        [this](quint64 jobId, MeasureOutcome outcome, bool) { onFinished(jobId, outcome); });
    m_running = id;
    updateButtons();
    emit jobStarted(id);
    return id;
}

void MeasurePane::cancel() {
    if (m_running) m_jobs->cancel(m_running);
    if (m_running) m_status->setText(tr("Cancelling: killing the runner…"));
}

void MeasurePane::onProgress(quint64 jobId, const MeasureProgress& p) {
    if (jobId != m_running) return;
    if (p.stage.rfind("slurm:", 0) == 0) { // a cluster task's state, not the runner's samples
        m_status->setText(QString::fromStdString(p.stage));
        emit jobProgress(jobId, m_status->text());
        return;
    }
    QString text = tr("%1%2: %3 samples, noise %4 %, %5 s")
                       .arg(QString::fromStdString(p.stage))
                       .arg(p.variant.empty() ? QString() : QStringLiteral(" ") + QString::fromStdString(p.variant))
                       .arg(p.samples)
                       .arg(p.noise * 100, 0, 'f', 2)
                       .arg(p.elapsedS, 0, 'f', 1);
    m_status->setText(text);
    emit jobProgress(jobId, text);
}

void MeasurePane::onFinished(quint64 jobId, const MeasureOutcome& outcome) {
    if (jobId != m_running) return; // superseded
    m_running = 0;
    updateButtons();
    if (outcome.cancelled) {
        m_status->setText(tr("Cancelled; the runner was stopped."));
        emit jobFinished(jobId, false);
        return;
    }
    if (!outcome.ok) {
        const QString kind = QString::fromLatin1(runErrorKindName(outcome.errorKind));
        QString text = tr("<b>%1</b>: %2").arg(kind.toHtmlEscaped(), QString::fromStdString(outcome.errorMessage).toHtmlEscaped());
        const QString more = errorExplanation(outcome.errorKind);
        if (!more.isEmpty()) text += QStringLiteral("<br>") + more.toHtmlEscaped();
        showError(text);
        m_status->setText(tr("Failed."));
        emit jobFinished(jobId, false);
        return;
    }
    QString error;
    if (!showDocument(outcome.document, &error)) {
        showError(tr("The runner's result could not be read: %1").arg(error));
        emit jobFinished(jobId, false);
        return;
    }
    m_documents.push_back(outcome.document);
    m_status->setText(tr("Done."));
    emit measurementReady(outcome.document);
    emit jobFinished(jobId, true);
}

void MeasurePane::updateButtons() {
    const bool busy = m_running != 0;
    const bool haveA = m_a && m_a->snapshot() && m_a->snapshot()->ok();
    const bool haveB = m_b && m_b->snapshot() && m_b->snapshot()->ok();
    // No GPU (or not known yet): the buttons must not look as if a click could measure.
    const bool gpu = m_deviceState == DeviceState::Unknown || m_deviceState == DeviceState::Available;
    m_runA->setEnabled(!busy && gpu && haveA);
    m_runB->setEnabled(!busy && gpu && haveB);
    m_runAB->setEnabled(!busy && gpu && haveA && haveB);
    const QString why = gpu ? QString() : deviceText();
    m_runA->setToolTip(why.isEmpty() ? tr("Time build A's kernel") : why);
    m_runB->setToolTip(why.isEmpty() ? tr("Time build B's kernel (turn on Compare with… to build B)") : why);
    m_runAB->setToolTip(why.isEmpty() ? tr("Time A and B interleaved on the same buffers and report B/A with its "
                                           "confidence interval")
                                      : why);
    m_cancel->setEnabled(busy);
    m_progress->setVisible(busy);
}

QString MeasurePane::deviceText() const {
    switch (m_deviceState) {
    case DeviceState::Unknown: return {};
    case DeviceState::Probing: return tr("Looking for a GPU on %1…").arg(remoteHost().isEmpty() ? tr("this machine") : remoteHost());
    case DeviceState::Available: return tr("GPU: %1").arg(m_deviceName);
    case DeviceState::Unavailable: break;
    }
    const QString where = remoteHost().isEmpty() ? tr("this machine") : remoteHost();
    QString text = tr("No GPU on %1 — Run is off.").arg(where);
    const QString explanation = errorExplanation(m_deviceKind);
    text += QLatin1Char(' ') + (explanation.isEmpty() ? m_deviceMessage : explanation);
    return text;
}

void MeasurePane::probeDevice() {
    if (usesCluster()) {
        // A probe would be a job of its own on the cluster: the device is known from the first answer.
        ++m_probeJob;
        m_deviceState = DeviceState::Available;
        m_deviceName = tr("a Slurm node");
        if (!m_running) m_status->setText(deviceText());
        updateButtons();
        emit deviceProbed(true);
        return;
    }
    if (!m_probe)
        m_probe = [](const std::vector<std::string>& command, std::string& device, RunErrorKind& kind,
                     std::string& message) { return probeRunner(command, device, kind, message); };
    const quint64 id = ++m_probeJob;
    m_probedCommand = runnerCommand();
    m_deviceState = DeviceState::Probing;
    m_status->setText(deviceText());
    updateButtons();
    struct Answer {
        bool ok = false;
        std::string device, message;
        RunErrorKind kind = RunErrorKind::Unknown;
    };
    m_jobs->start<Answer>(
        this, QStringLiteral("probe"), tr("Probe the runner"),
        [probe = m_probe, command = runnerCommand(),
         hostError = remoteHost().isEmpty() ? std::string() : sshHostError(remoteHost().toStdString())](
            quint64, std::atomic<bool>*) {
            // Not cancellable: a probe ends on its own (it starts a runner and reads its hello).
            Answer a;
            if (!hostError.empty()) { // an option-like host (-oProxyCommand=...) is never started
                a.kind = RunErrorKind::RunnerStart;
                a.message = hostError;
                return a;
            }
            a.ok = probe(command, a.device, a.kind, a.message);
            return a;
        },
        [this, id](quint64, Answer a, bool) {
            if (id != m_probeJob) return; // the host changed meanwhile: a newer probe answers
            m_deviceState = a.ok ? DeviceState::Available : DeviceState::Unavailable;
            m_deviceName = QString::fromStdString(a.device);
            m_deviceKind = a.kind;
            m_deviceMessage = QString::fromStdString(a.message);
            if (!m_running) m_status->setText(deviceText());
            updateButtons();
            emit deviceProbed(a.ok);
        });
    // A changed runner host is probed again (once the user has finished typing it).
    if (id == 1)
        for (QLineEdit* e : {m_host, m_sshOptions, m_remoteCommand})
            connect(e, &QLineEdit::editingFinished, this, [this] {
                if (m_deviceState != DeviceState::Unknown && runnerCommand() != m_probedCommand) probeDevice();
            });
}

void MeasurePane::showError(const QString& text) {
    m_error->setText(text);
    m_error->setVisible(true);
}

QString MeasurePane::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }

// ----------------------------------------------------------------------------------- results

bool MeasurePane::showDocument(const json& document, QString* error) {
    Measurement m;
    try {
        m = parseMeasurement(document);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    showMeasurement(m);
    return true;
}

bool MeasurePane::openMeasurementFile(const QString& path, QString* error) {
    Measurement m;
    try {
        m = loadMeasurementFile(path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    showMeasurement(m);
    m_documents.push_back(m.document);
    emit measurementReady(m.document);
    return true;
}

void MeasurePane::setDocuments(std::vector<json> documents) {
    m_documents = std::move(documents);
    if (!m_documents.empty()) {
        QString error;
        if (!showDocument(m_documents.back(), &error)) showError(tr("The session's last measurement cannot be shown: %1").arg(error));
    } else {
        m_measurement.reset();
        m_verdict->setText(tr("No measurement yet."));
        updateCharts();
        updateCost();
    }
}

QString MeasurePane::verdict() const { return m_verdict->text(); }
QString MeasurePane::costText() const { return m_cost->text(); }

void MeasurePane::showMeasurement(const Measurement& m) {
    m_measurement = std::make_unique<Measurement>(m);
    QString verdict = QString::fromStdString(verdictText(m));
    if (m.synthetic) verdict = tr("[SYNTHETIC DATA] ") + verdict;
    m_verdict->setText(verdict);
    if (m.error) {
        const QString kind = QString::fromLatin1(runErrorKindName(m.error->kind));
        QString text = tr("<b>%1</b>: %2").arg(kind.toHtmlEscaped(), QString::fromStdString(m.error->message).toHtmlEscaped());
        if (!m.error->cudaError.empty()) text += QStringLiteral(" (%1)").arg(QString::fromStdString(m.error->cudaError));
        const QString more = errorExplanation(m.error->kind);
        if (!more.isEmpty()) text += QStringLiteral("<br>") + more.toHtmlEscaped();
        showError(text);
    } else {
        m_error->setVisible(false);
    }
    const DeviceInfo& d = m.device;
    QStringList dev;
    if (!d.name.empty()) dev << QString::fromStdString(d.name);
    if (d.smCount > 0) dev << tr("%1 SMs").arg(d.smCount);
    if (d.clockMhz > 0) dev << tr("%1 MHz rated").arg(d.clockMhz, 0, 'f', 0);
    if (d.peakBandwidthGBs > 0) dev << tr("%1 GB/s peak").arg(d.peakBandwidthGBs, 0, 'f', 0);
    if (!m.variants.empty() && !m.variants[0].mode.empty()) dev << tr("%1 mode").arg(QString::fromStdString(m.variants[0].mode));
    if (!m.note.empty()) dev << QString::fromStdString(m.note);
    m_deviceLabel->setText(dev.join(QStringLiteral(" · ")));
    updateCharts();
    updateCost();
}

void MeasurePane::updateCost() {
    std::vector<std::pair<QString, double>> variants;
    if (m_measurement)
        for (const auto& v : m_measurement->variants) variants.emplace_back(QString::fromStdString(v.label), v.stats.median);
    m_cost->setVariants(variants);
}

void MeasurePane::updateCharts() {
    resetChart(m_distChart, tr("Sample distribution (box: quartiles, whiskers: min–max)"));
    const bool clocks = m_measurement && std::any_of(m_measurement->variants.begin(), m_measurement->variants.end(),
                                                      [](const MeasuredVariant& v) { return !v.clockMhz.empty(); });
    resetChart(m_samplesChart, clocks ? tr("Samples in order, with the SM clock")
                                      : tr("Samples in order (this result has no per-sample SM clock)"));
    resetChart(m_speedupChart, tr("Speedup of B over A (time A / time B) with 95 % CI"));
    resetChart(m_throughputChart, tr("Achieved throughput as % of the device's peaks"));
    m_stats->clear();
    m_stats->setRowCount(0);
    m_stats->setColumnCount(0);
    if (!m_measurement || m_measurement->variants.empty()) return;
    const Measurement& m = *m_measurement;

    double maxMs = 0;
    for (const auto& v : m.variants) maxMs = std::max(maxMs, v.stats.max);
    const TimeUnit unit = unitFor(maxMs);

    // ---- distributions: one box per variant
    {
        QChart* chart = m_distChart->chart();
        auto* series = new QBoxPlotSeries;
        series->setName(tr("time per launch (%1)").arg(unit.name));
        double lo = 1e300, hi = 0;
        for (size_t i = 0; i < m.variants.size(); ++i) {
            const auto& v = m.variants[i];
            const auto& s = v.stats;
            auto* box = new QBoxSet(s.min * unit.scale, s.q1 * unit.scale, s.median * unit.scale, s.q3 * unit.scale,
                                    s.max * unit.scale, QString::fromStdString(v.label));
            box->setBrush(variantColor(i).lighter(130));
            box->setPen(QPen(variantColor(i).darker(130), 1.5));
            series->append(box);
            lo = std::min(lo, s.min * unit.scale);
            hi = std::max(hi, s.max * unit.scale);
        }
        chart->addSeries(series);
        chart->createDefaultAxes();
        if (auto axes = chart->axes(Qt::Vertical); !axes.isEmpty()) {
            auto* y = qobject_cast<QValueAxis*>(axes.first());
            if (y) {
                const double pad = std::max((hi - lo) * 0.15, hi * 0.002);
                y->setRange(std::max(0.0, lo - pad), hi + pad);
                y->setTitleText(unit.name);
            }
        }
        chart->legend()->setVisible(false);
    }

    // ---- samples in order, clock on a second axis
    {
        QChart* chart = m_samplesChart->chart();
        auto* x = new QValueAxis;
        x->setTitleText(tr("sample"));
        x->setLabelFormat(QStringLiteral("%d"));
        auto* y = new QValueAxis;
        y->setTitleText(unit.name);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        QValueAxis* yClock = nullptr;
        double lo = 1e300, hi = 0, cmin = 1e300, cmax = 0;
        size_t n = 0;
        for (size_t i = 0; i < m.variants.size(); ++i) {
            const auto& v = m.variants[i];
            auto* line = new QLineSeries;
            line->setName(QString::fromStdString(v.label));
            line->setPen(QPen(variantColor(i), 1.5));
            QList<QPointF> pts;
            for (size_t k = 0; k < v.samplesMs.size(); ++k) {
                pts << QPointF(double(k), v.samplesMs[k] * unit.scale);
                lo = std::min(lo, v.samplesMs[k] * unit.scale);
                hi = std::max(hi, v.samplesMs[k] * unit.scale);
            }
            line->replace(pts);
            n = std::max(n, v.samplesMs.size());
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
            if (!v.clockMhz.empty()) {
                if (!yClock) {
                    yClock = new QValueAxis;
                    yClock->setTitleText(tr("SM clock (MHz)"));
                    chart->addAxis(yClock, Qt::AlignRight);
                }
                auto* clock = new QLineSeries;
                clock->setName(tr("%1 clock").arg(QString::fromStdString(v.label)));
                QPen pen(variantColor(i).lighter(140), 1, Qt::DashLine);
                clock->setPen(pen);
                QList<QPointF> cp;
                for (size_t k = 0; k < v.clockMhz.size(); ++k) {
                    cp << QPointF(double(k), v.clockMhz[k]);
                    cmin = std::min(cmin, v.clockMhz[k]);
                    cmax = std::max(cmax, v.clockMhz[k]);
                }
                clock->replace(cp);
                chart->addSeries(clock);
                clock->attachAxis(x);
                clock->attachAxis(yClock);
            }
        }
        x->setRange(0, std::max<double>(1, double(n) - 1));
        const double pad = std::max((hi - lo) * 0.1, hi * 0.002);
        y->setRange(std::max(0.0, lo - pad), hi + pad);
        if (yClock) {
            const double cpad = std::max((cmax - cmin) * 0.2, 10.0);
            yClock->setRange(std::max(0.0, cmin - cpad), cmax + cpad);
        }
    }

    // ---- speedup with its interval
    if (m.ratio && m.ratio->pairs > 0 && m.ratio->ratio > 0) {
        const RatioStats& r = *m.ratio;
        const double speed = 1 / r.ratio, lo = 1 / r.ciHigh, hi = 1 / std::max(r.ciLow, 1e-300);
        QChart* chart = m_speedupChart->chart();
        auto* box = new QBoxPlotSeries;
        auto* set = new QBoxSet(lo, lo, speed, hi, hi, tr("%1 vs %2").arg(QString::fromStdString(m.variants[1].label),
                                                                         QString::fromStdString(m.variants[0].label)));
        const QColor c = r.significant ? (speed >= 1 ? QColor(0x1e, 0x8e, 0x3e) : QColor(0xc0, 0x39, 0x2b))
                                       : QColor(0x88, 0x88, 0x88);
        set->setBrush(c.lighter(150));
        set->setPen(QPen(c, 2));
        box->append(set);
        box->setName(tr("speedup (×)"));
        chart->addSeries(box);
        chart->createDefaultAxes();
        auto* parity = new QLineSeries;
        parity->setName(tr("no change (1×)"));
        parity->append(-0.5, 1);
        parity->append(0.5, 1);
        parity->setPen(QPen(QColor(0x80, 0x80, 0x80), 1, Qt::DashLine));
        chart->addSeries(parity);
        if (auto axes = chart->axes(Qt::Vertical); !axes.isEmpty()) {
            auto* y = qobject_cast<QValueAxis*>(axes.first());
            if (y) {
                const double top = std::max(hi, 1.0), bottom = std::min(lo, 1.0);
                const double pad = std::max((top - bottom) * 0.2, 0.02);
                y->setRange(std::max(0.0, bottom - pad), top + pad);
                y->setTitleText(tr("× (time A / time B)"));
                parity->attachAxis(y);
            }
        }
        if (auto axes = chart->axes(Qt::Horizontal); !axes.isEmpty()) parity->attachAxis(axes.first());
        chart->setTitle(tr("Speedup %1× (95 % CI %2–%3)%4")
                            .arg(speed, 0, 'f', 3)
                            .arg(lo, 0, 'f', 3)
                            .arg(hi, 0, 'f', 3)
                            .arg(r.significant ? QString() : tr(" — not significant")));
    } else {
        m_speedupChart->chart()->setTitle(tr("Speedup needs an A/B run"));
    }

    // ---- throughput vs peaks
    {
        QChart* chart = m_throughputChart->chart();
        const DeviceInfo& d = m.device;
        QStringList categories;
        struct Peak {
            QString name;
            bool bandwidth;
            double peak;
        };
        std::vector<Peak> peaks;
        if (d.peakBandwidthGBs > 0) peaks.push_back({tr("DRAM peak %1 GB/s").arg(d.peakBandwidthGBs, 0, 'f', 0), true, d.peakBandwidthGBs});
        if (d.copyBandwidthGBs > 0) peaks.push_back({tr("copy ceiling %1 GB/s").arg(d.copyBandwidthGBs, 0, 'f', 0), true, d.copyBandwidthGBs});
        if (d.fp32PeakGflops > 0) peaks.push_back({tr("FP32 peak %1 TFLOP/s").arg(d.fp32PeakGflops / 1000, 0, 'f', 1), false, d.fp32PeakGflops});
        auto* series = new QBarSeries;
        bool any = false;
        double top = 10;
        QStringList absolute;
        for (size_t i = 0; i < m.variants.size(); ++i) {
            const auto& v = m.variants[i];
            auto* set = new QBarSet(QString::fromStdString(v.label));
            set->setColor(variantColor(i));
            const auto bw = v.bandwidthGBs();
            const auto fl = v.gflops();
            for (const Peak& p : peaks) {
                std::optional<double> val = p.bandwidth ? bw : fl;
                double pct = val ? *val / p.peak * 100 : 0;
                any = any || val.has_value();
                top = std::max(top, pct);
                *set << pct;
            }
            QStringList rates;
            if (bw) rates << tr("%1 GB/s").arg(*bw, 0, 'f', 1);
            if (fl) rates << (*fl >= 1000 ? tr("%1 TFLOP/s").arg(*fl / 1000, 0, 'f', 2) : tr("%1 GFLOP/s").arg(*fl, 0, 'f', 1));
            if (!rates.isEmpty()) absolute << QStringLiteral("%1: %2").arg(QString::fromStdString(v.label), rates.join(QStringLiteral(", ")));
            series->append(set);
        }
        if (any && !peaks.empty()) {
            for (const Peak& p : peaks) categories << p.name;
            series->setLabelsVisible(true);
            series->setLabelsFormat(QStringLiteral("@value %"));
            series->setLabelsPrecision(3);
            chart->addSeries(series);
            auto* x = new QBarCategoryAxis;
            x->append(categories);
            auto* y = new QValueAxis;
            y->setRange(0, std::min(100.0, top) < top ? top * 1.1 : std::max(10.0, std::ceil(top * 1.15 / 10) * 10));
            y->setTitleText(tr("% of peak"));
            chart->addAxis(x, Qt::AlignBottom);
            chart->addAxis(y, Qt::AlignLeft);
            series->attachAxis(x);
            series->attachAxis(y);
            chart->setTitle(tr("Throughput vs peak — %1").arg(absolute.join(QStringLiteral("; "))));
        } else {
            delete series;
            chart->setTitle(any ? tr("Throughput: the device reported no peaks")
                                : tr("Throughput: declare bytes/FLOPs per launch to compare with the peaks"));
        }
    }

    // ---- statistics table
    {
        const QStringList rows{tr("kernel"), tr("mode"), tr("samples"), tr("median"), tr("95 % CI"), tr("min"),
                               tr("mean"), tr("p10 – p90"), tr("noise (stdev/mean)"), tr("outliers (> Q3+3·IQR)"),
                               tr("mean SM clock"), tr("throttled samples"), tr("first launch"), tr("occupancy"),
                               tr("registers"), tr("stop reason"), tr("outputs")};
        m_stats->setRowCount(int(rows.size()));
        m_stats->setColumnCount(int(m.variants.size()) + 1);
        QStringList headers{tr("statistic")};
        for (const auto& v : m.variants) headers << QString::fromStdString(v.label);
        m_stats->setHorizontalHeaderLabels(headers);
        for (int r = 0; r < rows.size(); ++r) m_stats->setItem(r, 0, new QTableWidgetItem(rows[r]));
        auto dur = [](double ms) { return QString::fromStdString(formatDuration(ms)); };
        for (size_t c = 0; c < m.variants.size(); ++c) {
            const auto& v = m.variants[c];
            const auto& s = v.stats;
            double clock = 0;
            for (double f : v.clockMhz) clock += f;
            if (!v.clockMhz.empty()) clock /= double(v.clockMhz.size());
            QStringList outs;
            for (const auto& o : v.outputs)
                outs << QStringLiteral("%1 %2%3").arg(QString::fromStdString(o.name), QString::fromStdString(o.digest),
                                                      o.fullyWritten ? QString() : tr(" (NOT fully written)"));
            const QStringList values{
                QString::fromStdString(v.kernel),
                QString::fromStdString(v.mode),
                QString::number(s.count),
                dur(s.median),
                dur(s.ciLow) + QStringLiteral(" – ") + dur(s.ciHigh),
                dur(s.min),
                dur(s.mean),
                dur(s.p10) + QStringLiteral(" – ") + dur(s.p90),
                QStringLiteral("%1 %").arg(s.noise * 100, 0, 'f', 2),
                QString::number(s.outliers.size()),
                v.clockMhz.empty() ? tr("n/a") : tr("%1 MHz").arg(clock, 0, 'f', 0),
                QString::number(v.throttledSamples),
                v.firstLaunchMs >= 0 ? dur(v.firstLaunchMs) : tr("n/a"),
                v.occupancy >= 0 ? QStringLiteral("%1 %").arg(v.occupancy * 100, 0, 'f', 1) : tr("n/a"),
                v.registers >= 0 ? QString::number(v.registers) : tr("n/a"),
                QString::fromStdString(v.stopReason),
                outs.join(QStringLiteral("; "))};
            for (int r = 0; r < values.size(); ++r) m_stats->setItem(r, int(c) + 1, new QTableWidgetItem(values[r]));
        }
        m_stats->resizeColumnsToContents();
    }
}

} // namespace lowerscope
