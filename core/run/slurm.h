#pragma once
// Measurements fanned out over a Slurm cluster (issue 32). Each task is one runner request (one
// group: every variant that is compared with another is in the same request, so it is measured
// interleaved on one GPU, as locally). The tasks of a call become one job array
// (`sbatch --array=0-N%max`), whose batch script carries every task's request (gzip + base64, so no
// shared file system is needed for the inputs) and pipes it into `srun lowerscope-runner` on the
// node; the runner's answer is the array element's output file in the state folder.
//
// The client polls `squeue` for each element (queued / running / done / failed, node, job id),
// reads and checks the answer as ProcessRunner does (core/run/runner_client.h: the runner is not
// trusted), retries a task whose element ended without an answer or whose runner could not start
// (node failure, preemption, time limit, a killed step) on another node (`--exclude` of the nodes
// it failed on) at most SlurmOptions::maxAttempts times, and `scancel`s its jobs when cancelled.
// A kernel's own error (fault, bad launch, deadline) is the task's answer and is not retried.
//
// Resuming: every task is keyed by the digest of its request (its id left out), and its job ids,
// nodes and the attempt that answered are recorded in `stateDir/task-DIGEST.json` as they change.
// A client started again with the same tasks and state folder takes an answer already there (a
// result never counts twice: one answer per task, from the attempt recorded as answering) and goes
// on tracking jobs still queued or running instead of submitting them again.
//
// Results come back through the output files: the state folder must be one the nodes can write
// (on a cluster, a folder on the shared home or scratch file system). Nothing here throws.

#include "core/run/protocol.h"
#include "core/run/runner_client.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace lowerscope {

struct SlurmOptions {
    // Passed to sbatch as given ("" = not passed): --partition, --gres, --constraint, --account, --time.
    std::string partition, gres, constraint, account, timeLimit;
    int maxTasks = 0;                      // array elements running at once (%N); 0 = no limit
    int maxAttempts = 3;                   // per task: the first try and up to two retries
    std::vector<std::string> nodeCommand;  // the runner on the node; empty = {"lowerscope-runner"}
    std::map<std::string, std::string> env; // exported on the node before the runner starts
    std::string stateDir;                  // scripts, outputs and job ids (created when missing)
    std::string jobName = "lowerscope";
    std::chrono::milliseconds poll{500};   // squeue interval
    // Slurm's tools; override for a wrapper (e.g. {"ssh", "login", "sbatch"}).
    std::vector<std::string> sbatch{"sbatch"}, squeue{"squeue"}, scancel{"scancel"};
};

enum class SlurmTaskState { Waiting, Queued, Running, Done, Failed, Cancelled };
const char* slurmTaskStateName(SlurmTaskState s); // "waiting", "queued", "running", "done", "failed", "cancelled"

struct SlurmTask {
    RunRequest request;
    std::string constraint; // this task's --constraint (a GPU type); "" = SlurmOptions::constraint
    std::string label;      // for progress lines ("CHAINS=1..16", "gpu_a")
    std::string key;        // tells apart tasks with the same request (a repetition: "r2"); part of the digest
    bool probe = false;     // no request: the runner only says hello (its device)
};

struct SlurmTaskStatus {
    SlurmTaskState state = SlurmTaskState::Waiting;
    std::string jobId;                 // "12_3" of the current attempt
    std::string node;                  // where it runs or ran
    int attempts = 0;                  // submitted attempts, this client's and earlier ones'
    bool resumed = false;              // the answer or a live job came from an earlier client
    std::string message;               // why the last attempt failed
    std::vector<std::string> failedNodes;
};

using SlurmProgressFn = std::function<void(size_t task, const SlurmTaskStatus& status)>;

// One outcome per task, in order. Progress is reported on the calling thread whenever a task's
// status changes. With `*cancel` set, every job still queued or running is cancelled (scancel) and
// unfinished tasks end with kind Cancelled. `statuses`, when given, receives the final statuses.
// A probe task's outcome carries the device in result.device and no variants.
std::vector<RunOutcome> runSlurmTasks(const std::vector<SlurmTask>& tasks, const SlurmOptions& options,
                                      const SlurmProgressFn& progress = {}, std::atomic<bool>* cancel = nullptr,
                                      std::vector<SlurmTaskStatus>* statuses = nullptr);

// The digest that keys a task in the state folder: 16 hex digits of its request without its id,
// its constraint, its key and whether it is a probe.
std::string slurmTaskDigest(const SlurmTask& task);

// The batch script of one submission (tests read it): `tasks[i]` is array element i.
std::string slurmBatchScript(const std::vector<std::pair<std::string, std::string>>& requestLines,
                             const SlurmOptions& options);

// A Runner whose requests run as Slurm tasks (one at a time; runSlurmTasks fans out several).
// device() is the device of the last answer, else a probe task's.
class SlurmRunner : public Runner {
public:
    explicit SlurmRunner(SlurmOptions options, SlurmProgressFn progress = {});
    bool device(DeviceInfo& out, RunError& error) override;
    RunOutcome run(RunRequest request, const RunProgressFn& progress = {},
                   std::atomic<bool>* cancel = nullptr) override;
    void stop() override {}
    const SlurmOptions& options() const { return m_options; }

private:
    SlurmOptions m_options;
    SlurmProgressFn m_progress;
    bool m_haveDevice = false;
    DeviceInfo m_device;
};

} // namespace lowerscope
