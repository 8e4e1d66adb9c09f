// The headline duration clock of a request's cold samples (core/run/duration_clock.h, issue 19):
// the best clock that ran for every sample of every variant, the same for all variants; gaps and
// missing clocks are explained in clock_note, never carried in samples_by_clock.
#include "core/run/duration_clock.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace lowerscope;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A variant as the runner leaves it before the choice: samplesMs on events, every clock's series.
VariantResult variant(const std::string& label, std::vector<double> events, std::vector<double> timestamps,
                      std::vector<double> gpuDuration) {
    VariantResult v;
    v.label = label;
    v.samplesMs = events;
    v.samplesByClock[kClockEvents] = std::move(events);
    if (!timestamps.empty()) {
        v.samplesByClock[kClockKernelTimestamps] = std::move(timestamps);
    }
    if (!gpuDuration.empty()) {
        v.samplesByClock[kClockGpuTimeDuration] = std::move(gpuDuration);
    }
    return v;
}

TEST(DurationClock, GpuTimeDurationWhenItRanForEverySample) {
    VariantResult a = variant("A", {0.0113, 0.0114}, {0.0100, 0.0101}, {0.0111, 0.0112});
    VariantResult b = variant("B", {0.0213, 0.0214}, {0.0200, 0.0201}, {0.0211, 0.0212});
    settleDurationClock({&a, &b}, "");
    for (const VariantResult* v : {&a, &b}) {
        EXPECT_EQ(v->durationClock, kClockGpuTimeDuration);
        EXPECT_EQ(v->samplesMs, v->samplesByClock.at(kClockGpuTimeDuration));
        EXPECT_EQ(v->samplesByClock.size(), 3u);
        EXPECT_EQ(v->clockNote, "");
    }
    EXPECT_EQ(a.samplesMs, (std::vector<double>{0.0111, 0.0112}));
    EXPECT_EQ(a.samplesByClock.at(kClockEvents), (std::vector<double>{0.0113, 0.0114}));
}

TEST(DurationClock, OneVariantsGapMovesEveryVariantToTimestamps) {
    // B's gpu__time_duration stopped part way (e.g. the profiler was dropped): A must not keep it,
    // or A/B would compare two different clocks.
    VariantResult a = variant("A", {0.0113, 0.0114}, {0.0100, 0.0101}, {0.0111, 0.0112});
    VariantResult b = variant("B", {0.0213, 0.0214}, {0.0200, 0.0201}, {0.0211, kNaN});
    settleDurationClock({&a, &b}, "why the profiler stopped");
    for (const VariantResult* v : {&a, &b}) {
        EXPECT_EQ(v->durationClock, kClockKernelTimestamps);
        EXPECT_EQ(v->samplesMs, v->samplesByClock.at(kClockKernelTimestamps));
        EXPECT_EQ(v->clockNote, "why the profiler stopped; gpu_time_duration missing for 1 of 2 samples of B");
    }
    // A's complete series stays (it is still its own clock's truth); B's gappy one goes.
    EXPECT_EQ(a.samplesByClock.count(kClockGpuTimeDuration), 1u);
    EXPECT_EQ(b.samplesByClock.count(kClockGpuTimeDuration), 0u);
    EXPECT_EQ(b.samplesMs, (std::vector<double>{0.0200, 0.0201}));
}

TEST(DurationClock, AClockOneVariantLacksEntirelyIsNotUsed) {
    VariantResult a = variant("A", {0.0113}, {0.0100}, {0.0111});
    VariantResult b = variant("B", {0.0213}, {0.0200}, {});
    settleDurationClock({&a, &b}, "");
    EXPECT_EQ(a.durationClock, kClockKernelTimestamps);
    EXPECT_EQ(b.durationClock, kClockKernelTimestamps);
    EXPECT_EQ(a.clockNote, "gpu_time_duration missing for 1 of 1 samples of B");
}

TEST(DurationClock, EventsWhenNoGpuClockIsComplete) {
    VariantResult a = variant("A", {0.0113, 0.0114}, {0.0100, kNaN}, {});
    settleDurationClock({&a}, "CUPTI is not loaded");
    EXPECT_EQ(a.durationClock, kClockEvents);
    EXPECT_EQ(a.samplesMs, (std::vector<double>{0.0113, 0.0114}));
    EXPECT_EQ(a.samplesByClock.size(), 1u);
    EXPECT_EQ(a.clockNote, "CUPTI is not loaded; kernel_timestamps missing for 1 of 2 samples of A");
    for (const auto& [name, series] : a.samplesByClock) {
        for (double x : series) {
            EXPECT_TRUE(std::isfinite(x)) << name;
        }
    }
}

TEST(DurationClock, OnlyEventsTakenLeavesTheSamplesAlone) {
    VariantResult a = variant("A", {0.0113, 0.0114}, {}, {});
    settleDurationClock({&a}, "the request asked for CUDA events only (clock: events)");
    EXPECT_EQ(a.durationClock, kClockEvents);
    EXPECT_EQ(a.samplesMs, (std::vector<double>{0.0113, 0.0114}));
    EXPECT_EQ(a.clockNote, "the request asked for CUDA events only (clock: events)");
}

TEST(DurationClock, SeriesOfTheWrongLengthCountsAsMissing) {
    VariantResult a = variant("A", {0.0113, 0.0114}, {0.0100}, {});
    settleDurationClock({&a}, "");
    EXPECT_EQ(a.durationClock, kClockEvents);
    EXPECT_EQ(a.samplesByClock.count(kClockKernelTimestamps), 0u);
    EXPECT_EQ(a.clockNote, "kernel_timestamps missing for 2 of 2 samples of A");
}

} // namespace
