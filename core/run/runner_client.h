#pragma once
// The client side of lowerscope-runner: a `Runner` interface and a process implementation that
// starts the runner with a configurable command line (locally, or e.g. {"ssh", HOST,
// "lowerscope-runner"}: the protocol is the same), speaks core/run/protocol.h over its pipes,
// enforces a deadline and kills it past that, and restarts it after a fault.
//
// Deadline: the runner reports progress at least every ~0.25 s while it measures; when it sends
// nothing for `deadline` (a kernel that does not finish), the client kills the runner's process
// group and reports kind "deadline". The CLI/GUI process never loads the CUDA driver.

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
};

// $LOWERSCOPE_RUNNER if set; else lowerscope-runner next to the running executable if it exists;
// else "lowerscope-runner" (searched on PATH).
std::vector<std::string> defaultRunnerCommand();

// {"ssh", "-o", "BatchMode=yes", host, remoteCommand}: the same protocol through ssh.
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
    // How many times the runner process was started (tests check restarts after faults).
    int starts() const { return m_starts; }
    // The runner's version string from its hello line ("" before the first start).
    const std::string& runnerVersion() const { return m_version; }

private:
    // Starts the runner if it is not running and reads its hello line.
    bool ensureStarted(RunError& error);
    // Ends the runner (killed, or given a moment to exit) and, when `describe` is given, fills it as
    // a runner_exited error saying how the process ended.
    void endProcess(RunError* describe, bool killed);

    RunnerConfig m_config;
    InteractiveProcess m_proc;
    bool m_running = false;
    int m_starts = 0;
    int m_nextId = 1;
    DeviceInfo m_device;
    std::string m_version;
};

} // namespace lowerscope
