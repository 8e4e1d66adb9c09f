// Runner client: starts lowerscope-runner, speaks the JSON line protocol, enforces the deadline.
#include "core/run/runner_client.h"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace lowerscope {

namespace {

std::string tail(const std::string& s, size_t n = 4000) { return s.size() <= n ? s : s.substr(s.size() - n); }

} // namespace

std::vector<std::string> defaultRunnerCommand() {
    if (const char* env = std::getenv("LOWERSCOPE_RUNNER"); env && *env) {
        return {env};
    }
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        auto candidate = self.parent_path() / "lowerscope-runner";
        if (std::filesystem::exists(candidate, ec)) {
            return {candidate.string()};
        }
        // Build tree layout: tests live under build/tests/..., the runner in build/app/.
        for (auto dir = self.parent_path(); dir.has_parent_path() && dir != dir.parent_path(); dir = dir.parent_path()) {
            auto c = dir / "app" / "lowerscope-runner";
            if (std::filesystem::exists(c, ec)) {
                return {c.string()};
            }
        }
    }
    return {"lowerscope-runner"};
}

std::vector<std::string> sshRunnerCommand(const std::string& host, const std::string& remoteCommand) {
    return {"ssh", "-o", "BatchMode=yes", host, remoteCommand};
}

ProcessRunner::ProcessRunner(RunnerConfig config) : m_config(std::move(config)) {
    if (m_config.command.empty()) {
        m_config.command = defaultRunnerCommand();
    }
}

ProcessRunner::~ProcessRunner() { stop(); }

void ProcessRunner::stop() {
    if (m_running) {
        m_proc.writeLine(R"({"op":"quit"})", std::chrono::milliseconds(200));
        m_proc.closeStdin();
        m_proc.wait(std::chrono::milliseconds(2000));  // kills the group past the timeout
    }
    m_proc.kill();
    m_running = false;
}

void ProcessRunner::endProcess(RunError* describe, bool killed) {
    ProcessResult r;
    if (killed) {
        m_proc.kill();
        r = m_proc.wait(std::chrono::milliseconds(100));
    } else {
        m_proc.closeStdin();
        r = m_proc.wait(std::chrono::milliseconds(3000));
    }
    m_running = false;
    if (describe) {
        describe->kind = RunErrorKind::RunnerExited;
        describe->message = "the runner ended without an answer (" + r.describe() + ")";
        std::string err = tail(m_proc.stderrText().empty() ? r.stderrText : m_proc.stderrText(), 1000);
        if (!err.empty()) {
            describe->message += ": " + err;
        }
        describe->fatal = true;
    }
}

bool ProcessRunner::ensureStarted(RunError& error) {
    if (m_running && m_proc.running()) {
        return true;
    }
    m_proc.kill();
    m_running = false;
    ProcessSpec spec;
    spec.argv = m_config.command;
    spec.env = m_config.env;
    if (!m_proc.start(spec)) {
        error = RunError{RunErrorKind::RunnerStart,
                         "cannot start the runner (" + (m_config.command.empty() ? "" : m_config.command[0]) +
                             "): " + m_proc.startError(),
                         "", 0, "start", "", true};
        return false;
    }
    ++m_starts;
    std::string line;
    int junk = 0;
    for (;;) {
        auto st = m_proc.readLine(line, m_config.startTimeout);
        if (st == InteractiveProcess::ReadStatus::Timeout) {
            error = RunError{RunErrorKind::RunnerStart, "the runner did not say hello within " +
                                                 std::to_string(m_config.startTimeout.count() / 1000) + " s",
                             "", 0, "start", "", true};
            endProcess(nullptr, true);
            return false;
        }
        if (st != InteractiveProcess::ReadStatus::Line) {
            m_running = true;  // so endProcess reaps it
            endProcess(&error, false);
            error.kind = RunErrorKind::RunnerStart;
            return false;
        }
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        RunnerMessage m;
        try {
            m = parseRunnerMessage(line);
        } catch (const ProtocolError&) {
            // ssh banners and the like before hello are skipped, but only a few of them.
            if (++junk > 100) {
                error = RunError{RunErrorKind::Protocol, "the runner printed no hello line: " + tail(line, 200), "", 0, "start", "",
                                 true};
                m_running = true;
                endProcess(nullptr, true);
                return false;
            }
            continue;
        }
        if (m.kind == RunnerMessage::Kind::Error) {
            error = m.error;
            error.fatal = true;
            m_running = true;
            endProcess(nullptr, false);
            return false;
        }
        if (m.kind != RunnerMessage::Kind::Hello) {
            continue;
        }
        if (m.protocol != kRunnerProtocolVersion) {
            error = RunError{RunErrorKind::Protocol,
                             "runner speaks protocol " + std::to_string(m.protocol) + ", this client " +
                                 std::to_string(kRunnerProtocolVersion),
                             "", 0, "start", "", true};
            m_running = true;
            endProcess(nullptr, true);
            return false;
        }
        m_device = m.device;
        m_version = m.runnerVersion;
        m_running = true;
        return true;
    }
}

bool ProcessRunner::device(DeviceInfo& out, RunError& error) {
    if (!ensureStarted(error)) {
        return false;
    }
    out = m_device;
    return true;
}

RunOutcome ProcessRunner::run(RunRequest request, const RunProgressFn& progress, std::atomic<bool>* cancel) {
    RunOutcome out;
    if (!ensureStarted(out.error)) {
        out.runnerStderr = m_proc.stderrText();
        return out;
    }
    if (request.id.empty()) {
        request.id = std::to_string(m_nextId++);
    }
    // The runner's own watchdog stays behind the client's deadline, so the client is the one
    // that stops a hung kernel (and can report it as such).
    double deadlineS = m_config.deadline.count() / 1000.0;
    if (request.kernelTimeoutS <= deadlineS) {
        request.kernelTimeoutS = deadlineS + 5.0;
    }
    const std::string line = toJson(request).dump();
    if (!m_proc.writeLine(line, std::max(m_config.deadline, std::chrono::milliseconds(5000)))) {
        out.error = RunError{RunErrorKind::RunnerExited, "could not send the request to the runner", "", 0, "send", "", true};
        endProcess(nullptr, true);
        out.runnerStderr = m_proc.stderrText();
        return out;
    }
    std::string reply;
    for (;;) {
        auto st = m_proc.readLine(reply, m_config.deadline, cancel);
        if (st == InteractiveProcess::ReadStatus::Timeout) {
            out.error = RunError{RunErrorKind::Deadline,
                                 "the runner sent nothing for " + std::to_string(m_config.deadline.count() / 1000.0) +
                                     " s (a kernel ran past the deadline?); it was killed",
                                 "", 0, "", "", true};
            endProcess(nullptr, true);
            break;
        }
        if (st == InteractiveProcess::ReadStatus::Cancelled) {
            out.error = RunError{RunErrorKind::Cancelled, "cancelled; the runner was killed", "", 0, "", "", true};
            endProcess(nullptr, true);
            break;
        }
        if (st != InteractiveProcess::ReadStatus::Line) {
            endProcess(&out.error, false);
            break;
        }
        if (reply.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        RunnerMessage m;
        try {
            m = parseRunnerMessage(reply);
        } catch (const ProtocolError& e) {
            out.error = RunError{RunErrorKind::Protocol, e.what(), "", 0, "", "", true};
            endProcess(nullptr, true);
            break;
        }
        if (!m.id.empty() && m.id != request.id) {
            continue;  // a stale line from an earlier request
        }
        if (m.kind == RunnerMessage::Kind::Progress) {
            if (progress) {
                progress(m.progress);
            }
            continue;
        }
        if (m.kind == RunnerMessage::Kind::Result) {
            out.ok = true;
            out.result = std::move(m.result);
            if (out.result.runnerExits) {
                // The runner ends after this answer; reap it so the next request starts a fresh one.
                endProcess(nullptr, false);
            }
            break;
        }
        if (m.kind == RunnerMessage::Kind::Error) {
            out.error = m.error;
            if (m.error.fatal) {
                // The runner exits after a fatal error; reap it so the next request restarts it.
                endProcess(nullptr, false);
            }
            break;
        }
    }
    out.runnerStderr = m_proc.stderrText();
    return out;
}

} // namespace lowerscope
