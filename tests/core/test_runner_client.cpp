// Runner client: the deadline kill, restarts after faults, and the real lowerscope-runner's
// answers on a machine without a CUDA driver or device. CPU-only: a fake runner (speaking the
// real protocol) stands in for the GPU; a fake libcuda stands in for a driver that sees no GPU.
#include "core/build/process.h"
#include "core/run/runner_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

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
    EXPECT_EQ(sshRunnerCommand("gpu1"), (std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "gpu1",
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
