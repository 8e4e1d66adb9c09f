#pragma once
// The experiment record behind the Compare, Measure and Experiment-card panes (which the main
// window creates and registers): File → Open/Save session (.lowerscope), Open measurement, Export
// report.
//
// ExperimentController gathers the record from the panes (source, options A and B, launch,
// measurements, card) and applies an opened one. An opened session with custom compiler flags is
// built only after the user agreed (the prompt function is injectable for tests); a corrupt or
// future-version file gives a clear error and leaves the current session as it was.

#include "views/experiment/experiment_record.h"

#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

#include <functional>

class QAction;
class QWidget;

namespace lowerscope {

class Workspace;
class ComparePanel;
class MeasurePane;

class ExperimentController : public QObject {
    Q_OBJECT
public:
    ExperimentController(Workspace* sessionA, ComparePanel* compare, MeasurePane* measure, ExperimentCardEditor* card,
                         QWidget* dialogParent, QObject* parent = nullptr);

    // How the prompt asks (default: a QMessageBox) and how errors are shown (default: a
    // QMessageBox::critical). Tests install recorders.
    void setTrustPrompt(TrustPrompt prompt) { m_prompt = std::move(prompt); }
    void setErrorReporter(std::function<void(const QString&)> report) { m_report = std::move(report); }
    // How an opened session's source reaches the editor (default: sessionA->setDocument).
    void setSourceLoader(std::function<void(const QString& path, const QString& text)> load) { m_load = std::move(load); }
    // The parameter series travels with the session (issue 15): `current` gives the shown
    // lowerscope.series/1 document (null = none), saved under the session's top-level key "series";
    // `show` gets it back when a session is opened (null when it has none; untrusted: the receiver
    // reads it defensively).
    void setSeriesHooks(std::function<nlohmann::json()> current, std::function<void(const nlohmann::json&)> show) {
        m_currentSeries = std::move(current);
        m_showSeries = std::move(show);
    }
    // The advisor's tested suggestions travel with the session (issue 34): `current` gives them for
    // saving (the session's "advice" array), `show` gets an opened session's back.
    void setAdviceHooks(std::function<std::vector<AdviceEntry>()> current,
                        std::function<void(const std::vector<AdviceEntry>&)> show) {
        m_currentAdvice = std::move(current);
        m_showAdvice = std::move(show);
    }
    // Remembered "yes" answers (fingerprints of flag sets); persisted in QSettings when enabled.
    void setUseSettings(bool on) { m_useSettings = on; }

    ExperimentData gather() const;
    // Asks about untrusted flags first (false: declined, nothing changed), then loads everything
    // into the panes and starts the builds.
    bool apply(const ExperimentData& data, const QString& path);

    bool openSession(const QString& path);             // errors go to the reporter
    bool saveSession(const QString& path);
    QString sessionPath() const { return m_path; }
    bool openMeasurement(const QString& path);
    // Writes `markdownPath` and PNG charts next to it (<stem>-<chart>.png). False with a message.
    bool exportReport(const QString& markdownPath, QString* error = nullptr);
    // The report text (the charts referenced by their file names under `chartPrefix`).
    QString reportMarkdown(const QString& chartPrefix) const;

    // Appends a separator, Open/Save session, Open measurement and Export report to a File menu.
    void addFileActions(QWidget* menuOwner, class QMenu* fileMenu);

signals:
    void sessionOpened(const QString& path);
    void sessionSaved(const QString& path);

private:
    bool trusted(const QString& fingerprint) const;
    void remember(const QString& fingerprint);
    void report(const QString& text) const;

    QPointer<Workspace> m_a;
    QPointer<ComparePanel> m_compare;
    QPointer<MeasurePane> m_measure;
    QPointer<ExperimentCardEditor> m_card;
    QPointer<QWidget> m_dialogParent;
    TrustPrompt m_prompt;
    std::function<void(const QString&)> m_report;
    std::function<void(const QString&, const QString&)> m_load;
    std::function<nlohmann::json()> m_currentSeries;
    std::function<void(const nlohmann::json&)> m_showSeries;
    std::function<std::vector<AdviceEntry>()> m_currentAdvice;
    std::function<void(const std::vector<AdviceEntry>&)> m_showAdvice;
    // Top-level keys of the opened session that this version does not know (a newer Lowerscope's,
    // another tool's): written back on save, so a round trip through the GUI loses nothing.
    nlohmann::json m_unknownKeys = nlohmann::json::object();
    bool m_useSettings = true;
    QSet<QString> m_trusted;
    QString m_path;
    QString m_pendingKernelA; // chosen by name once A's build lands
};

} // namespace lowerscope
