// The duration clock in measurement documents (issue 19): written next to samples_ms, read back,
// and "events" for documents written before clocks were recorded.
#include "core/run/measurement.h"

#include <gtest/gtest.h>

using namespace lowerscope;
using nlohmann::json;

namespace {

MeasurementRecord clockedRecord() {
    MeasurementRecord rec;
    rec.result.device.name = "NVIDIA H200";
    VariantResult v;
    v.kernel = "_Z5saxpyifPKfPf";
    v.mode = "cold";
    v.samplesMs = {0.005472, 0.005472, 0.005504};
    v.durationClock = kClockGpuTimeDuration;
    v.samplesByClock = {{kClockGpuTimeDuration, v.samplesMs},
                        {kClockKernelTimestamps, {0.004576, 0.004576, 0.004608}},
                        {kClockEvents, {0.007872, 0.007904, 0.007872}}};
    v.clockNote = "";
    v.sampleClockMhz = {1980, 1980, 1980};
    v.stopReason = "noise_stable";
    rec.result.variants.push_back(v);
    LaunchRecord l;
    l.file = "kernels/saxpy.cu";
    l.kernelName = "saxpy(int, float, float const*, float*)";
    rec.launches.push_back(l);
    return rec;
}

TEST(MeasurementClocks, WrittenAndReadBack) {
    const MeasurementRecord rec = clockedRecord();
    const json doc = writeMeasurement(rec);
    EXPECT_EQ(doc["duration_clock"], "gpu_time_duration");
    EXPECT_EQ(doc["samples_by_clock"]["kernel_timestamps"].size(), 3u);
    EXPECT_EQ(doc["samples_by_clock"]["gpu_time_duration"], doc["samples_ms"]);
    const MeasurementRecord back = readMeasurement(doc);
    ASSERT_EQ(back.result.variants.size(), 1u);
    const VariantResult& v = back.result.variants[0];
    EXPECT_EQ(v.durationClock, kClockGpuTimeDuration);
    EXPECT_EQ(v.samplesByClock, rec.result.variants[0].samplesByClock);
    EXPECT_EQ(writeMeasurement(back), doc);
}

TEST(MeasurementClocks, OlderDocumentsWereTimedByEvents) {
    json doc = writeMeasurement(clockedRecord());
    doc.erase("duration_clock");
    doc.erase("samples_by_clock");
    doc.erase("clock_note");
    const MeasurementRecord back = readMeasurement(doc);
    EXPECT_EQ(back.result.variants.at(0).durationClock, kClockEvents);
    EXPECT_TRUE(back.result.variants.at(0).samplesByClock.empty());
}

TEST(MeasurementClocks, MalformedClockSamplesAreRefused) {
    json doc = writeMeasurement(clockedRecord());
    doc["samples_by_clock"]["events"] = "fast";
    EXPECT_THROW(readMeasurement(doc), MeasurementError);
}

TEST(MeasurementClocks, EachSideOfACompareKeepsItsClocks) {
    MeasurementRecord rec = clockedRecord();
    VariantResult b = rec.result.variants[0];
    b.label = "B";
    b.samplesMs = {0.004000, 0.004032, 0.004000};
    b.durationClock = kClockKernelTimestamps;
    b.samplesByClock = {{kClockKernelTimestamps, b.samplesMs}, {kClockEvents, {0.0053, 0.0054, 0.0053}}};
    b.clockNote = "gpu_time_duration missing for 3 of 3 samples of B";
    rec.result.variants[0].label = "A";
    rec.result.variants.push_back(b);
    rec.launches.push_back(rec.launches[0]);
    const json doc = writeMeasurement(rec);
    ASSERT_EQ(doc["schema"], "lowerscope.compare/1");
    EXPECT_EQ(doc["a"]["duration_clock"], "gpu_time_duration");
    EXPECT_EQ(doc["b"]["duration_clock"], "kernel_timestamps");
    EXPECT_EQ(doc["b"]["clock_note"], b.clockNote);
    const MeasurementRecord back = readMeasurement(doc);
    ASSERT_EQ(back.result.variants.size(), 2u);
    EXPECT_EQ(back.result.variants[0].samplesByClock, rec.result.variants[0].samplesByClock);
    EXPECT_EQ(back.result.variants[1].durationClock, kClockKernelTimestamps);
    EXPECT_EQ(back.result.variants[1].samplesByClock, b.samplesByClock);
    EXPECT_EQ(back.result.variants[1].clockNote, b.clockNote);
    EXPECT_EQ(writeMeasurement(back), doc);
}

} // namespace
