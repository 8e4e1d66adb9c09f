#pragma once
// One owner for measurement, shared by the CLI (`run`, `compare`, `experiment`) and the GUI's
// measurement job:
//   * measure():        one way to measure — resolve each side's launch against its kernel,
//                       send one request to a Runner (core/run/runner_client.h), and keep what
//                       came back together with where each launch came from;
//   * writeMeasurement: the one writer of the documents ("lowerscope.run/1" for one launch,
//                       "lowerscope.compare/1" for A and B, "lowerscope.profile-launches/1" for
//                       plain launches, an error document when the run failed);
//   * readMeasurement:  the one reader — every document Lowerscope writes, plus the shapes older
//                       versions wrote into sessions (a runner result bare or wrapped in
//                       {"result": ...}, and the GUI's "lowerscope.run/1" with a "variants" array);
//   * timingVerdict():  the plain sentence about A against B;
//   * formatDuration(): the one duration formatter.
// Nothing here touches Qt or the GPU.

#include "core/model.h"
#include "core/run/argspec.h"
#include "core/run/protocol.h"
#include "core/run/runner_client.h"

#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

// Schemas of the documents written here.
inline constexpr const char* kRunSchema = "lowerscope.run/1";
inline constexpr const char* kCompareSchema = "lowerscope.compare/1";
inline constexpr const char* kProfileLaunchesSchema = "lowerscope.profile-launches/1";

// A document that cannot be read (not JSON, no samples, a field of the wrong type, a newer schema).
struct MeasurementError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One kernel argument as the launch resolved it ("n", "16777216", "u32").
struct RecordedArg {
    std::string name;
    std::string value;
    std::string ptxType;
    bool operator==(const RecordedArg&) const = default;
};

// Where one measured launch came from: the source, the kernel, the build and the launch as
// resolved. Fields a document did not record stay empty.
struct LaunchRecord {
    std::string file;                    // the source as given to the build
    std::string kernelName;              // demangled ("saxpy(int, float, float const*, float*)")
    std::string buildOptions;            // the nvcc options, one shell-quoted line
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t sharedBytes = 0;            // dynamic shared memory per block
    std::array<uint32_t, 3> cluster{0, 0, 0}; // thread block cluster; 0s = none
    std::vector<RecordedArg> args;
    std::optional<double> bytes;         // declared bytes moved per launch
    std::optional<double> flops;         // declared FLOPs per launch
    bool operator==(const LaunchRecord&) const = default;
};

// A measurement as documents record it: the runner's result and, parallel to its variants, where
// each launch came from; or the error that ended the run.
struct MeasurementRecord {
    std::string schema;                  // as read ("" for a bare runner result); ignored by the writer
    bool synthetic = false;              // the document says it was not recorded on a GPU
    std::string note;                    // free text carried by the document
    RunResult result;                    // device, variants (samples, clocks, outputs, ...), agreement
    std::vector<LaunchRecord> launches;  // one per result.variants entry
    std::vector<double> recordedClockMhz; // per variant: the mean SM clock a document recorded (its
                                          // only clock when older, without per-sample clocks); 0 = none
    std::optional<std::string> optionsA, optionsB; // compare: the build options as the user gave them
                                                   // (`compare --a/--b`); nullopt when not known
    double atol = 1e-5, rtol = 1e-4;     // tolerance of the output agreement
    std::optional<RunError> error;       // the run failed (result is then empty)
    std::string runnerStderr;            // the runner's stderr (tail) with an error
    bool ok() const { return !error && !result.variants.empty(); }
};

// The mean SM clock of variant `i`, MHz: from its per-sample clocks, else the one the document
// recorded, else 0.
double meanClockMhz(const MeasurementRecord& record, size_t i);

// Achieved rates of a launch at `medianMs` against the device's peaks (0 % when the device does
// not report that peak). A rate is empty when its work was not declared or the time is not > 0.
struct Throughput {
    std::optional<double> gbs, pctOfPeakBandwidth, pctOfCopyBandwidth;
    std::optional<double> gflops, pctOfPeakFp32;
};
Throughput throughputOf(const LaunchRecord& launch, double medianMs, const DeviceInfo& device);

// ------------------------------------------------------------------------------- measuring

// One side of a measurement: a built kernel and the launch to run it with.
struct MeasureSide {
    std::string label;                   // "A" / "B"; "" for a single run
    std::vector<uint8_t> cubin;          // the module image
    std::string mangled;                 // the kernel's symbol
    std::string signature;               // demangled signature (picks default outputs; recorded)
    std::vector<PtxParam> params;        // the entry's PTX parameters, in order
    LaunchSpec spec;                     // the launch in the sidecar / CLI language
    std::string file;                    // recorded: the source as built
    std::string buildOptions;            // recorded: the nvcc options, shell-quoted
};

// A side whose launch is resolved: what goes to the runner and what the document records.
struct PreparedSide {
    LaunchVariant variant;
    LaunchRecord launch;
    std::vector<std::string> warnings;   // from resolving the launch (e.g. a guessed output)
};

// Resolves `side.spec` against the kernel's parameters. Throws ArgSpecError when the launch does
// not fit the kernel, std::invalid_argument when the side has no cubin.
PreparedSide prepareSide(const MeasureSide& side);

// How to measure (core/run/protocol.h's RunRequest without the variants).
struct MeasureSettings {
    MeasureMode mode = MeasureMode::Auto;
    StopOptions stop;
    bool measureGraph = false;
    bool shareBuffers = true;
    bool returnOutputs = false;
    double atol = 1e-5, rtol = 1e-4;
    int profileLaunches = 0;             // > 0: plain launches for an external profiler, no timing
    std::optional<GraphPathOptions> graphPath; // experiment 4: the graph path of the first side
    std::vector<MemoryRegion> regions;   // a replay: device memory restored before the sides load
};

// The request measure() sends for these sides (id left empty: the runner client fills it in).
RunRequest measureRequest(const std::vector<PreparedSide>& sides, const MeasureSettings& settings);

// Measures the sides on `runner`: one side is a single run, two are A and B interleaved. Progress
// lines reach `progress` on the calling thread; setting `*cancel` kills the runner. Never throws
// for runner failures: the record's `error` says what happened (kind Cancelled when cancelled).
MeasurementRecord measure(Runner& runner, const std::vector<PreparedSide>& sides, const MeasureSettings& settings,
                          const RunProgressFn& progress = {}, std::atomic<bool>* cancel = nullptr);

// ------------------------------------------------------------------------------- documents

// The document of a record (see the top of this file). Statistics (median, CI, ...), throughput
// and, for two launches, the ratio B/A and its verdict are computed from the samples here. Throws
// MeasurementError for a record with no variant or more than two.
nlohmann::json writeMeasurement(const MeasurementRecord& record);

// Reads a measurement document. Throws MeasurementError naming what is wrong; an error document
// is not an exception (the record's `error` is set). Every launch read has at least one sample,
// and every sample is a finite number.
MeasurementRecord readMeasurement(const nlohmann::json& document);
MeasurementRecord readMeasurementText(const std::string& text);
// Reads a file; the error names the path. `document`, when given, receives the JSON as read.
MeasurementRecord loadMeasurementRecord(const std::string& path, nlohmann::json* document = nullptr);

// ------------------------------------------------------------------------------- verdict

// The timing comparison of A (variants[0]) and B (variants[1]) of a result.
struct TimingVerdict {
    bool valid = false;                  // two variants with samples
    std::string labelA, labelB;
    double medianA = 0, medianB = 0;     // ms
    double ratio = 0;                    // B/A of paired samples (median), with its 95 % CI
    double ratioLow = 0, ratioHigh = 0;
    bool significant = false;            // the two medians' 95 % CIs do not overlap (TIMING.md) and
                                         // |ratio − 1| ≥ the minimum effect (core/run/stats.h)
    std::string notCalledBecause;        // when not significant: "the medians' intervals overlap", ...
    std::string outputs;                 // "outputs match within 1e-6", "outputs are bit-identical",
                                         // "outputs DIFFER: ...", or "" when not compared
    std::string sentence;                // "B is 1.42× faster (95 % CI 1.40–1.44), outputs match within 1e-6"
};
TimingVerdict timingVerdict(const RunResult& result);

// A duration given in milliseconds, with a unit that keeps 3–4 significant digits ("812.3 ns",
// "41.27 µs", "3.104 ms", "1.250 s"; "0 ms" for zero).
std::string formatDuration(double ms);

} // namespace lowerscope
