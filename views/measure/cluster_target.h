#pragma once
// The Measure pane's "Slurm cluster…" target (issue 32): a cluster profile (partition, gres,
// constraint, account, time limit, array elements at once, the runner's command on the node and
// the state folder) edited in a small dialog and remembered in QSettings; and the jobs that use it:
// a measurement (Run A / B / A/B) and a parameter series sent as one Slurm task each through
// core/run/slurm.h's SlurmRunner, the back end `lowerscope-cli --cluster slurm` uses. Builds stay
// on this machine; progress is the task's Slurm state (queued / running / done / failed, job id,
// node); Cancel scancels the job.

#include "core/experiment/series_job.h"
#include "core/run/measure_job.h"
#include "core/run/slurm.h"

#include <QDialog>
#include <QString>

#include <atomic>
#include <functional>
#include <string>

class QLineEdit;
class QSpinBox;
class QLabel;

namespace lowerscope {

struct ClusterProfile {
    QString partition, gres = QStringLiteral("gpu:1"), constraint, account, timeLimit;
    int maxTasks = 0;        // array elements at once; 0 = no limit
    QString nodeCommand;     // the runner on the node; "" = lowerscope-runner
    QString stateDir;        // scripts, answers, job ids (the nodes must write it); "" = the cache's
    bool operator==(const ClusterProfile&) const = default;
};

// QSettings keys measure/cluster/*; load gives the defaults when none were saved.
ClusterProfile loadClusterProfile();
void saveClusterProfile(const ClusterProfile& profile);
// "" when every field can reach sbatch's argv, else one sentence naming the field (the same
// syntax rules as the CLI's --partition, --gres, --constraint, --account, --time).
QString clusterProfileProblem(const ClusterProfile& profile);
// The core options of a profile: its state folder or <cache>/slurm. Call clusterProfileProblem first.
SlurmOptions slurmOptionsFor(const ClusterProfile& profile);
// One line of a task's status: "queued (job 12_0)", "running (job 12_0 on node3)", ...
std::string slurmStatusLine(const SlurmTaskStatus& status);

// runMeasureJob with the Slurm back end: one task, the sides interleaved in it. Never throws.
MeasureOutcome runSlurmMeasureJob(const MeasureRequest& request, const SlurmOptions& options, std::atomic<bool>* cancel,
                                  const MeasureProgressFn& progress);
// runLocalSeriesJob with the Slurm back end: every point built here, the whole series one task.
LocalSeriesOutcome runSlurmSeriesJob(const LocalSeriesRequest& request, const SlurmOptions& options,
                                     std::atomic<bool>* cancel, const std::function<void(const std::string&)>& progress);

class ClusterDialog : public QDialog {
    Q_OBJECT
public:
    explicit ClusterDialog(const ClusterProfile& profile, QWidget* parent = nullptr);
    ClusterProfile profile() const;
    void accept() override; // refuses (and says why) while a field cannot reach sbatch
    QLineEdit* field(const char* name) const; // "partition", "gres", ... (tests)

private:
    QLineEdit *m_partition, *m_gres, *m_constraint, *m_account, *m_time, *m_node, *m_state;
    QSpinBox* m_maxTasks;
    QLabel* m_problem;
};

} // namespace lowerscope
