// Runner requests as Slurm job array elements (slurm.h).
#include "core/run/slurm.h"

#include "core/atomic_file.h"
#include "core/bounded_json.h"
#include "core/build/build_options.h"
#include "core/build/lifetime.h"
#include "core/build/process.h"
#include "core/untrusted.h"

#include <nlohmann/json.hpp>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace lowerscope {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

const char* slurmTaskStateName(SlurmTaskState s) {
    switch (s) {
    case SlurmTaskState::Waiting: return "waiting";
    case SlurmTaskState::Queued: return "queued";
    case SlurmTaskState::Running: return "running";
    case SlurmTaskState::Done: return "done";
    case SlurmTaskState::Failed: return "failed";
    case SlurmTaskState::Cancelled: return "cancelled";
    }
    return "unknown";
}

namespace {

constexpr const char* kTaskSchema = "lowerscope.slurm-task/1";

// One submitted attempt of a task, as the state file records it.
struct Attempt {
    std::string job;   // "12_3"
    std::string array; // "12"
    std::string out;   // output file name in the state folder
    std::string node;
    bool finished = false;  // ended (answered or failed)
    bool failed = false;    // ended without a usable answer
    bool cancelled = false; // cancelled by a client (not counted against maxAttempts)
    std::string message;
};

struct TaskRun {
    const SlurmTask* task = nullptr;
    std::string digest;
    std::string requestId;  // the id this attempt's request carries
    std::vector<Attempt> attempts;
    int answer = -1;        // the attempt whose answer counts
    SlurmTaskStatus status;
    RunOutcome outcome;
    bool settled = false;   // outcome final
    Clock::time_point noAnswerSince{}; // a finished element whose output is not there yet
};

bool plainName(const std::string& s) {
    static const std::regex re("[A-Za-z0-9_.-]{1,120}");
    return std::regex_match(s, re) && s != "." && s != "..";
}

bool jobIdText(const std::string& s) {
    static const std::regex re("[0-9]{1,12}(_[0-9]{1,7})?");
    return std::regex_match(s, re);
}

std::string hex16(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string statePath(const SlurmOptions& o, const std::string& digest) {
    return (fs::path(o.stateDir) / ("task-" + digest + ".json")).string();
}

void saveState(const SlurmOptions& o, const TaskRun& t) {
    json j{{"schema", kTaskSchema}, {"digest", t.digest}, {"label", t.task->label}, {"answer", t.answer}};
    json attempts = json::array();
    for (const Attempt& a : t.attempts)
        attempts.push_back({{"job", a.job}, {"array", a.array}, {"out", a.out}, {"node", a.node},
                            {"finished", a.finished}, {"failed", a.failed}, {"cancelled", a.cancelled},
                            {"message", a.message}});
    j["attempts"] = attempts;
    const std::string path = statePath(o, t.digest);
    std::string error;
    writeFileAtomically(path, j.dump(1) + "\n", error); // lost state only costs a resubmission
}

// The state an earlier client left for this task (untrusted: only well-formed fields are taken).
void loadState(const SlurmOptions& o, TaskRun& t) {
    std::string error;
    const auto j = readJsonFileBounded(statePath(o, t.digest), error, JsonLimits{size_t(1) << 20, 8, 20000});
    if (!j || !j->is_object() || jsonString(*j, "schema") != kTaskSchema || jsonString(*j, "digest") != t.digest) return;
    const auto attempts = j->find("attempts");
    if (attempts == j->end() || !attempts->is_array()) return;
    for (const json& a : *attempts) {
        Attempt at;
        at.job = jsonString(a, "job");
        at.array = jsonString(a, "array");
        at.out = jsonString(a, "out");
        if (!jobIdText(at.job) || !jobIdText(at.array) || !plainName(at.out)) continue;
        at.node = escapeControl(jsonString(a, "node").substr(0, 100));
        at.message = escapeControl(jsonString(a, "message").substr(0, 400));
        at.finished = a.is_object() && a.value("finished", false) == true;
        at.failed = a.is_object() && a.value("failed", false) == true;
        at.cancelled = a.is_object() && a.value("cancelled", false) == true;
        t.attempts.push_back(at);
        if (t.attempts.size() >= 100) break;
    }
    if (auto n = jsonFiniteNumber(*j, "answer"); n && *n >= 0 && *n < double(t.attempts.size()) && *n == double(int(*n)))
        t.answer = int(*n);
}

std::string requestIdFor(const std::string& digest, size_t attempt) { return digest + "-" + std::to_string(attempt + 1); }

// scancel must run even while the interrupt flag is set (runProcess would kill it at once): spawned
// here directly, given 10 s.
void cancelJobs(const SlurmOptions& o, const std::vector<std::string>& ids) {
    if (ids.empty() || o.scancel.empty()) return;
    std::vector<std::string> argv = o.scancel;
    argv.insert(argv.end(), ids.begin(), ids.end());
    std::vector<char*> cargv;
    for (auto& s : argv) cargv.push_back(s.data());
    cargv.push_back(nullptr);
    pid_t pid = -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    if (pid <= 0) return;
    const auto end = Clock::now() + std::chrono::seconds(10);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (Clock::now() > end) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

bool retryable(RunErrorKind k) {
    return k == RunErrorKind::RunnerStart || k == RunErrorKind::RunnerExited || k == RunErrorKind::NoDriver ||
           k == RunErrorKind::NoDevice || k == RunErrorKind::Protocol || k == RunErrorKind::DriverError;
}

enum class Answer { None, Result, Error, RetryableError };

// Reads an attempt's output: the runner's hello, progress and its answer to `t.requestId`.
Answer readAnswer(const SlurmOptions& o, TaskRun& t, const Attempt& a, std::string& why) {
    const RunRequest& req = t.task->request;
    const JsonLimits limits = resultLimits(req);
    std::string text, error;
    const std::string path = (fs::path(o.stateDir) / a.out).string();
    if (!readFileBounded(path, text, error, JsonLimits{limits.maxBytes * 2 + (size_t(1) << 20), 0, 0})) {
        why = escapeControl(error);
        return Answer::None;
    }
    std::istringstream in(text);
    std::string line;
    bool hello = false;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        RunnerMessage m;
        try {
            m = parseRunnerMessage(line, limits);
        } catch (const ProtocolError&) {
            continue; // srun's or the shell's words; the answer is what counts
        }
        if (m.kind == RunnerMessage::Kind::Hello) {
            if (m.protocol != kRunnerProtocolVersion) {
                t.outcome.error = RunError{RunErrorKind::Protocol,
                                           "the runner on " + a.node + " speaks protocol " + std::to_string(m.protocol) +
                                               ", this client " + std::to_string(kRunnerProtocolVersion),
                                           "", 0, "start", "", true};
                return Answer::RetryableError;
            }
            hello = true;
            t.outcome.result.device = m.device;
            if (t.task->probe) return Answer::Result;
            continue;
        }
        if (!m.id.empty() && m.id != t.requestId) continue; // another attempt's or request's answer
        if (m.kind == RunnerMessage::Kind::Result) {
            if (const std::string wrong = checkResult(req, m.result); !wrong.empty()) {
                t.outcome.error = RunError{RunErrorKind::Protocol, wrong, "", 0, "", "", true};
                return Answer::RetryableError;
            }
            const DeviceInfo dev = t.outcome.result.device;
            t.outcome.result = std::move(m.result);
            if (t.outcome.result.device.name.empty()) t.outcome.result.device = dev;
            return Answer::Result;
        }
        if (m.kind == RunnerMessage::Kind::Error) {
            t.outcome.error = m.error;
            return retryable(m.error.kind) ? Answer::RetryableError : Answer::Error;
        }
    }
    why = hello ? "the runner said hello but did not answer" : "no answer from the runner";
    return Answer::None;
}

struct QueueEntry {
    std::string state, node, reason;
};

bool terminalState(const std::string& s) {
    static const std::set<std::string> done{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                                            "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "REVOKED",
                                            "SPECIAL_EXIT"};
    return done.count(s) > 0;
}

// squeue for the given array jobs: element id → state. False when squeue itself failed.
bool queryQueue(const SlurmOptions& o, const std::set<std::string>& arrays, std::map<std::string, QueueEntry>& out,
                std::string& error) {
    if (arrays.empty()) return true;
    std::string ids;
    for (const auto& a : arrays) ids += (ids.empty() ? "" : ",") + a;
    ProcessSpec spec;
    spec.argv = o.squeue;
    spec.argv.insert(spec.argv.end(), {"-h", "-r", "--states=all", "-o", "%i|%T|%N|%r", "-j", ids});
    spec.timeout = std::chrono::seconds(30);
    ProcessResult r = runProcess(spec);
    if (!r.ok()) {
        // Every job of the list already forgotten by the controller is not a failure of squeue.
        if (r.started() && r.stderrText.find("Invalid job id") != std::string::npos) return true;
        error = "squeue: " + r.describe() + ": " + escapeControl(r.stderrText.substr(0, 300), true);
        return false;
    }
    std::istringstream in(r.stdoutText.substr(0, size_t(8) << 20));
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string part;
        while (std::getline(ss, part, '|')) f.push_back(part);
        if (f.size() < 2 || !jobIdText(f[0])) continue;
        out[f[0]] = QueueEntry{f[1], f.size() > 2 ? escapeControl(f[2].substr(0, 100)) : "",
                               f.size() > 3 ? escapeControl(f[3].substr(0, 100)) : ""};
    }
    return true;
}

std::string uniqueToken() {
    static std::atomic<int> counter{0};
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return "s" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
           std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

} // namespace

std::string slurmTaskDigest(const SlurmTask& task) {
    RunRequest r = task.request;
    r.id.clear();
    const std::string text = (task.probe ? std::string("probe") : toJson(r).dump()) + "\n" + task.constraint + "\n" + task.key;
    return hex16(XXH3_64bits(text.data(), text.size()));
}

namespace {

// `text` compressed by gzip (every node has it to decompress); "" when gzip is not there or fails.
// A request repeats its cubin once per variant, and Slurm refuses batch scripts over its
// max_script_size (4 MB by default): a 64-point series of docs/examples/ffma_chains.cu, 1.0 MB of
// request, becomes a 20 KB script.
std::string gzipText(const std::string& text) {
    ProcessSpec spec;
    spec.argv = {"gzip", "-c", "-n", "-6"};
    spec.stdinText = text;
    spec.timeout = std::chrono::seconds(60);
    ProcessResult r = runProcess(spec);
    return r.ok() ? r.stdoutText : std::string();
}

} // namespace

std::string slurmBatchScript(const std::vector<std::pair<std::string, std::string>>& requestLines,
                             const SlurmOptions& o) {
    std::string s = "#!/bin/sh\n# lowerscope: runner requests, one per array element (core/run/slurm.h)\n";
    s += "z=0\ncase \"${SLURM_ARRAY_TASK_ID:-}\" in\n";
    for (size_t i = 0; i < requestLines.size(); ++i) {
        // base64 only holds [A-Za-z0-9+/=]: safe inside single quotes.
        const std::string& line = requestLines[i].second;
        const std::string packed = line.empty() ? std::string() : gzipText(line);
        const std::string& payload = packed.empty() ? line : packed;
        s += std::to_string(i) + ") req='" +
             (payload.empty() ? std::string() : toBase64(std::vector<uint8_t>(payload.begin(), payload.end()))) +
             "'" + (packed.empty() ? "" : "; z=1") + " ;;\n";
    }
    s += "*) echo \"lowerscope: no request for array element ${SLURM_ARRAY_TASK_ID:-}\" >&2; exit 3 ;;\nesac\n";
    for (const auto& [k, v] : o.env) {
        static const std::regex name("[A-Za-z_][A-Za-z0-9_]*");
        if (!std::regex_match(k, name)) continue;
        s += "export " + k + "=" + shellQuote({v}) + "\n";
    }
    const std::vector<std::string> cmd = o.nodeCommand.empty() ? std::vector<std::string>{"lowerscope-runner"} : o.nodeCommand;
    // One step per element: a step that is killed (or a node that fails) ends the element without an
    // answer, and the client retries it.
    s += "if [ -z \"$req\" ]; then :; elif [ \"$z\" = 1 ]; then printf '%s' \"$req\" | base64 -d | gzip -dc; "
         "else printf '%s' \"$req\" | base64 -d; fi | srun --ntasks=1 --quiet -- " + shellQuote(cmd) + "\n";
    return s;
}

std::vector<RunOutcome> runSlurmTasks(const std::vector<SlurmTask>& tasks, const SlurmOptions& o,
                                      const SlurmProgressFn& progress, std::atomic<bool>* cancel,
                                      std::vector<SlurmTaskStatus>* statuses) {
    std::vector<TaskRun> runs(tasks.size());
    auto report = [&](size_t i) {
        if (progress) progress(i, runs[i].status);
    };
    auto finishAll = [&](RunErrorKind kind, const std::string& message) {
        for (auto& t : runs)
            if (!t.settled) {
                t.outcome.ok = false;
                t.outcome.error = RunError{kind, message, "", 0, "start", "", true};
                t.status.state = kind == RunErrorKind::Cancelled ? SlurmTaskState::Cancelled : SlurmTaskState::Failed;
                t.status.message = message;
                t.settled = true;
            }
    };
    auto collect = [&] {
        std::vector<RunOutcome> out;
        if (statuses) statuses->clear();
        for (auto& t : runs) {
            out.push_back(t.outcome);
            if (statuses) statuses->push_back(t.status);
        }
        return out;
    };
    std::error_code ec;
    fs::create_directories(o.stateDir, ec);
    if (o.stateDir.empty() || !fs::is_directory(o.stateDir, ec)) {
        for (size_t i = 0; i < tasks.size(); ++i) runs[i].task = &tasks[i];
        finishAll(RunErrorKind::RunnerStart, "cannot create the cluster state folder '" + escapeControl(o.stateDir) + "'");
        return collect();
    }
    const int maxAttempts = std::clamp(o.maxAttempts, 1, 20);

    // Resume: the state earlier clients left, then answers already there.
    for (size_t i = 0; i < tasks.size(); ++i) {
        TaskRun& t = runs[i];
        t.task = &tasks[i];
        t.digest = slurmTaskDigest(tasks[i]);
        loadState(o, t);
        for (const Attempt& a : t.attempts) {
            if (!a.cancelled) ++t.status.attempts;
            if (a.failed && !a.node.empty()) t.status.failedNodes.push_back(a.node);
        }
        if (!t.attempts.empty()) {
            t.status.resumed = true;
            t.status.jobId = t.attempts.back().job;
            t.status.node = t.attempts.back().node;
        }
        if (t.answer >= 0) {
            const Attempt& a = t.attempts[size_t(t.answer)];
            t.requestId = requestIdFor(t.digest, size_t(t.answer));
            std::string why;
            const Answer ans = readAnswer(o, t, a, why);
            if (ans == Answer::Result || ans == Answer::Error) {
                t.outcome.ok = ans == Answer::Result;
                t.status.state = t.outcome.ok ? SlurmTaskState::Done : SlurmTaskState::Failed;
                t.status.jobId = a.job;
                t.status.node = a.node;
                t.settled = true;
                report(i);
                continue;
            }
            t.answer = -1; // the recorded answer is gone: measure again
        }
        if (!t.attempts.empty() && !t.attempts.back().finished) {
            t.requestId = requestIdFor(t.digest, t.attempts.size() - 1);
            t.status.state = SlurmTaskState::Queued; // tracked again; squeue says where it is
            report(i);
        }
    }

    std::set<std::string> liveArrays;
    for (const auto& t : runs)
        if (!t.settled && !t.attempts.empty() && !t.attempts.back().finished) liveArrays.insert(t.attempts.back().array);

    auto cancelled = [&] { return (cancel && cancel->load()) || interruptSignal() != 0; };
    auto cancelLive = [&](const std::string& message) {
        std::vector<std::string> ids;
        for (auto& t : runs) {
            if (t.settled || t.attempts.empty() || t.attempts.back().finished) continue;
            ids.push_back(t.attempts.back().job);
            t.attempts.back().finished = true;
            t.attempts.back().cancelled = true;
            saveState(o, t);
        }
        cancelJobs(o, ids);
        finishAll(RunErrorKind::Cancelled, message);
        for (size_t i = 0; i < runs.size(); ++i) report(i);
    };

    // Submits every task that needs a (new) attempt: one array per set of sbatch flags.
    auto submit = [&]() -> bool {
        std::map<std::pair<std::string, std::string>, std::vector<size_t>> groups; // (constraint, exclude) → tasks
        for (size_t i = 0; i < runs.size(); ++i) {
            TaskRun& t = runs[i];
            if (t.settled || (!t.attempts.empty() && !t.attempts.back().finished)) continue;
            std::set<std::string> nodes(t.status.failedNodes.begin(), t.status.failedNodes.end());
            std::string exclude;
            for (const auto& n : nodes) exclude += (exclude.empty() ? "" : ",") + n;
            groups[{t.task->constraint.empty() ? o.constraint : t.task->constraint, exclude}].push_back(i);
        }
        for (auto& group : groups) {
            // Named references, not a structured binding: clang before 16 cannot capture a
            // binding in the lambda below (the sanitized build uses clang 14).
            const auto& key = group.first;
            auto& members = group.second;
            const std::string token = uniqueToken();
            std::vector<std::pair<std::string, std::string>> lines;
            for (size_t i : members) {
                TaskRun& t = runs[i];
                t.requestId = requestIdFor(t.digest, t.attempts.size());
                RunRequest r = t.task->request;
                r.id = t.requestId;
                // No client watches the node's silence: the runner's own watchdog stops a hung kernel.
                if (r.kernelTimeoutS <= 0) r.kernelTimeoutS = 15;
                lines.emplace_back(t.digest, t.task->probe ? std::string() : toJson(r).dump() + "\n");
            }
            const std::string script = (fs::path(o.stateDir) / (token + ".sh")).string();
            {
                std::ofstream f(script, std::ios::binary | std::ios::trunc);
                f << slurmBatchScript(lines, o);
                if (!f) {
                    finishAll(RunErrorKind::RunnerStart, "cannot write the batch script " + escapeControl(script));
                    return false;
                }
            }
            auto sbatchArgv = [&](bool withExclude) {
                std::vector<std::string> argv = o.sbatch;
                argv.push_back("--parsable");
                std::string array = "--array=0-" + std::to_string(members.size() - 1);
                if (o.maxTasks > 0) array += "%" + std::to_string(o.maxTasks);
                argv.push_back(array);
                argv.push_back("--job-name=" + o.jobName);
                argv.push_back("--output=" + (fs::path(o.stateDir) / (token + "_%a.out")).string());
                argv.push_back("--error=" + (fs::path(o.stateDir) / (token + "_%a.err")).string());
                argv.push_back("--ntasks=1");
                if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
                if (!o.gres.empty()) argv.push_back("--gres=" + o.gres);
                if (!key.first.empty()) argv.push_back("--constraint=" + key.first);
                if (!o.account.empty()) argv.push_back("--account=" + o.account);
                if (!o.timeLimit.empty()) argv.push_back("--time=" + o.timeLimit);
                if (withExclude && !key.second.empty()) argv.push_back("--exclude=" + key.second);
                argv.push_back(script);
                return argv;
            };
            ProcessSpec spec;
            spec.argv = sbatchArgv(true);
            spec.timeout = std::chrono::seconds(60);
            ProcessResult r = runProcess(spec);
            if (!r.ok() && !key.second.empty() && r.started() && !r.cancelled) {
                // Excluding the nodes it failed on left nothing that fits: any node will do.
                spec.argv = sbatchArgv(false);
                r = runProcess(spec);
            }
            std::string jobId = r.stdoutText.substr(0, r.stdoutText.find_first_of(";\n"));
            if (r.cancelled || cancelled()) return false;
            if (!r.ok() || !jobIdText(jobId) || jobId.find('_') != std::string::npos) {
                const std::string why = !r.started() ? r.startError
                                                     : r.describe() + ": " + escapeControl(r.stderrText.substr(0, 400), true);
                for (size_t i : members) {
                    TaskRun& t = runs[i];
                    t.outcome.error = RunError{RunErrorKind::RunnerStart, "sbatch failed (" + why + ")", "", 0, "start", "", true};
                    t.status.state = SlurmTaskState::Failed;
                    t.status.message = t.outcome.error.message;
                    t.settled = true;
                    report(i);
                }
                continue;
            }
            for (size_t k = 0; k < members.size(); ++k) {
                TaskRun& t = runs[members[k]];
                Attempt a;
                a.array = jobId;
                a.job = jobId + "_" + std::to_string(k);
                a.out = token + "_" + std::to_string(k) + ".out";
                t.attempts.push_back(a);
                ++t.status.attempts;
                t.status.jobId = a.job;
                t.status.node.clear();
                t.status.state = SlurmTaskState::Queued;
                saveState(o, t);
                report(members[k]);
            }
            liveArrays.insert(jobId);
        }
        return true;
    };

    int queueFailures = 0;
    for (;;) {
        if (cancelled()) {
            cancelLive("cancelled; the cluster jobs were cancelled (scancel)");
            return collect();
        }
        if (!submit()) {
            if (cancelled()) {
                cancelLive("cancelled; the cluster jobs were cancelled (scancel)");
                return collect();
            }
            return collect();
        }
        if (std::all_of(runs.begin(), runs.end(), [](const TaskRun& t) { return t.settled; })) break;

        // Wait one poll interval, watching for cancel.
        const auto until = Clock::now() + o.poll;
        while (Clock::now() < until && !cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (cancelled()) continue;

        std::map<std::string, QueueEntry> queue;
        std::string queueError;
        if (!queryQueue(o, liveArrays, queue, queueError)) {
            if (++queueFailures >= 60) {
                finishAll(RunErrorKind::RunnerStart, queueError + " (60 times in a row)");
                for (size_t i = 0; i < runs.size(); ++i) report(i);
                return collect();
            }
            continue;
        }
        queueFailures = 0;
        std::set<std::string> stillLive;
        for (size_t i = 0; i < runs.size(); ++i) {
            TaskRun& t = runs[i];
            if (t.settled || t.attempts.empty() || t.attempts.back().finished) continue;
            Attempt& a = t.attempts.back();
            const auto q = queue.find(a.job);
            const std::string state = q == queue.end() ? "" : q->second.state;
            if (q != queue.end() && !q->second.node.empty() && q->second.node != "(null)") a.node = q->second.node;
            if (q != queue.end() && !terminalState(state)) {
                const SlurmTaskState s = state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD" ||
                                                 state == "CONFIGURING"
                                             ? SlurmTaskState::Queued
                                             : SlurmTaskState::Running;
                if (s != t.status.state || a.node != t.status.node) {
                    t.status.state = s;
                    t.status.node = a.node;
                    t.status.message = s == SlurmTaskState::Queued ? q->second.reason : "";
                    saveState(o, t);
                    report(i);
                }
                stillLive.insert(a.array);
                continue;
            }
            // Ended (or forgotten by the controller): the answer is in its output, or it failed.
            std::string why;
            const Answer ans = readAnswer(o, t, a, why);
            if (ans == Answer::None && (state == "COMPLETED" || state.empty())) {
                // The output of a finished element may reach a shared file system a little later.
                if (t.noAnswerSince == Clock::time_point{}) t.noAnswerSince = Clock::now();
                if (Clock::now() - t.noAnswerSince < std::chrono::seconds(3)) {
                    stillLive.insert(a.array);
                    continue;
                }
            }
            t.noAnswerSince = {};
            a.finished = true;
            t.status.node = a.node;
            if (ans == Answer::Result || ans == Answer::Error) {
                t.answer = int(t.attempts.size() - 1);
                t.outcome.ok = ans == Answer::Result;
                t.status.state = t.outcome.ok ? SlurmTaskState::Done : SlurmTaskState::Failed;
                t.status.message = t.outcome.ok ? "" : escapeControl(t.outcome.error.message.substr(0, 300));
                t.settled = true;
            } else {
                a.failed = true;
                a.message = (state.empty() ? std::string("ended") : state) + (a.node.empty() ? "" : " on " + a.node) +
                            ": " + (ans == Answer::RetryableError ? escapeControl(t.outcome.error.message.substr(0, 300)) : why);
                if (!a.node.empty()) t.status.failedNodes.push_back(a.node);
                t.status.message = a.message;
                if (t.status.attempts >= maxAttempts) {
                    std::string all;
                    for (const Attempt& x : t.attempts)
                        if (x.failed) all += (all.empty() ? "" : "; ") + x.job + " " + x.message;
                    t.outcome.ok = false;
                    t.outcome.error = RunError{RunErrorKind::RunnerExited,
                                               "no answer after " + std::to_string(t.status.attempts) +
                                                   " attempt(s) on the cluster: " + all,
                                               "", 0, "", "", true};
                    t.status.state = SlurmTaskState::Failed;
                    t.settled = true;
                } else {
                    t.status.state = SlurmTaskState::Waiting; // submitted again next round
                }
            }
            saveState(o, t);
            report(i);
        }
        liveArrays = stillLive;
    }
    return collect();
}

SlurmRunner::SlurmRunner(SlurmOptions options, SlurmProgressFn progress)
    : m_options(std::move(options)), m_progress(std::move(progress)) {}

bool SlurmRunner::device(DeviceInfo& out, RunError& error) {
    if (!m_haveDevice) {
        SlurmTask probe;
        probe.probe = true;
        probe.label = "device";
        std::vector<RunOutcome> o = runSlurmTasks({probe}, m_options, m_progress);
        if (o.empty() || !o[0].ok) {
            error = o.empty() ? RunError{RunErrorKind::RunnerStart, "no answer", "", 0, "start", "", true} : o[0].error;
            return false;
        }
        m_device = o[0].result.device;
        m_haveDevice = true;
    }
    out = m_device;
    return true;
}

RunOutcome SlurmRunner::run(RunRequest request, const RunProgressFn&, std::atomic<bool>* cancel) {
    SlurmTask task;
    task.request = std::move(request);
    std::vector<RunOutcome> o = runSlurmTasks({task}, m_options, m_progress, cancel);
    if (o.empty()) return RunOutcome{};
    if (o[0].ok) {
        m_device = o[0].result.device;
        m_haveDevice = true;
    }
    return o[0];
}

} // namespace lowerscope
