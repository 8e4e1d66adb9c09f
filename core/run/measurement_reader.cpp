// The one reader of measurement documents (core/run/measurement.h): the shapes the writer
// (measurement_writer.cpp) makes, and, because sessions on disk hold them, a runner result
// (bare, or wrapped as {"result": ...}) and the GUI's earlier "lowerscope.run/1" with a "variants"
// array of runner variant results (bytes/flops per variant) and a text "launch". Every field is
// read with a typed getter, so a mangled document ends as a MeasurementError naming the field.
#include "core/run/measurement.h"

#include "core/bounded_json.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace lowerscope {

using nlohmann::json;

// ------------------------------------------------------------------------------------ reader

namespace {

// Field readers: absent and null fields give the default; a field of the wrong type throws
// MeasurementError naming it (`where` is the path of the object, e.g. "a.launch.").
const json* field(const json& j, const char* key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

[[noreturn]] void wrong(const std::string& where, const char* key, const char* what) {
    throw MeasurementError(where + key + " should be " + what);
}

double num(const json& j, const char* key, double dflt, const std::string& where) {
    const json* v = field(j, key);
    if (!v) return dflt;
    if (!v->is_number()) wrong(where, key, "a number");
    return v->get<double>();
}

std::optional<double> optNum(const json& j, const char* key, const std::string& where) {
    const json* v = field(j, key);
    if (!v) return std::nullopt;
    if (!v->is_number()) wrong(where, key, "a number");
    return v->get<double>();
}

int64_t integer(const json& j, const char* key, int64_t dflt, const std::string& where) {
    const json* v = field(j, key);
    if (!v) return dflt;
    if (!v->is_number()) wrong(where, key, "a number");
    const double d = v->get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 9e15) wrong(where, key, "an integer in range");
    return v->is_number_integer() ? v->get<int64_t>() : static_cast<int64_t>(d);
}

int small(const json& j, const char* key, int dflt, const std::string& where) {
    const int64_t v = integer(j, key, dflt, where);
    if (v < -2147483647 || v > 2147483647) wrong(where, key, "an integer in range");
    return static_cast<int>(v);
}

std::string str(const json& j, const char* key, const std::string& where, const std::string& dflt = "") {
    const json* v = field(j, key);
    if (!v) return dflt;
    if (!v->is_string()) wrong(where, key, "a string");
    // Text from a document is shown to people (terminal, Markdown, SVG): control bytes and invalid
    // UTF-8 escaped once, here (core/untrusted.h). Paths are kept byte for byte: the path rule
    // (resolveDocumentPath) refuses control bytes in them itself.
    if (std::strcmp(key, "file") == 0 || std::strcmp(key, "path") == 0) return v->get<std::string>();
    return escapeControl(v->get<std::string>());
}

bool flag(const json& j, const char* key, bool dflt, const std::string& where) {
    const json* v = field(j, key);
    if (!v) return dflt;
    if (!v->is_boolean()) wrong(where, key, "true or false");
    return v->get<bool>();
}

const json* object(const json& j, const char* key, const std::string& where) {
    const json* v = field(j, key);
    if (v && !v->is_object()) wrong(where, key, "an object");
    return v;
}

// An array of finite numbers (absent = empty).
std::vector<double> numbers(const json& j, const char* key, const std::string& where) {
    std::vector<double> out;
    const json* v = field(j, key);
    if (!v) return out;
    if (!v->is_array()) wrong(where, key, "an array of numbers");
    out.reserve(v->size());
    for (const json& e : *v) {
        if (!e.is_number()) wrong(where, key, "an array of numbers only");
        const double d = e.get<double>();
        if (!std::isfinite(d)) throw MeasurementError(where + key + " contains a non-finite value");
        out.push_back(d);
    }
    return out;
}

std::array<uint32_t, 3> dims(const json& j, const char* key, const std::string& where) {
    std::array<uint32_t, 3> d{1, 1, 1};
    const json* v = field(j, key);
    if (!v) return d;
    if (!v->is_array() || v->size() > 3) wrong(where, key, "[x, y, z]");
    for (size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        // The GUI's earlier documents kept the launch as typed (expressions): not a number, skip.
        if (!e.is_number()) return {1, 1, 1};
        const double x = e.get<double>();
        if (!(x >= 1 && x <= 4294967295.0)) wrong(where, key, "[x, y, z] with each in 1..2^32-1");
        d[i] = static_cast<uint32_t>(x);
    }
    return d;
}

DeviceInfo readDevice(const json& j, const std::string& w) {
    DeviceInfo d;
    if (!j.is_object()) return d;
    d.name = str(j, "name", w);
    const std::string cc = str(j, "compute_capability", w);
    if (std::sscanf(cc.c_str(), "%d.%d", &d.ccMajor, &d.ccMinor) != 2) {
        d.ccMajor = small(j, "cc_major", 0, w);
        d.ccMinor = small(j, "cc_minor", 0, w);
    }
    d.smCount = small(j, "sm_count", 0, w);
    d.clockMhz = num(j, "clock_mhz", 0, w);
    d.memClockMhz = num(j, "memory_clock_mhz", 0, w);
    d.busWidthBits = small(j, "bus_width_bits", 0, w);
    d.l2Bytes = integer(j, "l2_bytes", 0, w);
    d.totalMemBytes = integer(j, "memory_bytes", integer(j, "total_memory_bytes", 0, w), w);
    d.maxThreadsPerSm = small(j, "max_threads_per_sm", 0, w);
    d.maxSharedPerBlockOptin = small(j, "max_shared_per_block_optin", 0, w);
    d.driverVersion = small(j, "driver_version", 0, w);
    // Documents name the DRAM peak "memory_bandwidth_gbs"; runner results "peak_bandwidth_gbs".
    d.peakBandwidthGBs = num(j, "memory_bandwidth_gbs", num(j, "peak_bandwidth_gbs", 0, w), w);
    d.fp32PeakGflops = num(j, "fp32_peak_gflops", 0, w);
    d.copyBandwidthGBs = num(j, "copy_bandwidth_gbs", 0, w);
    return d;
}

Occupancy readOccupancy(const json& j, const std::string& w) {
    Occupancy o;
    if (j.is_number()) { // a bare fraction (early GUI documents)
        o.fraction = j.get<double>();
        return o;
    }
    if (!j.is_object()) return o;
    o.activeBlocksPerSm = small(j, "active_blocks_per_sm", 0, w);
    o.activeWarpsPerSm = small(j, "active_warps_per_sm", 0, w);
    o.maxWarpsPerSm = small(j, "max_warps_per_sm", 0, w);
    o.fraction = num(j, "fraction", 0, w);
    o.waves = num(j, "waves", 0, w);
    return o;
}

std::vector<OutputReport> readOutputs(const json& v, const std::string& w) {
    std::vector<OutputReport> out;
    const json* outs = field(v, "outputs");
    if (!outs) return out;
    if (!outs->is_array()) wrong(w, "outputs", "an array");
    const std::string ow = w + "outputs.";
    for (const json& o : *outs) {
        if (!o.is_object()) continue;
        OutputReport r;
        r.name = str(o, "name", ow);
        r.type = parseElemType(str(o, "type", ow, "f32")).value_or(ElemType::F32);
        r.count = integer(o, "count", 0, ow);
        r.digest = str(o, "digest", ow);
        r.fullyWritten = flag(o, "fully_written", true, ow);
        // run/1 documents say "unwritten"; runner results "unwritten_count".
        r.unwrittenCount = integer(o, "unwritten", integer(o, "unwritten_count", 0, ow), ow);
        out.push_back(std::move(r));
    }
    return out;
}

std::optional<GraphCosts> readGraph(const json& v, const std::string& w) {
    const json* g = object(v, "graph", w);
    if (!g) return std::nullopt;
    const std::string gw = w + "graph.";
    GraphCosts c;
    c.launchesPerGraph = small(*g, "launches_per_graph", 0, gw);
    c.captureMs = num(*g, "capture_ms", 0, gw);
    c.instantiateMs = num(*g, "instantiate_ms", 0, gw);
    c.uploadMs = num(*g, "upload_ms", 0, gw);
    c.replayPerLaunchUs = num(*g, "replay_per_launch_us", 0, gw);
    c.streamPerLaunchUs = num(*g, "stream_per_launch_us", 0, gw);
    c.emptyNodeUs = num(*g, "empty_node_us", 0, gw);
    c.emptyKernelUs = num(*g, "empty_kernel_us", 0, gw);
    c.breakEvenReplays = optNum(*g, "break_even_replays", gw);
    return c;
}

std::vector<OutputAgreement> readAgreement(const json& list) {
    std::vector<OutputAgreement> out;
    if (!list.is_array()) return out;
    const std::string w = "agreement.";
    for (const json& a : list) {
        if (!a.is_object()) continue;
        OutputAgreement g;
        g.name = str(a, "name", w);
        g.labelA = str(a, "label_a", w);
        g.labelB = str(a, "label_b", w);
        g.sameDigest = flag(a, "same_digest", false, w);
        g.agree = flag(a, "agree", false, w);
        g.sizeMismatch = flag(a, "size_mismatch", false, w);
        g.count = integer(a, "count", 0, w);
        g.mismatches = integer(a, "mismatches", 0, w);
        g.maxAbsError = num(a, "max_abs_error", 0, w);
        g.maxRelError = num(a, "max_rel_error", 0, w);
        g.firstMismatch = integer(a, "first_mismatch", -1, w);
        out.push_back(std::move(g));
    }
    return out;
}

// The samples of one launch: present, non-empty, finite (numbers() checks finiteness) and positive
// (a duration of zero or less is no measurement).
std::vector<double> samplesOf(const json& v, const std::string& w) {
    std::vector<double> s = numbers(v, "samples_ms", w);
    if (s.empty()) throw MeasurementError(w + "samples_ms is missing or empty");
    for (size_t i = 0; i < s.size(); ++i)
        if (!(s[i] > 0))
            throw MeasurementError(w + "samples_ms[" + std::to_string(i) + "] is " + std::to_string(s[i]) +
                                   ": samples are durations, positive");
    return s;
}

// Per-launch bytes / FLOPs: the first of the candidate objects that declares them.
void readWork(std::initializer_list<const json*> sources, LaunchRecord& l, const std::string& w) {
    for (const json* src : sources) {
        if (!src || !src->is_object()) continue;
        if (!l.bytes) l.bytes = optNum(*src, "bytes", w);
        if (!l.flops) l.flops = optNum(*src, "flops", w);
    }
}

// The duration clock and every clock's samples (documents written before they were recorded
// were all timed by CUDA events).
void readClocks(const json& j, const std::string& w, VariantResult& v) {
    v.durationClock = str(j, "duration_clock", w, kClockEvents);
    v.samplesByClock.clear();
    if (const json* byClock = object(j, "samples_by_clock", w)) {
        for (auto it = byClock->begin(); it != byClock->end(); ++it) {
            v.samplesByClock[it.key()] = numbers(*byClock, it.key().c_str(), w + "samples_by_clock.");
        }
    }
    v.clockNote = str(j, "clock_note", w);
}

// One launch of a "lowerscope.run/1" document (the CLI's shape, also each side of a compare).
void readRunDocument(const json& doc, const std::string& w, LaunchRecord& l, VariantResult& v, double& clockMhz) {
    if (!doc.is_object()) throw MeasurementError(w.empty() ? "the run should be an object" : w + " should be an object");
    const json empty = json::object();
    const json* launchPtr = object(doc, "launch", w);
    const json& launch = launchPtr ? *launchPtr : empty;
    const std::string lw = w + "launch.";
    l.file = str(doc, "file", w);
    l.kernelName = str(doc, "kernel", w);
    l.buildOptions = str(doc, "build_options", w);
    l.grid = dims(launch, "grid", lw);
    l.block = dims(launch, "block", lw);
    const int64_t shared = integer(launch, "shared_bytes", 0, lw);
    l.sharedBytes = static_cast<uint32_t>(std::clamp<int64_t>(shared, 0, int64_t(1) << 30));
    if (field(launch, "cluster")) l.cluster = dims(launch, "cluster", lw);
    if (const json* args = field(launch, "args")) {
        if (!args->is_array()) wrong(lw, "args", "an array");
        for (const json& a : *args) {
            if (!a.is_object()) continue; // the GUI's earlier text arguments
            l.args.push_back(RecordedArg{str(a, "name", lw + "args."), str(a, "value", lw + "args."),
                                         str(a, "ptx_type", lw + "args.")});
        }
    }
    readWork({object(doc, "throughput", w), &launch, &doc}, l, w);

    v.kernel = str(launch, "kernel", lw, l.kernelName);
    v.mode = str(launch, "mode", lw, str(doc, "mode", w));
    v.launchesPerSample = small(launch, "launches_per_sample", 1, lw);
    v.resources.registers = small(launch, "registers", 0, lw);
    v.resources.staticSharedBytes = small(launch, "static_shared_bytes", 0, lw);
    v.resources.localBytes = small(launch, "local_bytes", 0, lw);
    v.resources.constBytes = small(launch, "const_bytes", 0, lw);
    v.resources.maxThreadsPerBlock = small(launch, "max_threads_per_block", 0, lw);
    v.moduleLoadMs = num(launch, "module_load_ms", 0, lw);
    v.warmupRuns = small(launch, "warmup_runs", 0, lw);
    v.warmupMs = num(launch, "warmup_ms", 0, lw);
    v.eventOverheadUs = num(launch, "event_overhead_us", 0, lw);
    v.gateTimeouts = small(launch, "gate_timeouts", 0, lw);
    v.firstLaunchMs = num(doc, "first_launch_ms", 0, w);
    v.firstLaunchWallMs = num(doc, "first_launch_wall_ms", 0, w);
    v.samplesMs = samplesOf(doc, w);
    readClocks(doc, w, v);
    // Per-sample SM clock (documents written before it was added have only the mean clock_mhz).
    v.sampleClockMhz = numbers(doc, "sample_clock_mhz", w);
    v.throttledSamples = small(doc, "throttled_samples", 0, w);
    clockMhz = num(doc, "clock_mhz", 0, w);
    const json* stats = object(doc, "stats", w);
    v.stopReason = stats ? str(*stats, "stop_reason", w + "stats.", str(doc, "stop_reason", w)) : str(doc, "stop_reason", w);
    if (const json* occ = field(doc, "occupancy")) v.occupancy = readOccupancy(*occ, w + "occupancy.");
    v.outputs = readOutputs(doc, w);
    v.graph = readGraph(doc, w);
}

// One entry of a "variants" array: a runner variant result, possibly with bytes/flops (the GUI's
// earlier documents) next to it.
void readVariant(const json& v, const json& doc, const std::string& w, LaunchRecord& l, VariantResult& out) {
    if (!v.is_object()) throw MeasurementError(w + " should be an object");
    const std::string vw = w + ".";
    out.label = str(v, "label", vw);
    out.kernel = str(v, "kernel", vw);
    out.mode = str(v, "mode", vw);
    if (const json* res = object(v, "resources", vw)) {
        const std::string rw = vw + "resources.";
        out.resources.registers = small(*res, "registers", 0, rw);
        out.resources.staticSharedBytes = small(*res, "static_shared_bytes", 0, rw);
        out.resources.localBytes = small(*res, "local_bytes", 0, rw);
        out.resources.constBytes = small(*res, "const_bytes", 0, rw);
        out.resources.maxThreadsPerBlock = small(*res, "max_threads_per_block", 0, rw);
    }
    if (const json* occ = field(v, "occupancy")) out.occupancy = readOccupancy(*occ, vw + "occupancy.");
    out.moduleLoadMs = num(v, "module_load_ms", 0, vw);
    out.firstLaunchMs = num(v, "first_launch_ms", 0, vw);
    out.firstLaunchWallMs = num(v, "first_launch_wall_ms", 0, vw);
    out.launchesPerSample = small(v, "launches_per_sample", 1, vw);
    out.warmupRuns = small(v, "warmup_runs", 0, vw);
    out.warmupMs = num(v, "warmup_ms", 0, vw);
    out.samplesMs = samplesOf(v, vw);
    readClocks(v, vw, out);
    out.sampleClockMhz = numbers(v, "sample_clock_mhz", vw);
    if (out.sampleClockMhz.empty()) out.sampleClockMhz = numbers(v, "clock_mhz_samples", vw);
    out.throttledSamples = small(v, "throttled_samples", 0, vw);
    out.gateTimeouts = small(v, "gate_timeouts", 0, vw);
    out.eventOverheadUs = num(v, "event_overhead_us", 0, vw);
    out.stopReason = str(v, "stop_reason", vw);
    out.outputs = readOutputs(v, vw);
    out.graph = readGraph(v, vw);
    l.kernelName = out.kernel;
    l.file = str(doc, "source", "", str(doc, "file", ""));
    readWork({&v, field(v, "throughput"), field(v, "launch"), field(doc, "throughput"), field(doc, "launch")}, l, vw);
}

RunError readError(const json& e) {
    if (!e.is_object()) throw MeasurementError("error should be an object");
    const std::string w = "error.";
    RunError err;
    err.kind = parseRunErrorKind(str(e, "kind", w, "unknown"));
    err.message = str(e, "message", w);
    err.cudaError = str(e, "cuda_error", w);
    err.cudaCode = small(e, "cuda_code", 0, w);
    err.stage = str(e, "stage", w);
    err.variant = str(e, "variant", w);
    err.fatal = flag(e, "fatal", false, w);
    return err;
}

MeasurementRecord read(const json& input) {
    if (!input.is_object()) throw MeasurementError("a measurement must be a JSON object");
    MeasurementRecord m;
    m.schema = str(input, "schema", "");
    auto versionOf = [](const std::string& schema, const char* family) {
        return schema.rfind(family, 0) == 0 ? schema.substr(std::string(family).size()) : std::string();
    };
    if (!m.schema.empty() && m.schema != kRunSchema && m.schema != kCompareSchema) {
        if (!versionOf(m.schema, "lowerscope.run/").empty() || !versionOf(m.schema, "lowerscope.compare/").empty())
            throw MeasurementError("saved by a newer Lowerscope (schema \"" + m.schema + "\"); this version reads " +
                                   kRunSchema + " and " + kCompareSchema);
        throw MeasurementError("not a Lowerscope measurement (schema \"" + m.schema + "\")");
    }
    m.synthetic = flag(input, "synthetic", false, "");
    m.note = str(input, "note", "");

    if (const json* e = field(input, "error")) {
        m.error = readError(*e);
        m.runnerStderr = str(*e, "runner_stderr", "error.");
        if (const json* d = field(input, "device")) m.result.device = readDevice(*d, "device.");
        return m;
    }
    // A runner line wraps the result: {"result": {...}}.
    const json* wrapped = field(input, "result");
    const json& doc = wrapped && wrapped->is_object() ? *wrapped : input;
    m.result.id = str(doc, "id", "");
    m.result.wallS = num(doc, "wall_s", 0, "");
    m.result.buffersShared = flag(doc, "buffers_shared", false, "");

    if (const json* vs = field(doc, "variants")) {
        if (!vs->is_array()) throw MeasurementError("variants should be an array");
        if (const json* d = field(doc, "device")) m.result.device = readDevice(*d, "device.");
        for (size_t i = 0; i < vs->size(); ++i) {
            LaunchRecord l;
            VariantResult v;
            readVariant((*vs)[i], doc, "variants[" + std::to_string(i) + "]", l, v);
            m.recordedClockMhz.push_back(0);
            m.launches.push_back(std::move(l));
            m.result.variants.push_back(std::move(v));
        }
        if (const json* ag = field(doc, "agreement")) m.result.agreement = readAgreement(*ag);
        else if (const json* cmp = field(doc, "comparison"); cmp && cmp->is_object())
            if (const json* ag2 = field(*cmp, "agreement")) m.result.agreement = readAgreement(*ag2);
    } else if (m.schema == kCompareSchema || (field(doc, "a") && field(doc, "b"))) {
        const json* a = field(doc, "a");
        const json* b = field(doc, "b");
        if (!a || !b) throw MeasurementError("a comparison needs both \"a\" and \"b\"");
        for (const auto& [side, label] : {std::pair{a, "A"}, std::pair{b, "B"}}) {
            LaunchRecord l;
            VariantResult v;
            double clock = 0;
            readRunDocument(*side, label == std::string("A") ? "a." : "b.", l, v, clock);
            v.label = label;
            m.recordedClockMhz.push_back(clock);
            m.launches.push_back(std::move(l));
            m.result.variants.push_back(std::move(v));
        }
        if (const json* d = field(*a, "device")) m.result.device = readDevice(*d, "a.device.");
        if (const json* ag = field(doc, "agreement")) m.result.agreement = readAgreement(*ag);
        if (const json* tol = object(doc, "tolerance", "")) {
            m.atol = num(*tol, "atol", m.atol, "tolerance.");
            m.rtol = num(*tol, "rtol", m.rtol, "tolerance.");
        }
        if (field(doc, "build_options_a")) m.optionsA = str(doc, "build_options_a", "");
        if (field(doc, "build_options_b")) m.optionsB = str(doc, "build_options_b", "");
    } else if (field(doc, "samples_ms")) {
        LaunchRecord l;
        VariantResult v;
        double clock = 0;
        readRunDocument(doc, "", l, v, clock);
        m.recordedClockMhz.push_back(clock);
        if (const json* d = field(doc, "device")) m.result.device = readDevice(*d, "device.");
        m.launches.push_back(std::move(l));
        m.result.variants.push_back(std::move(v));
    } else {
        throw MeasurementError("no samples: expected samples_ms, variants or a/b");
    }
    return m;
}

} // namespace

MeasurementRecord readMeasurement(const json& document) {
    try {
        return read(document);
    } catch (const MeasurementError&) {
        throw;
    } catch (const std::exception& e) {
        // Anything the typed readers above did not foresee still ends as a readable error.
        throw MeasurementError(std::string("unreadable measurement: ") + e.what());
    }
}

MeasurementRecord readMeasurementText(const std::string& text) {
    // Bounded (core/bounded_json.h): a document may come from anyone.
    std::string error;
    std::optional<json> j = parseJsonBounded(text, error);
    if (!j) throw MeasurementError("not a JSON document: " + error);
    return readMeasurement(*j);
}

MeasurementRecord loadMeasurementRecord(const std::string& path, json* document) {
    std::string text, error;
    // Directories and devices say what they are; a file over the size limit is not read whole.
    if (!readFileBounded(path, text, error)) throw MeasurementError(error);
    std::optional<json> parsed = parseJsonBounded(text, error);
    if (!parsed) throw MeasurementError(path + ": not a JSON document: " + error);
    json j = std::move(*parsed);
    try {
        MeasurementRecord r = readMeasurement(j);
        if (document) *document = std::move(j);
        return r;
    } catch (const MeasurementError& e) {
        throw MeasurementError(path + ": " + e.what());
    }
}

} // namespace lowerscope
