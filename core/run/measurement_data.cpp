#include "core/run/measurement_data.h"

#include "core/experiment/report.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace lowerscope {

using nlohmann::json;

namespace {

// Field readers that accept absent / null fields and reject wrong types with a clear message.
const json* find(const json& j, const char* key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return nullptr;
    return &*it;
}

double num(const json& j, const char* key, double dflt, const std::string& where) {
    const json* v = find(j, key);
    if (!v) return dflt;
    if (!v->is_number()) throw MeasurementError(where + key + " should be a number");
    return v->get<double>();
}

std::optional<double> optNum(const json& j, const char* key, const std::string& where) {
    const json* v = find(j, key);
    if (!v) return std::nullopt;
    if (!v->is_number()) throw MeasurementError(where + key + " should be a number");
    return v->get<double>();
}

std::string str(const json& j, const char* key, const std::string& where, const std::string& dflt = "") {
    const json* v = find(j, key);
    if (!v) return dflt;
    if (!v->is_string()) throw MeasurementError(where + key + " should be a string");
    return v->get<std::string>();
}

std::vector<double> numbers(const json& j, const char* key, const std::string& where) {
    std::vector<double> out;
    const json* v = find(j, key);
    if (!v) return out;
    if (!v->is_array()) throw MeasurementError(where + key + " should be an array of numbers");
    out.reserve(v->size());
    for (const auto& e : *v) {
        if (!e.is_number()) throw MeasurementError(where + key + " should contain only numbers");
        double d = e.get<double>();
        if (!std::isfinite(d)) throw MeasurementError(where + key + " contains a non-finite value");
        out.push_back(d);
    }
    return out;
}

void readDevice(const json& j, MeasuredDevice& d) {
    if (!j.is_object()) return;
    const std::string w = "device.";
    d.name = str(j, "name", w);
    d.smCount = int(num(j, "sm_count", 0, w));
    d.clockMhz = num(j, "clock_mhz", 0, w);
    d.peakBandwidthGBs = num(j, "peak_bandwidth_gbs", num(j, "memory_bandwidth_gbs", 0, w), w);
    d.copyBandwidthGBs = num(j, "copy_bandwidth_gbs", 0, w);
    d.fp32PeakGflops = num(j, "fp32_peak_gflops", 0, w);
}

// Per-launch bytes / FLOPs: the variant's own, its throughput object, or the document's.
void readWork(const json& v, const json& doc, MeasuredVariant& out, const std::string& w) {
    for (const json* src : {&v, find(v, "throughput"), find(v, "launch"), find(doc, "throughput"), find(doc, "launch")}) {
        if (!src || !src->is_object()) continue;
        if (!out.bytes) out.bytes = optNum(*src, "bytes", w);
        if (!out.flops) out.flops = optNum(*src, "flops", w);
    }
}

MeasuredVariant readVariant(const json& v, const json& doc, const std::string& where) {
    if (!v.is_object()) throw MeasurementError(where + "should be an object");
    MeasuredVariant out;
    out.label = str(v, "label", where);
    out.kernel = str(v, "kernel", where);
    out.mode = str(v, "mode", where);
    out.samplesMs = numbers(v, "samples_ms", where);
    if (out.samplesMs.empty()) throw MeasurementError(where + "samples_ms is missing or empty");
    out.clockMhz = numbers(v, "sample_clock_mhz", where);
    if (out.clockMhz.empty()) out.clockMhz = numbers(v, "clock_mhz_samples", where);
    out.stats = computeStats(out.samplesMs);
    out.firstLaunchMs = num(v, "first_launch_ms", -1, where);
    out.throttledSamples = int(num(v, "throttled_samples", 0, where));
    out.stopReason = str(v, "stop_reason", where);
    if (const json* occ = find(v, "occupancy")) {
        if (occ->is_number()) out.occupancy = occ->get<double>();
        else if (occ->is_object()) out.occupancy = num(*occ, "fraction", -1, where + "occupancy.");
    }
    if (const json* res = find(v, "resources"); res && res->is_object())
        out.registers = int(num(*res, "registers", -1, where + "resources."));
    readWork(v, doc, out, where);
    if (const json* outs = find(v, "outputs"); outs && outs->is_array()) {
        for (const auto& o : *outs) {
            if (!o.is_object()) continue;
            MeasuredOutput mo;
            mo.name = str(o, "name", where + "outputs.");
            mo.digest = str(o, "digest", where + "outputs.");
            if (const json* fw = find(o, "fully_written"); fw && fw->is_boolean()) mo.fullyWritten = fw->get<bool>();
            out.outputs.push_back(mo);
        }
    }
    return out;
}

void readAgreement(const json& list, std::vector<MeasuredAgreement>& out) {
    if (!list.is_array()) return;
    for (const auto& a : list) {
        if (!a.is_object()) continue;
        MeasuredAgreement m;
        m.name = str(a, "name", "agreement.");
        auto flag = [&](const char* k) { const json* f = find(a, k); return f && f->is_boolean() && f->get<bool>(); };
        m.agree = flag("agree");
        m.sameDigest = flag("same_digest");
        m.mismatches = int64_t(num(a, "mismatches", 0, "agreement."));
        m.maxAbsError = num(a, "max_abs_error", 0, "agreement.");
        m.maxRelError = num(a, "max_rel_error", 0, "agreement.");
        out.push_back(m);
    }
}

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

} // namespace

std::optional<double> MeasuredVariant::bandwidthGBs() const {
    if (!bytes || stats.median <= 0) return std::nullopt;
    return *bytes / (stats.median * 1e-3) / 1e9;
}

std::optional<double> MeasuredVariant::gflops() const {
    if (!flops || stats.median <= 0) return std::nullopt;
    return *flops / (stats.median * 1e-3) / 1e9;
}

namespace {
Measurement parseOwn(const json& input);
} // namespace

Measurement parseMeasurement(const json& input) {
    try {
        return parseOwn(input);
    } catch (const MeasurementError& e) {
        // The CLI's own layouts (run --json with one variant, compare --json = "lowerscope.compare/1")
        // are normalised to a runner result by core/experiment/report.h; read that when the direct form fails.
        std::string why;
        std::optional<json> result;
        try {
            result = runResultOf(input, &why);
        } catch (const std::exception&) {
            result.reset();
        }
        if (!result) throw;
        Measurement m = parseOwn(*result);
        m.document = input;
        if (input.is_object() && input.contains("schema") && input["schema"].is_string()) m.schema = input["schema"].get<std::string>();
        if (const json* syn = find(input, "synthetic"); syn && syn->is_boolean()) m.synthetic = syn->get<bool>();
        if (const json* d = find(input, "device"); d && m.device.name.empty()) readDevice(*d, m.device);
        return m;
    }
}

namespace {
Measurement parseOwn(const json& input) {
    if (!input.is_object()) throw MeasurementError("a measurement must be a JSON object");
    // A runner line wraps the result: {"result": {...}}.
    const json& doc = input.contains("result") && input["result"].is_object() ? input["result"] : input;
    Measurement m;
    m.document = input;
    m.schema = str(input, "schema", "");
    if (!m.schema.empty() && m.schema.rfind("lowerscope.run/", 0) != 0)
        throw MeasurementError("not a Lowerscope measurement (schema \"" + m.schema + "\")");
    if (!m.schema.empty() && m.schema != "lowerscope.run/1")
        throw MeasurementError("saved by a newer Lowerscope (schema \"" + m.schema + "\"); this version reads lowerscope.run/1");
    if (const json* s = find(input, "synthetic"); s && s->is_boolean()) m.synthetic = s->get<bool>();
    m.note = str(input, "note", "");

    if (const json* e = find(input, "error")) {
        if (!e->is_object()) throw MeasurementError("error should be an object");
        MeasuredError err;
        err.kind = parseRunErrorKind(str(*e, "kind", "error.", "unknown"));
        err.message = str(*e, "message", "error.");
        err.cudaError = str(*e, "cuda_error", "error.");
        err.stage = str(*e, "stage", "error.");
        err.variant = str(*e, "variant", "error.");
        m.error = err;
        if (const json* d = find(input, "device")) readDevice(*d, m.device);
        return m;
    }
    if (const json* d = find(doc, "device")) readDevice(*d, m.device);

    if (const json* vs = find(doc, "variants")) {
        if (!vs->is_array()) throw MeasurementError("variants should be an array");
        for (size_t i = 0; i < vs->size(); ++i)
            m.variants.push_back(readVariant((*vs)[i], doc, "variants[" + std::to_string(i) + "]."));
    } else if (find(doc, "a") && find(doc, "b")) {
        m.variants.push_back(readVariant(doc["a"], doc, "a."));
        m.variants.push_back(readVariant(doc["b"], doc, "b."));
        if (m.variants[0].label.empty()) m.variants[0].label = "A";
        if (m.variants[1].label.empty()) m.variants[1].label = "B";
    } else if (find(doc, "samples_ms")) {
        m.variants.push_back(readVariant(doc, doc, ""));
    } else {
        throw MeasurementError("no samples: expected samples_ms, variants or a/b");
    }
    for (size_t i = 0; i < m.variants.size(); ++i) {
        auto& v = m.variants[i];
        if (v.label.empty()) v.label = m.variants.size() == 1 ? (v.kernel.empty() ? "run" : v.kernel)
                                                             : std::string(1, char('A' + std::min<size_t>(i, 25)));
    }
    if (const json* ag = find(doc, "agreement")) readAgreement(*ag, m.agreement);
    else if (const json* cmp = find(doc, "comparison"); cmp && cmp->is_object()) {
        if (const json* ag2 = find(*cmp, "agreement")) readAgreement(*ag2, m.agreement);
    }
    if (m.variants.size() >= 2) m.ratio = compareSamples(m.variants[0].samplesMs, m.variants[1].samplesMs);
    return m;
}
} // namespace

Measurement parseMeasurementText(const std::string& text) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw MeasurementError("not a JSON document");
    return parseMeasurement(j);
}

Measurement loadMeasurementFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw MeasurementError("cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        return parseMeasurementText(ss.str());
    } catch (const MeasurementError& e) {
        throw MeasurementError(path + ": " + e.what());
    }
}

std::string formatDurationMs(double ms) {
    if (ms < 0) return "n/a";
    if (ms < 1e-3) return fmt("%.1f ns", ms * 1e6);
    if (ms < 1) return fmt(ms < 0.01 ? "%.2f µs" : ms < 0.1 ? "%.1f µs" : "%.0f µs", ms * 1e3);
    if (ms < 1000) return fmt(ms < 10 ? "%.3f ms" : ms < 100 ? "%.2f ms" : "%.1f ms", ms);
    return fmt("%.2f s", ms / 1e3);
}

std::string verdictText(const Measurement& m) {
    if (m.error) {
        std::string s = std::string("Failed (") + runErrorKindName(m.error->kind) + ")";
        if (!m.error->message.empty()) s += ": " + m.error->message;
        return s;
    }
    if (m.variants.empty()) return "No measurement.";
    // Two variants: the report's verdict (core/experiment/report.h), so the pane, the exported report and the
    // CLI's report word it the same way.
    if (m.variants.size() >= 2 && m.ratio && m.ratio->pairs > 0)
        if (const auto result = runResultOf(m.document)) {
            const TimingVerdict v = timingVerdict(*result);
            if (v.valid && !v.sentence.empty()) {
                std::string s = v.sentence;
                s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
                return s;
            }
        }
    const auto& v = m.variants[0];
    return v.label + ": median " + formatDurationMs(v.stats.median) + " (95 % CI " + formatDurationMs(v.stats.ciLow) +
           "–" + formatDurationMs(v.stats.ciHigh) + "), noise " + fmt("%.1f %%", v.stats.noise * 100);
}

CostLine costLine(double medianMs, double pricePerGpuHour) {
    CostLine c;
    c.gpuSecondsPerMillion = medianMs * 1e-3 * 1e6;
    c.costPerMillion = c.gpuSecondsPerMillion / 3600.0 * pricePerGpuHour;
    return c;
}

} // namespace lowerscope
