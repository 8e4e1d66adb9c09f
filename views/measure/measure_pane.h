#pragma once
// The Measurement pane: a launch-configuration editor (grid, block, dynamic shared memory,
// arguments in the CLI spec language, declared bytes/FLOPs; prefilled from the kernel's sidecar
// or its PTX signature), Run A / Run B / Run A/B interleaved through lowerscope-runner on a worker
// thread with progress and Cancel (which kills the runner), and the results as charts: sample
// distributions (box plots), samples over time with the SM clock, the B/A speedup with its
// confidence interval and a plain verdict, throughput against the device's peaks, and a cost line.
//
// Measurements and runner probes are jobs of the window's JobTracker (workspace A's; jobs()), so
// they are listed and cancelled with the builds; a newer measurement supersedes an older one,
// whose result is dropped. Kernel faults, timeouts and runner failures are shown as errors
// in the pane; nothing in the app depends on the runner staying alive.

#include "core/run/measure_job.h"
#include "core/run/measurement_data.h"
#include "views/common/job_tracker.h"
#include "views/measure/cluster_target.h"

#include <QPointer>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>

class QChartView;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace lowerscope {

class CostPanel;
class Workspace;

class MeasurePane : public QWidget {
    Q_OBJECT
public:
    struct Options {
        bool useSettings = true; // runner host, price, deadline from / to QSettings
    };
    // `a` and `b` are the workspace facades of builds A and B (either may be null; not owned).
    explicit MeasurePane(Workspace* a, Workspace* b = nullptr, QWidget* parent = nullptr)
        : MeasurePane(a, b, Options{}, parent) {}
    MeasurePane(Workspace* a, Workspace* b, const Options& options, QWidget* parent = nullptr);
    ~MeasurePane() override;

    void setSessions(Workspace* a, Workspace* b);
    // Replaces how jobs run (tests install fakes). Default: runMeasureJob.
    void setBackend(MeasureBackend backend) { m_backend = std::move(backend); }

    // ---- launch configuration
    LaunchText launch() const;
    void setLaunch(const LaunchText& launch);
    // A launch recorded with a session: shown and kept (a build of the session's source does not
    // replace it with the sidecar's or the PTX signature's) until another document is opened.
    // `origin` says where it came from ("the session fast_math.lowerscope").
    void setRecordedLaunch(const LaunchText& launch, const QString& origin);
    // Fills the editor from the sidecar / PTX signature of A's current kernel.
    void prefill();
    QString prefillOrigin() const;

    // ---- runner
    // Host "" = local runner. Options are extra ssh arguments (e.g. "-p 2222").
    void setRemote(const QString& host, const QString& sshOptions = {}, const QString& remoteCommand = {});
    QString remoteHost() const;
    std::vector<std::string> runnerCommand() const;
    void setDeadlineSeconds(double s) { m_deadlineS = s; }
    double deadlineSeconds() const { return m_deadlineS; }
    // The target list (issue 32): this machine or an ssh host (the fields below), or "Slurm
    // cluster…", whose profile (cluster_target.h) is edited in a dialog when chosen and remembered
    // with the other runner settings. On the cluster, Run A / B / A/B and Run series go through
    // core's Slurm back end (one task per measurement; Cancel scancels); builds stay here.
    bool usesCluster() const;
    void setClusterTarget(bool on); // without the dialog
    const ClusterProfile& clusterProfile() const { return m_cluster; }
    void setClusterProfile(const ClusterProfile& profile);
    bool editClusterProfile(); // the dialog; true when accepted (the profile is then kept)
    QComboBox* targetCombo() const { return m_target; }
    // How a parameter series runs on the chosen target: runLocalSeriesJob, or on the cluster.
    using SeriesBackend = std::function<LocalSeriesOutcome(const LocalSeriesRequest&, std::atomic<bool>*,
                                                           const std::function<void(const std::string&)>&)>;
    SeriesBackend seriesBackend() const;
    void setPricePerGpuHour(double price);
    double pricePerGpuHour() const;

    // ---- device
    // Whether the runner (local or remote) has a GPU. Unknown until probeDevice() runs; while a
    // probe runs and after one found no GPU the Run buttons are disabled and the pane says why.
    enum class DeviceState { Unknown, Probing, Available, Unavailable };
    using ProbeFn = std::function<bool(const std::vector<std::string>& command, std::string& device,
                                       RunErrorKind& errorKind, std::string& errorMessage)>;
    void setProbe(ProbeFn probe) { m_probe = std::move(probe); } // tests; default probeRunner
    // Asks the runner for its device on a worker (again whenever the runner host changes after).
    void probeDevice();
    DeviceState deviceState() const { return m_deviceState; }
    QString deviceText() const; // "NVIDIA H200" or why there is none

    // ---- jobs
    enum class Target { A, B, AB };
    // Starts a job; returns its id, or 0 when it cannot start (reason shown in the pane).
    quint64 run(Target target);
    void cancel();
    bool isRunning() const { return m_running != 0; }
    quint64 currentJob() const { return m_running; }
    // The tracker the jobs run on: workspace A's at construction, else one of the pane's own.
    JobTracker& jobs() const { return *m_jobs; }

    // The current build of `s` as a measurement side labelled `label` (cubin, kernel, parameters,
    // recorded file and options); false with `why` when `s` has no successful build. Also used by
    // the Profile pane.
    static bool sideFromSession(Workspace* s, const QString& label, MeasureSide& out, QString& why);

    // ---- results
    // Shows a measurement document (a run/compare --json file, a runner result or error).
    // False with `error` when it cannot be read; the shown result is then untouched.
    bool showDocument(const nlohmann::json& document, QString* error = nullptr);
    bool openMeasurementFile(const QString& path, QString* error = nullptr);
    const Measurement* measurement() const { return m_measurement.get(); }
    // Every measurement document of this session, oldest first (for the session record).
    const std::vector<nlohmann::json>& documents() const { return m_documents; }
    void setDocuments(std::vector<nlohmann::json> documents); // shows the last one

    QString verdict() const;
    QString errorText() const;
    QString costText() const;
    CostPanel* costPanel() const { return m_cost; }
    QLabel* verdictLabel() const { return m_verdict; }
    QLabel* errorLabel() const { return m_error; }
    QTabWidget* chartTabs() const { return m_tabs; }
    QChartView* distributionChart() const { return m_distChart; }
    QChartView* samplesChart() const { return m_samplesChart; }
    QChartView* speedupChart() const { return m_speedupChart; }
    QChartView* throughputChart() const { return m_throughputChart; }
    QTableWidget* statsTable() const { return m_stats; }
    QPushButton* runAButton() const { return m_runA; }
    QPushButton* runBButton() const { return m_runB; }
    QPushButton* runABButton() const { return m_runAB; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }

signals:
    void jobStarted(quint64 jobId);
    void jobProgress(quint64 jobId, const QString& text);
    void jobFinished(quint64 jobId, bool ok);
    void measurementReady(const nlohmann::json& document); // a new result (run or opened)
    void launchEdited();
    // The launch fields changed, by the user or by the pane (prefilled for a new kernel, a
    // recorded launch, setLaunch).
    void launchChanged();
    void deviceProbed(bool available);
    // Literal block size / dynamic shared memory when they are plain numbers (occupancy elsewhere).
    void blockSizeChanged(int threads, int dynamicSharedBytes);

private:
    void buildUi();
    void loadSettings();
    void saveSettings();
    void onProgress(quint64 jobId, const MeasureProgress& p);
    void onFinished(quint64 jobId, const MeasureOutcome& outcome);
    void showMeasurement(const Measurement& m);
    void showError(const QString& text);
    void updateCharts();
    void updateCost();
    void updateButtons();
    void emitBlockSize();

    Options m_opts;
    QPointer<Workspace> m_a, m_b;
    ProbeFn m_probe;
    DeviceState m_deviceState = DeviceState::Unknown;
    QString m_deviceName, m_deviceMessage;
    RunErrorKind m_deviceKind = RunErrorKind::Unknown;
    quint64 m_probeJob = 0;
    std::vector<std::string> m_probedCommand;
    QString m_prefilledFor; // the source path the shown launch values were filled for
    MeasureBackend m_backend;
    std::shared_ptr<JobTracker> m_jobs;
    quint64 m_running = 0; // the tracker's id of the current measurement, 0 when none
    double m_deadlineS = 10;
    bool m_prefilling = false;
    bool m_userEdited = false;
    QString m_prefillOrigin;
    std::unique_ptr<Measurement> m_measurement;
    std::vector<nlohmann::json> m_documents;

    QLineEdit* m_grid;
    QLineEdit* m_block;
    QLineEdit* m_shared;
    QLineEdit* m_bytes;
    QLineEdit* m_flops;
    QComboBox* m_mode;
    QPlainTextEdit* m_args;
    QLabel* m_origin;
    QPushButton* m_prefill;
    void targetChanged();
    QComboBox* m_target;
    QPushButton* m_editCluster;
    ClusterProfile m_cluster;
    QLineEdit* m_host;
    QLineEdit* m_sshOptions;
    QLineEdit* m_remoteCommand;
    QLabel* m_commandPreview;
    QPushButton* m_runA;
    QPushButton* m_runB;
    QPushButton* m_runAB;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_verdict;
    QLabel* m_error;
    QLabel* m_deviceLabel;
    QTabWidget* m_tabs;
    QChartView* m_distChart;
    QChartView* m_samplesChart;
    QChartView* m_speedupChart;
    QChartView* m_throughputChart;
    QTableWidget* m_stats;
    CostPanel* m_cost;
};

} // namespace lowerscope
