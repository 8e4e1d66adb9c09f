#pragma once
// The Profile pane (issue 14, item 3): why a kernel takes its time, from hardware evidence.
//   - "Profile" collects kernel metrics, per-instruction counts and stall samples for one launch of
//     the current build (core/run/profile_job.h, on a worker through the window's job tracker),
//     with the launch typed in the Measure pane; File → Open profile… shows a saved
//     lowerscope.profile/1 document the same way.
//   - Kernel metrics with throughput bars against the device's peaks (the %-of-peak metrics, and
//     DRAM bandwidth and FP32 rate against the runner's reported peaks).
//   - A roofline point whose FLOPs come from the executed instruction counts (core/run/roofline.h).
//   - Hot lines: source lines by share of stall samples (by executed instructions when there are
//     no samples), with their SASS count and top reasons; clicking one selects it everywhere.
//   - Heat: per source line and PTX line weights (share of the hottest line) for the Source and
//     PTX panes' heat strips (heatChanged).
// A profile is shown only on the build it was taken on (profileDocumentMismatch); after an edit
// and rebuild the pane says it is stale and shows nothing rather than misattribute.

#include "core/run/profile_document.h"
#include "core/run/profile_job.h"
#include "core/run/protocol.h"
#include "core/run/roofline.h"

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QChartView;
class QLabel;
class QPushButton;
class QTableWidget;

namespace lowerscope {

class JobTracker;
class Workspace;

class ProfilePane : public QWidget {
    Q_OBJECT
public:
    explicit ProfilePane(Workspace* session, QWidget* parent = nullptr);
    ~ProfilePane() override;

    // ---- running
    void setBackend(ProfileBackend backend) { m_backend = std::move(backend); } // tests; default runProfileJob
    // Where the launch and the runner come from (the Measure pane); defaults: the sidecar /
    // signature default launch and the default runner.
    void setLaunchSource(std::function<LaunchText()> launch) { m_launch = std::move(launch); }
    void setRunnerSource(std::function<std::vector<std::string>()> runner) { m_runner = std::move(runner); }
    // Configuration B of Compare A/B: while `active()` says so and B has a build, Profile also
    // profiles B (after A, the same launch); its metrics appear beside A's with B/A, and
    // profileCollectedB() gives its document to the aligned diff.
    void setSessionB(Workspace* b, std::function<bool()> active);
    // Starts a profile of the current build; returns the job id, or 0 when it cannot start (the
    // reason is shown).
    quint64 run();
    void cancel();
    bool isRunning() const { return m_running != 0; }

    // ---- showing
    // Shows `doc` (with the device it was taken on, when known, for the ceilings) on the current
    // build if it fits; returns "" or why it is not shown.
    // `source`, when given, is the document as read (the advisor reads its evidence from it).
    QString setProfile(std::shared_ptr<const ProfileDocument> doc, std::shared_ptr<const nlohmann::json> source = nullptr);
    std::shared_ptr<const ProfileDocument> profile() const { return m_profile; }
    std::shared_ptr<const nlohmann::json> profileSource() const { return m_profileSource; }
    // Whether A's profile is shown on the current build now (it fits the build).
    bool showsProfile() const { return m_profile && !m_viewsClear; }
    // B's profile (Compare A/B), shown beside A's while it fits B's build.
    void setProfileB(std::shared_ptr<const ProfileDocument> doc);
    std::shared_ptr<const ProfileDocument> profileB() const { return m_profileB; }
    bool showsB() const { return m_showsB; }
    // Why the profile is not shown on the current build ("" when shown or when there is none).
    const QString& note() const { return m_note; }

    struct HotLine {
        std::string file; // recorded path
        int line = 0;
        double share = 0; // of the kernel's samples (or executed instructions)
        int instructions = 0;
        uint64_t executed = 0;
        uint64_t samples = 0;
        QString reasons;  // "long_scoreboard 61 %, wait 12 %"
    };
    const std::vector<HotLine>& hotLines() const { return m_hot; }
    bool hotBySamples() const { return m_bySamples; }
    const RooflinePoint& roofline() const { return m_roofline; }
    const FlopCount& flops() const { return m_flops; }

    QPushButton* profileButton() const { return m_run; }
    // Whether the runner has a GPU (the Measure pane's probe): without one Profile is disabled with
    // the reason, as Measure's Run buttons are.
    void setDeviceAvailability(bool available, const QString& reason);
    QLabel* statusLabel() const { return m_status; }
    QTableWidget* metricsTable() const { return m_metrics; }
    QTableWidget* hotLinesTable() const { return m_hotTable; }
    QChartView* rooflineChart() const { return m_chart; }

signals:
    // A profile came back from a run (the main window also shows it in the SASS pane).
    void profileCollected(std::shared_ptr<const ProfileDocument> doc);
    void profileCollectedB(std::shared_ptr<const ProfileDocument> doc);
    // Per recorded source file, (line, weight in (0, 1]); PTX lines likewise. Empty = no heat.
    void heatChanged(const std::map<std::string, std::vector<std::pair<int, double>>>& source,
                     const std::vector<std::pair<int, double>>& ptx);
    void jobFinished(quint64 jobId, bool ok);
    // The profile shown changed: loaded, collected, cleared, or made stale or current by a build.
    void profileApplied();

private:
    void buildUi();
    void apply(); // the profile on the current build: tables, chart, heat; then profileApplied
    void applyViews();
    void clearViews();
    void fillMetrics(const DeviceInfo* device);
    void fillHot();
    void fillChart();
    struct Outcomes {
        ProfileJobOutcome a;
        std::optional<ProfileJobOutcome> b;
    };
    void onFinished(quint64 jobId, const Outcomes& outcomes);
    // The request for `ws`'s current build; false with `why` when it has none.
    bool requestFor(Workspace* ws, ProfileJobRequest& request, QString& why) const;
    // A document from an outcome, or nullptr with the errors added to `errors`.
    std::shared_ptr<const ProfileDocument> documentOf(const ProfileJobOutcome& o, const QString& label,
                                                      QStringList& errors, int& exitCode) const;

    QPointer<Workspace> m_session;
    QPointer<Workspace> m_sessionB;
    std::function<bool()> m_activeB;
    std::shared_ptr<JobTracker> m_jobs;
    ProfileBackend m_backend;
    std::function<LaunchText()> m_launch;
    std::function<std::vector<std::string>()> m_runner;
    quint64 m_running = 0;

    std::shared_ptr<const ProfileDocument> m_profile;
    std::shared_ptr<const nlohmann::json> m_profileSource;
    std::shared_ptr<const ProfileDocument> m_profileB;
    bool m_showsB = false;
    bool m_viewsClear = false; // tables, chart and heat show nothing (clearViews has nothing to do)
    QString m_note;
    std::vector<HotLine> m_hot;
    bool m_bySamples = false;
    FlopCount m_flops;
    RooflinePoint m_roofline;

    QPushButton* m_run;
    bool m_deviceOk = true;
    QString m_runTip;
    QPushButton* m_cancel;
    QLabel* m_status;
    QTableWidget* m_metrics;
    QTableWidget* m_hotTable;
    QChartView* m_chart;
};

} // namespace lowerscope
