// Runner client: the deadline kill, restarts after faults, and the real lowerscope-runner's
// answers on a machine without a CUDA driver or device. CPU-only: a fake runner (speaking the
// real protocol) stands in for the GPU; a fake libcuda stands in for a driver that sees no GPU.
#include "core/build/process.h"
#include "core/run/runner_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <signal.h>
#include <thread>
#include <unistd.h>

using namespace lowerscope;
using Clock = std::chrono::steady_clock;

namespace {

RunRequest request(const std::string& kernel) {
    RunRequest r;
    LaunchVariant v;
    v.kernel = kernel;
    v.cubin = {1, 2, 3};
    r.variants.push_back(v);
    return r;
}

RunnerConfig fakeConfig(std::chrono::milliseconds deadline = std::chrono::milliseconds(1000)) {
    RunnerConfig c;
    c.command = {FAKE_RUNNER};
    c.deadline = deadline;
    c.startTimeout = std::chrono::milliseconds(10000);
    return c;
}

bool haveRealDriver() { return std::filesystem::exists("/dev/nvidiactl"); }

} // namespace

TEST(RunnerClient, RunsAndReportsProgress) {
    ProcessRunner runner(fakeConfig());
    DeviceInfo d;
    RunError e;
    ASSERT_TRUE(runner.device(d, e)) << e.message;
    EXPECT_EQ(d.name, "Fake GPU");
    EXPECT_EQ(runner.runnerVersion(), "fake-runner");
    int progressLines = 0;
    RunRequest req = request("ok");
    req.kernelTimeoutS = 0.5;  // shorter than the client's deadline: the client moves it behind
    RunOutcome o = runner.run(req, [&](const RunProgress& p) {
        ++progressLines;
        EXPECT_EQ(p.stage, "measure");
    });
    ASSERT_TRUE(o.ok) << o.error.message;
    EXPECT_EQ(progressLines, 1);
    ASSERT_EQ(o.result.variants.size(), 1u);
    EXPECT_EQ(o.result.variants[0].samplesMs.size(), 3u);
    EXPECT_FALSE(o.result.id.empty());
    // The runner's own watchdog is set behind the client's deadline (1 s + 5 s).
    EXPECT_EQ(o.result.variants[0].stopReason, "timeout=6");
    // A second request reuses the same process.
    RunOutcome o2 = runner.run(request("ok"));
    ASSERT_TRUE(o2.ok);
    EXPECT_NE(o2.result.id, o.result.id);
    EXPECT_EQ(runner.starts(), 1);
}

TEST(RunnerClient, AOneShotCollectionStartsASpareThatTheNextRequestUses) {
    // Instruction counts end their runner: the spare started beside it answers the next request,
    // and a request of another kind starts no spare.
    ProcessRunner runner(fakeConfig(std::chrono::milliseconds(5000)));
    RunRequest counts = request("oneshot");
    counts.profile = ProfileCollection::Instructions;
    RunOutcome o = runner.run(counts);
    ASSERT_TRUE(o.ok) << o.error.message;
    EXPECT_TRUE(o.result.runnerExits);
    EXPECT_EQ(runner.starts(), 2); // the first runner and its spare
    RunOutcome next = runner.run(request("ok"));
    ASSERT_TRUE(next.ok) << next.error.message;
    EXPECT_EQ(runner.sparesUsed(), 1);
    EXPECT_EQ(runner.starts(), 2);
    EXPECT_TRUE(runner.run(request("ok")).ok); // the same process again: no spare for timing requests
    EXPECT_EQ(runner.starts(), 2);

    // Without spares, the one-shot runner's end costs a fresh start.
    RunnerConfig plain = fakeConfig(std::chrono::milliseconds(5000));
    plain.spareForOneShots = false;
    ProcessRunner without(plain);
    ASSERT_TRUE(without.run(counts).ok);
    EXPECT_EQ(without.starts(), 1);
    ASSERT_TRUE(without.run(request("ok")).ok);
    EXPECT_EQ(without.starts(), 2);
    EXPECT_EQ(without.sparesUsed(), 0);
}

TEST(RunnerClient, ASpareThatCannotGetTheGpuIsReplacedByAFreshRunner) {
    // A GPU in exclusive-process mode: the spare cannot take the device while the first runner
    // holds it and ends; the next request starts a runner as if there had been no spare.
    const std::string lock = (std::filesystem::temp_directory_path() /
                              ("lowerscope-exclusive-" + std::to_string(::getpid()))).string();
    RunnerConfig c = fakeConfig(std::chrono::milliseconds(5000));
    c.command = {FAKE_RUNNER, "--exclusive", lock};
    ProcessRunner runner(c);
    RunRequest samples = request("oneshot");
    samples.profile = ProfileCollection::Samples;
    ASSERT_TRUE(runner.run(samples).ok);
    RunOutcome next = runner.run(request("ok"));
    ASSERT_TRUE(next.ok) << next.error.message;
    EXPECT_EQ(runner.sparesUsed(), 0);
    EXPECT_EQ(runner.starts(), 3); // first, the spare that gave up, the fresh one
    runner.stop();
    std::filesystem::remove(lock);
}

TEST(RunnerClient, AnUnusedSpareEndsWithTheRunner) {
    const std::string mark = (std::filesystem::temp_directory_path() /
                              ("lowerscope-spare-" + std::to_string(::getpid()))).string();
    RunnerConfig c = fakeConfig(std::chrono::milliseconds(5000));
    c.command = {FAKE_RUNNER, "--mark", mark};
    {
        ProcessRunner runner(c);
        RunRequest counts = request("oneshot");
        counts.profile = ProfileCollection::Instructions;
        ASSERT_TRUE(runner.run(counts).ok);
        EXPECT_EQ(runner.starts(), 2);
    }
    // The last process to write the mark is the spare: it is gone once the runner is destroyed.
    std::ifstream in(mark);
    pid_t pid = 0;
    ASSERT_TRUE(in >> pid);
    EXPECT_NE(::kill(pid, 0), 0);
    std::filesystem::remove(mark);
}

TEST(RunnerClient, HungKernelIsKilledAtTheDeadlineAndTheClientRecovers) {
    ProcessRunner runner(fakeConfig(std::chrono::milliseconds(1000)));
    auto t0 = Clock::now();
    RunOutcome o = runner.run(request("hang"));
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::Deadline);
    EXPECT_TRUE(o.error.fatal);
    EXPECT_GE(s, 0.95);
    EXPECT_LT(s, 3.0);
    RunOutcome next = runner.run(request("ok"));
    EXPECT_TRUE(next.ok) << next.error.message;
    EXPECT_EQ(runner.starts(), 2);
}

TEST(RunnerClient, ProgressKeepsASlowRunAlive) {
    ProcessRunner runner(fakeConfig(std::chrono::milliseconds(1000)));
    RunOutcome o = runner.run(request("slow"));
    EXPECT_TRUE(o.ok) << runErrorKindName(o.error.kind) << ": " << o.error.message;
}

TEST(RunnerClient, FaultIsStructuredAndTheRunnerRestarts) {
    ProcessRunner runner(fakeConfig());
    RunOutcome o = runner.run(request("fault"));
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::KernelFault);
    EXPECT_EQ(o.error.cudaError, "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_EQ(o.error.stage, "first_launch");
    RunOutcome next = runner.run(request("ok"));
    EXPECT_TRUE(next.ok) << next.error.message;
    EXPECT_EQ(runner.starts(), 2);
}

TEST(RunnerClient, NonFatalErrorKeepsTheRunner) {
    ProcessRunner runner(fakeConfig());
    RunOutcome o = runner.run(request("soft"));
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::KernelNotFound);
    EXPECT_FALSE(o.error.fatal);
    EXPECT_TRUE(runner.run(request("ok")).ok);
    EXPECT_EQ(runner.starts(), 1);
}

TEST(RunnerClient, CrashWithoutAnswer) {
    ProcessRunner runner(fakeConfig());
    RunOutcome o = runner.run(request("crash"));
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::RunnerExited);
    EXPECT_NE(o.error.message.find("exit 9"), std::string::npos) << o.error.message;
    EXPECT_TRUE(runner.run(request("ok")).ok);
}

TEST(RunnerClient, Cancel) {
    ProcessRunner runner(fakeConfig(std::chrono::milliseconds(10000)));
    std::atomic<bool> cancel{false};
    std::thread t([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancel = true;
    });
    auto t0 = Clock::now();
    RunOutcome o = runner.run(request("hang"), {}, &cancel);
    t.join();
    EXPECT_EQ(o.error.kind, RunErrorKind::Cancelled);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 3.0);
}

TEST(RunnerClient, StartFailures) {
    RunnerConfig c = fakeConfig();
    c.command = {"/nonexistent/lowerscope-runner"};
    ProcessRunner missing(c);
    DeviceInfo d;
    RunError e;
    EXPECT_FALSE(missing.device(d, e));
    EXPECT_EQ(e.kind, RunErrorKind::RunnerStart);
    c.command = {FAKE_RUNNER, "--no-driver"};
    ProcessRunner noDriver(c);
    RunOutcome o = noDriver.run(request("ok"));
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::NoDriver);
    EXPECT_NE(o.error.message.find("no CUDA driver found"), std::string::npos);
    EXPECT_EQ(sshRunnerCommand("gpu1"), (std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "--", "gpu1",
                                                                  "lowerscope-runner"}));
}

// The real runner on this (GPU-less) machine: a clear message and exit code 3.
TEST(RealRunner, NoDriverMeansClearErrorAndExitCode) {
    if (haveRealDriver()) {
        GTEST_SKIP() << "a CUDA driver is present here";
    }
    ProcessSpec spec;
    spec.argv = {RUNNER_BIN, "--info"};
    spec.env = {{"LOWERSCOPE_LIBCUDA", "libcuda-that-does-not-exist.so.1"}};
    spec.timeout = std::chrono::milliseconds(10000);
    ProcessResult r = runProcess(spec);
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.stdoutText.find("\"kind\":\"no_driver\""), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stderrText.find("no CUDA driver found"), std::string::npos) << r.stderrText;

    RunnerConfig c;
    c.command = {RUNNER_BIN};
    c.env = {{"LOWERSCOPE_LIBCUDA", "libcuda-that-does-not-exist.so.1"}};
    ProcessRunner runner(c);
    RunOutcome o = runner.run(request("saxpy"));
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::NoDriver);
    EXPECT_NE(o.error.message.find("no CUDA driver found"), std::string::npos);
}

TEST(RealRunner, DriverWithoutDeviceSaysNoDevice) {
    ProcessSpec spec;
    spec.argv = {RUNNER_BIN, "--info"};
    spec.env = {{"LOWERSCOPE_LIBCUDA", FAKE_LIBCUDA}};
    spec.timeout = std::chrono::milliseconds(10000);
    ProcessResult r = runProcess(spec);
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.stdoutText.find("\"kind\":\"no_device\""), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("no CUDA device"), std::string::npos);
    EXPECT_NE(r.stdoutText.find("CUDA_ERROR_NO_DEVICE"), std::string::npos);
    // A driver that fails differently is a driver_error, also exit 4.
    spec.env["FAKE_CUINIT_RESULT"] = "999";
    r = runProcess(spec);
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.stdoutText.find("\"kind\":\"driver_error\""), std::string::npos) << r.stdoutText;
}

TEST(RealRunner, UsageAndVersion) {
    ProcessSpec spec;
    spec.argv = {RUNNER_BIN, "--version"};
    spec.timeout = std::chrono::milliseconds(10000);
    ProcessResult r = runProcess(spec);
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.stdoutText.find("lowerscope-runner"), std::string::npos);
    spec.argv = {RUNNER_BIN, "--bogus"};
    r = runProcess(spec);
    EXPECT_EQ(r.exitCode, 2);
}

// ------------------------------------------------------------------------------------------------
// The runner is not trusted (issue 13, item 4): a misbehaving one is a protocol error, it is killed,
// and the client neither waits forever nor runs out of memory.

namespace {

std::string tempFile(const std::string& stem) {
    return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()))).string();
}

// The pid the fake runner wrote with --mark.
pid_t markedPid(const std::string& file) {
    std::ifstream in(file);
    pid_t pid = -1;
    in >> pid;
    return pid;
}

bool gone(pid_t pid) {
    for (int i = 0; i < 250; ++i) {
        if (::kill(pid, 0) != 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

// Peak resident memory of this process, KiB.
long peakRssKiB() {
    std::ifstream in("/proc/self/status");
    std::string key;
    long value = -1;
    while (in >> key) {
        if (key == "VmHWM:") {
            in >> value;
            return value;
        }
        in.ignore(1 << 20, '\n');
    }
    return -1;
}

} // namespace

// A replay's answer carries every restored region once per variant (base64): the limit on the
// answer's line grows with them (a 24 MiB capture once overflowed a limit that counted only buffers).
TEST(RunnerLink, TheAnswerLimitCountsARepliesRegions) {
    RunRequest req = request("ok");
    req.variants.push_back(req.variants[0]);
    req.returnOutputs = true;
    const size_t without = resultLimits(req).maxBytes;
    req.regions = {MemoryRegion{0x7ffdd8800000, std::vector<uint8_t>(size_t(24) << 20), ElemType::F32, false}};
    const size_t with = resultLimits(req).maxBytes;
    EXPECT_GE(with - without, 2 * ((size_t(24) << 20) / 3 * 4)); // two variants, base64
    req.returnOutputs = false;                                      // no bytes come back then
    EXPECT_EQ(resultLimits(req).maxBytes, without);
}

TEST(RunnerLink, AnEndlessLineIsAProtocolErrorWithBoundedMemory) {
    const std::string mark = tempFile("fake-runner-endless");
    RunnerConfig c = fakeConfig(std::chrono::milliseconds(5000));
    c.command = {FAKE_RUNNER, "--mark", mark};
    ProcessRunner runner(c);
    RunRequest req = request("endless");
    auto t0 = Clock::now();
    RunOutcome o = runner.run(req);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::Protocol) << o.error.message;
    EXPECT_NE(o.error.message.find("longer than " + std::to_string(resultLimits(req).maxBytes)), std::string::npos)
        << o.error.message;
    EXPECT_LT(s, 5.0) << "the line is refused when it passes the limit, not at a deadline";
    EXPECT_TRUE(gone(markedPid(mark))) << "the runner was not killed";
    // What was buffered stays near the limit (tens of MiB), not the gigabytes an endless line brings.
    EXPECT_LT(peakRssKiB(), 512 * 1024);
    std::filesystem::remove(mark);
    EXPECT_TRUE(runner.run(request("ok")).ok) << "the next request starts a fresh runner";
}

TEST(RunnerLink, ProgressForeverIsStoppedByTheRequestLimit) {
    const std::string mark = tempFile("fake-runner-chatty");
    RunnerConfig c = fakeConfig(std::chrono::milliseconds(500));
    c.command = {FAKE_RUNNER, "--mark", mark};
    c.startTimeout = std::chrono::milliseconds(2000);
    c.limitRequestTime = true;
    ProcessRunner runner(c);
    RunRequest req = request("chatty");
    req.stop.wallLimitS = 1;
    EXPECT_EQ(requestTimeLimit(req, c.deadline), std::chrono::milliseconds(2500));
    auto t0 = Clock::now();
    RunOutcome o = runner.run(req);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::Deadline) << o.error.message;
    EXPECT_NE(o.error.message.find("no answer"), std::string::npos) << o.error.message;
    // The limit is start-up (2 s) + loop (1 s) + 3 deadlines (1.5 s); start-up took a moment only.
    EXPECT_GE(s, 2.4);
    EXPECT_LT(s, 7.0);
    EXPECT_TRUE(gone(markedPid(mark)));
    std::filesystem::remove(mark);
    // Plain launches for an external profiler: one deadline each, plus three.
    RunRequest plain = request("ok");
    plain.profileLaunches = 20;
    EXPECT_EQ(requestTimeLimit(plain, std::chrono::milliseconds(1000)), std::chrono::milliseconds(23000));
}

TEST(RunnerLink, StartUpIsBoundedByTheStartTimeout) {
    RunnerConfig c = fakeConfig();
    c.command = {FAKE_RUNNER, "--silent"};
    c.startTimeout = std::chrono::milliseconds(500);
    ProcessRunner runner(c);
    auto t0 = Clock::now();
    RunOutcome o = runner.run(request("ok"));
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(o.error.kind, RunErrorKind::RunnerStart) << o.error.message;
    EXPECT_NE(o.error.message.find("did not say hello within 0.5 s"), std::string::npos) << o.error.message;
    EXPECT_LT(s, 2.0);
}

TEST(RunnerLink, ResultsThatDoNotAnswerTheRequestAreProtocolErrors) {
    for (const char* mode : {"short", "empty", "negative"}) {
        for (size_t variants : {1u, 2u}) {
            const std::string mark = tempFile(std::string("fake-runner-") + mode);
            RunnerConfig c = fakeConfig();
            c.command = {FAKE_RUNNER, "--mark", mark};
            ProcessRunner runner(c);
            RunRequest req = request(mode);
            if (variants == 2) {
                req.variants[0].label = "A";
                req.variants.push_back(req.variants[0]);
                req.variants[1].label = "B";
            }
            RunOutcome o = runner.run(req);
            ASSERT_FALSE(o.ok) << mode;
            EXPECT_EQ(o.error.kind, RunErrorKind::Protocol) << mode << ": " << o.error.message;
            EXPECT_NE(o.error.message.find("killed"), std::string::npos) << o.error.message;
            EXPECT_TRUE(gone(markedPid(mark))) << mode << ": the runner was not killed";
            std::filesystem::remove(mark);
        }
    }
    // Endless answers to another request: refused after 1000.
    ProcessRunner stale(fakeConfig());
    RunOutcome o = stale.run(request("stale"));
    EXPECT_EQ(o.error.kind, RunErrorKind::Protocol) << o.error.message;
    EXPECT_NE(o.error.message.find("answer nothing"), std::string::npos) << o.error.message;
}

TEST(RunnerLink, CheckResult) {
    RunRequest req = request("k");
    req.variants.push_back(req.variants[0]);
    RunResult r;
    r.variants.resize(2);
    r.variants[0].samplesMs = {1.0, 2.0};
    r.variants[1].samplesMs = {1.5};
    EXPECT_EQ(checkResult(req, r), "");
    r.variants[1].samplesByClock["kernel_timestamps"] = {1.4};
    EXPECT_EQ(checkResult(req, r), "");
    for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
        RunResult x = r;
        x.variants[0].samplesMs[1] = bad;
        EXPECT_NE(checkResult(req, x), "") << bad;
        x = r;
        x.variants[1].samplesByClock["kernel_timestamps"][0] = bad;
        EXPECT_NE(checkResult(req, x), "") << bad;
    }
    RunResult one = r;
    one.variants.pop_back();
    EXPECT_NE(checkResult(req, one).find("1 variant(s) for a request of 2"), std::string::npos);
    RunResult none = r;
    none.variants[1].samplesMs.clear();
    EXPECT_NE(checkResult(req, none).find("no samples for variant 2"), std::string::npos);
    // A profile collection carries no samples.
    RunRequest profile = req;
    profile.profile = ProfileCollection::Kernel;
    EXPECT_EQ(checkResult(profile, none), "");
}

TEST(RunnerLink, OneWordSplittingRuleForTheRunnerCommand) {
    const char* old = std::getenv("LOWERSCOPE_RUNNER");
    const std::string saved = old ? old : "";
    const std::string text = std::string("'") + FAKE_RUNNER + "' --mode \"sh\"ort  x\\ y";
    ::setenv("LOWERSCOPE_RUNNER", text.c_str(), 1);
    const std::vector<std::string> expected = {FAKE_RUNNER, "--mode", "short", "x y"};
    EXPECT_EQ(defaultRunnerCommand(), expected);
    EXPECT_EQ(splitShellWords(text), expected); // what --runner uses
    // Nothing is expanded or run.
    ::setenv("LOWERSCOPE_RUNNER", "runner $(touch x) `y` ~ *", 1);
    EXPECT_EQ(defaultRunnerCommand(), (std::vector<std::string>{"runner", "$(touch", "x)", "`y`", "~", "*"}));
    // A quote that does not close: a clear start error, nothing run.
    ::setenv("LOWERSCOPE_RUNNER", "'unterminated", 1);
    std::string error;
    EXPECT_TRUE(defaultRunnerCommand(&error).empty());
    EXPECT_NE(error.find("LOWERSCOPE_RUNNER"), std::string::npos) << error;
    ProcessRunner bad{RunnerConfig{}};
    RunOutcome o = bad.run(request("ok"));
    EXPECT_EQ(o.error.kind, RunErrorKind::RunnerStart);
    EXPECT_NE(o.error.message.find("unterminated"), std::string::npos) << o.error.message;
    if (old) ::setenv("LOWERSCOPE_RUNNER", saved.c_str(), 1);
    else ::unsetenv("LOWERSCOPE_RUNNER");
}
