#pragma once
// What the measurement pane shows, read from a result document: the CLI's `lowerscope-cli
// run/compare --json` output (schema "lowerscope.run/1"), a runner result ({"result": {...}} or
// the bare result object) or a runner error. No Qt: plain structs and pure functions, so the
// parsing is testable on its own and survives any input (bad documents throw MeasurementError).
//
// Statistics are recomputed from the kept samples with core/run/stats.h, so what the charts draw
// and what the verdict says always agree with the samples in the file.

#include "core/run/protocol.h"
#include "core/run/stats.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

struct MeasurementError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct MeasuredDevice {
    std::string name;
    int smCount = 0;
    double clockMhz = 0;            // rated SM clock
    double peakBandwidthGBs = 0;    // datasheet-style DRAM peak; 0 = unknown
    double copyBandwidthGBs = 0;    // measured copy ceiling; 0 = not measured
    double fp32PeakGflops = 0;      // 0 = unknown
};

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
    int registers = -1;
    std::optional<double> bytes;    // declared bytes moved per launch
    std::optional<double> flops;    // declared FLOPs per launch
    std::string stopReason;
    std::vector<MeasuredOutput> outputs;
    // Achieved rates at the median time; nullopt when bytes / flops were not declared.
    std::optional<double> bandwidthGBs() const;
    std::optional<double> gflops() const;
};

struct MeasuredAgreement {
    std::string name;
    bool agree = false;
    bool sameDigest = false;
    int64_t mismatches = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
};

// A runner / CLI error document ({"error": {...}}).
struct MeasuredError {
    RunErrorKind kind = RunErrorKind::Unknown;
    std::string message;
    std::string cudaError;
    std::string stage;
    std::string variant;
};

struct Measurement {
    std::string schema;             // as found ("" for a bare runner result)
    bool synthetic = false;         // the document says it was not recorded on a GPU
    std::string note;               // free text carried by the document (fixtures explain themselves)
    MeasuredDevice device;
    std::vector<MeasuredVariant> variants;
    std::vector<MeasuredAgreement> agreement;
    std::optional<RatioStats> ratio; // B/A when there are two variants (recomputed from samples)
    std::optional<MeasuredError> error;
    nlohmann::json document;        // the document as read (kept for sessions, verbatim)
    bool ok() const { return !error && !variants.empty(); }
};

// Reads a result document. Throws MeasurementError naming what is wrong (not JSON, no samples,
// a field of the wrong type). An error document is not an exception: it returns error set.
Measurement parseMeasurement(const nlohmann::json& document);
Measurement parseMeasurementText(const std::string& text);
Measurement loadMeasurementFile(const std::string& path);

// The plain verdict. Two variants: core/experiment/report.h's TimingVerdict sentence, capitalised ("B is 1.42×
// faster (95 % CI 1.40–1.44), outputs match within 1e-6"). A single run: "saxpy: median 0.123 ms
// (95 % CI 0.122–0.124), noise 0.3 %". A failed run: "Failed (kernel_fault): ...".
std::string verdictText(const Measurement& m);

// Cost of a kernel at its median time: GPU-seconds per million launches and the price of those at
// `pricePerGpuHour` (any currency).
struct CostLine {
    double gpuSecondsPerMillion = 0;
    double costPerMillion = 0;
};
CostLine costLine(double medianMs, double pricePerGpuHour);

// "12.3 µs", "1.23 ms", "1.23 s" — times for labels.
std::string formatDurationMs(double ms);

} // namespace lowerscope
