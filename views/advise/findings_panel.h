#pragma once
// The advisor's findings, a pane beside the Profile pane (issue 34): for the profile shown on the current
// build, each finding of core/advise/findings.h with its limiter, facts, predicted B/A with the
// formula and its confidence; its evidence rows (SASS address, opcode, source line, what the row
// shows), a click on which selects that SASS row (and through the workspace its source and PTX
// lines) as every pane's selection does; and each variant core/advise/variants.h proposes, with a
// *Test this* button that builds B and measures A and B interleaved (suggestion_job.h, on the
// window's job tracker; Cancel kills the runner). Every test ends as an experiment entry of the
// session (AdviceEntry: the card, B's options, the measurement), failures included, and its
// verdict (held / failed / inconclusive) is shown on the variant's row.
//
// Without a profile on the current build the panel shows what the build and the launch alone
// say (the rules `advise --static` runs: registers, shared memory, block size, spills, tail, few
// warps, precise math), on an assumed kStaticSmCount SMs, and says so; a profile replaces them.
//
// Without a GPU where the runner runs (the Measure pane's probe said so) Test this says so in the
// panel instead of starting; a runner that cannot start or finds no device ends the test failed
// with the runner's message.

#include "core/advise/findings.h"
#include "core/advise/variants.h"
#include "views/advise/suggestion_job.h"
#include "views/experiment/experiment_record.h"

#include <QPointer>
#include <QTemporaryDir>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QScrollArea;
class QTableWidget;
class QVBoxLayout;

namespace lowerscope {

class JobTracker;
class MeasurePane;
class Workspace;

class FindingsPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kStaticSmCount = 132; // without a profile: an H100 SXM's or H200's SMs

    FindingsPanel(Workspace* session, MeasurePane* measure, QWidget* parent = nullptr);
    ~FindingsPanel() override;

    void setBackend(SuggestionJobBackend backend) { m_backend = std::move(backend); } // tests

    // The profile document shown on the current build (null: none, or it does not fit the build;
    // the findings are then the static ones).
    void setProfile(std::shared_ptr<const nlohmann::json> document);
    void refresh() { rebuild(); } // again from the current build (e.g. after a theme change)

    const std::vector<Finding>& findings() const { return m_findings; }
    const std::vector<Variant>& variants() const { return m_variants; }
    // Whether the findings come from a profile (false: from the build and the launch alone).
    bool fromProfile() const { return m_document != nullptr; }
    // Why there are no findings ("" when the evidence was read).
    QString problem() const { return m_problem; }

    // Starts the test of variant `index` (of variants()); returns the job id, or 0 when it cannot
    // start (the reason is shown in the panel and returned by errorText()).
    quint64 test(size_t index);
    void cancel();
    bool isTesting() const { return m_running != 0; }

    // The experiment entries of the tests so far (saved with the session); replaced when a
    // session is opened.
    const std::vector<AdviceEntry>& entries() const { return m_entries; }
    void setEntries(const std::vector<AdviceEntry>& entries);

    QLabel* statusLabel() const { return m_status; }
    QLabel* errorLabel() const { return m_error; }
    QString errorText() const;
    QPushButton* cancelButton() const { return m_cancel; }
    // Per finding (in findings() order) its evidence table (null when it has no rows).
    QTableWidget* evidenceTable(size_t finding) const;
    // Per variant its Test this button and verdict label.
    QPushButton* testButton(size_t variant) const;
    QLabel* verdictLabel(size_t variant) const;

signals:
    void testFinished(quint64 jobId, bool measured);
    void entryRecorded(const lowerscope::AdviceEntry& entry);

private:
    void rebuild();             // findings and variants of the current profile on the current build
    void fill();                // the cards
    void showVerdicts();        // each variant's last recorded verdict
    void showError(const QString& text);
    bool requestFor(const Variant& v, SuggestionJobRequest& request, QString& why);

    QPointer<Workspace> m_session;
    QPointer<MeasurePane> m_measure;
    std::shared_ptr<JobTracker> m_jobs;
    SuggestionJobBackend m_backend;
    std::shared_ptr<const nlohmann::json> m_document;
    std::string m_kernel; // mangled, of the findings shown
    std::vector<Finding> m_findings;
    std::vector<Variant> m_variants;
    QString m_problem;
    std::vector<AdviceEntry> m_entries;
    quint64 m_running = 0;
    size_t m_runningIndex = 0;
    QTemporaryDir m_sources; // B's source: the editor's text as a file

    QLabel* m_status;
    QLabel* m_error;
    QPushButton* m_cancel;
    QScrollArea* m_scroll;
    QWidget* m_cards = nullptr;
    std::vector<QTableWidget*> m_evidence;
    std::vector<QPushButton*> m_testButtons;
    std::vector<QLabel*> m_verdicts;
};

} // namespace lowerscope
