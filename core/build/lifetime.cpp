#include "core/build/lifetime.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <set>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace lowerscope {

namespace {

// ----------------------------------------------------------------------------------- interrupt

std::atomic<int> g_interrupt{0};

void onInterrupt(int sig) {
    // A second signal means "now": the default action (the watchdog still cleans up after us).
    if (g_interrupt.load() != 0) {
        ::signal(sig, SIG_DFL);
        ::raise(sig);
        return;
    }
    g_interrupt.store(sig);
}

// ------------------------------------------------------------------------------------ watchdog
//
// Records on the pipe: op (1 byte), payload length (2 bytes, host order), payload. Each record is
// written with one write() of at most PIPE_BUF bytes, so records of concurrent threads never mix.

constexpr char kAddGroup = 'G', kRemoveGroup = 'g', kAddDir = 'D', kRemoveDir = 'd';
constexpr size_t kMaxPath = 4000; // + 3 header bytes < PIPE_BUF (4096)
constexpr int kMaxGroups = 4096;
constexpr int kMaxDirs = 256;

// The watchdog's state lives in static storage: after fork() it may only use async-signal-safe
// calls (another thread of the parent may have held the allocator's lock), so no allocation.
pid_t g_wdGroups[kMaxGroups];
int g_wdGroupCount = 0;
char g_wdDirs[kMaxDirs][kMaxPath + 1];
int g_wdDirCount = 0;

struct LinuxDirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

// Removes `name` (relative to parentFd) and, for a folder, everything below it. Syscalls only.
void removeTree(int parentFd, const char* name, int depth) {
    if (::unlinkat(parentFd, name, 0) == 0 || errno == ENOENT) return;
    if (depth > 64) return;
    const int fd = ::openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        alignas(8) char buf[4096];
        // Entries removed while reading can make getdents skip some: scan until a pass finds none.
        for (int pass = 0; pass < 4; ++pass) {
            ::lseek(fd, 0, SEEK_SET);
            bool any = false;
            for (;;) {
                const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
                if (n <= 0) break;
                for (long off = 0; off < n;) {
                    auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
                    off += d->d_reclen;
                    if (d->d_name[0] == '.' &&
                        (d->d_name[1] == 0 || (d->d_name[1] == '.' && d->d_name[2] == 0)))
                        continue;
                    any = true;
                    removeTree(fd, d->d_name, depth + 1);
                }
            }
            if (!any) break;
        }
        ::close(fd);
    }
    ::unlinkat(parentFd, name, AT_REMOVEDIR);
}

void wdApply(char op, const char* payload, size_t len) {
    if (op == kAddGroup || op == kRemoveGroup) {
        if (len != sizeof(pid_t)) return;
        pid_t pg;
        std::memcpy(&pg, payload, sizeof pg);
        if (op == kAddGroup) {
            for (int i = 0; i < g_wdGroupCount; ++i)
                if (g_wdGroups[i] == pg) return; // replayed after a restart
            if (g_wdGroupCount < kMaxGroups) g_wdGroups[g_wdGroupCount++] = pg;
        } else {
            for (int i = 0; i < g_wdGroupCount; ++i)
                if (g_wdGroups[i] == pg) {
                    g_wdGroups[i] = g_wdGroups[--g_wdGroupCount];
                    break;
                }
        }
    } else if (op == kAddDir || op == kRemoveDir) {
        if (len == 0 || len > kMaxPath) return;
        if (op == kAddDir) {
            for (int i = 0; i < g_wdDirCount; ++i)
                if (std::strlen(g_wdDirs[i]) == len && std::memcmp(g_wdDirs[i], payload, len) == 0) return;
            if (g_wdDirCount >= kMaxDirs) return;
            std::memcpy(g_wdDirs[g_wdDirCount], payload, len);
            g_wdDirs[g_wdDirCount][len] = 0;
            ++g_wdDirCount;
        } else {
            for (int i = 0; i < g_wdDirCount; ++i)
                if (std::strlen(g_wdDirs[i]) == len && std::memcmp(g_wdDirs[i], payload, len) == 0) {
                    if (i != --g_wdDirCount) std::memcpy(g_wdDirs[i], g_wdDirs[g_wdDirCount], kMaxPath + 1);
                    break;
                }
        }
    }
}

[[noreturn]] void watchdogMain(int readFd) {
    // Survive what kills the parent's process group from a terminal or a job controller: the
    // cleanup must still happen after the parent is gone.
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2})
        ::sigaction(sig, &ign, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::prctl(PR_SET_NAME, "lowerscope-wd", 0, 0, 0);
    // A group of its own: whoever kills the parent's process group (a supervisor, a test harness,
    // a runner whose child died from a signal) must not take the cleanup down with it.
    ::setpgid(0, 0);
    // Hold nothing of the parent's: its stdio (a pipe reader would wait for us) and every other fd
    // (pipes of children being spawned by other threads right now would never reach EOF).
    if (readFd != 3) {
        ::dup2(readFd, 3);
        readFd = 3;
    }
    const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
    }
    if (::syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
        for (int fd = 4; fd < 65536; ++fd) ::close(fd);
    if (::chdir("/") != 0) {
    }

    char buf[8192];
    size_t have = 0;
    for (;;) {
        const ssize_t n = ::read(readFd, buf + have, sizeof buf - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; // EOF: the parent is gone
        have += size_t(n);
        size_t pos = 0;
        while (have - pos >= 3) {
            uint16_t len;
            std::memcpy(&len, buf + pos + 1, sizeof len);
            if (have - pos < 3u + len) break;
            wdApply(buf[pos], buf + pos + 3, len);
            pos += 3u + len;
        }
        std::memmove(buf, buf + pos, have - pos);
        have -= pos;
    }
    for (int i = 0; i < g_wdGroupCount; ++i) {
        ::kill(-g_wdGroups[i], SIGKILL);
        ::kill(g_wdGroups[i], SIGKILL);
    }
    for (int i = 0; i < g_wdDirCount; ++i) removeTree(AT_FDCWD, g_wdDirs[i], 0);
    ::_exit(0);
}

// Parent side: the registry (replayed to a restarted watchdog) and the pipe.
struct Registry {
    std::mutex mutex;
    int fd = -1;
    pid_t pid = -1;
    pid_t owner = -1; // the process that started the watchdog (a forked copy must not use it)
    std::set<pid_t> groups;
    std::set<std::string> dirs;
};

Registry& registry() {
    static Registry* r = new Registry; // never destroyed: children may be reaped during exit
    return *r;
}

bool writeRecord(int fd, char op, const void* payload, size_t len) {
    char rec[3 + kMaxPath];
    rec[0] = op;
    const uint16_t l = static_cast<uint16_t>(len);
    std::memcpy(rec + 1, &l, sizeof l);
    std::memcpy(rec + 3, payload, len);
    // The watchdog may have died (killed by someone): EPIPE must not kill us.
    sigset_t pipeSet, oldSet;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSet, &oldSet);
    ssize_t n;
    do n = ::write(fd, rec, 3 + len);
    while (n < 0 && errno == EINTR);
    const int err = errno;
    if (n < 0 && err == EPIPE) {
        timespec zero{0, 0};
        while (sigtimedwait(&pipeSet, nullptr, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &oldSet, nullptr);
    return n == ssize_t(3 + len);
}

bool startLocked(Registry& r) {
    if (r.pid > 0) ::waitpid(r.pid, nullptr, WNOHANG); // a dead predecessor
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return false;
    }
    if (pid == 0) watchdogMain(fds[0]);
    ::setpgid(pid, pid); // also here: the parent may be killed before the child gets to it
    ::close(fds[0]);
    r.fd = fds[1];
    r.pid = pid;
    r.owner = ::getpid();
    for (pid_t g : r.groups) writeRecord(r.fd, kAddGroup, &g, sizeof g);
    for (const auto& d : r.dirs) writeRecord(r.fd, kAddDir, d.data(), d.size());
    return true;
}

// In a forked copy of the process that started the watchdog, the registry and the pipe are the
// parent's: its children are not ours to announce or kill. Start afresh.
void forgetParentsLocked(Registry& r) {
    if (r.owner < 0 || r.owner == ::getpid()) return;
    if (r.fd >= 0) ::close(r.fd);
    r.fd = -1;
    r.pid = -1;
    r.owner = -1;
    r.groups.clear();
    r.dirs.clear();
}

void sendLocked(Registry& r, char op, const void* payload, size_t len) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (r.fd < 0 && !startLocked(r)) return;
        if (writeRecord(r.fd, op, payload, len)) return;
        ::close(r.fd); // the watchdog is gone: start another (the registry is replayed to it)
        r.fd = -1;
    }
}

} // namespace

void installInterruptHandlers() {
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART: blocking reads return EINTR and the caller looks at the flag
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void requestInterrupt(int signal) {
    g_interrupt.store(signal == 0 ? SIGINT : signal);
}

int interruptSignal() {
    return g_interrupt.load();
}

void watchGroup(pid_t pgid) {
    if (pgid <= 0) return;
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    forgetParentsLocked(r);
    r.groups.insert(pgid);
    sendLocked(r, kAddGroup, &pgid, sizeof pgid);
}

void unwatchGroup(pid_t pgid) {
    if (pgid <= 0) return;
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    forgetParentsLocked(r);
    if (!r.groups.erase(pgid)) return;
    if (r.fd >= 0) sendLocked(r, kRemoveGroup, &pgid, sizeof pgid);
}

void watchDirectory(const std::string& dir) {
    if (dir.empty() || dir.size() > kMaxPath || dir.front() != '/') return;
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    forgetParentsLocked(r);
    r.dirs.insert(dir);
    sendLocked(r, kAddDir, dir.data(), dir.size());
}

void unwatchDirectory(const std::string& dir) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    forgetParentsLocked(r);
    if (!r.dirs.erase(dir)) return;
    if (r.fd >= 0) sendLocked(r, kRemoveDir, dir.data(), dir.size());
}

pid_t watchdogPid() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    return r.fd >= 0 ? r.pid : -1;
}

} // namespace lowerscope
