// Runner protocol: JSON (de)serialisation of requests, results, errors and progress.
// Over 600 lines because every message of protocol.h is written and read here, each field checked
// with a message naming it (the runner's answers are untrusted); one file keeps both directions of
// each message side by side.
#include "core/run/protocol.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lowerscope {

using nlohmann::json;

std::string modeName(MeasureMode mode) {
    switch (mode) {
    case MeasureMode::Auto: return "auto";
    case MeasureMode::Cold: return "cold";
    case MeasureMode::Hot: return "hot";
    }
    return "auto";
}

std::optional<MeasureMode> parseMode(const std::string& name) {
    if (name == "auto") {
        return MeasureMode::Auto;
    }
    if (name == "cold") {
        return MeasureMode::Cold;
    }
    if (name == "hot" || name == "graph") {
        return MeasureMode::Hot;
    }
    return std::nullopt;
}

namespace {
struct KindName {
    RunErrorKind kind;
    const char* name;
};
constexpr KindName kKindNames[] = {
    {RunErrorKind::Unknown, "unknown"},
    {RunErrorKind::NoDriver, "no_driver"},
    {RunErrorKind::NoDevice, "no_device"},
    {RunErrorKind::DriverError, "driver_error"},
    {RunErrorKind::BadRequest, "bad_request"},
    {RunErrorKind::ModuleLoad, "module_load"},
    {RunErrorKind::KernelNotFound, "kernel_not_found"},
    {RunErrorKind::LaunchError, "launch_error"},
    {RunErrorKind::OutOfMemory, "out_of_memory"},
    {RunErrorKind::KernelFault, "kernel_fault"},
    {RunErrorKind::KernelTimeout, "kernel_timeout"},
    {RunErrorKind::CudaError, "cuda_error"},
    {RunErrorKind::Throttled, "throttled"},
    {RunErrorKind::Internal, "internal"},
    {RunErrorKind::Deadline, "deadline"},
    {RunErrorKind::RunnerExited, "runner_exited"},
    {RunErrorKind::RunnerStart, "runner_start"},
    {RunErrorKind::Protocol, "protocol"},
    {RunErrorKind::Cancelled, "cancelled"},
    {RunErrorKind::BadLaunch, "bad_launch"},
    {RunErrorKind::NoCupti, "no_cupti"},
    {RunErrorKind::ProfilingUnsupported, "profiling_unsupported"},
    {RunErrorKind::ProfilingNotPermitted, "profiling_not_permitted"},
    {RunErrorKind::ProfilerBusy, "profiler_busy"},
    {RunErrorKind::CuptiError, "cupti_error"},
};
} // namespace

const char* runErrorKindName(RunErrorKind kind) {
    for (const KindName& k : kKindNames) {
        if (k.kind == kind) {
            return k.name;
        }
    }
    return "unknown";
}

RunErrorKind parseRunErrorKind(const std::string& name) {
    for (const KindName& k : kKindNames) {
        if (name == k.name) {
            return k.kind;
        }
    }
    return RunErrorKind::Unknown;
}

bool isSetupError(RunErrorKind kind) {
    switch (kind) {
    case RunErrorKind::NoDriver:
    case RunErrorKind::NoDevice:
    case RunErrorKind::DriverError:
    case RunErrorKind::RunnerStart:
    case RunErrorKind::BadRequest:
    case RunErrorKind::BadLaunch:
        return true;
    default:
        return false;
    }
}

LaunchVariant makeVariant(const ResolvedLaunch& launch, std::vector<uint8_t> cubin, const std::string& mangledName,
                          const std::string& label) {
    LaunchVariant v;
    v.label = label;
    v.cubin = std::move(cubin);
    v.kernel = mangledName.empty() ? launch.kernel : mangledName;
    v.grid = launch.grid;
    v.block = launch.block;
    v.sharedBytes = launch.sharedBytes;
    v.paramBytes = launch.paramBytes;
    for (const auto& p : launch.params) {
        v.params.push_back(ParamSlot{p.name, p.offset, p.size, p.buffer, p.scalar});
    }
    for (const auto& b : launch.buffers) {
        v.buffers.push_back(BufferSpec{b.name, b.type, b.count, b.init, b.output});
    }
    v.bytes = launch.bytes;
    v.flops = launch.flops;
    return v;
}

// ----------------------------------------------------------------------------------- base64

std::string toBase64(const std::vector<uint8_t>& in) {
    static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        uint32_t v = (uint32_t(in[i]) << 16) | (uint32_t(in[i + 1]) << 8) | in[i + 2];
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += tbl[v & 63];
    }
    if (i + 1 == in.size()) {
        uint32_t v = uint32_t(in[i]) << 16;
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += "==";
    } else if (i + 2 == in.size()) {
        uint32_t v = (uint32_t(in[i]) << 16) | (uint32_t(in[i + 1]) << 8);
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::vector<uint8_t> fromBase64(const std::string& s) {
    auto val = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    if (s.size() % 4 != 0) {
        throw ProtocolError("base64 text length is not a multiple of 4");
    }
    std::vector<uint8_t> out;
    out.reserve(s.size() / 4 * 3);
    for (size_t i = 0; i < s.size(); i += 4) {
        int pad = 0;
        uint32_t v = 0;
        for (size_t k = 0; k < 4; ++k) {
            char c = s[i + k];
            int d = 0;
            if (c == '=') {
                if (i + 4 != s.size() || k < 2) {
                    throw ProtocolError("misplaced '=' in base64 text");
                }
                ++pad;
            } else {
                if (pad) {
                    throw ProtocolError("data after '=' in base64 text");
                }
                d = val(c);
                if (d < 0) {
                    throw ProtocolError("invalid character in base64 text");
                }
            }
            v = (v << 6) | static_cast<uint32_t>(d);
        }
        out.push_back(static_cast<uint8_t>(v >> 16));
        if (pad < 2) {
            out.push_back(static_cast<uint8_t>(v >> 8));
        }
        if (pad < 1) {
            out.push_back(static_cast<uint8_t>(v));
        }
    }
    return out;
}

// ------------------------------------------------------------------------------- JSON helpers

namespace {

[[noreturn]] void bad(const std::string& key, const std::string& what) {
    throw ProtocolError("field '" + key + "': " + what);
}

const json& need(const json& j, const char* key) {
    if (!j.is_object()) {
        bad(key, "expected an object around it");
    }
    auto it = j.find(key);
    if (it == j.end()) {
        bad(key, "missing");
    }
    return *it;
}

// Typed getters: required (need*) and optional with a default (get*). Doubles accept null as NaN
// (nlohmann writes non-finite numbers as null).
double asDouble(const json& v, const char* key) {
    if (v.is_null()) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (!v.is_number()) {
        bad(key, "expected a number");
    }
    return v.get<double>();
}
double getD(const json& j, const char* key, double dflt) {
    auto it = j.find(key);
    return it == j.end() ? dflt : asDouble(*it, key);
}
int64_t asInt(const json& v, const char* key) {
    if (!v.is_number_integer()) {
        if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
            std::fabs(v.get<double>()) < 9e18) {
            return static_cast<int64_t>(v.get<double>());
        }
        bad(key, "expected an integer");
    }
    return v.get<int64_t>();
}
int64_t getI(const json& j, const char* key, int64_t dflt) {
    auto it = j.find(key);
    return it == j.end() ? dflt : asInt(*it, key);
}
std::string getS(const json& j, const char* key, const std::string& dflt = "") {
    auto it = j.find(key);
    if (it == j.end()) {
        return dflt;
    }
    if (!it->is_string()) {
        bad(key, "expected a string");
    }
    return it->get<std::string>();
}
bool getB(const json& j, const char* key, bool dflt) {
    auto it = j.find(key);
    if (it == j.end()) {
        return dflt;
    }
    if (!it->is_boolean()) {
        bad(key, "expected true or false");
    }
    return it->get<bool>();
}
std::optional<double> getOptD(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        return std::nullopt;
    }
    return asDouble(*it, key);
}
json optD(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::array<uint32_t, 3> getDim(const json& j, const char* key) {
    const json& v = need(j, key);
    if (!v.is_array() || v.size() != 3) {
        bad(key, "expected [x, y, z]");
    }
    std::array<uint32_t, 3> d{};
    for (size_t i = 0; i < 3; ++i) {
        int64_t x = asInt(v[i], key);
        if (x < 1 || x > 0xffffffffLL) {
            bad(key, "dimension out of range");
        }
        d[i] = static_cast<uint32_t>(x);
    }
    return d;
}

std::vector<double> getDoubles(const json& j, const char* key) {
    std::vector<double> out;
    auto it = j.find(key);
    if (it == j.end()) {
        return out;
    }
    if (!it->is_array()) {
        bad(key, "expected an array of numbers");
    }
    for (const auto& v : *it) {
        out.push_back(asDouble(v, key));
    }
    return out;
}

template <typename T>
std::vector<T> getObjects(const json& j, const char* key) {
    std::vector<T> out;
    auto it = j.find(key);
    if (it == j.end()) {
        return out;
    }
    if (!it->is_array()) {
        bad(key, "expected an array");
    }
    for (const auto& v : *it) {
        T t;
        fromJson(v, t);
        out.push_back(std::move(t));
    }
    return out;
}

ElemType getType(const json& j, const char* key) {
    std::string s = getS(j, key, "f32");
    auto t = parseElemType(s);
    if (!t) {
        bad(key, "unknown element type '" + s + "'");
    }
    return *t;
}

std::string initKindName(InitKind k) {
    switch (k) {
    case InitKind::Random: return "random";
    case InitKind::Zeros: return "zeros";
    case InitKind::Ones: return "ones";
    case InitKind::Iota: return "iota";
    case InitKind::Const: return "const";
    }
    return "random";
}

std::string hexOf(const std::vector<uint8_t>& b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t c : b) {
        s += d[c >> 4];
        s += d[c & 15];
    }
    return s;
}

std::vector<uint8_t> unhex(const std::string& s, const char* key) {
    if (s.size() % 2) {
        bad(key, "odd number of hex digits");
    }
    std::vector<uint8_t> out;
    for (size_t i = 0; i < s.size(); i += 2) {
        auto nib = [&](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            bad(key, "invalid hex digit");
        };
        out.push_back(static_cast<uint8_t>(nib(s[i]) * 16 + nib(s[i + 1])));
    }
    return out;
}

} // namespace

// ------------------------------------------------------------------------------------ toJson

json toJson(const DeviceInfo& v) {
    return json{{"name", v.name},
                {"compute_capability", std::to_string(v.ccMajor) + "." + std::to_string(v.ccMinor)},
                {"cc_major", v.ccMajor},
                {"cc_minor", v.ccMinor},
                {"sm_count", v.smCount},
                {"clock_mhz", v.clockMhz},
                {"memory_clock_mhz", v.memClockMhz},
                {"bus_width_bits", v.busWidthBits},
                {"l2_bytes", v.l2Bytes},
                {"total_memory_bytes", v.totalMemBytes},
                {"max_threads_per_sm", v.maxThreadsPerSm},
                {"max_shared_per_block_optin", v.maxSharedPerBlockOptin},
                {"driver_version", v.driverVersion},
                {"peak_bandwidth_gbs", v.peakBandwidthGBs},
                {"fp32_peak_gflops", v.fp32PeakGflops},
                {"copy_bandwidth_gbs", v.copyBandwidthGBs}};
}

json toJson(const BufferSpec& v) {
    return json{{"name", v.name},
                {"type", elemTypeName(v.type)},
                {"count", v.count},
                {"init", initToString(v.init)},
                {"init_kind", initKindName(v.init.kind)},
                {"seed", v.init.seed},
                {"run", v.init.run},
                {"value", v.init.value},
                {"output", v.output}};
}

json toJson(const ParamSlot& v) {
    json j{{"name", v.name}, {"offset", v.offset}, {"size", v.size}};
    if (v.buffer >= 0) {
        j["buffer"] = v.buffer;
    } else {
        j["scalar_hex"] = hexOf(v.scalar);
    }
    return j;
}

json toJson(const LaunchVariant& v) {
    json params = json::array(), buffers = json::array();
    for (const auto& p : v.params) {
        params.push_back(toJson(p));
    }
    for (const auto& b : v.buffers) {
        buffers.push_back(toJson(b));
    }
    return json{{"label", v.label},
                {"cubin_b64", toBase64(v.cubin)},
                {"kernel", v.kernel},
                {"grid", v.grid},
                {"block", v.block},
                {"shared_bytes", v.sharedBytes},
                {"param_bytes", v.paramBytes},
                {"params", params},
                {"buffers", buffers},
                {"bytes", optD(v.bytes)},
                {"flops", optD(v.flops)}};
}

json toJson(const StopOptions& v) {
    return json{{"min_samples", v.minSamples},       {"min_gpu_time_s", v.minGpuTimeS},
                {"max_noise", v.maxNoise},           {"wall_limit_s", v.wallLimitS},
                {"max_samples", v.maxSamples},       {"stable_window", v.stableWindow},
                {"stable_tolerance", v.stableTolerance}};
}

json toJson(const RunRequest& v) {
    json variants = json::array();
    for (const auto& x : v.variants) {
        variants.push_back(toJson(x));
    }
    json j{{"op", "run"},
           {"id", v.id},
           {"mode", modeName(v.mode)},
           {"stop", toJson(v.stop)},
           {"kernel_timeout_s", v.kernelTimeoutS},
           {"measure_graph", v.measureGraph},
           {"share_buffers", v.shareBuffers},
           {"return_outputs", v.returnOutputs},
           {"atol", v.atol},
           {"rtol", v.rtol},
           {"profile_launches", v.profileLaunches},
           {"profile", profileCollectionName(v.profile)},
           {"profile_metrics", v.profileMetrics},
           {"profile_sample_period_log2", v.profileSamplePeriodLog2},
           {"clock", v.clock},
           {"variants", variants}};
    if (v.graphPath) {
        j["graph_path"] = toJson(*v.graphPath);
    }
    return j;
}

json toJson(const KernelResources& v) {
    return json{{"registers", v.registers},
                {"static_shared_bytes", v.staticSharedBytes},
                {"local_bytes", v.localBytes},
                {"const_bytes", v.constBytes},
                {"max_threads_per_block", v.maxThreadsPerBlock}};
}

json toJson(const Occupancy& v) {
    return json{{"active_blocks_per_sm", v.activeBlocksPerSm},
                {"active_warps_per_sm", v.activeWarpsPerSm},
                {"max_warps_per_sm", v.maxWarpsPerSm},
                {"fraction", v.fraction},
                {"waves", v.waves}};
}

json toJson(const OutputReport& v) {
    json j{{"name", v.name},
           {"type", elemTypeName(v.type)},
           {"count", v.count},
           {"digest", v.digest},
           {"fully_written", v.fullyWritten},
           {"unwritten_count", v.unwrittenCount}};
    if (!v.data.empty()) {
        j["data_b64"] = toBase64(v.data);
    }
    return j;
}

json toJson(const GraphCosts& v) {
    return json{{"launches_per_graph", v.launchesPerGraph},
                {"capture_ms", v.captureMs},
                {"instantiate_ms", v.instantiateMs},
                {"upload_ms", v.uploadMs},
                {"replay_per_launch_us", v.replayPerLaunchUs},
                {"stream_per_launch_us", v.streamPerLaunchUs},
                {"empty_node_us", v.emptyNodeUs},
                {"empty_kernel_us", v.emptyKernelUs},
                {"break_even_replays", optD(v.breakEvenReplays)}};
}

json toJson(const GraphPathOptions& v) {
    return json{{"path_lengths", v.pathLengths},
                {"replays", v.replays},
                {"repetitions", v.repetitions},
                {"wall_limit_s", v.wallLimitS}};
}

json toJson(const GraphPathResult& v) {
    json paths = json::array();
    for (const GraphPathEntry& e : v.paths) {
        json points = json::array();
        for (const GraphPathPoint& p : e.points) {
            points.push_back(
                json{{"replays", p.replays}, {"stream_ms", p.streamMs}, {"graph_ms", p.graphMs}});
        }
        paths.push_back(json{{"path_length", e.pathLength},
                             {"capture_ms", e.captureMs},
                             {"instantiate_ms", e.instantiateMs},
                             {"upload_ms", e.uploadMs},
                             {"steady_paths", e.steadyPaths},
                             {"stream_path_us", e.streamPathUs},
                             {"graph_path_us", e.graphPathUs},
                             {"stream_path_gpu_us", e.streamPathGpuUs},
                             {"graph_path_gpu_us", e.graphPathGpuUs},
                             {"points", points}});
    }
    return json{{"repetitions", v.repetitions}, {"paths", paths}, {"note", v.note}};
}

json toJson(const VariantResult& v) {
    json outputs = json::array();
    for (const auto& o : v.outputs) {
        outputs.push_back(toJson(o));
    }
    json j{{"label", v.label},
           {"kernel", v.kernel},
           {"mode", v.mode},
           {"resources", toJson(v.resources)},
           {"occupancy", toJson(v.occupancy)},
           {"module_load_ms", v.moduleLoadMs},
           {"first_launch_ms", v.firstLaunchMs},
           {"first_launch_wall_ms", v.firstLaunchWallMs},
           {"launches_per_sample", v.launchesPerSample},
           {"warmup_runs", v.warmupRuns},
           {"warmup_ms", v.warmupMs},
           {"samples_ms", v.samplesMs},
           {"duration_clock", v.durationClock},
           {"samples_by_clock", v.samplesByClock},
           {"clock_note", v.clockNote},
           {"sample_clock_mhz", v.sampleClockMhz},
           {"throttled_samples", v.throttledSamples},
           {"gate_timeouts", v.gateTimeouts},
           {"event_overhead_us", v.eventOverheadUs},
           {"stop_reason", v.stopReason},
           {"outputs", outputs},
           {"graph", v.graph ? toJson(*v.graph) : json(nullptr)},
           {"profile", v.profile ? toJson(*v.profile) : json(nullptr)}};
    if (v.graphPath) {
        j["graph_path"] = toJson(*v.graphPath);
    }
    return j;
}

json toJson(const OutputAgreement& v) {
    return json{{"name", v.name},
                {"label_a", v.labelA},
                {"label_b", v.labelB},
                {"same_digest", v.sameDigest},
                {"agree", v.agree},
                {"size_mismatch", v.sizeMismatch},
                {"count", v.count},
                {"mismatches", v.mismatches},
                {"max_abs_error", v.maxAbsError},
                {"max_rel_error", v.maxRelError},
                {"first_mismatch", v.firstMismatch}};
}

json toJson(const RunResult& v) {
    json variants = json::array(), agreement = json::array();
    for (const auto& x : v.variants) {
        variants.push_back(toJson(x));
    }
    for (const auto& x : v.agreement) {
        agreement.push_back(toJson(x));
    }
    return json{{"id", v.id}, {"device", toJson(v.device)}, {"variants", variants},
                {"agreement", agreement}, {"buffers_shared", v.buffersShared}, {"wall_s", v.wallS},
                {"runner_exits", v.runnerExits}};
}

json toJson(const RunError& v) {
    return json{{"kind", runErrorKindName(v.kind)},   {"message", v.message}, {"cuda_error", v.cudaError}, {"cuda_code", v.cudaCode},
                {"stage", v.stage}, {"variant", v.variant}, {"fatal", v.fatal}};
}

json toJson(const RunProgress& v) {
    return json{{"id", v.id},           {"stage", v.stage}, {"variant", v.variant},
                {"samples", v.samples}, {"noise", v.noise}, {"elapsed_s", v.elapsedS}};
}

// ---------------------------------------------------------------------------------- fromJson

void fromJson(const json& j, DeviceInfo& v) {
    if (!j.is_object()) {
        throw ProtocolError("device: expected an object");
    }
    v.name = getS(j, "name");
    v.ccMajor = static_cast<int>(getI(j, "cc_major", 0));
    v.ccMinor = static_cast<int>(getI(j, "cc_minor", 0));
    v.smCount = static_cast<int>(getI(j, "sm_count", 0));
    v.clockMhz = getD(j, "clock_mhz", 0);
    v.memClockMhz = getD(j, "memory_clock_mhz", 0);
    v.busWidthBits = static_cast<int>(getI(j, "bus_width_bits", 0));
    v.l2Bytes = getI(j, "l2_bytes", 0);
    v.totalMemBytes = getI(j, "total_memory_bytes", 0);
    v.maxThreadsPerSm = static_cast<int>(getI(j, "max_threads_per_sm", 0));
    v.maxSharedPerBlockOptin = static_cast<int>(getI(j, "max_shared_per_block_optin", 0));
    v.driverVersion = static_cast<int>(getI(j, "driver_version", 0));
    v.peakBandwidthGBs = getD(j, "peak_bandwidth_gbs", 0);
    v.fp32PeakGflops = getD(j, "fp32_peak_gflops", 0);
    v.copyBandwidthGBs = getD(j, "copy_bandwidth_gbs", 0);
}

void fromJson(const json& j, BufferSpec& v) {
    if (!j.is_object()) {
        throw ProtocolError("buffer: expected an object");
    }
    v.name = getS(j, "name");
    v.type = getType(j, "type");
    v.count = asInt(need(j, "count"), "count");
    if (v.count < 1 || v.count > (int64_t(1) << 40)) {
        bad("count", "out of range");
    }
    std::string kind = getS(j, "init_kind", "random");
    bool known = false;
    for (InitKind k : {InitKind::Random, InitKind::Zeros, InitKind::Ones, InitKind::Iota, InitKind::Const}) {
        if (initKindName(k) == kind) {
            v.init.kind = k;
            known = true;
        }
    }
    if (!known) {
        bad("init_kind", "unknown initialiser '" + kind + "'");
    }
    auto seed = j.find("seed");
    if (seed != j.end()) {
        if (!seed->is_number_integer()) {
            bad("seed", "expected an integer");
        }
        v.init.seed = seed->is_number_unsigned() ? seed->get<uint64_t>() : static_cast<uint64_t>(seed->get<int64_t>());
    }
    v.init.value = getD(j, "value", 0);
    v.init.run = getI(j, "run", 1);
    if (v.init.run < 1 || v.init.run > (int64_t(1) << 30)) {
        bad("run", "out of range (1 .. 2^30)");
    }
    v.output = getB(j, "output", false);
}

void fromJson(const json& j, ParamSlot& v) {
    if (!j.is_object()) {
        throw ProtocolError("param: expected an object");
    }
    v.name = getS(j, "name");
    v.offset = static_cast<int>(asInt(need(j, "offset"), "offset"));
    v.size = static_cast<int>(asInt(need(j, "size"), "size"));
    if (v.offset < 0 || v.size <= 0 || v.offset + v.size > 32764) {
        bad("offset", "parameter slot out of range");
    }
    v.buffer = static_cast<int>(getI(j, "buffer", -1));
    v.scalar.clear();
    if (v.buffer < 0) {
        v.scalar = unhex(getS(j, "scalar_hex"), "scalar_hex");
        if (static_cast<int>(v.scalar.size()) != v.size) {
            bad("scalar_hex", "has " + std::to_string(v.scalar.size()) + " bytes, the slot " + std::to_string(v.size));
        }
    }
}

void fromJson(const json& j, LaunchVariant& v) {
    if (!j.is_object()) {
        throw ProtocolError("variant: expected an object");
    }
    v.label = getS(j, "label");
    v.cubin = fromBase64(getS(j, "cubin_b64"));
    v.kernel = getS(j, "kernel");
    v.grid = getDim(j, "grid");
    v.block = getDim(j, "block");
    int64_t shared = getI(j, "shared_bytes", 0);
    if (shared < 0 || shared > (1 << 30)) {
        bad("shared_bytes", "out of range");
    }
    v.sharedBytes = static_cast<uint32_t>(shared);
    v.paramBytes = static_cast<int>(getI(j, "param_bytes", 0));
    if (v.paramBytes < 0 || v.paramBytes > 32764) {
        bad("param_bytes", "out of range");
    }
    v.params = getObjects<ParamSlot>(j, "params");
    v.buffers = getObjects<BufferSpec>(j, "buffers");
    for (const auto& p : v.params) {
        if (p.offset + p.size > v.paramBytes) {
            bad("params", "slot '" + p.name + "' lies outside param_bytes");
        }
        if (p.buffer >= static_cast<int>(v.buffers.size()) || (p.buffer >= 0 && p.size != 8)) {
            bad("params", "slot '" + p.name + "' names a missing buffer or is not 8 bytes");
        }
    }
    v.bytes = getOptD(j, "bytes");
    v.flops = getOptD(j, "flops");
}

void fromJson(const json& j, StopOptions& v) {
    if (!j.is_object()) {
        throw ProtocolError("stop: expected an object");
    }
    StopOptions d;
    v.minSamples = static_cast<size_t>(std::max<int64_t>(1, getI(j, "min_samples", static_cast<int64_t>(d.minSamples))));
    v.minGpuTimeS = getD(j, "min_gpu_time_s", d.minGpuTimeS);
    v.maxNoise = getD(j, "max_noise", d.maxNoise);
    v.wallLimitS = getD(j, "wall_limit_s", d.wallLimitS);
    v.maxSamples = static_cast<size_t>(std::max<int64_t>(1, getI(j, "max_samples", static_cast<int64_t>(d.maxSamples))));
    v.stableWindow = static_cast<size_t>(std::max<int64_t>(0, getI(j, "stable_window", static_cast<int64_t>(d.stableWindow))));
    v.stableTolerance = getD(j, "stable_tolerance", d.stableTolerance);
}

void fromJson(const json& j, RunRequest& v) {
    if (!j.is_object()) {
        throw ProtocolError("request: expected an object");
    }
    v.id = getS(j, "id");
    std::string mode = getS(j, "mode", "auto");
    auto m = parseMode(mode);
    if (!m) {
        bad("mode", "unknown mode '" + mode + "' (auto, cold, hot)");
    }
    v.mode = *m;
    v.stop = StopOptions{};
    if (j.contains("stop")) {
        fromJson(j["stop"], v.stop);
    }
    v.kernelTimeoutS = getD(j, "kernel_timeout_s", 30);
    v.measureGraph = getB(j, "measure_graph", false);
    v.shareBuffers = getB(j, "share_buffers", true);
    v.returnOutputs = getB(j, "return_outputs", false);
    v.atol = getD(j, "atol", 1e-5);
    v.rtol = getD(j, "rtol", 1e-4);
    v.profileLaunches = static_cast<int>(std::clamp<int64_t>(getI(j, "profile_launches", 0), 0, 1000000));
    const std::string profile = getS(j, "profile", "");
    auto collection = parseProfileCollection(profile);
    if (!collection) {
        bad("profile", "unknown collection '" + profile + "' (kernel, instructions, samples)");
    }
    v.profile = *collection;
    v.profileMetrics.clear();
    if (j.contains("profile_metrics")) {
        const json& m = j["profile_metrics"];
        if (!m.is_array()) {
            bad("profile_metrics", "expected an array of metric names");
        }
        for (const auto& x : m) {
            // Metric names reach CUPTI only, never a shell; still, keep them to the characters
            // metric names have.
            if (!x.is_string() || x.get<std::string>().empty() || x.get<std::string>().size() > 200 ||
                x.get<std::string>().find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.") != std::string::npos) {
                bad("profile_metrics", "expected metric names such as dram__bytes_read.sum");
            }
            v.profileMetrics.push_back(x.get<std::string>());
        }
    }
    v.profileSamplePeriodLog2 = static_cast<int>(getI(j, "profile_sample_period_log2", 0));
    if (v.profileSamplePeriodLog2 != 0 && (v.profileSamplePeriodLog2 < 5 || v.profileSamplePeriodLog2 > 31)) {
        bad("profile_sample_period_log2", "expected 0 (the default) or 5 .. 31");
    }
    v.clock = getS(j, "clock", "auto");
    if (v.clock != "auto" && v.clock != kClockEvents) {
        bad("clock", "unknown clock '" + v.clock + "' (auto, events)");
    }
    v.graphPath.reset();
    if (j.contains("graph_path") && !j["graph_path"].is_null()) {
        GraphPathOptions g;
        fromJson(j["graph_path"], g);
        v.graphPath = std::move(g);
    }
    v.variants = getObjects<LaunchVariant>(j, "variants");
    if (v.variants.empty()) {
        bad("variants", "at least one launch is needed");
    }
}

void fromJson(const json& j, KernelResources& v) {
    v.registers = static_cast<int>(getI(j, "registers", 0));
    v.staticSharedBytes = static_cast<int>(getI(j, "static_shared_bytes", 0));
    v.localBytes = static_cast<int>(getI(j, "local_bytes", 0));
    v.constBytes = static_cast<int>(getI(j, "const_bytes", 0));
    v.maxThreadsPerBlock = static_cast<int>(getI(j, "max_threads_per_block", 0));
}

void fromJson(const json& j, Occupancy& v) {
    v.activeBlocksPerSm = static_cast<int>(getI(j, "active_blocks_per_sm", 0));
    v.activeWarpsPerSm = static_cast<int>(getI(j, "active_warps_per_sm", 0));
    v.maxWarpsPerSm = static_cast<int>(getI(j, "max_warps_per_sm", 0));
    v.fraction = getD(j, "fraction", 0);
    v.waves = getD(j, "waves", 0);
}

void fromJson(const json& j, OutputReport& v) {
    v.name = getS(j, "name");
    v.type = getType(j, "type");
    v.count = getI(j, "count", 0);
    v.digest = getS(j, "digest");
    v.fullyWritten = getB(j, "fully_written", false);
    v.unwrittenCount = getI(j, "unwritten_count", 0);
    v.data = j.contains("data_b64") ? fromBase64(getS(j, "data_b64")) : std::vector<uint8_t>{};
}

void fromJson(const json& j, GraphCosts& v) {
    v.launchesPerGraph = static_cast<int>(getI(j, "launches_per_graph", 0));
    v.captureMs = getD(j, "capture_ms", 0);
    v.instantiateMs = getD(j, "instantiate_ms", 0);
    v.uploadMs = getD(j, "upload_ms", 0);
    v.replayPerLaunchUs = getD(j, "replay_per_launch_us", 0);
    v.streamPerLaunchUs = getD(j, "stream_per_launch_us", 0);
    v.emptyNodeUs = getD(j, "empty_node_us", 0);
    v.emptyKernelUs = getD(j, "empty_kernel_us", 0);
    v.breakEvenReplays = getOptD(j, "break_even_replays");
}

std::string checkGraphPathOptions(const GraphPathOptions& o) {
    if (o.pathLengths.empty() || o.pathLengths.size() > 16) {
        return "path_lengths: give 1 to 16 path lengths";
    }
    for (size_t i = 0; i < o.pathLengths.size(); ++i) {
        if (o.pathLengths[i] < 1 || o.pathLengths[i] > 4096) {
            return "path_lengths: " + std::to_string(o.pathLengths[i]) + " is not in 1 .. 4096";
        }
        if (std::find(o.pathLengths.begin(), o.pathLengths.begin() + static_cast<long>(i),
                      o.pathLengths[i]) != o.pathLengths.begin() + static_cast<long>(i)) {
            return "path_lengths: " + std::to_string(o.pathLengths[i]) + " is given twice";
        }
    }
    if (o.replays.empty() || o.replays.size() > 64) {
        return "replays: give 1 to 64 replay counts";
    }
    for (size_t i = 0; i < o.replays.size(); ++i) {
        if (o.replays[i] < 1 || o.replays[i] > 100000) {
            return "replays: " + std::to_string(o.replays[i]) + " is not in 1 .. 100000";
        }
        if (i > 0 && o.replays[i] <= o.replays[i - 1]) {
            return "replays: the counts must increase";
        }
    }
    // One end-to-end total is timed whole (the wall limit is checked between totals): keep the
    // longest, max N × max R launches, to seconds rather than hours.
    const long long longest =
        static_cast<long long>(*std::max_element(o.pathLengths.begin(), o.pathLengths.end())) *
        *std::max_element(o.replays.begin(), o.replays.end());
    if (longest > (1LL << 24)) {
        return "replays: the longest path length times the most replays is " + std::to_string(longest) +
               " launches, more than 16777216";
    }
    if (o.repetitions < 3 || o.repetitions > 101) {
        return "repetitions: " + std::to_string(o.repetitions) + " is not in 3 .. 101";
    }
    if (!(o.wallLimitS > 0 && o.wallLimitS <= 3600)) {
        return "wall_limit_s: not in (0, 3600] s";
    }
    return "";
}

namespace {

std::vector<int> getInts(const json& j, const char* key, int64_t lo, int64_t hi) {
    std::vector<int> out;
    const json& a = need(j, key);
    if (!a.is_array()) {
        bad(key, "expected an array of integers");
    }
    for (const auto& x : a) {
        const int64_t v = asInt(x, key);
        if (v < lo || v > hi) {
            bad(key, std::to_string(v) + " is out of range");
        }
        out.push_back(static_cast<int>(v));
    }
    return out;
}

// The required integer `key`, within lo .. hi.
int intIn(const json& j, const char* key, int lo, int hi) {
    const int64_t v = asInt(need(j, key), key);
    if (v < lo || v > hi) {
        bad(key, "not in " + std::to_string(lo) + " .. " + std::to_string(hi));
    }
    return static_cast<int>(v);
}

// The required array `key` of at most `most` objects.
const json& objectsUpTo(const json& j, const char* key, size_t most) {
    const json& a = need(j, key);
    if (!a.is_array() || a.size() > most) {
        bad(key, "expected an array of at most " + std::to_string(most) + " objects");
    }
    for (const json& x : a) {
        if (!x.is_object()) {
            bad(key, "expected objects");
        }
    }
    return a;
}

// Times of the graph path: finite and not negative (a runner's answer is untrusted).
std::vector<double> getTimes(const json& j, const char* key) {
    std::vector<double> out = getDoubles(j, key);
    for (double x : out) {
        if (!std::isfinite(x) || x < 0) {
            bad(key, "expected finite, non-negative times");
        }
    }
    return out;
}

} // namespace

void fromJson(const json& j, GraphPathOptions& v) {
    if (!j.is_object()) {
        throw ProtocolError("graph_path: expected an object");
    }
    v.pathLengths = getInts(j, "path_lengths", 1, 4096);
    v.replays = getInts(j, "replays", 1, 100000);
    v.repetitions = static_cast<int>(getI(j, "repetitions", 9));
    v.wallLimitS = getD(j, "wall_limit_s", 120);
    const std::string problem = checkGraphPathOptions(v);
    if (!problem.empty()) {
        throw ProtocolError("graph_path: " + problem);
    }
}

void fromJson(const json& j, GraphPathResult& v) {
    if (!j.is_object()) {
        throw ProtocolError("graph_path: expected an object");
    }
    v.repetitions = static_cast<int>(getI(j, "repetitions", 0));
    if (v.repetitions < 0 || v.repetitions > 101) {
        bad("repetitions", "out of range");
    }
    v.note = getS(j, "note");
    v.paths.clear();
    for (const json& p : objectsUpTo(j, "paths", 16)) {
        GraphPathEntry e;
        e.pathLength = intIn(p, "path_length", 1, 4096);
        e.captureMs = getTimes(p, "capture_ms");
        e.instantiateMs = getTimes(p, "instantiate_ms");
        e.uploadMs = getTimes(p, "upload_ms");
        e.steadyPaths = static_cast<int>(getI(p, "steady_paths", 0));
        if (e.steadyPaths < 0 || e.steadyPaths > 1000000) {
            bad("steady_paths", "out of range");
        }
        e.streamPathUs = getTimes(p, "stream_path_us");
        e.graphPathUs = getTimes(p, "graph_path_us");
        e.streamPathGpuUs = getTimes(p, "stream_path_gpu_us");
        e.graphPathGpuUs = getTimes(p, "graph_path_gpu_us");
        for (const json& q : objectsUpTo(p, "points", 64)) {
            GraphPathPoint pt;
            pt.replays = intIn(q, "replays", 1, 100000);
            pt.streamMs = getTimes(q, "stream_ms");
            pt.graphMs = getTimes(q, "graph_ms");
            if (pt.streamMs.size() != pt.graphMs.size()) {
                bad("graph_ms", "not as many repetitions as stream_ms");
            }
            e.points.push_back(std::move(pt));
        }
        v.paths.push_back(std::move(e));
    }
}

void fromJson(const json& j, VariantResult& v) {
    if (!j.is_object()) {
        throw ProtocolError("variant result: expected an object");
    }
    v.label = getS(j, "label");
    v.kernel = getS(j, "kernel");
    v.mode = getS(j, "mode");
    v.resources = {};
    if (j.contains("resources")) {
        fromJson(j["resources"], v.resources);
    }
    v.occupancy = {};
    if (j.contains("occupancy")) {
        fromJson(j["occupancy"], v.occupancy);
    }
    v.moduleLoadMs = getD(j, "module_load_ms", 0);
    v.firstLaunchMs = getD(j, "first_launch_ms", 0);
    v.firstLaunchWallMs = getD(j, "first_launch_wall_ms", 0);
    v.launchesPerSample = static_cast<int>(getI(j, "launches_per_sample", 1));
    v.warmupRuns = static_cast<int>(getI(j, "warmup_runs", 0));
    v.warmupMs = getD(j, "warmup_ms", 0);
    v.samplesMs = getDoubles(j, "samples_ms");
    v.durationClock = getS(j, "duration_clock", kClockEvents);
    v.samplesByClock.clear();
    if (j.contains("samples_by_clock") && !j["samples_by_clock"].is_null()) {
        const json& m = j["samples_by_clock"];
        if (!m.is_object()) {
            bad("samples_by_clock", "expected an object of sample arrays");
        }
        for (auto it = m.begin(); it != m.end(); ++it) {
            v.samplesByClock[it.key()] = getDoubles(m, it.key().c_str());
        }
    }
    v.clockNote = getS(j, "clock_note");
    v.sampleClockMhz = getDoubles(j, "sample_clock_mhz");
    v.throttledSamples = static_cast<int>(getI(j, "throttled_samples", 0));
    v.gateTimeouts = static_cast<int>(getI(j, "gate_timeouts", 0));
    v.eventOverheadUs = getD(j, "event_overhead_us", 0);
    v.stopReason = getS(j, "stop_reason");
    v.outputs = getObjects<OutputReport>(j, "outputs");
    v.graph.reset();
    if (j.contains("graph") && !j["graph"].is_null()) {
        GraphCosts g;
        fromJson(j["graph"], g);
        v.graph = g;
    }
    v.graphPath.reset();
    if (j.contains("graph_path") && !j["graph_path"].is_null()) {
        GraphPathResult g;
        fromJson(j["graph_path"], g);
        v.graphPath = std::move(g);
    }
    v.profile.reset();
    if (j.contains("profile") && !j["profile"].is_null()) {
        ProfileData p;
        try {
            fromJson(j["profile"], p);
        } catch (const ProfileFormatError& e) {
            throw ProtocolError(e.what());
        }
        v.profile = std::move(p);
    }
}

void fromJson(const json& j, OutputAgreement& v) {
    v.name = getS(j, "name");
    v.labelA = getS(j, "label_a");
    v.labelB = getS(j, "label_b");
    v.sameDigest = getB(j, "same_digest", false);
    v.agree = getB(j, "agree", false);
    v.sizeMismatch = getB(j, "size_mismatch", false);
    v.count = getI(j, "count", 0);
    v.mismatches = getI(j, "mismatches", 0);
    v.maxAbsError = getD(j, "max_abs_error", 0);
    v.maxRelError = getD(j, "max_rel_error", 0);
    v.firstMismatch = getI(j, "first_mismatch", -1);
}

void fromJson(const json& j, RunResult& v) {
    if (!j.is_object()) {
        throw ProtocolError("result: expected an object");
    }
    v.id = getS(j, "id");
    v.device = {};
    if (j.contains("device")) {
        fromJson(j["device"], v.device);
    }
    v.variants = getObjects<VariantResult>(j, "variants");
    v.agreement = getObjects<OutputAgreement>(j, "agreement");
    v.buffersShared = getB(j, "buffers_shared", false);
    v.runnerExits = getB(j, "runner_exits", false);
    v.wallS = getD(j, "wall_s", 0);
}

void fromJson(const json& j, RunError& v) {
    if (!j.is_object()) {
        throw ProtocolError("error: expected an object");
    }
    v.kind = parseRunErrorKind(getS(j, "kind", "unknown"));
    v.message = getS(j, "message");
    v.cudaError = getS(j, "cuda_error");
    v.cudaCode = static_cast<int>(getI(j, "cuda_code", 0));
    v.stage = getS(j, "stage");
    v.variant = getS(j, "variant");
    v.fatal = getB(j, "fatal", false);
}

void fromJson(const json& j, RunProgress& v) {
    if (!j.is_object()) {
        throw ProtocolError("progress: expected an object");
    }
    v.id = getS(j, "id");
    v.stage = getS(j, "stage");
    v.variant = getS(j, "variant");
    v.samples = static_cast<size_t>(std::max<int64_t>(0, getI(j, "samples", 0)));
    v.noise = getD(j, "noise", 0);
    v.elapsedS = getD(j, "elapsed_s", 0);
}

// ------------------------------------------------------------------------------------ lines

namespace {
// Invalid UTF-8 (a kernel name from a binary, a driver message) is replaced, never thrown on.
std::string dumpLine(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }
} // namespace

std::string hello(const DeviceInfo& device, const std::string& runnerVersion) {
    return dumpLine(
        json{{"hello", {{"protocol", kRunnerProtocolVersion}, {"runner", runnerVersion}, {"device", toJson(device)}}}});
}

std::string resultLine(const RunResult& r) { return dumpLine(json{{"result", toJson(r)}, {"id", r.id}}); }

std::string errorLine(const RunError& e, const std::string& id) {
    return dumpLine(json{{"error", toJson(e)}, {"id", id}});
}

std::string progressLine(const RunProgress& p) { return dumpLine(json{{"progress", toJson(p)}, {"id", p.id}}); }

RunnerMessage parseRunnerMessage(const std::string& line, const JsonLimits& limits) {
    json j;
    try {
        j = parseJsonBounded(line, limits);
    } catch (const JsonLimitError& e) {
        throw ProtocolError(std::string("runner sent a line over a limit: ") + e.what());
    } catch (const json::exception& e) {
        throw ProtocolError(std::string("runner sent a line that is not JSON: ") + e.what());
    }
    if (!j.is_object()) {
        throw ProtocolError("runner sent JSON that is not an object");
    }
    RunnerMessage m;
    m.id = j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : "";
    try {
        if (j.contains("hello")) {
            m.kind = RunnerMessage::Kind::Hello;
            const json& h = j["hello"];
            m.protocol = static_cast<int>(getI(h, "protocol", 0));
            m.runnerVersion = getS(h, "runner");
            if (h.contains("device")) {
                fromJson(h["device"], m.device);
            }
        } else if (j.contains("info")) {
            m.kind = RunnerMessage::Kind::Info;
            fromJson(need(j["info"], "device"), m.device);
        } else if (j.contains("progress")) {
            m.kind = RunnerMessage::Kind::Progress;
            fromJson(j["progress"], m.progress);
        } else if (j.contains("result")) {
            m.kind = RunnerMessage::Kind::Result;
            fromJson(j["result"], m.result);
        } else if (j.contains("error")) {
            m.kind = RunnerMessage::Kind::Error;
            fromJson(j["error"], m.error);
        } else {
            throw ProtocolError("runner sent an unknown message");
        }
    } catch (const json::exception& e) {
        throw ProtocolError(std::string("runner message malformed: ") + e.what());
    }
    return m;
}

} // namespace lowerscope
