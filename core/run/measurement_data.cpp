#include "core/run/measurement_data.h"
#include "core/format.h"

#include "core/bounded_json.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace lowerscope {

using nlohmann::json;

std::optional<double> MeasuredVariant::bandwidthGBs() const {
    if (!bytes || stats.median <= 0) return std::nullopt;
    return *bytes / (stats.median * 1e-3) / 1e9;
}

std::optional<double> MeasuredVariant::gflops() const {
    if (!flops || stats.median <= 0) return std::nullopt;
    return *flops / (stats.median * 1e-3) / 1e9;
}

namespace {

Measurement summarise(MeasurementRecord record, const json& document) {
    Measurement m;
    m.document = document;
    m.synthetic = record.synthetic;
    m.note = record.note;
    m.device = record.result.device;
    m.error = record.error;
    const auto& vs = record.result.variants;
    for (size_t i = 0; i < vs.size(); ++i) {
        const VariantResult& v = vs[i];
        MeasuredVariant out;
        out.label = v.label;
        if (out.label.empty())
            out.label = vs.size() == 1 ? (v.kernel.empty() ? "run" : v.kernel) : std::string(1, char('A' + std::min<size_t>(i, 25)));
        out.kernel = v.kernel;
        out.mode = v.mode;
        out.samplesMs = v.samplesMs;
        out.clockMhz = v.sampleClockMhz;
        out.stats = computeStats(v.samplesMs);
        // Zero means "not reported" for these: a real first launch, occupancy or register count is
        // never zero.
        out.firstLaunchMs = v.firstLaunchMs > 0 ? v.firstLaunchMs : -1;
        out.throttledSamples = v.throttledSamples;
        out.occupancy = v.occupancy.fraction > 0 ? v.occupancy.fraction : -1;
        out.registers = v.resources.registers > 0 ? v.resources.registers : -1;
        if (i < record.launches.size()) {
            out.bytes = record.launches[i].bytes;
            out.flops = record.launches[i].flops;
        }
        out.stopReason = v.stopReason;
        for (const OutputReport& o : v.outputs) out.outputs.push_back(MeasuredOutput{o.name, o.digest, o.fullyWritten});
        m.variants.push_back(std::move(out));
    }
    if (m.variants.size() >= 2) m.ratio = compareSamples(m.variants[0].samplesMs, m.variants[1].samplesMs);
    m.record = std::move(record);
    return m;
}

} // namespace

Measurement parseMeasurement(const json& document) { return summarise(readMeasurement(document), document); }

Measurement parseMeasurementText(const std::string& text) {
    std::string error;
    std::optional<json> j = parseJsonBounded(text, error); // core/bounded_json.h
    if (!j) throw MeasurementError("not a JSON document: " + error);
    return parseMeasurement(*j);
}

Measurement loadMeasurementFile(const std::string& path) {
    json document;
    MeasurementRecord record = loadMeasurementRecord(path, &document);
    return summarise(std::move(record), document);
}

std::string verdictText(const Measurement& m) {
    if (m.error) {
        std::string s = std::string("Failed (") + runErrorKindName(m.error->kind) + ")";
        if (!m.error->message.empty()) s += ": " + m.error->message;
        return s;
    }
    if (m.variants.empty()) return "No measurement.";
    // Two variants: timingVerdict's sentence, so the pane, the exported report and the CLI's report
    // word it the same way.
    if (m.variants.size() >= 2 && m.ratio && m.ratio->pairs > 0) {
        const TimingVerdict v = timingVerdict(m.record.result);
        if (v.valid && !v.sentence.empty()) {
            std::string s = v.sentence;
            s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
            return s;
        }
    }
    const auto& v = m.variants[0];
    return v.label + ": median " + formatDuration(v.stats.median) + " (95 % CI " + formatDuration(v.stats.ciLow) +
           "–" + formatDuration(v.stats.ciHigh) + "), noise " + fmt("%.1f %%", v.stats.noise * 100);
}

CostLine costLine(double medianMs, double pricePerGpuHour, double launchesPerRequest) {
    CostLine c;
    c.gpuSecondsPerMillion = medianMs * 1e-3 * 1e6;
    c.costPerMillion = c.gpuSecondsPerMillion / 3600.0 * pricePerGpuHour;
    c.gpuMsPerRequest = medianMs * launchesPerRequest;
    c.costPerMillionRequests = c.costPerMillion * launchesPerRequest;
    return c;
}

double costChange(const CostLine& from, const CostLine& to) {
    return from.costPerMillion > 0 ? to.costPerMillion / from.costPerMillion - 1 : 0;
}

} // namespace lowerscope
