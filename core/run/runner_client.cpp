// Runner client: starts lowerscope-runner, speaks the JSON line protocol, enforces the deadline.
#include "core/run/runner_client.h"

#include "core/untrusted.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace lowerscope {

namespace {

using Clock = std::chrono::steady_clock;

std::string tail(const std::string& s, size_t n = 4000) { return s.size() <= n ? s : s.substr(s.size() - n); }

// Runner text in our messages: bounded and with control bytes escaped (it may come from anywhere).
std::string quoteRunner(const std::string& s, size_t n = 200) {
    return escapeControl(s.size() <= n ? s : s.substr(0, n) + "...");
}

std::chrono::milliseconds leftUntil(Clock::time_point end) {
    return std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()));
}

std::string seconds(std::chrono::milliseconds ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", ms.count() / 1000.0);
    return buf;
}

} // namespace

std::chrono::milliseconds requestTimeLimit(const RunRequest& request, std::chrono::milliseconds deadline) {
    if (request.profileLaunches > 0) return deadline * (static_cast<long long>(request.profileLaunches) + 3);
    const double loopS = std::isfinite(request.stop.wallLimitS) ? std::clamp(request.stop.wallLimitS, 0.0, 1e7) : 1e7;
    // The graph path stops between two timings past its own wall limit: one more deadline for the last.
    const double pathS = request.graphPath ? std::clamp(request.graphPath->wallLimitS, 0.0, 3600.0) : 0.0;
    return std::chrono::milliseconds(static_cast<long long>((loopS + pathS) * 1000)) +
           (request.graphPath ? 4 : 3) * deadline;
}

JsonLimits resultLimits(const RunRequest& request) {
    JsonLimits l = kRunnerMessageLimits;
    // Samples: up to five series per variant (samples_ms, three clocks, the SM clock estimates) of
    // at most 32 bytes per number in the text.
    const size_t samples = std::min<size_t>(request.stop.maxSamples, 10'000'000) * std::max<size_t>(1, request.variants.size());
    l.maxValues += 5 * samples;
    l.maxBytes += 5 * 32 * samples;
    if (request.graphPath) {
        // Per path length: three cost series, four steady-state series and two per replay count.
        const size_t reps = static_cast<size_t>(std::clamp(request.graphPath->repetitions, 0, 101));
        const size_t perPath = reps * (7 + 2 * request.graphPath->replays.size()) + 64;
        const size_t values = perPath * request.graphPath->pathLengths.size();
        l.maxValues += values;
        l.maxBytes += 32 * values;
    }
    if (request.returnOutputs) {
        for (const LaunchVariant& v : request.variants) {
            for (const BufferSpec& b : v.buffers)
                if (b.output && b.count > 0) l.maxBytes += (static_cast<size_t>(b.count) * elemSize(b.type) + 2) / 3 * 4 + 64;
            // A replay reads every restored region back, for each variant, as an output "mem@0x...".
            for (const MemoryRegion& r : request.regions) l.maxBytes += (r.data.size() + 2) / 3 * 4 + 64;
        }
    }
    return l;
}

namespace {

// Every string a runner reports (device name, labels, stop reasons, output names) is shown to
// people: control bytes and invalid UTF-8 are escaped once, here, where the text enters (terminal
// escape sequences from a runner must never reach a terminal, a Markdown report or an SVG raw).
void escapeRunnerText(DeviceInfo& d) { d.name = escapeControl(d.name); }

void escapeRunnerText(RunResult& r) {
    escapeRunnerText(r.device);
    for (auto& v : r.variants) {
        for (std::string* t : {&v.label, &v.kernel, &v.mode, &v.stopReason, &v.clockNote, &v.durationClock})
            *t = escapeControl(*t);
        for (auto& o : v.outputs) o.name = escapeControl(o.name);
    }
    for (auto& a : r.agreement)
        for (std::string* t : {&a.name, &a.labelA, &a.labelB}) *t = escapeControl(*t);
}

} // namespace

std::string checkResult(const RunRequest& request, const RunResult& result) {
    if (result.variants.size() != request.variants.size()) {
        return "the runner's result has " + std::to_string(result.variants.size()) + " variant(s) for a request of " +
               std::to_string(request.variants.size());
    }
    for (size_t i = 0; i < result.variants.size(); ++i) {
        const VariantResult& v = result.variants[i];
        const std::string which = "variant " + std::to_string(i + 1) + (request.variants[i].label.empty() ? "" : " (" + request.variants[i].label + ")");
        for (const OutputReport& o : v.outputs)
            if (!o.data.empty() && (o.count < 0 || o.data.size() != static_cast<uint64_t>(o.count) * elemSize(o.type)))
                return "the runner's output " + quoteRunner(o.name) + " of " + which + " holds " +
                       std::to_string(o.data.size()) + " bytes, not " + std::to_string(o.count) + " elements";
        if (request.profile != ProfileCollection::None) continue; // a profile carries no samples
        if (v.samplesMs.empty()) return "the runner's result has no samples for " + which;
        auto bad = [](const std::vector<double>& series) {
            return std::find_if(series.begin(), series.end(), [](double x) { return !std::isfinite(x) || x <= 0; });
        };
        if (auto it = bad(v.samplesMs); it != v.samplesMs.end())
            return "the runner's result has an invalid sample for " + which + " (" + std::to_string(*it) +
                   " ms: samples are finite and positive)";
        for (const auto& [clock, series] : v.samplesByClock)
            if (auto it = bad(series); it != series.end())
                return "the runner's result has an invalid " + quoteRunner(clock) + " sample for " + which + " (" +
                       std::to_string(*it) + " ms)";
    }
    return "";
}

std::vector<std::string> defaultRunnerCommand(std::string* error) {
    if (const char* env = std::getenv("LOWERSCOPE_RUNNER"); env && *env) {
        try {
            std::vector<std::string> words = splitShellWords(env);
            if (!words.empty()) return words;
            if (error) *error = "LOWERSCOPE_RUNNER holds no command";
        } catch (const std::invalid_argument& e) {
            if (error) *error = std::string("LOWERSCOPE_RUNNER: ") + e.what();
        }
        return {};
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

std::string sshHostError(const std::string& host) {
    if (host.empty()) return "the runner host is empty";
    if (host.size() > 255) return "the runner host is longer than 255 characters";
    if (host[0] == '-')
        return "the runner host \"" + escapeControl(host.substr(0, 80)) +
               "\" starts with '-': ssh would take it as an option (e.g. -oProxyCommand runs a command); refused";
    for (unsigned char c : host) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '-' || c == '_' || c == '@' || c == ':' || c == '[' || c == ']' || c == '%' || c >= 0x80;
        if (!ok)
            return "the runner host \"" + escapeControl(host.substr(0, 80)) +
                   "\" holds a character a host name cannot (spaces, quotes, shell syntax, control bytes); refused";
    }
    return {};
}

std::vector<std::string> sshRunnerCommand(const std::string& host, const std::string& remoteCommand) {
    // "--" ends ssh's options: whatever the host field holds is only ever a destination.
    return {"ssh", "-o", "BatchMode=yes", "--", host, remoteCommand};
}

ProcessRunner::ProcessRunner(RunnerConfig config) : m_config(std::move(config)) {
    if (m_config.command.empty()) {
        m_config.command = defaultRunnerCommand(&m_commandError);
    }
}

ProcessRunner::~ProcessRunner() { stop(); }

void ProcessRunner::dropSpare() {
    if (m_spare) m_spare->kill();
    m_spare.reset();
}

void ProcessRunner::stop() {
    dropSpare();
    if (m_running) {
        m_proc->writeLine(R"({"op":"quit"})", std::chrono::milliseconds(200));
        m_proc->closeStdin();
        m_proc->wait(std::chrono::milliseconds(2000));  // kills the group past the timeout
    }
    m_proc->kill();
    m_running = false;
}

void ProcessRunner::endProcess(RunError* describe, bool killed) {
    ProcessResult r;
    if (killed) {
        m_proc->kill();
        r = m_proc->wait(std::chrono::milliseconds(100));
    } else {
        m_proc->closeStdin();
        r = m_proc->wait(std::chrono::milliseconds(3000));
    }
    m_running = false;
    if (describe) {
        describe->kind = RunErrorKind::RunnerExited;
        describe->message = "the runner ended without an answer (" + r.describe() + ")";
        std::string err =
            escapeControl(tail(m_proc->stderrText().empty() ? r.stderrText : m_proc->stderrText(), 1000), true);
        if (!err.empty()) {
            describe->message += ": " + err;
        }
        describe->fatal = true;
    }
}

bool ProcessRunner::spawn(InteractiveProcess& proc, RunError& error) {
    if (m_config.command.empty()) {
        error = RunError{RunErrorKind::RunnerStart, m_commandError.empty() ? "no runner command" : m_commandError, "", 0,
                         "start", "", true};
        return false;
    }
    ProcessSpec spec;
    spec.argv = m_config.command;
    spec.env = m_config.env;
    if (!proc.start(spec)) {
        error = RunError{RunErrorKind::RunnerStart,
                         "cannot start the runner (" + (m_config.command.empty() ? "" : m_config.command[0]) +
                             "): " + proc.startError(),
                         "", 0, "start", "", true};
        return false;
    }
    ++m_starts;
    return true;
}

bool ProcessRunner::ensureStarted(RunError& error, Clock::time_point end) {
    if (m_running && m_proc->running()) {
        return true;
    }
    m_proc->kill();
    m_running = false;
    const Clock::time_point helloBy = std::min(end, Clock::now() + m_config.startTimeout);
    if (m_spare) {
        // A spare started during the last one-shot collection: use it if it says hello; if it
        // cannot (it ended: a GPU in exclusive-process mode refuses a second context), start
        // a fresh runner as if there had been none.
        std::swap(m_proc, m_spare);
        m_spare.reset();
        if (m_proc->running()) {
            RunError spareError;
            if (readHello(spareError, helloBy)) {
                ++m_sparesUsed;
                return true;
            }
            if (spareError.kind == RunErrorKind::Cancelled) {
                error = spareError;
                return false;
            }
        }
        m_proc->kill();
        m_running = false;
    }
    if (!spawn(*m_proc, error)) return false;
    return readHello(error, helloBy);
}

bool ProcessRunner::readHello(RunError& error, Clock::time_point helloBy) {
    // Before hello only short lines are expected (ssh banners, the hello itself).
    m_proc->setMaxLineBytes(kRunnerMessageLimits.maxBytes);
    std::string line;
    int junk = 0;
    for (;;) {
        auto st = m_proc->readLine(line, leftUntil(helloBy));
        if (st == InteractiveProcess::ReadStatus::Timeout) {
            error = RunError{RunErrorKind::RunnerStart,
                             "the runner did not say hello within " + seconds(m_config.startTimeout) + " s; it was killed",
                             "", 0, "start", "", true};
            m_running = true;
            endProcess(nullptr, true);
            return false;
        }
        if (st == InteractiveProcess::ReadStatus::TooLong) {
            error = RunError{RunErrorKind::Protocol,
                             "the runner sent a line longer than " + std::to_string(kRunnerMessageLimits.maxBytes) +
                                 " bytes before its hello; it was killed",
                             "", 0, "start", "", true};
            m_running = true;
            endProcess(nullptr, true);
            return false;
        }
        if (st == InteractiveProcess::ReadStatus::Cancelled) {
            error = RunError{RunErrorKind::Cancelled, "interrupted while the runner started; it was killed", "", 0,
                             "start", "", true};
            m_running = true;
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
                error = RunError{RunErrorKind::Protocol, "the runner printed no hello line: " + quoteRunner(line), "",
                                 0, "start", "", true};
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
        escapeRunnerText(m_device);
        m_version = escapeControl(m.runnerVersion);
        m_running = true;
        return true;
    }
}

bool ProcessRunner::device(DeviceInfo& out, RunError& error) {
    if (!ensureStarted(error, Clock::now() + m_config.startTimeout)) {
        return false;
    }
    out = m_device;
    return true;
}

RunOutcome ProcessRunner::run(RunRequest request, const RunProgressFn& progress, std::atomic<bool>* cancel) {
    RunOutcome out;
    // The whole request, start-up included, within startTimeout + requestTimeLimit when asked.
    const auto limit = m_config.startTimeout + requestTimeLimit(request, m_config.deadline);
    const Clock::time_point end = m_config.limitRequestTime ? Clock::now() + limit : Clock::time_point::max();
    if (!ensureStarted(out.error, end)) {
        out.runnerStderr = m_proc->stderrText();
        return out;
    }
    if (request.id.empty()) {
        request.id = std::to_string(m_nextId++);
    }
    const JsonLimits limits = resultLimits(request);
    m_proc->setMaxLineBytes(limits.maxBytes);
    auto protocolError = [&](const std::string& message) {
        out.error = RunError{RunErrorKind::Protocol, message + "; the runner was killed", "", 0, "", "", true};
        endProcess(nullptr, true);
    };
    int ignored = 0;
    // The runner's own watchdog stays behind the client's deadline, so the client is the one
    // that stops a hung kernel (and can report it as such).
    double deadlineS = m_config.deadline.count() / 1000.0;
    if (request.kernelTimeoutS <= deadlineS) {
        request.kernelTimeoutS = deadlineS + 5.0;
    }
    const std::string line = toJson(request).dump();
    if (!m_proc->writeLine(line, std::max(m_config.deadline, std::chrono::milliseconds(5000)))) {
        out.error = RunError{RunErrorKind::RunnerExited, "could not send the request to the runner", "", 0, "send", "", true};
        endProcess(nullptr, true);
        out.runnerStderr = m_proc->stderrText();
        return out;
    }
    if (m_config.spareForOneShots && !m_spare && profileEndsRunner(request.profile)) {
        // This runner ends after its answer: start the next one now, so its start-up overlaps
        // the collection. A spare that cannot start is no error (the next request starts one).
        auto spare = std::make_unique<InteractiveProcess>();
        RunError ignored;
        if (spawn(*spare, ignored)) m_spare = std::move(spare);
    }
    std::string reply;
    for (;;) {
        const bool overall = leftUntil(end) < m_config.deadline;
        auto st = m_proc->readLine(reply, std::min(m_config.deadline, leftUntil(end)), cancel);
        if (st == InteractiveProcess::ReadStatus::Timeout && overall) {
            out.error = RunError{RunErrorKind::Deadline,
                                 "the runner had no answer " + seconds(limit) +
                                     " s after the request began (the measuring loop's limit, start-up and three "
                                     "deadlines); it was killed",
                                 "", 0, "", "", true};
            endProcess(nullptr, true);
            break;
        }
        if (st == InteractiveProcess::ReadStatus::Timeout) {
            out.error = RunError{RunErrorKind::Deadline,
                                 "the runner sent nothing for " + seconds(m_config.deadline) +
                                     " s (a kernel ran past the deadline?); it was killed",
                                 "", 0, "", "", true};
            endProcess(nullptr, true);
            break;
        }
        if (st == InteractiveProcess::ReadStatus::TooLong) {
            protocolError("the runner sent a line longer than " + std::to_string(limits.maxBytes) +
                          " bytes (the most this request's answer can take)");
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
        // Lines that answer nothing (blank, for another request, a second hello): a few are
        // tolerated, a runner that sends nothing else is broken.
        auto ignore = [&](const std::string& what) {
            if (++ignored <= 1000) return true;
            protocolError("the runner sent over 1000 lines that answer nothing (" + what + ")");
            return false;
        };
        if (reply.find_first_not_of(" \t\r") == std::string::npos) {
            if (ignore("blank lines")) continue;
            break;
        }
        RunnerMessage m;
        try {
            m = parseRunnerMessage(reply, limits);
        } catch (const ProtocolError& e) {
            protocolError(escapeControl(e.what()));
            break;
        }
        if (!m.id.empty() && m.id != request.id) {
            if (ignore("lines for request \"" + quoteRunner(m.id) + "\"")) continue; // stale: an earlier request's
            break;
        }
        if (m.kind == RunnerMessage::Kind::Progress) {
            if (progress) {
                progress(m.progress);
            }
            continue;
        }
        if (m.kind == RunnerMessage::Kind::Result) {
            if (const std::string wrong = checkResult(request, m.result); !wrong.empty()) {
                protocolError(wrong);
                break;
            }
            out.ok = true;
            out.result = std::move(m.result);
            escapeRunnerText(out.result);
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
        if (!ignore("hello or info messages")) break;
    }
    out.runnerStderr = m_proc->stderrText();
    return out;
}

} // namespace lowerscope
