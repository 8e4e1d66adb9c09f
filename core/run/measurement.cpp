// One way to measure (prepareSide → measure), the A/B verdict and the duration formatter. The
// documents are written in measurement_writer.cpp and read in measurement_reader.cpp.
#include "core/run/measurement.h"
#include "core/format.h"

#include "core/run/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lowerscope {

namespace {

// 10^ceil(log10(x)) as text: the smallest power of ten that bounds x ("1e-6", "0.01", "1").
std::string powerOfTenAbove(double x) {
    if (!(x > 0)) return "0";
    const int k = int(std::ceil(std::log10(x) - 1e-12));
    if (k >= -2 && k <= 3) return fmt("%g", std::pow(10.0, k));
    return "1e" + std::to_string(k);
}

std::string ratioText(double v) { return std::fabs(v - 1.0) < 0.01 ? fmt("%.3f", v) : fmt("%.2f", v); }

} // namespace

std::string formatDuration(double ms) {
    const double a = std::fabs(ms);
    auto four = [](double v, const char* unit) {
        const double m = std::fabs(v);
        const char* f = m >= 100 ? "%.1f %s" : m >= 10 ? "%.2f %s" : "%.3f %s";
        char buf[64];
        std::snprintf(buf, sizeof buf, f, v, unit);
        return std::string(buf);
    };
    if (a == 0) return "0 ms";
    if (a < 1e-3) return four(ms * 1e6, "ns");
    if (a < 1) return four(ms * 1e3, "µs");
    if (a < 1000) return four(ms, "ms");
    return four(ms / 1000, "s");
}

double meanClockMhz(const MeasurementRecord& record, size_t i) {
    if (i < record.result.variants.size() && !record.result.variants[i].sampleClockMhz.empty()) {
        const std::vector<double>& c = record.result.variants[i].sampleClockMhz;
        double sum = 0;
        for (double x : c) sum += x;
        return sum / static_cast<double>(c.size());
    }
    return i < record.recordedClockMhz.size() ? record.recordedClockMhz[i] : 0.0;
}

Throughput throughputOf(const LaunchRecord& l, double medianMs, const DeviceInfo& d) {
    Throughput t;
    const double seconds = medianMs * 1e-3;
    if (!(seconds > 0)) return t;
    if (l.bytes) {
        t.gbs = *l.bytes / seconds / 1e9;
        t.pctOfPeakBandwidth = d.peakBandwidthGBs > 0 ? 100.0 * *t.gbs / d.peakBandwidthGBs : 0.0;
        t.pctOfCopyBandwidth = d.copyBandwidthGBs > 0 ? 100.0 * *t.gbs / d.copyBandwidthGBs : 0.0;
    }
    if (l.flops) {
        t.gflops = *l.flops / seconds / 1e9;
        t.pctOfPeakFp32 = d.fp32PeakGflops > 0 ? 100.0 * *t.gflops / d.fp32PeakGflops : 0.0;
    }
    return t;
}

// ------------------------------------------------------------------------------- measuring

PreparedSide prepareSide(const MeasureSide& side) {
    if (side.cubin.empty()) {
        throw std::invalid_argument((side.label.empty() ? std::string("the kernel") : side.label) +
                                    " has no cubin: build it first");
    }
    LaunchSpec spec = side.spec;
    if (spec.kernel.empty()) spec.kernel = side.mangled;
    const ResolvedLaunch resolved = resolveLaunch(spec, side.params, side.signature);
    PreparedSide out;
    out.variant = makeVariant(resolved, side.cubin, side.mangled, side.label);
    out.warnings = resolved.warnings;
    LaunchRecord& l = out.launch;
    l.file = side.file;
    l.kernelName = side.signature.empty() ? side.mangled : side.signature;
    l.buildOptions = side.buildOptions;
    l.grid = resolved.grid;
    l.block = resolved.block;
    l.sharedBytes = resolved.sharedBytes;
    l.cluster = resolved.cluster;
    for (const ResolvedParam& p : resolved.params) l.args.push_back(RecordedArg{p.name, p.valueText, p.ptxType});
    l.bytes = resolved.bytes;
    l.flops = resolved.flops;
    return out;
}

RunRequest measureRequest(const std::vector<PreparedSide>& sides, const MeasureSettings& settings) {
    RunRequest req;
    req.mode = settings.mode;
    req.stop = settings.stop;
    req.stop.minSamples = std::max<size_t>(1, req.stop.minSamples);
    req.measureGraph = settings.measureGraph;
    req.shareBuffers = settings.shareBuffers;
    req.returnOutputs = settings.returnOutputs;
    req.atol = settings.atol;
    req.rtol = settings.rtol;
    req.profileLaunches = settings.profileLaunches;
    req.graphPath = settings.graphPath;
    req.regions = settings.regions;
    for (const PreparedSide& s : sides) req.variants.push_back(s.variant);
    return req;
}

MeasurementRecord measure(Runner& runner, const std::vector<PreparedSide>& sides, const MeasureSettings& settings,
                          const RunProgressFn& progress, std::atomic<bool>* cancel) {
    MeasurementRecord rec;
    rec.atol = settings.atol;
    rec.rtol = settings.rtol;
    for (const PreparedSide& s : sides) rec.launches.push_back(s.launch);
    if (sides.empty()) {
        rec.error = RunError{RunErrorKind::BadLaunch, "nothing to measure", "", 0, "", "", false};
        return rec;
    }
    RunOutcome o = runner.run(measureRequest(sides, settings), progress, cancel);
    rec.runnerStderr = o.runnerStderr;
    if (!o.ok) {
        rec.error = o.error;
        if (cancel && cancel->load()) rec.error->kind = RunErrorKind::Cancelled;
        return rec;
    }
    rec.result = std::move(o.result);
    return rec;
}

// ------------------------------------------------------------------------------- verdict

TimingVerdict timingVerdict(const RunResult& r) {
    TimingVerdict v;
    if (r.variants.size() < 2 || r.variants[0].samplesMs.empty() || r.variants[1].samplesMs.empty()) return v;
    const VariantResult& a = r.variants[0];
    const VariantResult& b = r.variants[1];
    v.labelA = a.label.empty() ? "A" : a.label;
    v.labelB = b.label.empty() ? "B" : b.label;
    // Interleaved samples: the i-th sample of A and of B were taken next to each other.
    const RatioStats rs = compareSamples(a.samplesMs, b.samplesMs);
    v.valid = rs.pairs > 0;
    if (!v.valid) return v;
    v.medianA = rs.medianA;
    v.medianB = rs.medianB;
    v.ratio = rs.ratio;
    v.ratioLow = rs.ciLow;
    v.ratioHigh = rs.ciHigh;
    v.significant = rs.significant;
    v.notCalledBecause = insignificanceReason(rs);

    if (!r.agreement.empty()) {
        bool allSame = true, allAgree = true;
        double maxAbs = 0;
        std::string differ;
        for (const OutputAgreement& ag : r.agreement) {
            allSame = allSame && ag.sameDigest;
            allAgree = allAgree && ag.agree;
            maxAbs = std::max(maxAbs, ag.maxAbsError);
            if (!ag.agree && differ.empty()) {
                if (ag.sizeMismatch)
                    differ = ag.name + " has a different size";
                else
                    differ = ag.name + ": " + std::to_string(ag.mismatches) + " of " + std::to_string(ag.count) +
                             " elements beyond tolerance (max abs error " + fmt("%.3g", ag.maxAbsError) +
                             ", max rel error " + fmt("%.3g", ag.maxRelError) + ")";
            }
        }
        if (allSame) v.outputs = "outputs are bit-identical";
        else if (allAgree) v.outputs = "outputs match within " + powerOfTenAbove(maxAbs);
        else v.outputs = "outputs DIFFER: " + differ;
    } else if (!a.outputs.empty() && a.outputs.size() == b.outputs.size()) {
        // No element-wise comparison in the result: the outputs' digests still tell identical ones.
        bool same = true;
        for (size_t i = 0; same && i < a.outputs.size(); ++i)
            same = !a.outputs[i].digest.empty() && a.outputs[i].digest == b.outputs[i].digest;
        if (same) v.outputs = "outputs are bit-identical";
    }

    const std::string ci = [&] {
        if (v.ratio < 1) return ratioText(1 / v.ratioHigh) + "–" + ratioText(1 / v.ratioLow);
        return ratioText(v.ratioLow) + "–" + ratioText(v.ratioHigh);
    }();
    if (!v.significant) {
        v.sentence = "no significant difference between " + v.labelA + " and " + v.labelB + ": " + v.labelB + "/" +
                     v.labelA + " = " + ratioText(v.ratio) + " (95 % CI " + ratioText(v.ratioLow) + "–" +
                     ratioText(v.ratioHigh) + "; " + v.notCalledBecause + ")";
    } else if (v.ratio < 1) {
        v.sentence = v.labelB + " is " + ratioText(1 / v.ratio) + "× faster (95 % CI " + ci + ")";
    } else {
        v.sentence = v.labelB + " is " + ratioText(v.ratio) + "× slower (95 % CI " + ci + ")";
    }
    if (!v.outputs.empty()) v.sentence += ", " + v.outputs;
    return v;
}

} // namespace lowerscope
