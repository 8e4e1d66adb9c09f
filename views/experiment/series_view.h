#pragma once
// The series view (issue 15): a parameter series as a Qt Charts chart (median per point with its
// 95 % interval as a band, x = the point labels in the order measured, y = time) above the table
// of points (views/experiment/series_model.h), a cost line at the user's price (views/measure/cost_panel.h), and, for
// a recorded example, its write-up beside them. It runs series too: run() builds and measures
// every point on a worker thread of the window's JobTracker (core/experiment/series_job.h, Cancel
// kills the runner); the result replaces the shown series or, for "Rerun on my GPU", appears next
// to the recorded one (a second line on the chart, two more columns in the table).
//
// Documents come from files other people wrote: they are read with readSeriesText /
// readSeriesDocument (bounded, wrong types ignored) and nothing in them names a file to open.

#include "core/experiment/series_job.h"
#include "views/common/worker_job.h"

#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

class QChartView;
class QLabel;
class QPushButton;
class QTableView;
class QTextBrowser;

namespace lowerscope {

class CostPanel;
class JobTracker;
class SeriesModel;

class SeriesView : public QWidget {
    Q_OBJECT
public:
    // How a run is carried out (tests install fakes). Default: runLocalSeriesJob.
    using Backend = std::function<LocalSeriesOutcome(const LocalSeriesRequest&, std::atomic<bool>*,
                                                     const std::function<void(const std::string&)>&)>;
    enum class Target { Shown, Mine }; // what a finished run becomes

    explicit SeriesView(QWidget* parent = nullptr, std::shared_ptr<JobTracker> jobs = {});
    ~SeriesView() override;

    // Shows a series document (replacing everything, the rerun included). False with `error` (one
    // sentence) when it is not a readable series; the view is then unchanged.
    bool setDocument(const nlohmann::json& document, QString* error = nullptr);
    // The same from a .series.json file (at most kMaxSeriesDocumentBytes).
    bool openFile(const QString& path, QString* error = nullptr);
    // The user's numbers beside the shown ones. False with `error` as above.
    bool setMine(const nlohmann::json& document, QString* error = nullptr);
    bool hasSeries() const;
    // Shows no series (a running job goes on; its result is shown when it comes).
    void clear();
    const nlohmann::json& document() const { return m_document; }
    const nlohmann::json& mineDocument() const { return m_mine; }
    // Writes the shown series (the rerun's when `mine`) as a .series.json. False with `error`.
    bool exportDocument(const QString& path, bool mine, QString* error = nullptr) const;

    // The write-up beside the chart (Markdown; images resolved in `searchPaths`, e.g. a bundle
    // folder ":/examples"). An empty text hides it.
    void setWriteUp(const QString& markdown, const QStringList& searchPaths = {});
    // Shows "Rerun on my GPU"; clicking it calls `rerun` (which usually calls run(..., Mine)).
    void setRerunHandler(std::function<void()> rerun);

    void setBackend(Backend backend) { m_backend = std::move(backend); }
    // Starts a series run; a running one is cancelled first. Returns the job id.
    quint64 run(const LocalSeriesRequest& request, Target target);
    void cancel();
    bool isRunning() const { return m_job.running != 0; }

    // For tests and screenshots.
    SeriesModel* model() const { return m_model; }
    QChartView* chartView() const { return m_chart; }
    QTableView* table() const { return m_table; }
    QTextBrowser* writeUp() const { return m_writeUp; }
    QLabel* statusLabel() const { return m_status; }
    CostPanel* costPanel() const { return m_cost; }
    QPushButton* rerunButton() const { return m_rerunButton; }

signals:
    void runFinished(bool ok, const QString& message);

private:
    void rebuildChart();
    void updateCost();
    void finished(quint64 jobId, const LocalSeriesOutcome& outcome, Target target);

    std::shared_ptr<JobTracker> m_jobs;
    Backend m_backend;
    OneWorkerJob m_job;
    nlohmann::json m_document, m_mine;
    SeriesModel* m_model;
    QLabel* m_header;
    QChartView* m_chart;
    QTableView* m_table;
    CostPanel* m_cost;
    QTextBrowser* m_writeUp;
    QLabel* m_status;
    QPushButton* m_rerunButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    std::function<void()> m_rerun;
};

} // namespace lowerscope
