#include "views/capture/profile_dialog.h"

#include "core/run/runner_client.h"
#include "core/untrusted.h"
#include "views/common/job_tracker.h"
#include "views/common/theme.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <mutex>

namespace lowerscope {

// What the job (on the tracker's pool) tells the dialog while it runs; the dialog reads it on its
// tick. The program's output is kept bounded here, so a chatty program costs the window nothing.
struct ProfileProgramLive {
    std::mutex mutex;
    capture::OutputTail output{200, 64 * 1024};
    bool profiling = false;   // the capture ended; saved launches are being profiled
    int launchTotal = 0;      // saved launches to profile
    int launchIndex = 0;      // 1-based index of the one being profiled
    std::string launch;       // its id
    std::string stage;        // capture::kCapturedProfilePrepareStage or a collection
    int launchesFailed = 0;
};

namespace {

const QString kGroup = QStringLiteral("profileProgram/");

// A line edit with a Browse… button beside it.
QWidget* withBrowse(QLineEdit* edit, QPushButton*& button, QWidget* parent) {
    auto* row = new QWidget(parent);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit, 1);
    button = new QPushButton(QObject::tr("Browse…"), row);
    h->addWidget(button);
    return row;
}

// The runner that replays the saved launches for their metrics: this machine's (the captured
// addresses repeat only here), with --fixed-addresses; as `capture --metrics`' default
// --runner-timeout, 30 s of silence and 30 s to start.
bool metricsRunnerConfig(RunnerConfig& config, std::string& error, const std::vector<AddressRange>& hold) {
    config = RunnerConfig{};
    config.deadline = std::chrono::seconds(30);
    config.startTimeout = config.deadline;
    config.limitRequestTime = true;
    return capture::replayRunnerConfig(config, error, hold);
}

QString elapsedText(qint64 ms) {
    const qint64 s = ms / 1000;
    return s >= 60 ? QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'))
                   : QStringLiteral("%1 s").arg(QString::number(double(ms) / 1000.0, 'f', 1));
}

} // namespace

ProfileProgramDialog::ProfileProgramDialog(std::shared_ptr<JobTracker> jobs, bool persistent, QWidget* parent)
    : QDialog(parent), m_jobs(std::move(jobs)), m_persistent(persistent) {
    setObjectName(QStringLiteral("profileProgramDialog"));
    setWindowTitle(tr("Profile a program"));

    auto* intro = new QLabel(tr("Runs the program as it is, with CUDA's injection hook: every kernel launch is timed on "
                                "the GPU and every loaded module's cubin is saved beside the document, so each kernel "
                                "opens in the Source, PTX and SASS panes."),
                             this);
    intro->setWordWrap(true);

    QPushButton* browseProgram = nullptr;
    QPushButton* browseDir = nullptr;
    QPushButton* browseOutput = nullptr;
    m_program = new QLineEdit(this);
    m_program->setObjectName(QStringLiteral("captureProgram"));
    m_program->setPlaceholderText(tr("./my_benchmark, python3, …"));
    m_program->setToolTip(tr("The program: a path, or a name searched on PATH"));
    m_arguments = new QLineEdit(this);
    m_arguments->setObjectName(QStringLiteral("captureArguments"));
    m_arguments->setPlaceholderText(tr("--size 4096 'a quoted argument'"));
    m_arguments->setToolTip(tr("Split into words as a shell would ('…', \"…\" and \\ quote); nothing is expanded: "
                               "the program starts without a shell"));
    m_workingDir = new QLineEdit(this);
    m_workingDir->setObjectName(QStringLiteral("captureWorkingDir"));
    m_workingDir->setPlaceholderText(tr("(Lowerscope's current folder)"));
    m_environment = new QPlainTextEdit(this);
    m_environment->setObjectName(QStringLiteral("captureEnvironment"));
    m_environment->setPlaceholderText(tr("NAME=VALUE, one a line (added to Lowerscope's environment)"));
    m_environment->setTabChangesFocus(true);
    m_environment->setFixedHeight(m_environment->fontMetrics().lineSpacing() * 3 + 12);

    m_kernel = new QLineEdit(this);
    m_kernel->setObjectName(QStringLiteral("captureKernel"));
    m_kernel->setPlaceholderText(tr("regex (every kernel when empty)"));
    m_kernel->setToolTip(tr("Selects launches as Nsight Compute's --kernel-name regex: searched in the demangled "
                            "and the mangled name"));
    m_skip = new QLineEdit(this);
    m_skip->setObjectName(QStringLiteral("captureSkip"));
    m_skip->setPlaceholderText(QStringLiteral("0"));
    m_skip->setToolTip(tr("Matching launches passed over first"));
    m_count = new QLineEdit(this);
    m_count->setObjectName(QStringLiteral("captureCount"));
    m_count->setPlaceholderText(tr("all"));
    m_count->setToolTip(tr("Matching launches selected after the skipped ones (all when empty)"));
    for (QLineEdit* e : {m_skip, m_count}) e->setMaximumWidth(e->fontMetrics().horizontalAdvance(QLatin1Char('0')) * 12);
    auto* filter = new QWidget(this);
    auto* fh = new QHBoxLayout(filter);
    fh->setContentsMargins(0, 0, 0, 0);
    fh->addWidget(m_kernel, 1);
    fh->addWidget(new QLabel(tr("skip"), filter));
    fh->addWidget(m_skip);
    fh->addWidget(new QLabel(tr("count"), filter));
    fh->addWidget(m_count);

    auto* metrics = new QWidget(this);
    auto* mh = new QHBoxLayout(metrics);
    mh->setContentsMargins(0, 0, 0, 0);
    const QString names[3] = {tr("kernel metrics"), tr("instruction counts"), tr("stall samples")};
    const char* ids[3] = {"captureMetricsKernel", "captureMetricsInstructions", "captureMetricsSamples"};
    const bool haveMetrics = captureSpecHasMetrics();
    for (int i = 0; i < 3; ++i) {
        m_metrics[i] = new QCheckBox(names[i], metrics);
        m_metrics[i]->setObjectName(QString::fromLatin1(ids[i]));
        m_metrics[i]->setEnabled(haveMetrics);
        m_metrics[i]->setToolTip(haveMetrics ? tr("Collected for the launches the filter selects, each replayed on the "
                                                  "memory the capture saved of it (the first matching launch when "
                                                  "the count is empty); written as LAUNCHES/ID/profile.json beside "
                                                  "the document")
                                             : tr("needs a GPU capture with replay"));
        mh->addWidget(m_metrics[i]);
    }
    mh->addStretch(1);

    m_serialize = new QCheckBox(tr("serialise kernels (durations as Nsight Compute measures them)"), this);
    m_serialize->setObjectName(QStringLiteral("captureSerialize"));
    m_serialize->setToolTip(tr("CUPTI's serialising kernel records: every kernel runs alone and its duration includes "
                               "the front end's work around the blocks, comparable with ncu's gpu__time_duration. "
                               "Off: the program's concurrency is kept and durations are the blocks' span, as Nsight "
                               "Systems shows (about 1 µs shorter)."));

    m_output = new QLineEdit(this);
    m_output->setObjectName(QStringLiteral("captureOutput"));
    m_output->setToolTip(tr("The capture document (lowerscope.capture/1); the cubins are saved in its folder"));

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    form->addRow(tr("&Program:"), withBrowse(m_program, browseProgram, this));
    form->addRow(tr("&Arguments:"), m_arguments);
    form->addRow(tr("&Working folder:"), withBrowse(m_workingDir, browseDir, this));
    form->addRow(tr("&Environment:"), m_environment);
    form->addRow(tr("&Kernel filter:"), filter);
    form->addRow(tr("Metrics:"), metrics);
    form->addRow(tr("Durations:"), m_serialize);
    form->addRow(tr("&Output:"), withBrowse(m_output, browseOutput, this));

    m_preview = new QLabel(this);
    m_preview->setObjectName(QStringLiteral("captureCommand"));
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_preview->setToolTip(tr("The same capture from a terminal"));

    m_programOutput = new QPlainTextEdit(this);
    m_programOutput->setObjectName(QStringLiteral("captureProgramOutput"));
    m_programOutput->setReadOnly(true);
    m_programOutput->setUndoRedoEnabled(false);
    m_programOutput->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_programOutput->setMaximumBlockCount(400); // the job keeps 200 lines; this only guards the widget
    m_programOutput->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_programOutput->setPlaceholderText(tr("The program's output (stdout and stderr) appears here while it runs"));
    m_programOutput->setToolTip(tr("The last 200 lines of what the program printed; control characters shown as \\xNN"));
    m_programOutput->setFixedHeight(m_programOutput->fontMetrics().lineSpacing() * 8 + 12);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("captureError"));
    m_error->setTextFormat(Qt::PlainText); // it quotes the program's and the runner's words
    m_error->setWordWrap(true);
    m_error->setContentsMargins(6, 4, 6, 4);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel#captureError { background: %1; color: %2; }")
                               .arg(Theme::errorPaper().name(), Theme::editorText().name()));
    m_error->hide();

    m_status = new QLabel(tr("Ready."), this);
    m_status->setObjectName(QStringLiteral("captureStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_busy->setTextVisible(false);
    m_busy->setMaximumHeight(12);
    m_busy->setMaximumWidth(120);
    m_busy->hide();
    auto* progress = new QHBoxLayout;
    progress->addWidget(m_status, 1);
    progress->addWidget(m_busy);

    m_profile = new QPushButton(tr("&Profile"), this);
    m_profile->setObjectName(QStringLiteral("captureProfileButton"));
    m_profile->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel run"), this);
    m_cancel->setObjectName(QStringLiteral("captureCancelButton"));
    m_cancel->setToolTip(tr("Kill the program and everything it started (its process group)"));
    m_cancel->setEnabled(false);
    m_close = new QPushButton(tr("Close"), this);
    auto* buttons = new QDialogButtonBox(this);
    buttons->addButton(m_profile, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    buttons->addButton(m_close, QDialogButtonBox::RejectRole);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_preview);
    layout->addWidget(m_programOutput);
    layout->addWidget(m_error);
    layout->addLayout(progress);
    layout->addWidget(buttons);
    resize(760, sizeHint().height());

    connect(browseProgram, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Program to profile"), m_workingDir->text());
        if (!p.isEmpty()) m_program->setText(p);
    });
    connect(browseDir, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Working folder"), m_workingDir->text());
        if (!d.isEmpty()) m_workingDir->setText(d);
    });
    connect(browseOutput, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Capture document"),
                                                       m_output->text().isEmpty() ? defaultOutput() : m_output->text(),
                                                       tr("Capture documents (*.capture.json);;JSON (*.json)"));
        if (!p.isEmpty()) m_output->setText(p);
    });
    for (QLineEdit* e : {m_program, m_arguments, m_workingDir, m_kernel, m_skip, m_count, m_output})
        connect(e, &QLineEdit::textChanged, this, &ProfileProgramDialog::updatePreview);
    connect(m_environment, &QPlainTextEdit::textChanged, this, &ProfileProgramDialog::updatePreview);
    for (QCheckBox* b : m_metrics) connect(b, &QCheckBox::toggled, this, &ProfileProgramDialog::updatePreview);
    connect(m_serialize, &QCheckBox::toggled, this, &ProfileProgramDialog::updatePreview);
    connect(m_profile, &QPushButton::clicked, this, [this] { start(); });
    connect(m_cancel, &QPushButton::clicked, this, &ProfileProgramDialog::cancel);
    connect(m_close, &QPushButton::clicked, this, &ProfileProgramDialog::reject);
    m_tick = new QTimer(this);
    m_tick->setInterval(250);
    connect(m_tick, &QTimer::timeout, this, &ProfileProgramDialog::tick);

    if (m_persistent) loadSettings();
    updatePreview();
}

ProfileProgramDialog::~ProfileProgramDialog() {
    // The worker holds pointers into nothing of ours, but the program must not outlive the window.
    if (m_jobs) m_jobs->cancelOwnedBy(this, true);
}

QCheckBox* ProfileProgramDialog::metricsBox(int which) const { return which >= 0 && which < 3 ? m_metrics[which] : nullptr; }

CaptureFormFields ProfileProgramDialog::fields() const {
    CaptureFormFields f;
    f.program = m_program->text();
    f.arguments = m_arguments->text();
    f.workingDir = m_workingDir->text();
    f.environment = m_environment->toPlainText();
    f.kernelRegex = m_kernel->text();
    f.launchSkip = m_skip->text();
    f.launchCount = m_count->text();
    // (The boxes are disabled while a capture runs; what they say still holds.)
    f.metricsKernel = captureSpecHasMetrics() && m_metrics[0]->isChecked();
    f.metricsInstructions = captureSpecHasMetrics() && m_metrics[1]->isChecked();
    f.metricsSamples = captureSpecHasMetrics() && m_metrics[2]->isChecked();
    f.serializeKernels = m_serialize->isChecked();
    f.output = m_output->text();
    f.injectionLibrary = m_injectionLibrary;
    return f;
}

void ProfileProgramDialog::setFields(const CaptureFormFields& f) {
    m_program->setText(f.program);
    m_arguments->setText(f.arguments);
    m_workingDir->setText(f.workingDir);
    m_environment->setPlainText(f.environment);
    m_kernel->setText(f.kernelRegex);
    m_skip->setText(f.launchSkip);
    m_count->setText(f.launchCount);
    m_metrics[0]->setChecked(f.metricsKernel);
    m_metrics[1]->setChecked(f.metricsInstructions);
    m_metrics[2]->setChecked(f.metricsSamples);
    m_serialize->setChecked(f.serializeKernels);
    m_output->setText(f.output);
    m_injectionLibrary = f.injectionLibrary;
    updatePreview();
}

QString ProfileProgramDialog::defaultOutput() const {
    const QString dir = m_workingDir->text().trimmed().isEmpty() ? QDir::homePath() : m_workingDir->text().trimmed();
    QString base = QFileInfo(m_program->text().trimmed()).completeBaseName();
    if (base.isEmpty()) base = QStringLiteral("program");
    return QDir(dir).filePath(QStringLiteral("captures/%1.capture.json").arg(base));
}

QString ProfileProgramDialog::equivalentCommand() const {
    CaptureFormFields f = fields();
    if (f.output.trimmed().isEmpty()) f.output = defaultOutput();
    if (f.injectionLibrary.isEmpty()) f.injectionLibrary = QStringLiteral("/"); // not needed for the line
    capture::CaptureSpec spec;
    QString error;
    if (!captureSpecFromFields(f, spec, error) && !error.startsWith(tr("No injection library"))) return {};
    QStringList words{QStringLiteral("lowerscope-cli"), QStringLiteral("capture")};
    if (!spec.filter.kernelRegex.empty()) words << QStringLiteral("--kernel") << QString::fromStdString(spec.filter.kernelRegex);
    if (spec.filter.skip) words << QStringLiteral("--launch-skip") << QString::number(spec.filter.skip);
    if (spec.filter.count) words << QStringLiteral("--launch-count") << QString::number(*spec.filter.count);
    // --metrics implies --save-launches (and the count of one above when none was given).
    if (const QString metrics = captureMetricsList(f); !metrics.isEmpty()) words << QStringLiteral("--metrics") << metrics;
    if (spec.serializeKernels) words << QStringLiteral("--serialize-kernels");
    words << QStringLiteral("-o") << QString::fromStdString(spec.outputPath) << QStringLiteral("--");
    QStringList argv;
    for (const auto& a : spec.argv) argv << QString::fromStdString(a);
    QString line = joinShellWords(words) + QLatin1Char(' ') + joinShellWords(argv);
    QStringList env;
    for (const auto& [name, value] : spec.env) env << QString::fromStdString(name + "=" + value);
    if (!env.isEmpty()) line = QStringLiteral("env ") + joinShellWords(env) + QLatin1Char(' ') + line;
    if (!spec.workingDir.empty()) line = QStringLiteral("cd %1 && %2").arg(joinShellWords({QString::fromStdString(spec.workingDir)}), line);
    return line;
}

void ProfileProgramDialog::updatePreview() {
    m_output->setPlaceholderText(defaultOutput());
    const QString cmd = equivalentCommand();
    m_preview->setText(cmd.isEmpty() ? QString() : QStringLiteral("<span style='color:gray'>%1</span> <code>%2</code>")
                                                       .arg(tr("As a command:"), cmd.toHtmlEscaped()));
}

void ProfileProgramDialog::showError(const QString& text) {
    m_error->setText(text);
    m_error->setVisible(!text.isEmpty());
}

bool ProfileProgramDialog::start(QString* error) {
    if (isRunning()) {
        if (error) *error = tr("A capture runs already");
        return false;
    }
    if (m_output->text().trimmed().isEmpty()) m_output->setText(defaultOutput());
    capture::CaptureSpec spec;
    QString why;
    if (!captureSpecFromFields(fields(), spec, why)) {
        showError(why);
        m_status->setText(tr("Not started."));
        if (error) *error = why;
        return false;
    }
    showError({});
    if (m_persistent) saveSettings();
    m_runningOutput = QString::fromStdString(spec.outputPath);
    m_counter.emplace(m_runningOutput, QDateTime::currentMSecsSinceEpoch());
    m_elapsed.start();
    m_programOutput->clear();
    m_outputShown = 0;
    auto live = std::make_shared<ProfileProgramLive>();
    m_live = live;
    const std::vector<ProfileCollection> collections = captureMetrics(fields());
    const QString title = tr("Capture of %1").arg(QFileInfo(m_program->text().trimmed()).fileName());
    m_job = m_jobs->start<ProfileProgramResult>(
        this, QStringLiteral("capture"), title,
        [spec, collections, live](quint64, std::atomic<bool>* cancel) {
            ProfileProgramResult r;
            capture::CaptureSpec s = spec;
            s.cancel = cancel; // set: the whole process group is killed
            s.output = [live](std::string_view bytes) {
                const std::lock_guard<std::mutex> lock(live->mutex);
                live->output.append(bytes);
            };
            try {
                r.capture = capture::runCapture(s);
                if (collections.empty() || !r.capture.ok || r.capture.run.cancelled || cancel->load()) return r;
                r.metricsAsked = true;
                int saved = 0;
                for (const auto& snap : r.capture.snapshots) saved += snap.error.empty() ? 1 : 0;
                if (saved == 0) return r; // said by onFinished
                RunnerConfig config;
                if (!metricsRunnerConfig(config, r.runnerError, capture::snapshotAddressRanges(r.capture.snapshots))) return r;
                {
                    const std::lock_guard<std::mutex> lock(live->mutex);
                    live->profiling = true;
                    live->launchTotal = int(r.capture.snapshots.size());
                }
                ProcessRunner runner(config);
                ProfileCollectOptions options;
                options.collections = collections;
                r.profiles = capture::profileCapturedLaunches(
                    s.outputPath, options, runner,
                    [live](const std::string& launch, const std::string& stage) {
                        const std::lock_guard<std::mutex> lock(live->mutex);
                        if (stage == capture::kCapturedProfilePrepareStage) ++live->launchIndex;
                        live->launch = launch;
                        live->stage = stage;
                    },
                    cancel,
                    [live](const capture::CapturedProfile& p) {
                        const std::lock_guard<std::mutex> lock(live->mutex);
                        if (p.exitCode != 0 || p.document.empty()) ++live->launchesFailed;
                    });
                runner.stop();
            } catch (const std::exception& e) {
                if (!r.capture.ok) r.capture.error = e.what();
                else r.runnerError = e.what();
            }
            return r;
        },
        [this](quint64 id, ProfileProgramResult result, bool) { onFinished(id, result); });
    setRunning(true);
    tick();
    return true;
}

void ProfileProgramDialog::cancel() {
    if (!isRunning()) return;
    m_jobs->cancel(m_job);
    m_cancel->setEnabled(false);
    tick();
}

void ProfileProgramDialog::reject() {
    // Closing the dialog while the program runs stops it (the document is still written).
    if (isRunning()) cancel();
    QDialog::reject();
}

void ProfileProgramDialog::setRunning(bool on) {
    m_profile->setEnabled(!on);
    m_cancel->setEnabled(on);
    m_busy->setVisible(on);
    for (QWidget* w : std::initializer_list<QWidget*>{m_program, m_arguments, m_workingDir, m_environment, m_kernel,
                                                      m_skip, m_count, m_output})
        w->setEnabled(!on);
    for (QCheckBox* b : m_metrics) b->setEnabled(!on && captureSpecHasMetrics());
    m_serialize->setEnabled(!on);
    if (on) m_tick->start();
    else m_tick->stop();
}

void ProfileProgramDialog::showOutput() {
    if (!m_live) return;
    QString text;
    {
        const std::lock_guard<std::mutex> lock(m_live->mutex);
        // Unchanged since the last look: nothing to redraw.
        if (m_outputShown == m_live->output.receivedBytes()) return;
        m_outputShown = m_live->output.receivedBytes();
        text = QString::fromUtf8(m_live->output.text());
        if (m_live->output.droppedLines() > 0)
            text = tr("[%1 earlier lines not kept]").arg(m_live->output.droppedLines()) + QLatin1Char('\n') + text;
    }
    QScrollBar* bar = m_programOutput->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum() - 2;
    const int keep = bar->value();
    m_programOutput->setPlainText(text);
    bar->setValue(atEnd ? bar->maximum() : keep); // follows the end unless the user scrolled up
}

void ProfileProgramDialog::tick() {
    if (!isRunning()) return;
    showOutput();
    const QString elapsed = elapsedText(m_elapsed.elapsed());
    bool profiling = false;
    int index = 0, total = 0;
    std::string launch, stage;
    if (m_live) {
        const std::lock_guard<std::mutex> lock(m_live->mutex);
        profiling = m_live->profiling;
        index = m_live->launchIndex;
        total = m_live->launchTotal;
        launch = m_live->launch;
        stage = m_live->stage;
    }
    if (profiling) {
        const QString what = stage.empty() || stage == capture::kCapturedProfilePrepareStage
                                 ? tr("reading its saved memory and disassembling its cubin")
                                 : tr("collecting %1").arg(QString::fromStdString(escapeControl(stage)));
        m_status->setText(!m_cancel->isEnabled()
                              ? tr("Cancelling the metrics: stopping the runner… %1").arg(elapsed)
                              : tr("Metrics: launch %1 of %2 (%3), replayed: %4 — %5")
                                    .arg(std::max(index, 1))
                                    .arg(total)
                                    .arg(QString::fromStdString(escapeControl(launch)), what, elapsed));
        return;
    }
    const quint64 launches = m_counter ? m_counter->poll() : 0;
    const int processes = m_counter ? m_counter->processes() : 0;
    QString text = tr("Running %1 — %2").arg(QFileInfo(m_program->text().trimmed()).fileName(), elapsed);
    if (processes == 0) text += tr(" · no process has initialised CUDA yet");
    else text += tr(" · %1 reported by %2").arg(countOf(launches, tr("kernel launch"), tr("kernel launches")),
                                                 countOf(quint64(processes), tr("process"), tr("processes")));
    if (!m_cancel->isEnabled()) text = tr("Cancelling: killing the program's process group… %1").arg(elapsed);
    m_status->setText(text);
}

void ProfileProgramDialog::onFinished(quint64 id, const ProfileProgramResult& result) {
    if (id != m_job) return;
    m_job = 0;
    setRunning(false);
    showOutput();
    m_last = result;
    const capture::CaptureOutcome& o = result.capture;
    if (!o.ok) {
        const QString why = QString::fromStdString(o.error);
        showError(tr("Capture failed: %1").arg(why));
        m_status->setText(tr("Nothing was captured."));
        emit finished(false, m_runningOutput, why);
        return;
    }
    const capture::CaptureSummary& s = o.summary;
    QString exit = o.run.cancelled ? tr("cancelled after %1").arg(elapsedText(qint64(o.run.wallMs)))
                   : o.run.signal  ? tr("the program was killed by signal %1").arg(o.run.signal)
                                   : tr("the program exited with %1").arg(o.run.exitCode);
    QString message = tr("Captured %1 of %2; %3.").arg(countOf(s.launchTotal, tr("launch"), tr("launches")),
                                                       countOf(s.kernels.size(), tr("kernel"), tr("kernels")), exit);
    // No kernel recorded: the notes say why (no GPU, a CUPTI error, a program that never used CUDA).
    if (s.launchTotal == 0) {
        QStringList notes;
        for (const auto& n : s.notes) notes << QString::fromStdString(n);
        showError(tr("No kernel launch was recorded. %1")
                      .arg(notes.isEmpty() ? tr("The program did not launch a kernel.") : notes.join(QStringLiteral(" · "))));
    } else if (!o.run.cancelled && (o.run.exitCode != 0 || o.run.signal != 0)) {
        showError(tr("The program failed (%1); the launches it made are in the document.").arg(exit));
    }
    if (result.metricsAsked) {
        QStringList problems;
        const capture::CapturedProfiles& p = result.profiles;
        int profiled = 0;
        bool cancelled = false;
        for (const capture::CapturedProfile& l : p.launches) {
            profiled += l.document.empty() ? 0 : 1;
            cancelled |= l.cancelled;
            if (l.cancelled && l.errors.empty()) continue;
            QStringList why;
            for (const std::string& e : l.errors) why << QString::fromStdString(escapeControl(e));
            if (!l.writeFailed.empty())
                why << tr("cannot write %1").arg(QString::fromStdString(escapeControl(l.writeFailed)));
            if (!why.isEmpty()) problems << tr("launch %1: %2").arg(QString::fromStdString(l.launch), why.join(QStringLiteral("; ")));
        }
        if (!result.runnerError.empty()) {
            problems << tr("Metrics: cannot start the runner: %1").arg(QString::fromStdString(escapeControl(result.runnerError)));
        } else if (o.snapshots.empty() || p.launches.empty()) {
            if (!p.ok && !p.error.empty())
                problems << tr("Metrics: %1").arg(QString::fromStdString(escapeControl(p.error)));
            else
                problems << tr("Metrics: no launch was saved for its replay (none selected, or each failed: see the "
                               "document's notes).");
        } else if (!p.ok) {
            problems << tr("Metrics: %1").arg(QString::fromStdString(escapeControl(p.error)));
        } else {
            message += QLatin1Char(' ') + (cancelled ? tr("Metrics cancelled: %1 of %2 written.")
                                                     : tr("Metrics: %1 of %2 profiled (profile.json beside the saved launches)."))
                                              .arg(profiled)
                                              .arg(countOf(quint64(p.launches.size()), tr("saved launch"), tr("saved launches")));
        }
        if (!problems.isEmpty()) {
            // Capped: a thousand launches that all failed the same way need not fill the screen.
            if (problems.size() > 8) {
                const qsizetype more = problems.size() - 8;
                problems = problems.mid(0, 8);
                problems << tr("… and %1 more").arg(more);
            }
            const QString earlier = !m_error->isHidden() ? m_error->text() + QLatin1Char('\n') : QString();
            showError(earlier + problems.join(QLatin1Char('\n')));
        }
    }
    m_status->setText(message);
    emit finished(true, m_runningOutput, message);
}

void ProfileProgramDialog::loadSettings() {
    const QSettings s;
    CaptureFormFields f;
    f.program = s.value(kGroup + QStringLiteral("program")).toString();
    f.arguments = s.value(kGroup + QStringLiteral("arguments")).toString();
    f.workingDir = s.value(kGroup + QStringLiteral("workingDir")).toString();
    f.environment = s.value(kGroup + QStringLiteral("environment")).toString();
    f.kernelRegex = s.value(kGroup + QStringLiteral("kernel")).toString();
    f.launchSkip = s.value(kGroup + QStringLiteral("skip")).toString();
    f.launchCount = s.value(kGroup + QStringLiteral("count")).toString();
    f.metricsKernel = s.value(kGroup + QStringLiteral("metricsKernel")).toBool();
    f.metricsInstructions = s.value(kGroup + QStringLiteral("metricsInstructions")).toBool();
    f.metricsSamples = s.value(kGroup + QStringLiteral("metricsSamples")).toBool();
    f.serializeKernels = s.value(kGroup + QStringLiteral("serializeKernels")).toBool();
    f.output = s.value(kGroup + QStringLiteral("output")).toString();
    setFields(f);
}

void ProfileProgramDialog::saveSettings() const {
    QSettings s;
    const CaptureFormFields f = fields();
    s.setValue(kGroup + QStringLiteral("program"), f.program);
    s.setValue(kGroup + QStringLiteral("arguments"), f.arguments);
    s.setValue(kGroup + QStringLiteral("workingDir"), f.workingDir);
    s.setValue(kGroup + QStringLiteral("environment"), f.environment);
    s.setValue(kGroup + QStringLiteral("kernel"), f.kernelRegex);
    s.setValue(kGroup + QStringLiteral("skip"), f.launchSkip);
    s.setValue(kGroup + QStringLiteral("count"), f.launchCount);
    s.setValue(kGroup + QStringLiteral("metricsKernel"), m_metrics[0]->isChecked());
    s.setValue(kGroup + QStringLiteral("metricsInstructions"), m_metrics[1]->isChecked());
    s.setValue(kGroup + QStringLiteral("metricsSamples"), m_metrics[2]->isChecked());
    s.setValue(kGroup + QStringLiteral("serializeKernels"), f.serializeKernels);
    s.setValue(kGroup + QStringLiteral("output"), f.output);
}

} // namespace lowerscope
