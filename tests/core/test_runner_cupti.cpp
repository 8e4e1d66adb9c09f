// The real lowerscope-runner against a fake GPU (tests/core/run_fakes/fake_gpu.cpp, standing in for
// libcuda and libcupti): which clock cold and hot samples come from (issue 19), and the fallbacks
// when CUPTI is missing, refused, or the counters are not permitted.
// The fake's virtual clock makes every number exact: a kernel spans 10 µs, an event pair adds
// 1.3 µs, gpu__time_duration adds 1.1 µs to the span.
#include "core/run/buffer_data.h"
#include "core/run/runner_client.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace lowerscope;

namespace {

constexpr double kSpanMs = 0.010;
constexpr double kEventMs = 0.0113;
constexpr double kGpuDurationMs = 0.0111;

RunnerConfig fakeGpu(const std::map<std::string, std::string>& extra = {}) {
    RunnerConfig c;
    c.command = {RUNNER_BIN};
    c.deadline = std::chrono::milliseconds(20000);
    c.env = {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}};
    for (const auto& [k, v] : extra) {
        c.env[k] = v;
    }
    return c;
}

LaunchVariant fakeKernel(const std::string& name, const std::string& label = "") {
    LaunchVariant v;
    v.label = label;
    v.cubin = {'f', 'a', 'k', 'e', 0x7f, 'E', 'L', 'F'};
    v.kernel = name;
    v.grid = {4, 1, 1};
    v.block = {256, 1, 1};
    v.paramBytes = 8;
    v.params = {ParamSlot{"out", 0, 8, 0, {}}};
    v.buffers = {BufferSpec{"out", ElemType::F32, 1024, BufferInit{InitKind::Zeros, 0, 0}, true}};
    return v;
}

RunRequest timing(MeasureMode mode, std::vector<LaunchVariant> variants) {
    RunRequest r;
    r.mode = mode;
    r.stop.minSamples = 20;
    r.stop.minGpuTimeS = 0.0001;
    r.stop.wallLimitS = 5;
    r.variants = std::move(variants);
    return r;
}

bool allNear(const std::vector<double>& v, double want) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [&](double x) { return std::abs(x - want) < 1e-6; });
}

TEST(RunnerCupti, ColdSamplesAreNsightComputesDurationWhenCountersAreOpen) {
    ProcessRunner runner(fakeGpu());
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << runErrorKindName(o.error.kind) << ": " << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockGpuTimeDuration) << v.clockNote;
    EXPECT_TRUE(allNear(v.samplesMs, kGpuDurationMs));
    ASSERT_EQ(v.samplesByClock.count(kClockEvents), 1u);
    // No activity records beside the Range Profiler: they slow writing kernels (gpu_clocks.cpp).
    EXPECT_EQ(v.samplesByClock.count(kClockKernelTimestamps), 0u);
    EXPECT_TRUE(allNear(v.samplesByClock.at(kClockEvents), kEventMs));
    EXPECT_EQ(v.samplesByClock.at(kClockEvents).size(), v.samplesMs.size());
    EXPECT_EQ(v.samplesByClock.at(kClockGpuTimeDuration), v.samplesMs);
    EXPECT_EQ(v.clockNote, "");
    EXPECT_GE(v.samplesMs.size(), 20u);
}

TEST(RunnerCupti, BothGpuClocksOnRequest) {
    ProcessRunner runner(fakeGpu({{"LOWERSCOPE_GPU_CLOCKS", "both"}}));
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockGpuTimeDuration) << v.clockNote;
    EXPECT_TRUE(allNear(v.samplesMs, kGpuDurationMs));
    ASSERT_EQ(v.samplesByClock.count(kClockKernelTimestamps), 1u);
    EXPECT_TRUE(allNear(v.samplesByClock.at(kClockKernelTimestamps), kSpanMs));
    EXPECT_EQ(v.samplesByClock.at(kClockKernelTimestamps).size(), v.samplesMs.size());
}

TEST(RunnerCupti, GpuDurationWithoutActivityRecords) {
    ProcessRunner runner(fakeGpu({{"LOWERSCOPE_GPU_CLOCKS", "duration"}}));
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockGpuTimeDuration) << v.clockNote;
    EXPECT_TRUE(allNear(v.samplesMs, kGpuDurationMs));
    EXPECT_EQ(v.samplesByClock.count(kClockKernelTimestamps), 0u);
    EXPECT_EQ(v.samplesByClock.count(kClockEvents), 1u);
}

TEST(RunnerCupti, WithoutCountersTheKernelTimestampsAreTheClock) {
    ProcessRunner runner(fakeGpu({{"FAKE_CUPTI_FAIL", "range=35"}}));
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockKernelTimestamps);
    EXPECT_TRUE(allNear(v.samplesMs, kSpanMs));
    EXPECT_EQ(v.samplesByClock.count(kClockGpuTimeDuration), 0u);
    EXPECT_NE(v.clockNote.find("NVreg_RestrictProfilingToAdminUsers"), std::string::npos) << v.clockNote;
    EXPECT_NE(v.clockNote.find("timing still works"), std::string::npos) << v.clockNote;
}

TEST(RunnerCupti, WithoutCuptiEventsAreTheClockAndTheNoteSaysWhy) {
    ProcessRunner runner(fakeGpu({{"LOWERSCOPE_LIBCUPTI", "libcupti-that-does-not-exist.so.13"}}));
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockEvents);
    EXPECT_TRUE(allNear(v.samplesMs, kEventMs));
    EXPECT_EQ(v.samplesByClock.size(), 1u);
    EXPECT_NE(v.clockNote.find("libcupti.so.13"), std::string::npos) << v.clockNote;
}

TEST(RunnerCupti, EventsOnRequest) {
    ProcessRunner runner(fakeGpu());
    RunRequest req = timing(MeasureMode::Cold, {fakeKernel("k")});
    req.clock = "events";
    RunOutcome o = runner.run(req);
    ASSERT_TRUE(o.ok) << o.error.message;
    EXPECT_EQ(o.result.variants.at(0).durationClock, kClockEvents);
    EXPECT_TRUE(allNear(o.result.variants.at(0).samplesMs, kEventMs));
}

TEST(RunnerCupti, ActivityAndCountersRefusedFallBackToEvents) {
    ProcessRunner runner(fakeGpu({{"FAKE_CUPTI_FAIL", "activity=35,range=35"}}));
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockEvents);
    EXPECT_TRUE(allNear(v.samplesMs, kEventMs));
    EXPECT_NE(v.clockNote.find("NVreg_RestrictProfilingToAdminUsers"), std::string::npos) << v.clockNote;
}

TEST(RunnerCupti, ActivityRefusedDoesNotMatterWhileTheCountersWork) {
    // Activity records are only the fallback clock: the Range Profiler does not need them.
    ProcessRunner runner(fakeGpu({{"FAKE_CUPTI_FAIL", "activity=35"}}));
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockGpuTimeDuration) << v.clockNote;
    EXPECT_TRUE(allNear(v.samplesMs, kGpuDurationMs));
}

TEST(RunnerCupti, HotModeIsTimedByGraphReplays) {
    ProcessRunner runner(fakeGpu());
    RunOutcome o = runner.run(timing(MeasureMode::Hot, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockGraphReplay);
    ASSERT_EQ(v.samplesByClock.size(), 2u);
    EXPECT_EQ(v.samplesByClock.at(kClockGraphReplay), v.samplesMs);
    // Replay ÷ K: the span plus the fake's 0.2 µs between nodes (and the events around the
    // replay spread over K launches).
    for (double ms : v.samplesMs) {
        EXPECT_GT(ms, kSpanMs + 0.00019);
        EXPECT_LT(ms, kSpanMs + 0.00030);
    }
    // The node pass: one value per replay of its own (at most 50, never more replays than
    // samples), each the median node span, which is the kernel's span without the gaps.
    const std::vector<double>& nodes = v.samplesByClock.at(kClockNodeTimestamps);
    EXPECT_FALSE(nodes.empty());
    EXPECT_LE(nodes.size(), std::min<size_t>(50, v.samplesMs.size()));
    EXPECT_TRUE(allNear(nodes, kSpanMs));
    EXPECT_TRUE(v.clockNote.empty()) << v.clockNote;
}

TEST(RunnerCupti, HotModeWithoutCuptiHasNoNodeTimestampsAndSaysWhy) {
    ProcessRunner runner(fakeGpu({{"LOWERSCOPE_LIBCUPTI", "libcupti-that-does-not-exist.so.13"}}));
    RunOutcome o = runner.run(timing(MeasureMode::Hot, {fakeKernel("k")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_EQ(v.durationClock, kClockGraphReplay);
    EXPECT_EQ(v.samplesByClock.size(), 1u);
    EXPECT_EQ(v.samplesByClock.count(kClockNodeTimestamps), 0u);
    EXPECT_NE(v.clockNote.find("libcupti.so.13"), std::string::npos) << v.clockNote;
}

TEST(RunnerCupti, CompareUsesOneClockForBothSides) {
    ProcessRunner runner(fakeGpu());
    RunOutcome o = runner.run(timing(MeasureMode::Cold, {fakeKernel("k", "A"), fakeKernel("k_slow", "B")}));
    ASSERT_TRUE(o.ok) << o.error.message;
    ASSERT_EQ(o.result.variants.size(), 2u);
    const VariantResult& a = o.result.variants[0];
    const VariantResult& b = o.result.variants[1];
    EXPECT_EQ(a.durationClock, kClockGpuTimeDuration);
    EXPECT_EQ(b.durationClock, a.durationClock);
    EXPECT_TRUE(allNear(b.samplesMs, 3 * kSpanMs + (kGpuDurationMs - kSpanMs)));
}

} // namespace
