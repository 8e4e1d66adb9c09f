// A program run under the injection library, and its document (capture_run.h).
#include "core/capture/capture_run.h"

#include "core/atomic_file.h"
#include "core/build/lifetime.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <regex>
#include <spawn.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace lowerscope::capture {

namespace {

namespace fs = std::filesystem;

// The variables of the program's environment recorded in the document: the ones that change what
// CUDA does (CUDA_*, except the injection path this run set) and NVIDIA_* (containers).
std::map<std::string, std::string> environmentSummary(const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> out;
    auto consider = [&](const std::string& name, const std::string& value) {
        if (name == "CUDA_INJECTION64_PATH") return;
        if (name.rfind("CUDA_", 0) == 0 || name.rfind("NVIDIA_", 0) == 0) out[name] = boundedText(value, 1024);
    };
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const size_t eq = kv.find('=');
        if (eq != std::string::npos) consider(kv.substr(0, eq), kv.substr(eq + 1));
    }
    for (const auto& [k, v] : extra) consider(k, v);
    return out;
}

std::vector<std::string> childEnvironment(const std::map<std::string, std::string>& set) {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const std::string name = kv.substr(0, kv.find('='));
        if (set.count(name) == 0) out.push_back(kv);
    }
    for (const auto& [k, v] : set) out.push_back(k + "=" + v);
    return out;
}


// The snapshot folder made ready: created, and emptied of the PID-CORR folders an earlier capture
// to the same document left (nothing else in it is touched).
bool prepareSnapshotFolder(const fs::path& dir, std::string& error) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir, ec)) && !fs::is_directory(fs::symlink_status(dir, ec))) {
        error = dir.string() + " exists and is not a folder (the launches are saved there)";
        return false;
    }
    static const std::regex launchFolder("[0-9]+-[0-9]+");
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_directory(ec) && !entry.is_symlink(ec) &&
            std::regex_match(entry.path().filename().string(), launchFolder))
            fs::remove_all(entry.path(), ec);
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir)) {
        error = "cannot create the folder " + dir.string();
        return false;
    }
    return true;
}

// The read end of the program's output pipe (CaptureSpec::output): what is there now is passed on,
// at most `budget` bytes. False once the pipe is closed (every writer gone) or broken.
bool drainOutput(int fd, const std::function<void(std::string_view)>& sink, size_t budget) {
    char buffer[65536];
    while (budget > 0) {
        const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, budget));
        if (n > 0) {
            budget -= size_t(n);
            try {
                sink(std::string_view(buffer, size_t(n)));
            } catch (...) {
                // The caller's display failing must not leave the program unreaped.
            }
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
    return true;
}

} // namespace

OutputTail::OutputTail(size_t maxLines, size_t maxBytes)
    : m_maxLines(std::max<size_t>(1, maxLines)), m_maxBytes(std::max<size_t>(256, maxBytes)) {}

void OutputTail::append(std::string_view bytes) {
    m_received += bytes.size();
    for (const char c : bytes) {
        if (m_pendingCr) {
            m_pendingCr = false;
            if (c == '\n') {
                finishLine();
                continue;
            }
            m_partial.clear(); // a lone '\r': the line starts over
        }
        if (c == '\r') {
            m_pendingCr = true;
        } else if (c == '\n') {
            finishLine();
        } else {
            m_partial.push_back(c);
            if (m_partial.size() >= m_maxBytes) finishLine(); // a line that never ends is cut
        }
    }
}

void OutputTail::finishLine() {
    std::string line = escapeControl(m_partial);
    m_partial.clear();
    if (line.size() > m_maxBytes) line = boundedText(line, m_maxBytes - 64);
    m_bytes += line.size();
    m_lines.push_back(std::move(line));
    while (!m_lines.empty() && (m_lines.size() > m_maxLines || m_bytes > m_maxBytes)) {
        m_bytes -= m_lines.front().size();
        m_lines.pop_front();
        ++m_dropped;
    }
}

size_t OutputTail::hiddenByPartial() const {
    // The unfinished line counts as one of the lines shown.
    return !m_partial.empty() && m_lines.size() >= m_maxLines ? m_lines.size() - (m_maxLines - 1) : 0;
}

std::string OutputTail::text() const {
    std::string out;
    out.reserve(m_bytes + m_lines.size() + m_partial.size() + 1);
    bool first = true;
    for (size_t i = hiddenByPartial(); i < m_lines.size(); ++i) {
        if (!first) out += '\n';
        first = false;
        out += m_lines[i];
    }
    if (!m_partial.empty()) {
        if (!m_lines.empty()) out += '\n';
        std::string partial = escapeControl(m_partial);
        if (partial.size() > m_maxBytes) partial = boundedText(partial, m_maxBytes - 64);
        out += partial;
    }
    return out;
}

std::string snapshotFolderName(const std::string& outputPath) {
    return fs::path(outputPath).stem().string() + ".launches";
}

std::string findInjectionLibrary(std::string& error) {
    if (const char* env = std::getenv("LOWERSCOPE_INJECT"); env && *env) {
        if (fs::is_regular_file(env)) return fs::absolute(env).string();
        error = std::string("LOWERSCOPE_INJECT names ") + env + ", which is not a file";
        return "";
    }
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& candidate : {self.parent_path() / "liblowerscope_inject.so",
                                          self.parent_path().parent_path() / "lib" / "lowerscope" /
                                              "liblowerscope_inject.so"}) {
            if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
        }
    }
    error = "the injection library liblowerscope_inject.so was not found next to this program or in "
            "../lib/lowerscope; point LOWERSCOPE_INJECT at it";
    return "";
}

CaptureOutcome runCapture(const CaptureSpec& spec) {
    CaptureOutcome o;
    if (spec.argv.empty() || spec.argv.front().empty()) {
        o.error = "no program to run: give it after --";
        return o;
    }
    try {
        LaunchFilter check(spec.filter);
    } catch (const std::exception& e) {
        o.error = e.what();
        return o;
    }
    if (spec.injectionLibrary.empty() || !fs::is_regular_file(spec.injectionLibrary)) {
        o.error = "the injection library " + spec.injectionLibrary + " is not a file";
        return o;
    }
    const fs::path output = fs::absolute(spec.outputPath);
    const fs::path folder = output.parent_path();
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (!fs::is_directory(folder)) {
        o.error = "cannot create the folder " + folder.string();
        return o;
    }
    std::string staging = (folder / ".lowerscope-events-XXXXXX").string();
    if (!::mkdtemp(staging.data())) {
        o.error = "cannot create a folder in " + folder.string() + ": " + std::strerror(errno);
        return o;
    }
    watchDirectory(staging);
    struct Cleanup {
        std::string dir;
        ~Cleanup() {
            std::error_code e;
            fs::remove_all(dir, e);
            unwatchDirectory(dir);
        }
    } cleanup{staging};

    std::map<std::string, std::string> set = spec.env;
    set["CUDA_INJECTION64_PATH"] = fs::absolute(spec.injectionLibrary).string();
    set["LOWERSCOPE_CAPTURE_EVENTS"] = staging;
    set["LOWERSCOPE_CAPTURE_CUBINS"] = folder.string();
    set["LOWERSCOPE_CAPTURE_KERNEL"] = spec.filter.kernelRegex;
    set["LOWERSCOPE_CAPTURE_SKIP"] = std::to_string(spec.filter.skip);
    set["LOWERSCOPE_CAPTURE_COUNT"] = spec.filter.count ? std::to_string(*spec.filter.count) : "";
    set["LOWERSCOPE_CAPTURE_SERIAL"] = spec.serializeKernels ? "1" : "0"; // never one inherited
    const std::string snapshotName = spec.saveLaunches ? snapshotFolderName(output.string()) : "";
    if (spec.saveLaunches) {
        if (!prepareSnapshotFolder(folder / snapshotName, o.error)) return o;
        set["LOWERSCOPE_CAPTURE_SNAPSHOTS"] = (folder / snapshotName).string();
        set["LOWERSCOPE_CAPTURE_MEMORY_LIMIT"] = std::to_string(spec.memoryLimit);
    }

    o.run.program = spec.argv.front();
    o.run.args.assign(spec.argv.begin() + 1, spec.argv.end());
    o.run.workingDir = spec.workingDir.empty() ? fs::current_path(ec).string() : spec.workingDir;
    o.run.environment = environmentSummary(spec.env);
    o.run.serializedKernels = spec.serializeKernels;

    const std::vector<std::string> envText = childEnvironment(set);
    std::vector<char*> envp;
    for (const auto& s : envText) envp.push_back(const_cast<char*>(s.c_str()));
    envp.push_back(nullptr);
    std::vector<char*> argv;
    for (const auto& s : spec.argv) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);

    // The program's output for the caller (CaptureSpec::output): one pipe for stdout and stderr.
    struct Pipe {
        int fd[2] = {-1, -1};
        void close(int i) {
            if (fd[i] >= 0) ::close(fd[i]);
            fd[i] = -1;
        }
        ~Pipe() {
            close(0);
            close(1);
        }
    } out;
    if (spec.output && ::pipe2(out.fd, O_CLOEXEC) != 0) {
        o.error = std::string("cannot make a pipe for the program's output: ") + std::strerror(errno);
        return o;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!spec.workingDir.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.workingDir.c_str());
    if (spec.output) {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
        posix_spawn_file_actions_adddup2(&actions, out.fd[1], 2);
    }
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const bool hasSlash = spec.argv.front().find('/') != std::string::npos;
    const auto started = std::chrono::steady_clock::now();
    // Saving launches for replay: the program runs without address-space randomisation. The CUDA
    // driver then reserves its device virtual addresses at the same places from run to run, so
    // the addresses the saved memory had (and the pointers inside it and in the parameters) repeat
    // in the runner, which is started the same way and maps the memory back at those addresses
    // (lowerscope-runner --fixed-addresses). The personality is this thread's (Linux keeps it per
    // task), inherited by the spawned child and its children, and restored right after the spawn.
    const int oldPersonality = spec.saveLaunches ? ::personality(0xffffffff) : -1;
    if (oldPersonality != -1) ::personality(static_cast<unsigned long>(oldPersonality) | ADDR_NO_RANDOMIZE);
    const int rc = hasSlash ? posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data())
                            : posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
    if (oldPersonality != -1) ::personality(static_cast<unsigned long>(oldPersonality));
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        o.error = "cannot start " + escapeControl(spec.argv.front()) + ": " + std::strerror(rc);
        return o;
    }
    watchGroup(pid);
    out.close(1); // the program holds the write end now: the pipe ends when it (and its children) do
    bool reading = out.fd[0] >= 0 && ::fcntl(out.fd[0], F_SETFL, ::fcntl(out.fd[0], F_GETFL) | O_NONBLOCK) == 0;
    // The program's end wakes the wait at once (a pidfd turns readable when it exits): polling in
    // 20 ms steps added 10 ms on average to every capture (docs/PERFORMANCE.md, capture overhead).
    int exitFd = -1;
#ifdef SYS_pidfd_open
    exitFd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#endif
    struct FdCloser {
        int& fd;
        ~FdCloser() {
            if (fd >= 0) ::close(fd);
        }
    } closeExitFd{exitFd};
    int status = 0;
    bool killed = false;
    for (;;) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        const auto elapsed = std::chrono::steady_clock::now() - started;
        const bool cancel = (spec.cancel && spec.cancel->load()) || interruptSignal() != 0;
        const bool timeout = spec.timeout.count() > 0 && elapsed > spec.timeout;
        if (!killed && (cancel || timeout)) {
            ::kill(-pid, SIGKILL);
            killed = true;
            o.run.cancelled = cancel;
            o.run.timedOut = !cancel;
        }
        pollfd p[2] = {{exitFd, POLLIN, 0}, {reading ? out.fd[0] : -1, POLLIN, 0}};
        if (exitFd < 0 && !reading) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2)); // no pidfd (Linux before 5.3)
        } else if (::poll(p, 2, exitFd >= 0 ? 20 : 2) > 0 && reading && (p[1].revents & (POLLIN | POLLHUP))) {
            reading = drainOutput(out.fd[0], spec.output, size_t(4) << 20);
        }
    }
    // What the program left running in its group (workers it did not wait for) ends with it.
    ::kill(-pid, SIGKILL);
    unwatchGroup(pid);
    // Its last words: what is in the pipe now (a process outside its group that still holds the
    // pipe is not waited for).
    if (reading) drainOutput(out.fd[0], spec.output, size_t(16) << 20);
    out.close(0);
    o.run.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (WIFEXITED(status)) {
        o.run.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        o.run.signal = WTERMSIG(status);
        o.run.exitCode = 128 + o.run.signal;
    }

    // LOWERSCOPE_CAPTURE_TIMING=1: how long each step after the program took (on stderr).
    const char* timingEnv = std::getenv("LOWERSCOPE_CAPTURE_TIMING");
    const bool timing = timingEnv && std::strcmp(timingEnv, "1") == 0;
    auto mark = std::chrono::steady_clock::now();
    std::string steps;
    auto step = [&](const char* what) {
        if (!timing) return;
        const auto now = std::chrono::steady_clock::now();
        char b[96];
        std::snprintf(b, sizeof b, "%s%s %.1f ms", steps.empty() ? "" : ", ", what,
                      std::chrono::duration<double, std::milli>(now - mark).count());
        steps += b;
        mark = now;
    };
    CaptureLog log;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(staging, ec))
        if (entry.path().filename().string().rfind("events-", 0) == 0) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::string error;
        if (!log.addFile(f.string(), error)) ++log.skippedLines;
    }
    step("reading the events");
    const std::vector<ModuleFile> modules = describeModules(log, folder.string());
    step("modules");
    const CaptureDocumentParts document = captureDocumentParts(log, o.run, spec.filter, modules, snapshotName);
    step("document");
    if (spec.saveLaunches && log.snapshots.empty()) fs::remove(folder / snapshotName, ec); // only when empty
    const std::string text = document.text();
    step("text");
    if (!writeFileAtomically(output.string(), text, o.error)) return o;
    step("write");
    // Read back but for the launches, which were written from the same values.
    if (!readCaptureDocument(document.head, o.summary, o.error) ||
        !readSnapshots(document.head, document.launches.size(), o.snapshots, o.error)) {
        o.error = "the capture document written does not read back: " + o.error;
        return o;
    }
    step("read back");
    if (timing) std::fprintf(stderr, "lowerscope-cli capture: timing: %s\n", steps.c_str());
    o.ok = true;
    return o;
}

} // namespace lowerscope::capture
