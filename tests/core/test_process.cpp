// core/process: posix_spawn runs, timeouts, cancellation, big outputs, interactive children.
#include "core/build/process.h"

#include "core/build/lifetime.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>
#include <thread>

using namespace lowerscope;
using namespace std::chrono_literals;

TEST(Process, CapturesStdoutStderrAndExitCode) {
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3"};
    ProcessResult r = runProcess(spec);
    EXPECT_TRUE(r.started());
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_EQ(r.signal, 0);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.stdoutText, "out\n");
    EXPECT_EQ(r.stderrText, "err\n");
    EXPECT_EQ(r.describe(), "exit 3");
    EXPECT_GT(r.wallMs, 0);
}

TEST(Process, ArgvIsNotInterpretedByAShell) {
    ProcessSpec spec;
    spec.argv = {"echo", "a b", "$HOME", "*", ";", "|"};
    ProcessResult r = runProcess(spec);
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.stdoutText, "a b $HOME * ; |\n");
}

TEST(Process, StartErrorNamesTheProgram) {
    ProcessSpec spec;
    spec.argv = {"/nonexistent/dir/tool-xyz", "--version"};
    ProcessResult r = runProcess(spec);
    EXPECT_FALSE(r.started());
    EXPECT_EQ(r.exitCode, -1);
    EXPECT_NE(r.startError.find("/nonexistent/dir/tool-xyz"), std::string::npos) << r.startError;

    spec.argv = {"no-such-program-lowerscope-test"};
    r = runProcess(spec);
    EXPECT_FALSE(r.started());
    EXPECT_NE(r.startError.find("no-such-program-lowerscope-test"), std::string::npos) << r.startError;

    spec.argv = {};
    EXPECT_FALSE(runProcess(spec).started());
}

TEST(Process, StdinWorkingDirAndEnv) {
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "cat; pwd; echo \"$LS_TEST_VAR\"; echo \"[${HOME-unset}]\""};
    spec.stdinText = "hello\nworld\n";
    spec.workingDir = "/";
    spec.env = {{"LS_TEST_VAR", "v=1 2"}};
    spec.envRemove = {"HOME"};
    ProcessResult r = runProcess(spec);
    ASSERT_TRUE(r.ok()) << r.describe() << r.stderrText;
    EXPECT_EQ(r.stdoutText, "hello\nworld\n/\nv=1 2\n[unset]\n");
}

TEST(Process, LargeOutputOnBothPipesDoesNotDeadlock) {
    // 4 MiB on stdout and 4 MiB on stderr, interleaved: far beyond the 64 KiB pipe buffers, with
    // 2 MiB of stdin at the same time.
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "head -c 2097152 >/dev/null; i=0; while [ $i -lt 4 ]; do head -c 1048576 /dev/zero; "
                 "head -c 1048576 /dev/zero >&2; i=$((i+1)); done"};
    spec.stdinText.assign(2 << 20, 'x');
    spec.timeout = 30s;
    ProcessResult r = runProcess(spec);
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.stdoutText.size(), 4u << 20);
    EXPECT_EQ(r.stderrText.size(), 4u << 20);
}

TEST(Process, ChildThatIgnoresStdinDoesNotKillUsWithSigpipe) {
    ProcessSpec spec;
    spec.argv = {"/bin/true"};
    spec.stdinText.assign(1 << 20, 'x');
    ProcessResult r = runProcess(spec);
    EXPECT_TRUE(r.ok()) << r.describe();
}

TEST(Process, TimeoutKillsTheWholeProcessGroup) {
    ProcessSpec spec;
    // The grandchild `sleep` holds the pipes: only a group kill ends the run quickly.
    spec.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30; echo never"};
    spec.timeout = 300ms;
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = runProcess(spec);
    auto elapsed = std::chrono::steady_clock::now() - t0;
    EXPECT_TRUE(r.timedOut);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.signal, SIGKILL);
    EXPECT_EQ(r.stdoutText, "");
    EXPECT_LT(elapsed, 5s);
    EXPECT_GE(r.wallMs, 290);
    EXPECT_NE(r.describe().find("timed out"), std::string::npos);
}

TEST(Process, CancelFlagKillsTheChild) {
    std::atomic<bool> cancel{false};
    ProcessSpec spec;
    spec.argv = {"/bin/sleep", "30"};
    spec.cancel = &cancel;
    std::thread canceller([&] {
        std::this_thread::sleep_for(150ms);
        cancel = true;
    });
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = runProcess(spec);
    canceller.join();
    EXPECT_TRUE(r.cancelled);
    EXPECT_FALSE(r.timedOut);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(Process, ExitBySignalIsReported) {
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "kill -TERM $$"};
    ProcessResult r = runProcess(spec);
    EXPECT_EQ(r.signal, SIGTERM);
    EXPECT_EQ(r.exitCode, 128 + SIGTERM);
    EXPECT_FALSE(r.timedOut);
    EXPECT_FALSE(r.ok());
}

TEST(Process, ParallelRunsOverlap) {
    std::vector<ProcessSpec> specs(4);
    for (int i = 0; i < 4; ++i) specs[i].argv = {"/bin/sh", "-c", "sleep 0.3; echo " + std::to_string(i)};
    auto t0 = std::chrono::steady_clock::now();
    auto results = runProcessesParallel(specs);
    auto elapsed = std::chrono::steady_clock::now() - t0;
    ASSERT_EQ(results.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_TRUE(results[i].ok());
        EXPECT_EQ(results[i].stdoutText, std::to_string(i) + "\n");
    }
    EXPECT_LT(elapsed, 1000ms); // serially it would take 1.2 s
}

TEST(InteractiveProcess, LineProtocolRoundTrip) {
    InteractiveProcess p;
    ProcessSpec spec;
    // An echo server: answers each line with "ack:<line>", writes noise to stderr.
    spec.argv = {"/bin/sh", "-c", "while IFS= read -r l; do echo \"ack:$l\"; echo \"log $l\" >&2; done; exit 7"};
    ASSERT_TRUE(p.start(spec)) << p.startError();
    EXPECT_TRUE(p.running());
    for (int i = 0; i < 20; ++i) {
        ASSERT_TRUE(p.writeLine("{\"n\":" + std::to_string(i) + "}", 1s));
        std::string line;
        ASSERT_EQ(p.readLine(line, 5s), InteractiveProcess::ReadStatus::Line);
        EXPECT_EQ(line, "ack:{\"n\":" + std::to_string(i) + "}");
    }
    std::string line;
    EXPECT_EQ(p.readLine(line, 50ms), InteractiveProcess::ReadStatus::Timeout);
    p.closeStdin();
    EXPECT_EQ(p.readLine(line, 5s), InteractiveProcess::ReadStatus::Eof);
    ProcessResult r = p.wait(5s);
    EXPECT_EQ(r.exitCode, 7);
    EXPECT_FALSE(r.timedOut);
    EXPECT_NE(r.stderrText.find("log {\"n\":19}"), std::string::npos);
}

TEST(InteractiveProcess, HungChildIsKilledAndCancelWorks) {
    InteractiveProcess p;
    ProcessSpec spec;
    spec.argv = {"/bin/sleep", "30"};
    ASSERT_TRUE(p.start(spec));
    std::string line;
    std::atomic<bool> cancel{true};
    EXPECT_EQ(p.readLine(line, 5s, &cancel), InteractiveProcess::ReadStatus::Cancelled);
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = p.wait(200ms);
    EXPECT_TRUE(r.timedOut);
    EXPECT_EQ(r.signal, SIGKILL);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    EXPECT_FALSE(p.writeLine("x", 100ms));
}

TEST(InteractiveProcess, StartFailureAndPartialLastLine) {
    InteractiveProcess bad;
    ProcessSpec spec;
    spec.argv = {"/nonexistent/lowerscope-runner"};
    EXPECT_FALSE(bad.start(spec));
    EXPECT_NE(bad.startError().find("lowerscope-runner"), std::string::npos);
    std::string line;
    EXPECT_EQ(bad.readLine(line, 10ms), InteractiveProcess::ReadStatus::NotRunning);

    InteractiveProcess p;
    spec.argv = {"/usr/bin/printf", "one\ntwo"};
    ASSERT_TRUE(p.start(spec));
    ASSERT_EQ(p.readLine(line, 5s), InteractiveProcess::ReadStatus::Line);
    EXPECT_EQ(line, "one");
    ASSERT_EQ(p.readLine(line, 5s), InteractiveProcess::ReadStatus::Line);
    EXPECT_EQ(line, "two");
    EXPECT_EQ(p.readLine(line, 5s), InteractiveProcess::ReadStatus::Eof);
    p.kill(); // after exit: harmless
}

// A line limit: lines up to it pass, a longer one is TooLong without being buffered whole, also
// when it never ends (a runner is not trusted).
TEST(InteractiveProcess, LineLimit) {
    InteractiveProcess p;
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "printf '12345678\\n'; printf '123456789\\n'; sleep 5"};
    ASSERT_TRUE(p.start(spec));
    p.setMaxLineBytes(8);
    std::string line;
    ASSERT_EQ(p.readLine(line, 5s), InteractiveProcess::ReadStatus::Line);
    EXPECT_EQ(line, "12345678");
    EXPECT_EQ(p.readLine(line, 5s), InteractiveProcess::ReadStatus::TooLong);
    p.kill();

    InteractiveProcess endless;
    spec.argv = {"/bin/sh", "-c", "exec tr '\\0' x < /dev/zero"};
    ASSERT_TRUE(endless.start(spec));
    endless.setMaxLineBytes(4 << 20);
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(endless.readLine(line, 10s), InteractiveProcess::ReadStatus::TooLong);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    // Nothing more is read once the limit is passed: still TooLong, nothing buffered beyond it.
    EXPECT_EQ(endless.readLine(line, 100ms), InteractiveProcess::ReadStatus::TooLong);
    endless.kill();
}

TEST(InteractiveProcess, DestructorKillsRunningChild) {
    pid_t pid;
    {
        InteractiveProcess p;
        ProcessSpec spec;
        spec.argv = {"/bin/sleep", "30"};
        ASSERT_TRUE(p.start(spec));
        pid = p.pid();
        EXPECT_EQ(::kill(pid, 0), 0);
    }
    // Reaped by the destructor: the pid no longer names our child.
    EXPECT_NE(::kill(pid, 0), 0);
}

// ------------------------------------------------------------------------------ lifetime.h
// Each runs in a forked child so that the interrupt flag and the killing stay out of this process.

namespace {

bool processAlive(pid_t pid) {
    if (::kill(pid, 0) != 0) return false;
    FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
    if (!f) return false;
    char buf[512] = {};
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    std::string stat(buf, n);
    size_t close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

bool waitGone(pid_t pid) {
    for (int i = 0; i < 250 && processAlive(pid); ++i) std::this_thread::sleep_for(20ms);
    return !processAlive(pid);
}

// Reads "pid child" written by the shell of `grandchildScript`.
std::pair<pid_t, pid_t> readPids(const std::string& file) {
    for (int i = 0; i < 500; ++i) {
        FILE* f = std::fopen(file.c_str(), "r");
        if (f) {
            int a = -1, b = -1;
            int got = std::fscanf(f, "%d %d", &a, &b);
            std::fclose(f);
            if (got == 2) return {a, b};
        }
        std::this_thread::sleep_for(20ms);
    }
    return {-1, -1};
}

std::string scratchDir() {
    std::string tmpl = "/tmp/lowerscope-lifetime-XXXXXX";
    return ::mkdtemp(tmpl.data());
}

} // namespace

TEST(Lifetime, InterruptCancelsEveryRunningChild) {
    const std::string dir = scratchDir();
    const std::string pids = dir + "/pids";
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::thread interrupter([] {
            std::this_thread::sleep_for(300ms);
            requestInterrupt(SIGTERM);
        });
        ProcessSpec spec;
        spec.argv = {"/bin/sh", "-c", "sleep 600 & echo $$ $! > " + pids + "; wait"};
        ProcessResult r = runProcess(spec); // no timeout, no cancel flag: only the interrupt ends it
        interrupter.join();
        ::_exit(r.cancelled && interruptSignal() == SIGTERM ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    auto [sh, sleeper] = readPids(pids);
    ASSERT_GT(sleeper, 0);
    EXPECT_TRUE(waitGone(sh));
    EXPECT_TRUE(waitGone(sleeper)) << "the interrupted child's own child survived";
    std::filesystem::remove_all(dir);
}

TEST(Lifetime, WatchdogKillsTheGroupsAndRemovesTheFoldersOfAKilledParent) {
    const std::string dir = scratchDir();
    const std::string pids = dir + "/pids";
    const std::string work = dir + "/work";
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::filesystem::create_directories(work + "/nested/deeper");
        FILE* f = std::fopen((work + "/nested/deeper/file").c_str(), "w");
        if (f) std::fclose(f);
        watchDirectory(work);
        ProcessSpec spec;
        spec.argv = {"/bin/sh", "-c", "sleep 600 & echo $$ $! > " + pids + "; wait"};
        runProcess(spec); // never returns: the parent test kills this process
        ::_exit(1);
    }
    auto [sh, sleeper] = readPids(pids);
    ASSERT_GT(sleeper, 0);
    // runProcess hands the child's group to the watchdog just after posix_spawn returns; the shell
    // can write its pids before that (seen under ASan on a loaded machine). A kill inside that window
    // is a known limitation (docs/SECURITY.md); what is tested here is a kill after it.
    std::this_thread::sleep_for(300ms);
    ::kill(pid, SIGKILL); // no handler, no destructor: only the watchdog can clean up
    ::waitpid(pid, nullptr, 0);
    EXPECT_TRUE(waitGone(sh)) << "the child outlived its killed parent";
    EXPECT_TRUE(waitGone(sleeper)) << "the child's own child outlived the killed parent";
    for (int i = 0; i < 250 && std::filesystem::exists(work); ++i) std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(std::filesystem::exists(work)) << "the registered folder was left behind";
    ::kill(sh, SIGKILL);
    ::kill(sleeper, SIGKILL);
    std::filesystem::remove_all(dir);
}

TEST(Lifetime, AChildKilledByASignalTakesItsGroupWithIt) {
    const std::string dir = scratchDir();
    const std::string pids = dir + "/pids";
    ProcessSpec spec;
    // The shell dies from SIGSEGV (as a crashing nvcc would) while its child keeps running.
    spec.argv = {"/bin/sh", "-c", "sleep 600 & echo $$ $! > " + pids + "; kill -SEGV $$"};
    ProcessResult r = runProcess(spec);
    EXPECT_EQ(r.signal, SIGSEGV);
    auto [sh, sleeper] = readPids(pids);
    ASSERT_GT(sleeper, 0);
    EXPECT_TRUE(waitGone(sleeper)) << "a crashed tool's child kept running";
    ::kill(sleeper, SIGKILL);
    std::filesystem::remove_all(dir);
}
