#pragma once
// File → Profile a program…: the program, its arguments (split as a shell would, started without
// one), working folder, environment (NAME=VALUE lines), the kernel filter (regex, launch skip,
// launch count), the metrics for the selected launches and the capture document to write. Profile
// runs capture::runCapture (core/capture/capture_run.h) on the window's job tracker; while it
// runs the dialog shows the elapsed time, the kernel launches the program's processes have
// reported so far and the tail of the program's stdout and stderr (bounded, control characters
// escaped: capture::OutputTail), and Cancel kills the program's whole process group. With metrics
// the same job then profiles each saved launch on its replay (core/capture/capture_metrics.h: the
// local runner with --fixed-addresses), the launch and collection shown as it goes; Cancel stops
// it. The entries are remembered (QSettings) for the next time. Problems (no injection library, a
// program that cannot start, an invalid filter, a capture that recorded nothing: no GPU, a CUPTI
// error; a launch that could not be saved, replayed or profiled) are said in the dialog.

#include "core/capture/capture_metrics.h"
#include "views/capture/capture_form.h"

#include <QDialog>
#include <QElapsedTimer>

#include <memory>
#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace lowerscope {

class JobTracker;
struct ProfileProgramLive; // what the running job reports to the dialog (profile_dialog.cpp)

// What the dialog's job gives back: the capture and, with metrics, the saved launches' profiles.
struct ProfileProgramResult {
    capture::CaptureOutcome capture;
    bool metricsAsked = false;         // metrics were ticked and the capture was written, not cancelled
    std::string runnerError;           // the replay runner's command could not be formed
    capture::CapturedProfiles profiles; // when the launches were profiled (profiles.ok)
};

class ProfileProgramDialog : public QDialog {
    Q_OBJECT
public:
    // `persistent`: read and write the entries in QSettings (tests run without).
    ProfileProgramDialog(std::shared_ptr<JobTracker> jobs, bool persistent, QWidget* parent = nullptr);
    ~ProfileProgramDialog() override;

    CaptureFormFields fields() const;
    void setFields(const CaptureFormFields& fields);
    // The output path used when the field is empty: captures/PROGRAM.capture.json in the working
    // folder (else the home folder).
    QString defaultOutput() const;
    // The command line of lowerscope-cli that would record the same ("" when a field is invalid).
    QString equivalentCommand() const;

    // Starts the capture; false with the reason shown (and in *error) when a field is not valid
    // or a capture runs already.
    bool start(QString* error = nullptr);
    bool isRunning() const { return m_job != 0; }
    // Kills the program's process group; the capture document is still written (cancelled).
    void cancel();

    QPushButton* profileButton() const { return m_profile; }
    QPushButton* cancelButton() const { return m_cancel; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* errorLabel() const { return m_error; }
    QCheckBox* metricsBox(int which) const; // 0 kernel, 1 instructions, 2 samples
    // The tail of the program's stdout and stderr (read-only; the last run's after it ended).
    QPlainTextEdit* programOutput() const { return m_programOutput; }
    quint64 launchesSeen() const { return m_counter ? m_counter->launches() : 0; }
    // The last finished run (its capture, and its profiles with metrics).
    const ProfileProgramResult& lastResult() const { return m_last; }

signals:
    // The capture ended: `ok` when the document was written (the program may have failed);
    // `documentPath` is the document, `message` what the dialog says.
    void finished(bool ok, const QString& documentPath, const QString& message);

protected:
    void reject() override;

private:
    void onFinished(quint64 id, const ProfileProgramResult& result);
    void tick();
    void showOutput(); // the program's output as the job has it now
    void showError(const QString& text);
    void setRunning(bool on);
    void loadSettings();
    void saveSettings() const;
    void updatePreview();

    std::shared_ptr<JobTracker> m_jobs;
    bool m_persistent = false;
    quint64 m_job = 0;
    QElapsedTimer m_elapsed;
    QTimer* m_tick = nullptr;
    std::optional<CaptureEventsCounter> m_counter;
    QString m_runningOutput;
    std::shared_ptr<ProfileProgramLive> m_live;
    quint64 m_outputShown = 0; // the output's receivedBytes when the area was last filled
    ProfileProgramResult m_last;

    QLineEdit* m_program = nullptr;
    QLineEdit* m_arguments = nullptr;
    QLineEdit* m_workingDir = nullptr;
    QPlainTextEdit* m_environment = nullptr;
    QLineEdit* m_kernel = nullptr;
    QLineEdit* m_skip = nullptr;
    QLineEdit* m_count = nullptr;
    QCheckBox* m_metrics[3] = {nullptr, nullptr, nullptr};
    QCheckBox* m_serialize = nullptr;
    QLineEdit* m_output = nullptr;
    QLabel* m_preview = nullptr;
    QPlainTextEdit* m_programOutput = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_error = nullptr;
    QProgressBar* m_busy = nullptr;
    QPushButton* m_profile = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_close = nullptr;
    QString m_injectionLibrary; // CaptureFormFields::injectionLibrary (tests give a fake)
};

} // namespace lowerscope
