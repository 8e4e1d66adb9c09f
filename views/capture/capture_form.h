#pragma once
// What File → Profile a program… asks for, as text fields, and the pure translation of those
// fields into a capture::CaptureSpec (core/capture/capture_run.h): the arguments split as a POSIX
// shell would split them (quotes and backslashes, no expansion: the program is started without a
// shell), NAME=VALUE environment lines, the launch filter checked (an invalid regex or a count that
// is not a number is refused before anything runs; metrics save the selected launches for their
// replay, as `capture --metrics` does). Also the count of kernel launches the injection has
// reported so far, read from the events folder of a capture that is running.

#include "core/capture/capture_run.h"
#include "core/run/profile_data.h"

#include <vector>

#include <QHash>
#include <QString>
#include <QStringList>

namespace lowerscope {

struct CaptureFormFields {
    QString program;      // a path, or a name searched on PATH
    QString arguments;    // one line, split like a shell would ("a 'b c'" → a, b c)
    QString workingDir;   // "" = the GUI's current folder
    QString environment;  // NAME=VALUE lines; blank lines and # comments ignored
    QString kernelRegex;  // "" = every kernel
    QString launchSkip;   // "" = 0
    QString launchCount;  // "" = all
    bool metricsKernel = false;        // the selected launches' kernel metrics
    bool metricsInstructions = false;  // their per-instruction executed counts
    bool metricsSamples = false;       // their stall samples
    bool serializeKernels = false;     // capture --serialize-kernels (CaptureSpec::serializeKernels)
    QString output;       // the document (its folder receives the cubins)
    QString injectionLibrary; // liblowerscope_inject.so; "" = findInjectionLibrary()
};

// Splits `line` into words as a POSIX shell would without expanding anything: blanks separate,
// '…' keeps everything literally, "…" keeps everything but \" \\ \$ \` (backslash-escaped), a
// backslash outside quotes escapes the next character. False with `error` for an unterminated
// quote or a trailing backslash.
bool splitShellWords(const QString& line, QStringList& words, QString& error);

// "1 launch", "9 launches": a count with its noun (`one` or `many`).
QString countOf(quint64 n, const QString& one, const QString& many);

// Whether the form can ask for metrics (the checkboxes are enabled): the capture saves the launches
// and core/capture/capture_metrics.h profiles them on their replays.
bool captureSpecHasMetrics();

// The profile collections the metric boxes ask for, in `capture --metrics`' order (kernel,
// instructions, samples); empty when none is ticked.
std::vector<ProfileCollection> captureMetrics(const CaptureFormFields& fields);
// The same as --metrics takes it: "kernel,samples" ("" when none).
QString captureMetricsList(const CaptureFormFields& fields);

// The spec `fields` describe (cancel, timeout and output are the caller's). With metrics, the
// selected launches are saved for their replay (saveLaunches) and, as `capture --metrics` does, an
// empty launch count selects the first matching launch only. False with `error` one sentence naming
// the field when a field is not valid: no program, unbalanced quotes, a bad environment line, an
// invalid regex, a skip or count that is not a whole number, no output path, no injection library.
bool captureSpecFromFields(const CaptureFormFields& fields, capture::CaptureSpec& spec, QString& error);

// The arguments as one line that splitShellWords reads back to the same words (for remembering a
// list of arguments in the form's field).
QString joinShellWords(const QStringList& words);

// Counts the kernel launches a running capture's processes have reported: the injection writes
// events-PID.jsonl into a fresh .lowerscope-events-* folder beside the document (capture_run.h).
// Reads only what was appended since the last call, up to the last complete line.
class CaptureEventsCounter {
public:
    // `documentPath`: the capture's output; folders older than `notBeforeMs` (ms since the epoch)
    // are someone else's.
    CaptureEventsCounter(const QString& documentPath, qint64 notBeforeMs);
    // Reads what is new; returns the launches seen so far.
    quint64 poll();
    quint64 launches() const { return m_launches; }
    int processes() const { return int(m_offsets.size()); }

private:
    QString m_folder;
    qint64 m_notBefore = 0;
    QHash<QString, qint64> m_offsets; // per events file: bytes counted so far
    quint64 m_launches = 0;
};

} // namespace lowerscope
