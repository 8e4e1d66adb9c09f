#pragma once
// Experiment 4 in the examples gallery (issue 15): the recorded CUDA Graph break-even
// ("lowerscope.graph_break_even/1", core/experiment/graph_break_even.h) as a table per path length
// N (views/experiment/graph_break_even_model.h), its write-up with the recorded chart in the "Recorded" tab,
// and "Rerun on my GPU": the kernel built and its graph path measured here on a worker thread of
// the window's JobTracker (core/experiment/graph_break_even_job.h; Cancel kills the runner), with
// the same path lengths and replay counts as the recorded document. The user's numbers appear
// beside the recorded ones in the table, and their report and chart in the "This GPU" tab.
//
// The recorded document comes from a file other people wrote: it is parsed bounded and read with
// readGraphBreakEvenDocument (schema, shape and the runner's limits checked); nothing in it names a
// file to open.

#include "core/experiment/graph_break_even_job.h"
#include "views/common/worker_job.h"

#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

class QLabel;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;
class QTextBrowser;

namespace lowerscope {

class GraphBreakEvenModel;
class JobTracker;

class GraphBreakEvenView : public QWidget {
    Q_OBJECT
public:
    // How a run is carried out (tests may install fakes). Default: runLocalGraphBreakEvenJob.
    using Backend =
        std::function<LocalGraphBreakEvenOutcome(const LocalGraphBreakEvenRequest&, std::atomic<bool>*,
                                                 const std::function<void(const std::string&)>&)>;

    explicit GraphBreakEvenView(QWidget* parent = nullptr, std::shared_ptr<JobTracker> jobs = {});
    ~GraphBreakEvenView() override;

    // Shows a recorded document (replacing everything, a rerun included). False with `error` (one
    // sentence) when it is not a readable graph break-even document; the view is then unchanged.
    bool setRecorded(const nlohmann::json& document, QString* error = nullptr);
    // The same from a document's bytes (at most kMaxGraphBreakEvenDocumentBytes, parsed bounded).
    bool setRecordedBytes(const QByteArray& bytes, QString* error = nullptr);
    // The user's run beside the recorded one: the table's other columns, the "This GPU" tab.
    bool setMine(const nlohmann::json& document, QString* error = nullptr);
    const nlohmann::json& recorded() const { return m_recorded; }
    const nlohmann::json& mine() const { return m_mine; }
    // What a rerun measures: the recorded document's path lengths, replay counts and repetitions.
    const GraphPathOptions& recordedOptions() const;
    // The recorded kernel's name ("" before a document is shown).
    std::string recordedKernel() const;

    // The write-up of the "Recorded" tab (Markdown; images resolved in `searchPaths`, e.g. the
    // bundle folder ":/examples").
    void setWriteUp(const QString& markdown, const QStringList& searchPaths = {});
    // Shows "Rerun on my GPU"; clicking it calls `rerun` (which usually calls run()).
    void setRerunHandler(std::function<void()> rerun);

    void setBackend(Backend backend) { m_backend = std::move(backend); }
    // Starts a run; a running one is cancelled first. Returns the job id.
    quint64 run(const LocalGraphBreakEvenRequest& request);
    void cancel();
    bool isRunning() const { return m_job.running != 0; }

    // For tests and screenshots.
    GraphBreakEvenModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QTabWidget* tabs() const { return m_tabs; }
    QTextBrowser* writeUp() const { return m_writeUp; }
    QTextBrowser* mineReport() const { return m_mineReport; }
    QLabel* statusLabel() const { return m_status; }
    QPushButton* rerunButton() const { return m_rerunButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }

signals:
    void runFinished(bool ok, const QString& message);

private:
    void finished(quint64 jobId, const LocalGraphBreakEvenOutcome& outcome);
    void showMineColumns(bool on);

    std::shared_ptr<JobTracker> m_jobs;
    Backend m_backend;
    OneWorkerJob m_job;
    nlohmann::json m_recorded, m_mine;
    GraphBreakEvenModel* m_model;
    QLabel* m_header;
    QTableView* m_table;
    QSplitter* m_split;
    QTabWidget* m_tabs;
    QTextBrowser* m_writeUp;
    QTextBrowser* m_mineReport;
    QLabel* m_status;
    QPushButton* m_rerunButton;
    QPushButton* m_cancelButton;
    std::function<void()> m_rerun;
};

} // namespace lowerscope
