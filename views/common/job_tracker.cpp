// The window's job tracker (job_tracker.h).
#include "views/common/job_tracker.h"

#include <algorithm>

namespace lowerscope {

JobTracker::JobTracker(QObject* parent) : QObject(parent) {
    // Builds of A and B (each with a superseded one still dying), a measurement and a probe at
    // once: the pools of the workspaces and the measure pane before there was one tracker.
    m_pool.setMaxThreadCount(6);
}

JobTracker::~JobTracker() {
    for (Job& job : m_jobs) job.cancel->store(true);
    for (Job& job : m_jobs) job.watcher->waitForFinished();
    m_pool.waitForDone();
}

quint64 JobTracker::add(QObject* owner, const QString& kind, const QString& title,
                        std::shared_ptr<std::atomic<bool>> cancel, QFutureWatcherBase* watcher) {
    Job job;
    job.info.id = ++m_nextId;
    job.info.kind = kind;
    job.info.title = title;
    job.info.owner = owner;
    job.cancel = std::move(cancel);
    job.watcher = watcher;
    m_jobs.push_back(std::move(job));
    return m_nextId;
}

bool JobTracker::finish(quint64 id) {
    auto it = std::find_if(m_jobs.begin(), m_jobs.end(), [id](const Job& j) { return j.info.id == id; });
    if (it == m_jobs.end()) return false;
    const bool cancelled = it->cancel->load();
    it->watcher->deleteLater();
    m_jobs.erase(it);
    return cancelled;
}

bool JobTracker::cancel(quint64 id) {
    for (Job& job : m_jobs) {
        if (job.info.id != id) continue;
        job.cancel->store(true);
        if (!job.info.cancelRequested) {
            job.info.cancelRequested = true;
            emit jobCancelRequested(id);
        }
        return true;
    }
    return false;
}

void JobTracker::cancelOwnedBy(const QObject* owner, bool wait) {
    std::vector<quint64> ids;
    for (const Job& job : m_jobs)
        if (job.info.owner == owner) ids.push_back(job.info.id);
    for (quint64 id : ids) cancel(id);
    if (!wait) return;
    // The watchers stay in m_jobs until their finished signal is delivered (not during this wait).
    for (Job& job : m_jobs)
        if (job.info.owner == owner) job.watcher->waitForFinished();
}

bool JobTracker::isRunning(quint64 id) const {
    return std::any_of(m_jobs.begin(), m_jobs.end(), [id](const Job& j) { return j.info.id == id; });
}

std::vector<JobTracker::JobInfo> JobTracker::jobs() const {
    std::vector<JobInfo> out;
    for (const Job& job : m_jobs) out.push_back(job.info);
    return out;
}

int JobTracker::count(const QObject* owner) const {
    return int(std::count_if(m_jobs.begin(), m_jobs.end(),
                             [owner](const Job& j) { return !owner || j.info.owner == owner; }));
}

} // namespace lowerscope
