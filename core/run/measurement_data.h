#pragma once
// What the measurement pane shows of a measurement document: read with core/run/measurement.h's
// readMeasurement (every shape Lowerscope writes or wrote), then summarised per launch. No Qt:
// plain structs and pure functions, testable on their own (bad documents throw MeasurementError).
//
// Statistics are recomputed from the kept samples with core/run/stats.h, so what the charts draw
// and what the verdict says always agree with the samples in the file.

#include "core/run/measurement.h"
#include "core/run/stats.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

struct MeasuredOutput {
    std::string name;
    std::string digest;
    bool fullyWritten = true;
};

// One measured launch configuration (A, B, or the only one).
struct MeasuredVariant {
    std::string label;              // "A", "B", or the kernel name for a single run
    std::string kernel;
    std::string mode;               // "cold" / "hot"
    std::vector<double> samplesMs;  // per launch, in the order taken
    std::vector<double> clockMhz;   // per sample SM clock estimate (may be empty)
    SampleStats stats;              // recomputed from samplesMs
    double firstLaunchMs = -1;      // -1 = not reported
    int throttledSamples = 0;
    double occupancy = -1;          // 0..1, -1 = not reported
    int registers = -1;             // -1 = not reported
    std::optional<double> bytes;    // declared bytes moved per launch
    std::optional<double> flops;    // declared FLOPs per launch
    std::string stopReason;
    std::vector<MeasuredOutput> outputs;
    // Achieved rates at the median time; nullopt when bytes / flops were not declared.
    std::optional<double> bandwidthGBs() const;
    std::optional<double> gflops() const;
};

struct Measurement {
    MeasurementRecord record;       // what the document says, as read
    nlohmann::json document;        // the document as read (kept for sessions, verbatim)
    bool synthetic = false;         // the document says it was not recorded on a GPU
    std::string note;               // free text carried by the document (fixtures explain themselves)
    DeviceInfo device;
    std::vector<MeasuredVariant> variants;
    std::optional<RatioStats> ratio; // B/A when there are two variants (recomputed from samples)
    std::optional<RunError> error;  // an error document
    bool ok() const { return !error && !variants.empty(); }
};

// Reads a result document (see readMeasurement). Throws MeasurementError naming what is wrong.
// An error document is not an exception: it returns error set.
Measurement parseMeasurement(const nlohmann::json& document);
Measurement parseMeasurementText(const std::string& text);
Measurement loadMeasurementFile(const std::string& path);

// The plain verdict. Two variants: timingVerdict()'s sentence, capitalised ("B is 1.42× faster
// (95 % CI 1.40–1.44), outputs match within 1e-6"). A single run: "saxpy: median 123.0 µs (95 % CI
// 122.0 µs–124.0 µs), noise 0.3 %". A failed run: "Failed (kernel_fault): ...".
std::string verdictText(const Measurement& m);

// Cost of a kernel at its median time: GPU-seconds per million launches and the price of those at
// `pricePerGpuHour` (any currency); for a workload of `launchesPerRequest` launches of the kernel
// per request, the GPU time per request and the price of a million requests.
struct CostLine {
    double gpuSecondsPerMillion = 0;
    double costPerMillion = 0;
    double gpuMsPerRequest = 0;
    double costPerMillionRequests = 0;
};
CostLine costLine(double medianMs, double pricePerGpuHour, double launchesPerRequest = 1);
// The relative change of cost from `from` to `to` (+0.1 = 10 % more); 0 when `from` costs nothing.
double costChange(const CostLine& from, const CostLine& to);

} // namespace lowerscope
