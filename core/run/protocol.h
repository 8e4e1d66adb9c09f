#pragma once
// The lowerscope-runner protocol: line-delimited JSON over the runner's stdin/stdout.
//
//   runner → client, once at start:  {"hello": {"protocol": 1, "runner": "...", "device": {...}}}
//                                 or {"error": {"kind": "no_driver" | "no_device" | "driver_error", ...}}
//                                    and the runner exits (code 3 no driver, 4 no device/init failure)
//   client → runner:  {"op": "run", "id": "...", ...RunRequest}   {"op": "info"}   {"op": "quit"}
//   runner → client:  any number of {"progress": {...}} lines, then exactly one of
//                     {"result": {...RunResult}} or {"error": {...RunError}} per request.
//   After an error with "fatal": true (kernel_fault, kernel_timeout) the runner exits: its CUDA
//   context is unusable. Exit codes: 0 quit/EOF, 2 usage, 3 no driver, 4 no device, 5 kernel
//   fault, 6 kernel timeout (the runner's own watchdog), 7 other fatal CUDA error.
//
// Every struct round-trips through JSON (toJson/fromJson); fromJson throws ProtocolError with a
// message naming the missing or malformed field.

#include "core/bounded_json.h"
#include "core/run/argspec.h"
#include "core/run/profile_data.h"
#include "core/run/stats.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

constexpr int kRunnerProtocolVersion = 1;

struct ProtocolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The GPU as the runner sees it (rated figures from device attributes; copy bandwidth measured).
struct DeviceInfo {
    std::string name;
    int ccMajor = 0, ccMinor = 0;
    int smCount = 0;
    double clockMhz = 0;              // rated SM clock (CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
    double memClockMhz = 0;
    int busWidthBits = 0;
    int64_t l2Bytes = 0;
    int64_t totalMemBytes = 0;
    int maxThreadsPerSm = 0;
    int maxSharedPerBlockOptin = 0;   // bytes
    int driverVersion = 0;            // e.g. 13000
    double peakBandwidthGBs = 0;      // memory clock × bus width × 2 / 8 (datasheet-style)
    double fp32PeakGflops = 0;        // SMs × FP32 lanes per SM × 2 × rated clock
    double copyBandwidthGBs = 0;      // measured device-to-device copy, bytes read + written; 0 = not measured
    bool operator==(const DeviceInfo&) const = default;
};

enum class MeasureMode { Auto, Cold, Hot };
std::string modeName(MeasureMode mode);          // "auto", "cold", "hot"
std::optional<MeasureMode> parseMode(const std::string& name);

// One buffer to allocate and fill.
struct BufferSpec {
    std::string name;
    ElemType type = ElemType::F32;
    int64_t count = 0;
    BufferInit init;
    bool output = false;
    bool operator==(const BufferSpec&) const = default;
};

// One parameter slot: scalar bytes, the device address of buffers[buffer], or tensorMaps[tensorMap]
// encoded by the runner: its 128 bytes by value (size 128, offset a multiple of 64) or the address
// of a device copy (size 8).
struct ParamSlot {
    std::string name;
    int offset = 0;
    int size = 0;
    int buffer = -1;
    std::vector<uint8_t> scalar;
    int tensorMap = -1;
    bool operator==(const ParamSlot&) const = default;
};

// One kernel launch to measure (a compare request carries two).
struct LaunchVariant {
    std::string label;                     // "A", "B", or "" for a single run
    std::vector<uint8_t> cubin;            // whole module image (travels base64-encoded)
    std::string kernel;                    // mangled or plain name
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t sharedBytes = 0;              // dynamic shared memory (over 48 KiB: the runner opts in,
                                           // checked against the device's per-block maximum)
    std::array<uint32_t, 3> cluster{0, 0, 0}; // thread block cluster (cuLaunchKernelEx); 0s = none
    int paramBytes = 0;
    std::vector<ParamSlot> params;
    std::vector<BufferSpec> buffers;
    std::vector<TensorMapSpec> tensorMaps; // encoded over their buffers with cuTensorMapEncodeTiled
    std::optional<double> bytes;           // declared bytes per launch
    std::optional<double> flops;           // declared FLOPs per launch
    bool operator==(const LaunchVariant&) const = default;
};
// Builds a variant from a resolved launch (argspec) and a cubin.
LaunchVariant makeVariant(const ResolvedLaunch& launch, std::vector<uint8_t> cubin, const std::string& mangledName,
                          const std::string& label = "");

// Experiment 4 (CUDA Graph break-even): a fixed path of N launches of the first variant from the
// stream against the same path captured into a graph (app/runner/graph_path.h says how each number
// is taken). Limits (checkGraphPathOptions): 1 .. 16 path lengths N of 1 .. 4096 launches, distinct;
// 1 .. 64 replay counts R of 1 .. 100000, strictly increasing; max N × max R ≤ 2^24 launches (one
// total is timed whole); 3 .. 101 repetitions; a wall budget
// of (0, 3600] s, after which the runner stops and says so in GraphPathResult::note.
struct GraphPathOptions {
    std::vector<int> pathLengths; // N: launches per path
    std::vector<int> replays;     // R: paths per end-to-end measurement
    int repetitions = 9;          // of every cost, steady-state batch and (R, side) total
    double wallLimitS = 120;      // host wall budget of the whole graph-path measurement
    bool operator==(const GraphPathOptions&) const = default;
};
// "" when `o` is within the limits above, else what is wrong (names the field).
std::string checkGraphPathOptions(const GraphPathOptions& o);

// Device memory of a captured launch (core/capture/replay.h), restored by the runner at the virtual
// address it had in the captured program, before any variant or helper is loaded, so that the
// parameter bytes, pointers stored in memory and tensor maps stay valid. The runner must run with
// --fixed-addresses (no address-space randomisation, helpers loaded after the regions), as the
// captured program did. A region that cannot be mapped there is mapped elsewhere and the
// parameter words that pointed into it are relocated (RunResult::regionsRelocated says which),
// tensor maps re-pointed; with `requireOriginal` that is an error instead. After each variant's first launch every region
// is read back as an output named "mem@0xADDRESS" (elements of `type`, compared between variants
// like any output) and restored before the next launch.
struct MemoryRegion {
    uint64_t address = 0;
    std::vector<uint8_t> data;             // the bytes before the launch (travels base64-encoded)
    ElemType type = ElemType::U8;
    bool requireOriginal = false;          // the memory must not move (no client sets it since tensor maps
                                           // are re-pointed: app/runner/restored_memory.h)
    bool relocatePointers = false;         // the memory holds 8-byte pointers into the replay's regions:
                                           // where the driver gives other addresses they move with them
    bool operator==(const MemoryRegion&) const = default;
};

// "0x7ffdd7e00000"; parseAddressHex reads it back (none for anything else).
std::string addressHex(uint64_t address);
std::optional<uint64_t> parseAddressHex(const std::string& text);
// "mem@0x7ffdd7e00000": the output under which a restored region is read back and compared.
std::string regionOutputName(uint64_t address);

struct RunRequest {
    std::string id;
    MeasureMode mode = MeasureMode::Auto;  // Auto: cold when a launch takes ≥ 20 µs, else hot
    StopOptions stop;
    double kernelTimeoutS = 30;            // the runner's own watchdog per wait (the client's deadline is shorter)
    bool measureGraph = false;             // graph costs also in cold mode (always measured in hot mode)
    bool shareBuffers = true;              // compare: time every variant on variant 0's device buffers
                                           // (when their layouts match), so placement cannot bias the
                                           // ratio; outputs still come from each variant's own buffers
    bool returnOutputs = false;            // include output bytes (base64) in the result
    double atol = 1e-5, rtol = 1e-4;       // output agreement between variants
    int profileLaunches = 0;               // > 0: no measurement procedure, just this many plain
                                           // launches (L2 flushed, synchronised), for external
                                           // profilers such as ncu; mode "profile" in the result
    ProfileCollection profile = ProfileCollection::None;  // != None: collect this profile (CUPTI)
                                           // instead of timing; one collection per request;
                                           // instructions and samples take one variant per request
    std::vector<std::string> profileMetrics;  // kernel profile: metric names (empty: defaultKernelMetrics())
    int profileSamplePeriodLog2 = 0;       // samples profile: 2^n SM cycles between samples (5..31);
                                           // 0 = CUPTI's default (2^11 on an H200)
    std::string clock = "auto";            // duration clock of cold samples: "auto" (the GPU's own,
                                           // see VariantResult::durationClock) or "events" (CUDA events only)
    std::optional<GraphPathOptions> graphPath; // set: also the graph-path measurement of variant 0
    std::vector<MemoryRegion> regions;     // replay of a captured launch: memory shared by every variant
    std::vector<LaunchVariant> variants;
    bool operator==(const RunRequest&) const = default;
};

struct KernelResources {
    int registers = 0;
    int staticSharedBytes = 0;
    int localBytes = 0;
    int constBytes = 0;
    int maxThreadsPerBlock = 0;
    bool operator==(const KernelResources&) const = default;
};

struct Occupancy {
    int activeBlocksPerSm = 0;
    int activeWarpsPerSm = 0;
    int maxWarpsPerSm = 0;
    double fraction = 0;     // activeWarps / maxWarps
    double waves = 0;        // blocks / (activeBlocksPerSm × SMs)
    bool operator==(const Occupancy&) const = default;
};

struct OutputReport {
    std::string name;
    ElemType type = ElemType::F32;
    int64_t count = 0;
    std::string digest;               // XXH3-64 of the bytes after the first launch (declared inputs)
    bool fullyWritten = false;        // every element written (two poison launches)
    int64_t unwrittenCount = 0;
    std::vector<uint8_t> data;        // only when RunRequest::returnOutputs
    bool operator==(const OutputReport&) const = default;
};

struct GraphCosts {
    int launchesPerGraph = 0;         // K
    double captureMs = 0;             // host wall time to capture K launches
    double instantiateMs = 0;         // host wall time of cuGraphInstantiate
    double uploadMs = 0;              // host wall time of cuGraphUpload
    double replayPerLaunchUs = 0;     // GPU time of a replay ÷ K
    double streamPerLaunchUs = 0;     // GPU time of K back-to-back stream launches ÷ K
    double emptyNodeUs = 0;           // GPU time per empty node in a replayed graph of empty nodes
    double emptyKernelUs = 0;         // GPU time per empty kernel node in a replayed graph
    std::optional<double> breakEvenReplays; // (capture + instantiate) / saving per replay; none if no saving
    bool operator==(const GraphCosts&) const = default;
};

// One replay count R of a graph path: host wall ms of each repetition, end to end, of
//   stream: R paths launched from the stream + synchronise;
//   graph:  capture + instantiate + upload of a fresh graph + R replays + synchronise.
// streamMs[i] and graphMs[i] were taken next to each other (their order alternating).
struct GraphPathPoint {
    int replays = 0;
    std::vector<double> streamMs, graphMs;
    bool operator==(const GraphPathPoint&) const = default;
};

// One path length N: every repetition kept (core/experiment/graph_break_even.h summarises).
struct GraphPathEntry {
    int pathLength = 0;                                     // N
    std::vector<double> captureMs, instantiateMs, uploadMs; // host wall, a fresh graph each repetition
                                                            // (upload until the stream is idle)
    int steadyPaths = 0;                                    // M: paths per steady-state batch
    std::vector<double> streamPathUs, graphPathUs;          // host wall per path of a batch of M paths
                                                            // launched back to back + synchronise, ÷ M
    std::vector<double> streamPathGpuUs, graphPathGpuUs;    // the same batches' GPU time (events), ÷ M
    std::vector<GraphPathPoint> points;                     // one per R measured, in request order
    bool operator==(const GraphPathEntry&) const = default;
};

struct GraphPathResult {
    int repetitions = 0;
    std::vector<GraphPathEntry> paths; // in request order; fewer when stopped early
    std::string note;                  // why the measurement stopped early ("" = complete)
    bool operator==(const GraphPathResult&) const = default;
};

// Duration clocks (VariantResult::durationClock, keys of samplesByClock):
//  "gpu_time_duration": Nsight Compute's gpu__time_duration of each launch, read through CUPTI's
//                       Range Profiler (needs access to the performance counters);
//  "kernel_timestamps": the GPU's start/end timestamps of each launch from CUPTI's activity records
//                       (first block starts → last block ends; Nsight Systems' kernel duration);
//  "events":            a CUDA event pair around each launch (includes ~1.3 µs of event overhead);
//  "graph_replay":      hot mode: events around a replay of K launches, ÷ K;
//  "node_timestamps":   hot mode: per replay, the median span of its kernel nodes (activity records),
//                       from a pass of its own after the sampling loop (up to 50 replays), so
//                       not parallel to samplesMs and never the headline clock.
inline constexpr const char* kClockGpuTimeDuration = "gpu_time_duration";
inline constexpr const char* kClockKernelTimestamps = "kernel_timestamps";
inline constexpr const char* kClockEvents = "events";
inline constexpr const char* kClockGraphReplay = "graph_replay";
inline constexpr const char* kClockNodeTimestamps = "node_timestamps";

// One variant's measurement.
struct VariantResult {
    std::string label;
    std::string kernel;               // the function name found in the module
    std::string mode;                 // "cold" or "hot" (the mode actually used)
    KernelResources resources;
    Occupancy occupancy;
    double moduleLoadMs = 0;          // host wall time of cuModuleLoadData
    double firstLaunchMs = 0;         // GPU time (events) of the very first launch
    double firstLaunchWallMs = 0;     // host wall time of the first launch until it completed
    int launchesPerSample = 1;        // K in hot mode (samples are per launch: replay ÷ K)
    int warmupRuns = 0;
    double warmupMs = 0;              // GPU time spent warming up
    std::vector<double> samplesMs;    // kept samples, per launch, in order, on durationClock
    std::string durationClock = "events"; // which clock samplesMs comes from (see above); the same
                                      // for every variant of a request, so ratios compare like with like
    std::map<std::string, std::vector<double>> samplesByClock; // every clock taken for the kept samples
                                      // (parallel to samplesMs, except node_timestamps: one per
                                      // replay of its own pass)
    std::string clockNote;            // why a GPU clock is missing or not used ("" when none is)
    std::vector<double> sampleClockMhz; // SM clock estimate for each kept sample
    int throttledSamples = 0;         // discarded: clock below 75 % of the rated clock
    int gateTimeouts = 0;             // spin gate released by its timeout (host was late)
    double eventOverheadUs = 0;       // gated event pair with nothing between (not subtracted)
    std::string stopReason;
    std::vector<OutputReport> outputs;
    std::optional<GraphCosts> graph;
    std::optional<GraphPathResult> graphPath; // requests with graph_path: variant 0 only
    std::optional<ProfileData> profile; // profile requests: what was collected
    bool operator==(const VariantResult&) const = default;
};

// Output agreement between variant 0 and another variant (outputs paired by position).
struct OutputAgreement {
    std::string name;                 // output name in variant 0
    std::string labelA, labelB;
    bool sameDigest = false;
    bool agree = false;               // sameDigest, or every element within atol + rtol·|a|
    bool sizeMismatch = false;
    int64_t count = 0;
    int64_t mismatches = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    int64_t firstMismatch = -1;
    bool operator==(const OutputAgreement&) const = default;
};

struct RunResult {
    std::string id;
    DeviceInfo device;
    std::vector<VariantResult> variants;
    std::vector<OutputAgreement> agreement;  // compare requests only
    bool buffersShared = false;              // the variants were timed on the same device buffers
    double wallS = 0;                        // the whole request on the runner
    std::vector<uint64_t> regionsRelocated;  // regions (original addresses) mapped elsewhere, their
                                             // pointers in the parameters relocated
    bool runnerExits = false;                // the runner ends after this result (instruction counts and
                                             // stall samples leave CUPTI state it cannot reset); the
                                             // client reaps it and the next request starts a fresh one
    bool operator==(const RunResult&) const = default;
};

// What went wrong. The runner sends the kinds up to Internal; the client side adds the rest. On the
// wire (and in documents) a kind travels as its name: "no_driver", "no_device", "driver_error",
// "bad_request", "module_load", "kernel_not_found", "launch_error", "out_of_memory",
// "kernel_fault", "kernel_timeout", "cuda_error", "throttled", "internal"; client side "deadline"
// (killed), "runner_exited", "runner_start", "protocol", "cancelled", "bad_launch" (the launch
// does not fit the kernel; never sent to a runner); runner side again, for profile requests:
// "no_cupti", "profiling_unsupported", "profiling_not_permitted", "profiler_busy", "cupti_error".
// A name this version does not know reads as Unknown.
enum class RunErrorKind {
    Unknown,
    NoDriver,
    NoDevice,
    DriverError,
    BadRequest,
    ModuleLoad,
    KernelNotFound,
    LaunchError,
    OutOfMemory,
    KernelFault,
    KernelTimeout,
    CudaError,
    Throttled,
    Internal,
    Deadline,
    RunnerExited,
    RunnerStart,
    Protocol,
    Cancelled,
    BadLaunch,
    // Profiling (CUPTI) failures: they end the request, not the runner.
    NoCupti,               // CUPTI is not installed where the runner looks
    ProfilingUnsupported,  // this GPU or driver cannot give the collection
    ProfilingNotPermitted, // the performance counters are restricted to admin users
    ProfilerBusy,          // another profiler holds the counters
    CuptiError,            // any other CUPTI failure
};
// The wire name ("kernel_fault", ...; "unknown" for Unknown).
const char* runErrorKindName(RunErrorKind kind);
// The kind of a wire name; Unknown for names this version does not know.
RunErrorKind parseRunErrorKind(const std::string& name);
// Kinds that say the measurement could not be attempted here (no driver or device, the runner did
// not start or refused the request): the CLI's exit status 2, against 1
// for a kernel that faulted, timed out or did not load.
bool isSetupError(RunErrorKind kind);

struct RunError {
    RunErrorKind kind = RunErrorKind::Unknown;
    std::string message;
    std::string cudaError;   // e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"; "" when not a CUDA error
    int cudaCode = 0;
    std::string stage;       // "module_load", "first_launch", "poison_check", "warmup", "measure", ...
    std::string variant;     // label of the variant being run
    bool fatal = false;      // the runner exits after sending it
    bool operator==(const RunError&) const = default;
};

// Progress of a request (informational; also the client's sign of life).
struct RunProgress {
    std::string id;
    std::string stage;
    std::string variant;
    size_t samples = 0;
    double noise = 0;
    double elapsedS = 0;
    bool operator==(const RunProgress&) const = default;
};

std::string toBase64(const std::vector<uint8_t>& bytes);
// Throws ProtocolError on invalid characters or length.
std::vector<uint8_t> fromBase64(const std::string& text);

nlohmann::json toJson(const DeviceInfo& v);
nlohmann::json toJson(const BufferSpec& v);
nlohmann::json toJson(const ParamSlot& v);
nlohmann::json toJson(const TensorMapSpec& v);
nlohmann::json toJson(const LaunchVariant& v);
nlohmann::json toJson(const MemoryRegion& v);
nlohmann::json toJson(const StopOptions& v);
nlohmann::json toJson(const RunRequest& v);     // includes "op": "run"
nlohmann::json toJson(const KernelResources& v);
nlohmann::json toJson(const Occupancy& v);
nlohmann::json toJson(const OutputReport& v);
nlohmann::json toJson(const GraphCosts& v);
nlohmann::json toJson(const GraphPathOptions& v);
nlohmann::json toJson(const GraphPathResult& v);
nlohmann::json toJson(const VariantResult& v);
nlohmann::json toJson(const OutputAgreement& v);
nlohmann::json toJson(const RunResult& v);
nlohmann::json toJson(const RunError& v);
nlohmann::json toJson(const RunProgress& v);

void fromJson(const nlohmann::json& j, DeviceInfo& v);
void fromJson(const nlohmann::json& j, BufferSpec& v);
void fromJson(const nlohmann::json& j, ParamSlot& v);
void fromJson(const nlohmann::json& j, TensorMapSpec& v); // shape only; the buffer is checked by the variant
void fromJson(const nlohmann::json& j, LaunchVariant& v);
void fromJson(const nlohmann::json& j, MemoryRegion& v);
void fromJson(const nlohmann::json& j, StopOptions& v);
void fromJson(const nlohmann::json& j, RunRequest& v);
void fromJson(const nlohmann::json& j, KernelResources& v);
void fromJson(const nlohmann::json& j, Occupancy& v);
void fromJson(const nlohmann::json& j, OutputReport& v);
void fromJson(const nlohmann::json& j, GraphCosts& v);
void fromJson(const nlohmann::json& j, GraphPathOptions& v); // also checkGraphPathOptions
void fromJson(const nlohmann::json& j, GraphPathResult& v);  // finite non-negative times, bounded counts
void fromJson(const nlohmann::json& j, VariantResult& v);
void fromJson(const nlohmann::json& j, OutputAgreement& v);
void fromJson(const nlohmann::json& j, RunResult& v);
void fromJson(const nlohmann::json& j, RunError& v);
void fromJson(const nlohmann::json& j, RunProgress& v);

// Message lines (one JSON object each, no newline).
std::string hello(const DeviceInfo& device, const std::string& runnerVersion);
std::string resultLine(const RunResult& r);
std::string errorLine(const RunError& e, const std::string& id = "");
std::string progressLine(const RunProgress& p);

// A parsed runner → client line.
struct RunnerMessage {
    enum class Kind { Hello, Progress, Result, Error, Info } kind = Kind::Error;
    std::string id;
    DeviceInfo device;        // Hello, Info
    std::string runnerVersion;
    int protocol = 0;
    RunProgress progress;
    RunResult result;
    RunError error;
};
// Throws ProtocolError when the line is not JSON, passes `limits` (bounded_json.h; the message
// names the limit) or is not a known message.
RunnerMessage parseRunnerMessage(const std::string& line, const JsonLimits& limits = kRunnerMessageLimits);

} // namespace lowerscope
