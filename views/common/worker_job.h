#pragma once
// A core job of the GUI's windows run on the JobTracker's pool (series runs, the gallery's graph
// reruns): `backend(request, cancel, progress)` on a worker with the toolchain filled in there
// when the request has none, its progress lines posted to the UI thread, and its outcome handed
// to `done` there. Requests have a `toolchain` field; outcomes an `error` string (filled with the
// message of anything the backend throws) and `warnings` lines.

#include "views/common/build_job.h"
#include "views/common/job_tracker.h"

#include <QLabel>
#include <QMetaObject>
#include <QPointer>
#include <QPushButton>
#include <QStringList>
#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace lowerscope {

// Starts the job for `owner`; returns its id. `onProgress(jobId, stage)` and `done(jobId, outcome)`
// run on the UI thread, and never once `owner` is gone.
template <typename Outcome, typename Request, typename Backend>
quint64 startWorkerJob(JobTracker& jobs, QObject* owner, const QString& kind, const QString& title,
                       const Request& request, Backend backend,
                       std::function<void(quint64 jobId, const std::string& stage)> onProgress,
                       std::function<void(quint64 jobId, const Outcome& outcome)> done) {
    QPointer<QObject> self(owner);
    return jobs.start<Outcome>(
        owner, kind, title,
        [backend, request = Request(request), self, onProgress](quint64 jobId,
                                                                std::atomic<bool>* cancel) mutable {
            // Discovering the tools runs them: on the worker, once per process.
            if (!request.toolchain.nvcc.found()) request.toolchain = cachedToolchain();
            auto progress = [self, jobId, onProgress](const std::string& stage) {
                // Progress crosses to the UI thread by a queued call; a dead owner is skipped.
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, jobId, stage, onProgress] {
                        if (self) onProgress(jobId, stage);
                    },
                    Qt::QueuedConnection);
            };
            try {
                return backend(request, cancel, progress);
            } catch (const std::exception& e) {
                Outcome out;
                out.error = e.what();
                return out;
            }
        },
        [done](quint64 jobId, Outcome outcome, bool) { done(jobId, outcome); });
}

// The one job a window runs at a time, with its Run and Cancel buttons.
struct OneWorkerJob {
    quint64 running = 0; // the job's id; 0 = none
    QPushButton* runButton = nullptr;
    QPushButton* cancelButton = nullptr;

    // Cancels the running job (its result is dropped by finish()), if any.
    void supersede(JobTracker& jobs) const {
        if (running) jobs.cancel(running);
    }
    void started(quint64 id) {
        running = id;
        cancelButton->setEnabled(true);
        runButton->setEnabled(false);
    }
    // Cancels the running job and says so in `status`; false when none runs.
    bool cancel(JobTracker& jobs, QLabel* status) const {
        if (!running) return false;
        jobs.cancel(running);
        status->setText(QObject::tr("Cancelling: killing the runner…"));
        return true;
    }
    // True when `jobId` is the running job, which is then over; false for a superseded one.
    bool finish(quint64 jobId) {
        if (jobId != running) return false;
        running = 0;
        cancelButton->setEnabled(false);
        runButton->setEnabled(true);
        return true;
    }
};

// Shows a finished job's `message` in `status`, with "(N warnings; see the tooltip)" and the
// warnings (HTML-escaped) as its tooltip.
inline void showJobStatus(QLabel* status, QString message, const std::vector<std::string>& warnings) {
    if (!warnings.empty())
        message +=
            QLatin1Char(' ') + QObject::tr("(%n warning(s); see the tooltip)", "", int(warnings.size()));
    QStringList tips;
    for (const auto& w : warnings) tips << QString::fromStdString(w).toHtmlEscaped();
    status->setToolTip(tips.join(QStringLiteral("<br>")));
    status->setText(message);
}

} // namespace lowerscope
