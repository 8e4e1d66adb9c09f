// The one writer of measurement documents (core/run/measurement.h); the reader is
// measurement_reader.cpp.
//
// Shapes written (one each):
//   lowerscope.run/1       {"schema", "file", "kernel", "build_options", "device", "launch": {...},
//                           "first_launch_ms", "samples_ms", "duration_clock", "samples_by_clock",
//                           "clock_note", "stats", "clock_mhz",
//                           "sample_clock_mhz", "throttled_samples", "occupancy", "throughput",
//                           "outputs", "graph", "guards" (core/run/provenance.h), "wall_s"}
//   lowerscope.compare/1   {"schema", "a": <run/1>, "b": <run/1>, "build_options_a/b", "ratio",
//                           "outputs_agree", "agreement", "buffers_shared", "tolerance", "wall_s"}
//   profile-launches/1     {"schema", "file", "kernel", "launch", "samples_ms", "median_ms"}
//   error                  {"schema": "lowerscope.run/1", "error": {"kind", "message", ...}}
#include "core/run/measurement.h"

#include "core/run/provenance.h"
#include "core/run/stats.h"

namespace lowerscope {

using nlohmann::json;

// ------------------------------------------------------------------------------------ writer

namespace {

json deviceJson(const DeviceInfo& d) {
    return json{{"name", d.name},
                {"compute_capability", std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor)},
                {"sm_count", d.smCount},
                {"clock_mhz", d.clockMhz},
                {"memory_clock_mhz", d.memClockMhz},
                {"l2_bytes", d.l2Bytes},
                {"memory_bytes", d.totalMemBytes},
                {"memory_bandwidth_gbs", d.peakBandwidthGBs},
                {"copy_bandwidth_gbs", d.copyBandwidthGBs},
                {"fp32_peak_gflops", d.fp32PeakGflops},
                {"driver_version", d.driverVersion}};
}

// The "lowerscope.run/1" document of one launch.
json runDocument(const LaunchRecord& l, const VariantResult& v, double clock, const DeviceInfo& d, double wallS) {
    const SampleStats st = computeStats(v.samplesMs);
    json args = json::array();
    for (const RecordedArg& a : l.args) args.push_back(json{{"name", a.name}, {"value", a.value}, {"ptx_type", a.ptxType}});
    json outputs = json::array();
    for (const OutputReport& o : v.outputs) {
        outputs.push_back(json{{"name", o.name},
                               {"type", elemTypeName(o.type)},
                               {"count", o.count},
                               {"digest", o.digest},
                               {"fully_written", o.fullyWritten},
                               {"unwritten", o.unwrittenCount}});
    }
    json throughput = json{{"bytes", l.bytes ? json(*l.bytes) : json(nullptr)}, {"flops", l.flops ? json(*l.flops) : json(nullptr)}};
    const Throughput t = throughputOf(l, st.median, d);
    if (t.gbs) {
        throughput["gbs"] = *t.gbs;
        throughput["pct_of_peak_bandwidth"] = *t.pctOfPeakBandwidth;
        throughput["pct_of_copy_bandwidth"] = *t.pctOfCopyBandwidth;
    }
    if (t.gflops) {
        throughput["gflops"] = *t.gflops;
        throughput["pct_of_peak_fp32"] = *t.pctOfPeakFp32;
    }
    json doc{{"schema", kRunSchema},
                {"file", l.file},
                {"kernel", l.kernelName},
                {"build_options", l.buildOptions},
                {"device", deviceJson(d)},
                {"launch",
                 {{"kernel", v.kernel},
                  {"grid", l.grid},
                  {"block", l.block},
                  {"shared_bytes", l.sharedBytes},
                  {"args", args},
                  {"mode", v.mode},
                  {"launches_per_sample", v.launchesPerSample},
                  {"registers", v.resources.registers},
                  {"static_shared_bytes", v.resources.staticSharedBytes},
                  {"local_bytes", v.resources.localBytes},
                  {"const_bytes", v.resources.constBytes},
                  {"max_threads_per_block", v.resources.maxThreadsPerBlock},
                  {"module_load_ms", v.moduleLoadMs},
                  {"warmup_runs", v.warmupRuns},
                  {"warmup_ms", v.warmupMs},
                  {"event_overhead_us", v.eventOverheadUs},
                  {"gate_timeouts", v.gateTimeouts}}},
                {"first_launch_ms", v.firstLaunchMs},
                {"first_launch_wall_ms", v.firstLaunchWallMs},
                {"samples_ms", v.samplesMs},
                {"duration_clock", v.durationClock},     // which clock samples_ms, stats and charts use
                {"samples_by_clock", v.samplesByClock},  // every clock taken, parallel to samples_ms
                {"clock_note", v.clockNote},
                {"stats",
                 {{"count", st.count},
                  {"median_ms", st.median},
                  {"ci95_ms", {st.ciLow, st.ciHigh}},
                  {"min_ms", st.min},
                  {"mean_ms", st.mean},
                  {"p10_ms", st.p10},
                  {"p90_ms", st.p90},
                  {"stdev_ms", st.stdev},
                  {"noise", st.noise},
                  {"iqr_over_median", st.iqrOverMedian},
                  {"outliers", st.outliers},
                  {"median_cycles", st.median * 1e-3 * clock * 1e6},
                  {"stop_reason", v.stopReason}}},
                {"clock_mhz", clock},
                {"sample_clock_mhz", v.sampleClockMhz}, // per kept sample, parallel to samples_ms
                {"throttled_samples", v.throttledSamples},
                {"occupancy", toJson(v.occupancy)},
                {"throughput", throughput},
                {"outputs", outputs},
                {"graph", v.graph ? toJson(*v.graph) : json(nullptr)},
                {"guards", launchGuards(v)},
                {"wall_s", wallS}};
    if (l.cluster[0] && l.cluster[1] && l.cluster[2]) {
        doc["launch"]["cluster"] = l.cluster;  // only for cluster launches: older readers ignore it
    }
    return doc;
}

json errorDocument(const MeasurementRecord& rec) {
    json err = toJson(*rec.error);
    if (!rec.runnerStderr.empty()) {
        const std::string& s = rec.runnerStderr;
        err["runner_stderr"] = s.substr(s.size() > 2000 ? s.size() - 2000 : 0);
    }
    return json{{"schema", kRunSchema}, {"error", err}};
}

} // namespace

json writeMeasurement(const MeasurementRecord& rec) {
    if (rec.error) return errorDocument(rec);
    const RunResult& r = rec.result;
    if (r.variants.empty() || r.variants.size() > 2) {
        throw MeasurementError("a measurement document holds one or two launches, not " +
                               std::to_string(r.variants.size()));
    }
    auto launchOf = [&](size_t i) { return i < rec.launches.size() ? rec.launches[i] : LaunchRecord{}; };
    if (r.variants[0].mode == "profile") {
        const LaunchRecord l = launchOf(0);
        const VariantResult& v = r.variants[0];
        return json{{"schema", kProfileLaunchesSchema},
                    {"file", l.file},
                    {"kernel", l.kernelName},
                    {"launch", {{"kernel", v.kernel}, {"grid", l.grid}, {"block", l.block}}},
                    {"samples_ms", v.samplesMs},
                    {"median_ms", computeStats(v.samplesMs).median}};
    }
    if (r.variants.size() == 1) return runDocument(launchOf(0), r.variants[0], meanClockMhz(rec, 0), r.device, r.wallS);

    const RatioStats ratio = compareSamples(r.variants[0].samplesMs, r.variants[1].samplesMs);
    bool agree = !r.agreement.empty(); // nothing compared counts as "not shown to agree"
    json agreement = json::array();
    for (const OutputAgreement& g : r.agreement) {
        agree = agree && g.agree;
        agreement.push_back(toJson(g));
    }
    const std::string verdict = !ratio.significant ? "no significant difference"
                                : ratio.ratio < 1  ? "B is faster"
                                                   : "A is faster";
    json doc{{"schema", kCompareSchema},
             {"a", runDocument(launchOf(0), r.variants[0], meanClockMhz(rec, 0), r.device, r.wallS)},
             {"b", runDocument(launchOf(1), r.variants[1], meanClockMhz(rec, 1), r.device, r.wallS)},
             {"ratio",
              {{"b_over_a", ratio.ratio},
               {"ci95", {ratio.ciLow, ratio.ciHigh}},
               {"pairs", ratio.pairs},
               {"significant", ratio.significant},
               {"intervals_overlap", ratio.intervalsOverlap},
               {"min_effect", ratio.minEffect},
               {"verdict", verdict}}},
             {"outputs_agree", agree},
             {"agreement", agreement},
             {"buffers_shared", r.buffersShared},
             {"tolerance", {{"atol", rec.atol}, {"rtol", rec.rtol}}},
             {"wall_s", r.wallS}};
    // How the user gave the options ("--arch sm_90 --fast-math"): only when known, so that
    // `experiment --from-json` never rebuilds a side with options nobody chose.
    if (rec.optionsA) doc["build_options_a"] = *rec.optionsA;
    if (rec.optionsB) doc["build_options_b"] = *rec.optionsB;
    return doc;
}

} // namespace lowerscope
