// The Measure pane's Slurm cluster target (cluster_target.h).
#include "views/measure/cluster_target.h"

#include "core/build/build.h"
#include "core/build/process.h"
#include "core/run/built_launch.h"
#include "views/common/build_job.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <filesystem>

namespace lowerscope {

namespace {

const char* const kGroup = "measure/cluster/";

QString key(const char* name) { return QString::fromLatin1(kGroup) + QLatin1String(name); }

} // namespace

ClusterProfile loadClusterProfile() {
    QSettings s;
    ClusterProfile p;
    p.partition = s.value(key("partition"), p.partition).toString();
    p.gres = s.value(key("gres"), p.gres).toString();
    p.constraint = s.value(key("constraint"), p.constraint).toString();
    p.account = s.value(key("account"), p.account).toString();
    p.timeLimit = s.value(key("time"), p.timeLimit).toString();
    p.maxTasks = s.value(key("maxTasks"), p.maxTasks).toInt();
    p.nodeCommand = s.value(key("nodeCommand"), p.nodeCommand).toString();
    p.stateDir = s.value(key("stateDir"), p.stateDir).toString();
    return p;
}

void saveClusterProfile(const ClusterProfile& p) {
    QSettings s;
    s.setValue(key("partition"), p.partition);
    s.setValue(key("gres"), p.gres);
    s.setValue(key("constraint"), p.constraint);
    s.setValue(key("account"), p.account);
    s.setValue(key("time"), p.timeLimit);
    s.setValue(key("maxTasks"), p.maxTasks);
    s.setValue(key("nodeCommand"), p.nodeCommand);
    s.setValue(key("stateDir"), p.stateDir);
}

QString clusterProfileProblem(const ClusterProfile& p) {
    // Each value becomes one `--flag=VALUE` word of sbatch's argv (never a shell); still, only what
    // Slurm's own syntax needs is let through, as the CLI does (app/cli/cluster.cpp).
    struct Check {
        const QString* value;
        const char* field;
        const char* pattern;
        const char* what;
    } checks[] = {
        {&p.partition, "Partition", "[A-Za-z0-9_.,-]{1,128}", "a partition name (list)"},
        {&p.account, "Account", "[A-Za-z0-9_.-]{1,64}", "an account name"},
        {&p.gres, "GRES", "[A-Za-z0-9_.:,-]{1,128}", "a gres list such as gpu:1 or gpu:a100:2"},
        {&p.constraint, "Constraint", "[A-Za-z0-9_.:&|,*\\[\\]()-]{1,200}", "a constraint expression"},
        {&p.timeLimit, "Time limit", "[0-9]{1,6}([-:][0-9]{1,2}){0,3}", "a Slurm time (minutes, M:S, H:M:S, D-H...)"},
    };
    for (const Check& c : checks) {
        const QString v = c.value->trimmed();
        if (v.isEmpty()) continue;
        const QRegularExpression re(QStringLiteral("\\A(?:%1)\\z").arg(QLatin1String(c.pattern)));
        if (!re.match(v).hasMatch())
            return QObject::tr("%1 '%2' is not %3.").arg(QLatin1String(c.field), v.left(80), QLatin1String(c.what));
    }
    if (p.maxTasks < 0 || p.maxTasks > 10000) return QObject::tr("Tasks at once must be 0 to 10000.");
    try {
        splitShellWords(p.nodeCommand.toStdString());
    } catch (const std::invalid_argument& e) {
        return QObject::tr("Runner on the node: %1").arg(QString::fromUtf8(e.what()));
    }
    return {};
}

SlurmOptions slurmOptionsFor(const ClusterProfile& p) {
    SlurmOptions o;
    o.partition = p.partition.trimmed().toStdString();
    o.gres = p.gres.trimmed().toStdString();
    o.constraint = p.constraint.trimmed().toStdString();
    o.account = p.account.trimmed().toStdString();
    o.timeLimit = p.timeLimit.trimmed().toStdString();
    o.maxTasks = p.maxTasks;
    try {
        o.nodeCommand = splitShellWords(p.nodeCommand.toStdString());
    } catch (const std::invalid_argument&) {
        // clusterProfileProblem refused it before a job starts
    }
    o.stateDir = p.stateDir.trimmed().isEmpty() ? (std::filesystem::path(cacheDirectory()) / "slurm").string()
                                                 : p.stateDir.trimmed().toStdString();
    return o;
}

std::string slurmStatusLine(const SlurmTaskStatus& s) {
    std::string line = std::string("slurm: ") + slurmTaskStateName(s.state);
    if (!s.jobId.empty()) line += " (job " + s.jobId + (s.node.empty() ? "" : " on " + s.node) + ")";
    if (s.attempts > 1) line += ", attempt " + std::to_string(s.attempts);
    if (s.resumed) line += ", resumed";
    if (!s.message.empty() && s.state == SlurmTaskState::Failed) line += ": " + s.message.substr(0, 300);
    return line;
}

MeasureOutcome runSlurmMeasureJob(const MeasureRequest& request, const SlurmOptions& options, std::atomic<bool>* cancel,
                                  const MeasureProgressFn& progress) {
    // The Slurm runner reports per-task states, not samples: those become the progress lines.
    SlurmRunner runner(options, [&](size_t, const SlurmTaskStatus& s) {
        if (progress) progress(MeasureProgress{slurmStatusLine(s), "", 0, 0, 0});
    });
    return runMeasureJobOn(runner, request, cancel, progress);
}

LocalSeriesOutcome runSlurmSeriesJob(const LocalSeriesRequest& r, const SlurmOptions& options, std::atomic<bool>* cancel,
                                     const std::function<void(const std::string&)>& progress) {
    LocalSeriesOutcome out;
    if (r.profile) {
        out.error = "a series on the cluster takes no profiles (yet), as `experiment --vary --cluster` does not";
        return out;
    }
    const std::function<void(const std::string&)> warn = [&out](const std::string& line) {
        if (out.warnings.size() < 200) out.warnings.push_back(line);
    };
    const std::string fileName =
        r.fileName.empty() ? std::filesystem::path(r.sourcePath).filename().string() : r.fileName;
    SlurmRunner runner(options, [&](size_t, const SlurmTaskStatus& s) {
        if (progress) progress(slurmStatusLine(s));
    });
    try {
        const Toolchain& tc = r.toolchain.nvcc.found() ? r.toolchain : cachedToolchain();
        BuildControl control;
        control.cancel = cancel;
        out.document = runSeriesJob(r.spec, fileName, localSeriesHooks(r, tc, runner, control, warn, cancel, progress));
        out.ok = true;
    } catch (const SeriesCancelled&) {
        out.cancelled = true;
        out.error = "cancelled";
    } catch (const std::exception& e) {
        out.cancelled = cancel && cancel->load();
        out.error = e.what();
    }
    return out;
}

// ------------------------------------------------------------------------------------ dialog

ClusterDialog::ClusterDialog(const ClusterProfile& p, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Slurm cluster"));
    auto edit = [this](const QString& text, const char* name, const QString& placeholder) {
        auto* e = new QLineEdit(text, this);
        e->setObjectName(QLatin1String(name));
        e->setPlaceholderText(placeholder);
        return e;
    };
    m_partition = edit(p.partition, "partition", tr("default partition"));
    m_gres = edit(p.gres, "gres", QStringLiteral("gpu:1"));
    m_constraint = edit(p.constraint, "constraint", tr("node features, e.g. h100"));
    m_account = edit(p.account, "account", tr("default account"));
    m_time = edit(p.timeLimit, "time", tr("e.g. 10 or 0:30:00"));
    m_node = edit(p.nodeCommand, "nodeCommand", QStringLiteral("lowerscope-runner"));
    m_state = edit(p.stateDir, "stateDir", tr("a folder the nodes can write (default: the cache)"));
    m_maxTasks = new QSpinBox(this);
    m_maxTasks->setRange(0, 10000);
    m_maxTasks->setSpecialValueText(tr("no limit"));
    m_maxTasks->setValue(p.maxTasks);
    auto* form = new QFormLayout;
    form->addRow(tr("Partition"), m_partition);
    form->addRow(tr("GRES"), m_gres);
    form->addRow(tr("Constraint"), m_constraint);
    form->addRow(tr("Account"), m_account);
    form->addRow(tr("Time limit"), m_time);
    form->addRow(tr("Tasks at once"), m_maxTasks);
    form->addRow(tr("Runner on the node"), m_node);
    form->addRow(tr("State folder"), m_state);
    m_problem = new QLabel(this);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b3261e"));
    m_problem->setVisible(false);
    auto* note = new QLabel(tr("Builds stay on this machine; each measurement or series is one task of a job array "
                               "(sbatch) that runs the runner under srun. Cancel scancels it."),
                            this);
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &ClusterDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
}

ClusterProfile ClusterDialog::profile() const {
    ClusterProfile p;
    p.partition = m_partition->text().trimmed();
    p.gres = m_gres->text().trimmed();
    p.constraint = m_constraint->text().trimmed();
    p.account = m_account->text().trimmed();
    p.timeLimit = m_time->text().trimmed();
    p.maxTasks = m_maxTasks->value();
    p.nodeCommand = m_node->text().trimmed();
    p.stateDir = m_state->text().trimmed();
    return p;
}

void ClusterDialog::accept() {
    const QString problem = clusterProfileProblem(profile());
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    if (problem.isEmpty()) QDialog::accept();
}

QLineEdit* ClusterDialog::field(const char* name) const { return findChild<QLineEdit*>(QLatin1String(name)); }

} // namespace lowerscope
