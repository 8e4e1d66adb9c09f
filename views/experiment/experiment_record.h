#pragma once
// The experiment record as the GUI edits it, and its bridge to the `.lowerscope` session file of
// core/experiment/experiment_session.h (load, atomic save, trust check of custom compiler flags).
// ExperimentData mirrors core's ExperimentSession with Qt-friendly names; only
// experiment_record.cpp includes core/experiment/experiment_session.h.
//
// Also: the experiment card editor widget (hypothesis, implementation, measurement, result,
// interpretation).

#include "core/build/build.h"
#include "core/run/measure_job.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <functional>
#include <vector>

class QLabel;
class QLineEdit;
class QPushButton;
class QPlainTextEdit;

namespace lowerscope {

struct ExperimentCardText {
    QString hypothesis, implementation, measurement, result, interpretation;
    bool operator==(const ExperimentCardText&) const = default;
};

struct ExperimentSide {
    QString label = QStringLiteral("A");
    QString kernel;             // "" = the first kernel
    BuildOptions options;
    bool ownSource = false;     // B built from another file
    QString sourceName, sourceText; // when ownSource
};

// A suggestion of the advisor (issue 34) tested from the GUI's *Test this*, as an experiment entry
// of the session: the card core's suggestionCard wrote (hypothesis = the finding and its
// prediction, result = the measured B/A with its interval and the verdict), B's nvcc options and
// the A/B measurement document. Kept in the session file's "advice" array in the order tested,
// failures (not built, not measured) included. Read back defensively: an entry is display only and
// nothing in it is ever built.
struct AdviceEntry {
    QString title;     // "advise saxpy.cu: occupancy.block_size/block 32 → 64"
    QString kernel;    // mangled
    QString finding;   // finding id
    QString variant;   // variant id
    QString verdict;   // "held", "failed", "inconclusive"
    QString reason;    // why that verdict
    QString optionsB;  // B's nvcc options, shell-quoted (display only)
    ExperimentCardText card;
    nlohmann::json test;        // suggestionTestJson: predicted, measured, ratio, interval, error
    nlohmann::json measurement; // the compare document; null when nothing was measured
    bool operator==(const AdviceEntry&) const = default;
};
nlohmann::json adviceEntryToJson(const AdviceEntry& entry);
// False for anything that is not an entry (the entry is then left as it was).
bool adviceEntryFromJson(const nlohmann::json& json, AdviceEntry& entry);

struct ExperimentData {
    static ExperimentSide sideB() {
        ExperimentSide side;
        side.label = QStringLiteral("B");
        return side;
    }
    QString title;
    QString sourceName;         // as passed to nvcc (relative or absolute path)
    QString sourceText;
    ExperimentSide a;
    bool hasB = false;
    ExperimentSide b = sideB();
    LaunchText launch;          // grid/block/shared/args go to the session's launch; bytes/flops too
    QString mode = QStringLiteral("auto");
    std::vector<nlohmann::json> measurements;
    ExperimentCardText card;
    std::vector<AdviceEntry> advice; // the advisor's tested suggestions (session key "advice")
    nlohmann::json extra = nlohmann::json::object(); // preserved unknown keys of the file
};

// Reads a `.lowerscope` file. False with `error` (one sentence naming the file) for unreadable,
// corrupt or future-version files; `out` is untouched then.
bool loadExperiment(const QString& path, ExperimentData& out, QString& error);
// Writes atomically (the old file survives any failure). False with `error`.
bool saveExperiment(const ExperimentData& data, const QString& path, QString& error);
// JSON form (for tests and the report).
nlohmann::json experimentToJson(const ExperimentData& data);

// Settings of an opened session that can run programs while building: one readable line each,
// e.g. "B: extra nvcc flag -ccbin=/tmp/evil". Empty = nothing to ask.
QStringList untrustedItems(const ExperimentData& data);
// Stable digest of those settings, so a user's "yes" is remembered for exactly these flags.
QString trustFingerprint(const ExperimentData& data);
// "" when every setting may be built after a yes; else why one never is (shell syntax in a value,
// see core/build/option_safety.h), e.g. "B: define \"X=$(id)\": '$' would be interpreted ...".
QString refusedSetting(const ExperimentData& data);
// Resolves the source names of a session opened from `sessionPath` inside the folders the user
// chose (the current directory and the session's folder; core's resolveSessionPaths). False with
// `error` naming the key when a name leads outside; `data` is untouched then.
bool resolveExperimentPaths(ExperimentData& data, const QString& sessionPath, QString& error);

// Asked before building an untrusted session: returns true to build. `items` as above.
using TrustPrompt = std::function<bool(const QString& sessionPath, const QStringList& items)>;
// The default prompt: a QMessageBox (Build / Don't open) listing the flags.
bool askTrustWithMessageBox(QWidget* parent, const QString& sessionPath, const QStringList& items);

class ExperimentCardEditor : public QWidget {
    Q_OBJECT
public:
    explicit ExperimentCardEditor(QWidget* parent = nullptr);
    ExperimentCardText card() const;
    void setCard(const ExperimentCardText& card);
    QString title() const;
    void setTitle(const QString& title);
    // Appends a line to the Measurement and Result fields (e.g. the verdict of a new run).
    void appendMeasurement(const QString& line);
    QPlainTextEdit* field(int index) const { return m_fields[index]; } // 0 hypothesis … 4 interpretation
    // The Vary field (a parameter series, `experiment --vary`'s spec). validateVary() checks it with
    // parseSeriesSpec, shows the error under the field and enables Run series; true when valid.
    QString varySpec() const;
    void setVarySpec(const QString& spec);
    bool validateVary();
    QLineEdit* varyEdit() const { return m_vary; }
    QLabel* varyError() const { return m_varyError; }
    QPushButton* runSeriesButton() const { return m_runSeries; }

signals:
    void edited();
    // Run series was clicked with a valid spec.
    void runSeriesRequested(const QString& spec);

private:
    QLineEdit* m_vary;
    QLabel* m_varyError;
    QPushButton* m_runSeries;
    QLineEdit* m_title;
    QPlainTextEdit* m_fields[5];
    // The whole text of a field shown cut (null when the field shows all of it).
    QString m_whole[5];
    static constexpr size_t kShownFieldBytes = 64 * 1024;
};

} // namespace lowerscope
