#include "core/build/process.h"

#include "core/build/lifetime.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <pthread.h>
#include <stdexcept>
#include <spawn.h>
#include <sys/wait.h>
#include <string_view>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace lowerscope {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPollSliceMs = 20;            // how often the cancel flag is looked at
constexpr int kDrainAfterExitMs = 1000;     // a grandchild that keeps our pipes open is not waited for
constexpr size_t kInteractiveStderrCap = 1 << 20;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void closeQuietly(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// A pipe whose both ends are >= 3 and close-on-exec. Ends below 3 would collide with the dup2 onto
// 0/1/2 in the child (dup2(fd, fd) keeps FD_CLOEXEC, so the child would lose that stream).
bool makePipe(int fds[2]) {
    int raw[2];
    if (::pipe2(raw, O_CLOEXEC) != 0) return false;
    for (int i = 0; i < 2; ++i) {
        if (raw[i] < 3) {
            int moved = ::fcntl(raw[i], F_DUPFD_CLOEXEC, 3);
            ::close(raw[i]);
            if (moved < 0) {
                if (i == 1) ::close(fds[0]);
                return false;
            }
            raw[i] = moved;
        }
        fds[i] = raw[i];
    }
    return true;
}

void setNonBlocking(int fd) {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// write() that cannot raise SIGPIPE in this process: SIGPIPE is blocked in the calling thread for
// the duration, and a SIGPIPE this write generated is consumed before unblocking. (Ignoring SIGPIPE
// process-wide would be simpler but is not a library's decision to make.)
ssize_t writeNoSigpipe(int fd, const char* data, size_t size) {
    sigset_t pipeSet, oldSet, pending;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSet, &oldSet);
    sigpending(&pending);
    bool wasPending = sigismember(&pending, SIGPIPE);
    ssize_t n = ::write(fd, data, size);
    int err = errno;
    if (n < 0 && err == EPIPE && !wasPending) {
        timespec zero{0, 0};
        while (sigtimedwait(&pipeSet, nullptr, &zero) < 0 && errno == EINTR) {}
    }
    pthread_sigmask(SIG_SETMASK, &oldSet, nullptr);
    errno = err;
    return n;
}

// Reads what is available from a non-blocking fd into `out` (keeping its newest `cap` bytes when
// cap != 0), at most `maxRead` bytes in this call when maxRead != 0 (a child that writes faster
// than we read must not keep us here). Returns false at EOF or error (the caller closes the fd).
bool drainFd(int fd, std::string& out, size_t cap = 0, size_t maxRead = 0) {
    char buf[65536];
    for (size_t got = 0; maxRead == 0 || got < maxRead;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<size_t>(n));
            got += static_cast<size_t>(n);
            if (cap && out.size() > cap) out.erase(0, out.size() - cap);
            continue;
        }
        if (n == 0) return false;
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    return true;
}

struct Spawned {
    pid_t pid = -1;
    int in = -1, out = -1, err = -1; // parent ends, non-blocking
    std::string error;
};

std::vector<std::string> buildEnvironment(const ProcessSpec& spec) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        std::string entry(*e);
        std::string name = entry.substr(0, entry.find('='));
        if (spec.env.count(name)) continue;
        if (std::find(spec.envRemove.begin(), spec.envRemove.end(), name) != spec.envRemove.end()) continue;
        env.push_back(std::move(entry));
    }
    for (const auto& [k, v] : spec.env) env.push_back(k + "=" + v);
    return env;
}

Spawned spawnChild(const ProcessSpec& spec) {
    Spawned s;
    if (spec.argv.empty() || spec.argv[0].empty()) {
        s.error = "no program given";
        return s;
    }
    const std::string& program = spec.argv[0];
    bool hasSlash = program.find('/') != std::string::npos;
    if (hasSlash && ::access(program.c_str(), X_OK) != 0) {
        s.error = "cannot run " + program + ": " + std::strerror(errno);
        return s;
    }
    int inPipe[2], outPipe[2], errPipe[2];
    if (!makePipe(inPipe)) {
        s.error = std::string("pipe: ") + std::strerror(errno);
        return s;
    }
    if (!makePipe(outPipe)) {
        s.error = std::string("pipe: ") + std::strerror(errno);
        ::close(inPipe[0]), ::close(inPipe[1]);
        return s;
    }
    if (!makePipe(errPipe)) {
        s.error = std::string("pipe: ") + std::strerror(errno);
        ::close(inPipe[0]), ::close(inPipe[1]), ::close(outPipe[0]), ::close(outPipe[1]);
        return s;
    }

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
    if (!spec.workingDir.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.workingDir.c_str());

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Own process group (so a kill reaches nvcc's children), a clean signal mask (the calling
    // thread may block signals) and default dispositions (the caller may ignore SIGPIPE etc.).
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> argv;
    for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> envStrings = buildEnvironment(spec);
    std::vector<char*> envp;
    for (auto& e : envStrings) envp.push_back(e.data());
    envp.push_back(nullptr);

    pid_t pid = -1;
    int rc = hasSlash ? posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data())
                      : posix_spawnp(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(inPipe[0]);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (rc != 0) {
        s.error = "cannot run " + program + ": " + std::strerror(rc);
        if (!spec.workingDir.empty() && rc == ENOENT && hasSlash)
            s.error += " (or working directory " + spec.workingDir + " missing)";
        ::close(inPipe[1]), ::close(outPipe[0]), ::close(errPipe[0]);
        return s;
    }
    // From here on, should this process die, the watchdog kills the child's group (lifetime.h).
    watchGroup(pid);
    s.pid = pid;
    s.in = inPipe[1];
    s.out = outPipe[0];
    s.err = errPipe[0];
    setNonBlocking(s.in);
    setNonBlocking(s.out);
    setNonBlocking(s.err);
    return s;
}

void killGroup(pid_t pid) {
    if (pid <= 0) return;
    // The child is its own group leader; kill the group, and the pid itself in case setpgid lost a
    // race with an exec'd program that changed its group.
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
}

void decodeStatus(int status, ProcessResult& r) {
    if (WIFEXITED(status)) {
        r.exitCode = WEXITSTATUS(status);
        r.signal = 0;
    } else if (WIFSIGNALED(status)) {
        r.signal = WTERMSIG(status);
        r.exitCode = 128 + r.signal;
    }
}

} // namespace

std::string ProcessResult::describe() const {
    if (!startError.empty()) return startError;
    char buf[96];
    if (timedOut) {
        std::snprintf(buf, sizeof buf, "timed out after %.0f ms (killed)", wallMs);
        return buf;
    }
    if (cancelled) return "cancelled (killed)";
    if (signal != 0) {
        std::snprintf(buf, sizeof buf, "killed by signal %d (%s)", signal, strsignal(signal));
        return buf;
    }
    return "exit " + std::to_string(exitCode);
}

ProcessResult runProcess(const ProcessSpec& spec) {
    ProcessResult r;
    auto t0 = Clock::now();
    Spawned s = spawnChild(spec);
    if (s.pid < 0) {
        r.startError = s.error;
        r.wallMs = msSince(t0);
        return r;
    }

    size_t inOffset = 0;
    if (spec.stdinText.empty()) closeQuietly(s.in);
    bool hasDeadline = spec.timeout.count() > 0;
    auto deadline = t0 + spec.timeout;
    bool reaped = false, killed = false;
    int status = 0;
    std::optional<Clock::time_point> drainDeadline;

    for (;;) {
        if (!killed) {
            if ((spec.cancel && spec.cancel->load()) || interruptSignal()) {
                r.cancelled = killed = true;
            } else if (hasDeadline && Clock::now() >= deadline) {
                r.timedOut = killed = true;
            }
            if (killed) {
                killGroup(s.pid);
                closeQuietly(s.in);
                if (!drainDeadline) drainDeadline = Clock::now() + std::chrono::milliseconds(kDrainAfterExitMs);
            }
        }
        if (s.out < 0 && s.err < 0) break;
        if (drainDeadline && Clock::now() >= *drainDeadline) break;

        pollfd fds[3];
        int n = 0;
        int outIdx = -1, errIdx = -1, inIdx = -1;
        if (s.out >= 0) outIdx = n, fds[n++] = {s.out, POLLIN, 0};
        if (s.err >= 0) errIdx = n, fds[n++] = {s.err, POLLIN, 0};
        if (s.in >= 0) inIdx = n, fds[n++] = {s.in, POLLOUT, 0};
        int waitMs = kPollSliceMs;
        if (!spec.cancel && !drainDeadline) waitMs = 200; // nothing to poll for but the deadline/exit
        if (hasDeadline && !killed) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            waitMs = static_cast<int>(std::clamp<long long>(left, 0, waitMs));
        }
        int pr = ::poll(fds, static_cast<nfds_t>(n), waitMs);
        if (pr < 0 && errno != EINTR) break;
        if (pr > 0) {
            if (outIdx >= 0 && fds[outIdx].revents && !drainFd(s.out, r.stdoutText)) closeQuietly(s.out);
            if (errIdx >= 0 && fds[errIdx].revents && !drainFd(s.err, r.stderrText)) closeQuietly(s.err);
            if (inIdx >= 0 && fds[inIdx].revents) {
                if (fds[inIdx].revents & (POLLERR | POLLHUP)) {
                    closeQuietly(s.in); // the child closed stdin or exited: drop the rest
                } else {
                    ssize_t w = writeNoSigpipe(s.in, spec.stdinText.data() + inOffset,
                                               spec.stdinText.size() - inOffset);
                    if (w > 0) inOffset += static_cast<size_t>(w);
                    if ((w < 0 && errno != EAGAIN && errno != EINTR) || inOffset >= spec.stdinText.size())
                        closeQuietly(s.in);
                }
            }
        }
        if (!reaped) {
            pid_t w = ::waitpid(s.pid, &status, WNOHANG);
            if (w == s.pid) {
                reaped = true;
                closeQuietly(s.in);
                if (!drainDeadline) drainDeadline = Clock::now() + std::chrono::milliseconds(kDrainAfterExitMs);
            }
        }
    }
    closeQuietly(s.in);
    closeQuietly(s.out);
    closeQuietly(s.err);
    if (!reaped) {
        // Pipes closed but the child has not exited (it closed its stdout/stderr): keep honouring
        // the timeout and the cancel flag while waiting for it.
        for (;;) {
            pid_t w = ::waitpid(s.pid, &status, killed ? 0 : WNOHANG);
            if (w == s.pid) break;
            if (w < 0 && errno != EINTR) break;
            if (!killed) {
                if ((spec.cancel && spec.cancel->load()) || interruptSignal()) r.cancelled = killed = true;
                else if (hasDeadline && Clock::now() >= deadline) r.timedOut = killed = true;
                if (killed) killGroup(s.pid);
                else std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        }
    }
    decodeStatus(status, r);
    // A tool that died from a signal (a crash, the OOM killer) leaves its own children running:
    // the rest of its group goes too.
    if (r.signal != 0 && !killed) killGroup(s.pid);
    unwatchGroup(s.pid);
    r.wallMs = msSince(t0);
    return r;
}

std::vector<std::string> splitShellWords(const std::string& text) {
    std::vector<std::string> words;
    std::string cur;
    bool inWord = false;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quote == '\'') {
            if (c == '\'') quote = 0;
            else cur.push_back(c);
            continue;
        }
        if (quote == '"') {
            if (c == '"') {
                quote = 0;
            } else if (c == '\\' && i + 1 < text.size() &&
                       std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos) {
                cur.push_back(text[++i]);
            } else {
                cur.push_back(c);
            }
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\') {
            if (i + 1 >= text.size()) throw std::invalid_argument("trailing backslash in \"" + text + "\"");
            cur.push_back(text[++i]);
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord) words.push_back(std::move(cur));
            cur.clear();
            inWord = false;
        } else {
            cur.push_back(c);
            inWord = true;
        }
    }
    if (quote) throw std::invalid_argument(std::string("unterminated ") + quote + " quote in \"" + text + "\"");
    if (inWord) words.push_back(std::move(cur));
    return words;
}

std::vector<ProcessResult> runProcessesParallel(const std::vector<ProcessSpec>& specs) {
    std::vector<ProcessResult> results(specs.size());
    if (specs.size() == 1) {
        results[0] = runProcess(specs[0]);
        return results;
    }
    std::vector<std::thread> threads;
    threads.reserve(specs.size());
    for (size_t i = 0; i < specs.size(); ++i)
        threads.emplace_back([&, i] { results[i] = runProcess(specs[i]); });
    for (auto& t : threads) t.join();
    return results;
}

// --------------------------------------------------------------------------- InteractiveProcess

InteractiveProcess::~InteractiveProcess() { kill(); }

void InteractiveProcess::closeFd(int& fd) { closeQuietly(fd); }

bool InteractiveProcess::start(const ProcessSpec& spec) {
    kill();
    m_outBuf.clear();
    m_scanned = 0;
    m_stderr.clear();
    m_startError.clear();
    m_killed = false;
    m_status = 0;
    m_startTime = Clock::now();
    Spawned s = spawnChild(spec);
    if (s.pid < 0) {
        m_startError = s.error;
        return false;
    }
    m_pid = s.pid;
    m_in = s.in;
    m_out = s.out;
    m_err = s.err;
    m_reaped = false;
    return true;
}

bool InteractiveProcess::reap(bool block) {
    if (m_reaped || m_pid < 0) return true;
    for (;;) {
        pid_t w = ::waitpid(m_pid, &m_status, block ? 0 : WNOHANG);
        if (w == m_pid) {
            m_reaped = true;
            if (WIFSIGNALED(m_status) && !m_killed) killGroup(m_pid); // its children too
            unwatchGroup(m_pid);
            return true;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) { // not our child any more (should not happen): treat as gone
            m_reaped = true;
            return true;
        }
        return false;
    }
}

bool InteractiveProcess::running() { return m_pid > 0 && !reap(false); }

bool InteractiveProcess::pump(int waitMs, bool wantWrite, bool* writable) {
    if (writable) *writable = false;
    pollfd fds[3];
    int n = 0, outIdx = -1, errIdx = -1, inIdx = -1;
    // stdout: not read while a line is over the limit (readLine reports it), and at most 1 MiB per
    // turn: the buffer stays bounded whatever the child writes.
    const bool full = m_maxLine && m_outBuf.size() > m_maxLine;
    if (m_out >= 0 && !full) outIdx = n, fds[n++] = {m_out, POLLIN, 0};
    if (m_err >= 0) errIdx = n, fds[n++] = {m_err, POLLIN, 0};
    if (wantWrite && m_in >= 0) inIdx = n, fds[n++] = {m_in, POLLOUT, 0};
    if (n == 0) return false;
    int pr = ::poll(fds, static_cast<nfds_t>(n), std::max(0, waitMs));
    if (pr <= 0) return true;
    if (outIdx >= 0 && fds[outIdx].revents && !drainFd(m_out, m_outBuf, 0, size_t(1) << 20)) closeFd(m_out);
    if (errIdx >= 0 && fds[errIdx].revents && !drainFd(m_err, m_stderr, kInteractiveStderrCap, size_t(1) << 20))
        closeFd(m_err);
    if (inIdx >= 0 && fds[inIdx].revents) {
        if (fds[inIdx].revents & (POLLERR | POLLHUP)) closeFd(m_in);
        else if (writable) *writable = true;
    }
    return true;
}

bool InteractiveProcess::writeLine(const std::string& line, std::chrono::milliseconds timeout) {
    if (m_in < 0) return false;
    std::string data = line;
    data.push_back('\n');
    size_t off = 0;
    auto deadline = Clock::now() + timeout;
    while (off < data.size()) {
        ssize_t w = writeNoSigpipe(m_in, data.data() + off, data.size() - off);
        if (w > 0) {
            off += static_cast<size_t>(w);
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            closeFd(m_in); // EPIPE: the child is gone or closed its stdin
            return false;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        // Pipe full: keep draining the child's output while waiting, or both sides would block.
        bool writable = false;
        pump(static_cast<int>(std::min<long long>(left, kPollSliceMs)), true, &writable);
        if (m_in < 0) return false;
    }
    return true;
}

InteractiveProcess::ReadStatus InteractiveProcess::readLine(std::string& line, std::chrono::milliseconds timeout,
                                                            std::atomic<bool>* cancel) {
    if (m_pid < 0) return ReadStatus::NotRunning;
    auto deadline = Clock::now() + timeout;
    for (;;) {
        // Scanned once: a long line arriving in pieces costs linear time, not quadratic.
        size_t nl = m_outBuf.find('\n', m_scanned);
        if ((nl != std::string::npos && m_maxLine && nl > m_maxLine) ||
            (nl == std::string::npos && m_maxLine && m_outBuf.size() > m_maxLine))
            return ReadStatus::TooLong;
        if (nl != std::string::npos) {
            line = m_outBuf.substr(0, nl);
            m_outBuf.erase(0, nl + 1);
            m_scanned = 0;
            return ReadStatus::Line;
        }
        m_scanned = m_outBuf.size();
        if (m_out < 0) {
            m_scanned = 0;
            if (!m_outBuf.empty()) {
                line = std::move(m_outBuf);
                m_outBuf.clear();
                return ReadStatus::Line;
            }
            return ReadStatus::Eof;
        }
        if ((cancel && cancel->load()) || interruptSignal()) return ReadStatus::Cancelled;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return ReadStatus::Timeout;
        // Short slices even without a cancel flag: an interrupt (SIGINT/SIGTERM) must be seen soon.
        int slice = static_cast<int>(std::min<long long>(left, cancel ? kPollSliceMs : 200));
        if (!pump(slice, false, nullptr)) {
            // Nothing left open: stdout is closed (handled above on the next turn).
            if (m_out >= 0) closeFd(m_out);
        }
    }
}

void InteractiveProcess::closeStdin() { closeFd(m_in); }

ProcessResult InteractiveProcess::wait(std::chrono::milliseconds timeout) {
    ProcessResult r;
    if (m_pid < 0) {
        r.startError = m_startError.empty() ? "not started" : m_startError;
        return r;
    }
    closeFd(m_in);
    auto deadline = Clock::now() + timeout;
    while (!reap(false)) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            killGroup(m_pid);
            m_killed = true;
            reap(true);
            break;
        }
        if (!pump(static_cast<int>(std::min<long long>(left, kPollSliceMs)), false, nullptr))
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    // Collect what the child wrote before exiting (bounded: a grandchild may hold the pipes).
    auto drainUntil = Clock::now() + std::chrono::milliseconds(100);
    while ((m_out >= 0 || m_err >= 0) && Clock::now() < drainUntil) pump(10, false, nullptr);
    closeFd(m_out);
    closeFd(m_err);
    decodeStatus(m_status, r);
    r.timedOut = m_killed;
    r.stdoutText = std::move(m_outBuf);
    m_outBuf.clear();
    r.stderrText = m_stderr;
    r.wallMs = msSince(m_startTime);
    m_pid = -1;
    return r;
}

void InteractiveProcess::kill() {
    if (m_pid > 0 && !m_reaped) {
        killGroup(m_pid);
        m_killed = true;
        reap(true);
    }
    closeFd(m_in);
    closeFd(m_out);
    closeFd(m_err);
    m_pid = -1;
}

} // namespace lowerscope
