#pragma once
// The one tracker of a window's background jobs: builds (Workspace), measurements and runner
// probes (MeasurePane). Each job runs on the tracker's thread pool with a cancel flag of its own
// and has an id unique in the tracker; the tracker lists what runs (jobs()), cancels by id or by
// owner, and reports every start and end by signal, so one place can show and stop all of them.
//
// A job's result reaches its owner on the UI thread through a QFutureWatcher owned by the tracker;
// when the owner has been destroyed meanwhile the result is dropped. Owners that must not be
// outlived by their jobs (a workspace deletes its work folder) call cancelOwnedBy(this, true) in
// their destructor. The tracker itself cancels and waits for every job when it is destroyed.
// Shared between the objects of a window by std::shared_ptr (the last one destroys it).

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace lowerscope {

class JobTracker : public QObject {
    Q_OBJECT
public:
    struct JobInfo {
        quint64 id = 0;
        QString kind;  // "build", "measure", "probe", ...
        QString title; // for people: "Build of saxpy.cu", "Run A/B"
        const QObject* owner = nullptr;
        bool cancelRequested = false;
    };

    explicit JobTracker(QObject* parent = nullptr);
    ~JobTracker() override;

    // Starts `work(id, cancel)` on the pool; it should return soon after *cancel turns true. Once
    // it has returned, `done(id, result, cancelled)` runs on the UI thread unless `owner` is gone
    // (cancelled: cancel was requested for this job). Returns the job id (from 1, never reused).
    template <typename R>
    quint64 start(QObject* owner, const QString& kind, const QString& title,
                  std::function<R(quint64, std::atomic<bool>*)> work,
                  std::function<void(quint64, R, bool)> done) {
        auto cancel = std::make_shared<std::atomic<bool>>(false);
        auto* watcher = new QFutureWatcher<R>(this);
        const quint64 id = add(owner, kind, title, cancel, watcher);
        QPointer<QObject> ctx(owner);
        connect(watcher, &QFutureWatcherBase::finished, this, [this, id, watcher, ctx, done] {
            R result = watcher->result();
            const bool cancelled = finish(id);
            if (ctx && done) done(id, std::move(result), cancelled);
            emit jobFinished(id, cancelled);
        });
        watcher->setFuture(QtConcurrent::run(&m_pool, [work, cancel, id] { return work(id, cancel.get()); }));
        emit jobStarted(id);
        return id;
    }

    // Sets the cancel flag of job `id`; false when no such job runs.
    bool cancel(quint64 id);
    // Cancels every job of `owner`; with `wait`, blocks until their work functions have returned.
    void cancelOwnedBy(const QObject* owner, bool wait);
    bool isRunning(quint64 id) const;
    // The running jobs, oldest first.
    std::vector<JobInfo> jobs() const;
    // How many jobs run (of `owner` only, when given).
    int count(const QObject* owner = nullptr) const;

signals:
    void jobStarted(quint64 id);
    void jobCancelRequested(quint64 id);
    // After the owner's done() (or without it, when the owner is gone).
    void jobFinished(quint64 id, bool cancelled);

private:
    struct Job {
        JobInfo info;
        std::shared_ptr<std::atomic<bool>> cancel;
        QFutureWatcherBase* watcher = nullptr;
    };
    quint64 add(QObject* owner, const QString& kind, const QString& title,
                std::shared_ptr<std::atomic<bool>> cancel, QFutureWatcherBase* watcher);
    // Removes a finished job; returns whether it was cancelled.
    bool finish(quint64 id);

    QThreadPool m_pool;
    quint64 m_nextId = 0;
    std::vector<Job> m_jobs; // running, oldest first
};

} // namespace lowerscope
