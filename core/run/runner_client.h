#pragma once
// The client side of lowerscope-runner: a `Runner` interface and a process implementation that
// starts the runner with a configurable command line (locally, or e.g. {"ssh", HOST,
// "lowerscope-runner"}: the protocol is the same), speaks core/run/protocol.h over its pipes,
// enforces a deadline and kills it past that, and restarts it after a fault.
//
// Deadline: the runner reports progress at least every ~0.25 s while it measures; when it sends
// nothing for `deadline` (a kernel that does not finish), the client kills the runner's process
// group and reports kind "deadline". With RunnerConfig::limitRequestTime the whole request is
// bounded too (a runner that keeps sending progress is stopped). The CLI/GUI process never loads
// the CUDA driver.
//
// The runner may sit on another host and is not trusted: a line longer than the request allows
// (resultLimits), a message that is not JSON or over the JSON limits, and a result that does not
// answer the request (checkResult: the wrong number of variants, no samples, non-finite or
// non-positive samples) are protocol errors (kind "protocol"); the runner is killed and the next
// request starts a fresh one. Nothing here throws.

#include "core/build/process.h"
#include "core/run/protocol.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lowerscope {

struct RunOutcome {
    bool ok = false;
    RunResult result;          // when ok
    RunError error;            // when !ok
    std::string runnerStderr;  // the runner's stderr so far (diagnostics), possibly empty
};

using RunProgressFn = std::function<void(const RunProgress&)>;

// A measuring service. Implementations: ProcessRunner (local process or any command line that
// speaks the protocol on stdin/stdout, such as ssh).
class Runner {
public:
    virtual ~Runner() = default;
    // The device the runner measures on; starts the runner if needed. False with `error` set
    // when it cannot start or has no driver/device.
    virtual bool device(DeviceInfo& out, RunError& error) = 0;
    // Runs one request (its id is filled in when empty). Progress lines go to `progress` on the
    // calling thread. Setting `*cancel` kills the runner (error kind "cancelled").
    virtual RunOutcome run(RunRequest request, const RunProgressFn& progress = {},
                           std::atomic<bool>* cancel = nullptr) = 0;
    // Stops the runner process (a later call starts a new one).
    virtual void stop() = 0;
};

struct RunnerConfig {
    std::vector<std::string> command;                // argv; empty = defaultRunnerCommand()
    std::chrono::milliseconds deadline{10000};       // longest silence while a request runs
    std::chrono::milliseconds startTimeout{60000};   // for the hello line (driver init, ssh login)
    std::map<std::string, std::string> env;          // extra environment for the runner
    // Instruction-count and stall-sample collections end their runner (RunResult::runnerExits):
    // while one runs, a spare runner is started beside it, so the next request finds a runner
    // that has finished its start-up (CUDA context creation, ~0.3-0.5 s) instead of waiting for
    // a fresh one. A spare that is never needed is ended by stop(). Timing requests never start
    // one (nothing else starts on the GPU while they measure).
    bool spareForOneShots = true;
    // When true, run() as a whole (start-up included) may take at most startTimeout +
    // requestTimeLimit(request, deadline); past it the runner is killed (kind "deadline").
    bool limitRequestTime = false;
};

// How long the runner may take for `request` once started, silence deadline `deadline` (see
// RunnerConfig::deadline): a timing request its measuring loop (stop.wallLimitS) plus three
// deadlines (module load and first launch, warm-up, graph costs and outputs), with a graph path
// also its wall limit and one more deadline; plain launches for an
// external profiler (profileLaunches) one deadline each plus three; a profile collection the same
// as a timing request.
std::chrono::milliseconds requestTimeLimit(const RunRequest& request, std::chrono::milliseconds deadline);

// The JSON limits for the runner's answers to `request`: kRunnerMessageLimits, widened by what the
// request can legitimately produce (up to stop.maxSamples samples on five clocks per variant; with
// returnOutputs, every output buffer base64-encoded). Its maxBytes is also the longest line read.
JsonLimits resultLimits(const RunRequest& request);

// "" when `result` answers `request`; else one sentence saying what is wrong: a variant count that
// differs from the request's, a timing variant without samples, a sample (on any clock) that is
// not finite or not positive, or returned output bytes that do not match the output's count.
std::string checkResult(const RunRequest& request, const RunResult& result);

// $LOWERSCOPE_RUNNER if set, split into words by splitShellWords (core/build/process.h), the same
// rule as `--runner`; else lowerscope-runner next to the running executable if it exists; else
// "lowerscope-runner" (searched on PATH). When $LOWERSCOPE_RUNNER cannot be split (a quote that
// does not close): {} and `error` (when given) says why; ProcessRunner reports it as runner_start.
std::vector<std::string> defaultRunnerCommand(std::string* error = nullptr);

// One sentence when `host` (a runner host typed in the GUI, or read from a session) is not a plain
// ssh destination ([user@]host, letters, digits, . - _ @ : [ ] %, not starting with '-'); "" when it is.
std::string sshHostError(const std::string& host);

// {"ssh", "-o", "BatchMode=yes", "--", host, remoteCommand}: the same protocol through ssh. The
// "--" ends ssh's options, so whatever `host` holds is only ever the destination.
std::vector<std::string> sshRunnerCommand(const std::string& host,
                                          const std::string& remoteCommand = "lowerscope-runner");

class ProcessRunner : public Runner {
public:
    explicit ProcessRunner(RunnerConfig config = {});
    ~ProcessRunner() override;
    bool device(DeviceInfo& out, RunError& error) override;
    RunOutcome run(RunRequest request, const RunProgressFn& progress = {},
                   std::atomic<bool>* cancel = nullptr) override;
    void stop() override;
    const RunnerConfig& config() const { return m_config; }
    // How many times the runner process was started (tests check restarts after faults); a spare
    // counts when it is started.
    int starts() const { return m_starts; }
    // How many requests found a spare runner ready and used it.
    int sparesUsed() const { return m_sparesUsed; }
    // The runner's version string from its hello line ("" before the first start).
    const std::string& runnerVersion() const { return m_version; }

private:
    // Starts the runner if it is not running and reads its hello line, waiting at most
    // min(startTimeout, until `end`).
    bool ensureStarted(RunError& error, std::chrono::steady_clock::time_point end);
    // Ends the runner (killed, or given a moment to exit) and, when `describe` is given, fills it as
    // a runner_exited error saying how the process ended.
    void endProcess(RunError* describe, bool killed);
    // Spawns the runner command into `proc` (no hello read). False with `error` filled on failure.
    bool spawn(InteractiveProcess& proc, RunError& error);
    // Reads m_proc's hello line, waiting at most until `helloBy`. False with `error` filled (the
    // process ended) on failure.
    bool readHello(RunError& error, std::chrono::steady_clock::time_point helloBy);
    // Kills and reaps the spare runner, if any.
    void dropSpare();

    RunnerConfig m_config;
    std::string m_commandError; // why the default command could not be made ($LOWERSCOPE_RUNNER)
    std::unique_ptr<InteractiveProcess> m_proc = std::make_unique<InteractiveProcess>();
    std::unique_ptr<InteractiveProcess> m_spare; // started during a one-shot collection, or null
    bool m_running = false;
    int m_starts = 0;
    int m_sparesUsed = 0;
    int m_nextId = 1;
    DeviceInfo m_device;
    std::string m_version;
};

} // namespace lowerscope
