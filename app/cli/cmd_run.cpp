// `lowerscope-cli run` and `compare`: build a kernel, measure it with
// core/run/measurement.h through lowerscope-runner (a separate process: the CLI never loads the
// CUDA driver), write its document and print a summary.
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"
#include "app/cli/compare_run.h"
#include "app/cli/kept_outputs.h"
#include "app/cli/replay_run.h"

#include "core/analysis/diff.h"
#include "core/experiment/series_job.h"
#include "core/build/build.h"
#include "core/build/lifetime.h"
#include "core/build/demangle.h"
#include "core/build/kernel_name.h"
#include "core/parse/diagnostics.h"
#include "core/parse/ptx_parser.h"
#include "core/run/argspec.h"
#include "core/run/buffer_data.h"
#include "core/run/measurement.h"
#include "core/run/profile_collect.h"
#include "core/run/protocol.h"
#include "core/run/runner_client.h"
#include "core/run/stats.h"
#include "core/build/toolchain.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace lowerscope::cli {

namespace {

using nlohmann::json;


struct RunArgs {
    std::string file;
    BuildOptions options;
    LaunchArgs launch;
};


// Exit codes (commands.h): 0 ok, 1 kernel or build error, 2 usage / missing tool / no GPU / runner
// protocol error.
constexpr int kOk = 0, kKernelError = 1, kUsage = 2;

using Failure = CliFailure;


// Splits on commas outside parentheses: "ceil(N/16), max(a, b)" → {"ceil(N/16)", "max(a, b)"}.
std::vector<std::string> splitDims(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : text) {
        if (c == '(') {
            ++depth;
        } else if (c == ')') {
            --depth;
        }
        if (c == ',' && depth == 0) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}


// A launch spec from the sidecar (if any) overridden by the flags.
LaunchSpec launchSpecFor(const std::string& file, const std::string& kernelFlag, const LaunchArgs& a) {
    std::vector<LaunchSpec> sidecar;
    const std::string sidecarPath = sidecarPathFor(file);
    if (std::filesystem::exists(sidecarPath)) {
        sidecar = loadSidecar(sidecarPath);  // throws ArgSpecError with the path
    }
    LaunchSpec spec;
    bool fromSidecar = false;
    if (kernelFlag.empty()) {
        if (sidecar.empty()) {
            throw Failure{kUsage, "no --kernel given and no sidecar " + sidecarPath + " to take one from"};
        }
        spec = sidecar.front();
        fromSidecar = true;
        if (sidecar.size() > 1) {
            std::string others;
            for (size_t i = 1; i < sidecar.size(); ++i) {
                others += (i > 1 ? ", " : "") + sidecar[i].kernel;
            }
            std::cerr << "note: running " << spec.kernel << " (first in " << sidecarPath << "; also there: " << others
                      << "; pick one with --kernel)\n";
        }
    } else {
        spec.kernel = kernelFlag;
        for (const auto& s : sidecar) {
            if (s.kernel == kernelFlag) {
                spec = s;
                fromSidecar = true;
            }
        }
    }
    if (!a.grid.empty()) {
        spec.grid = splitDims(a.grid);
    }
    if (!a.block.empty()) {
        spec.block = splitDims(a.block);
    }
    if (!a.shared.empty()) {
        spec.sharedBytes = a.shared;
    }
    if (!a.clusterDims.empty()) {
        spec.cluster = splitDims(a.clusterDims);
    }
    for (const auto& text : a.lets) {
        // --let replaces the sidecar's let of that name, else adds one.
        const std::string name = parseArgSpec(text).name;
        bool replaced = false;
        for (auto& l : spec.lets) {
            if (parseArgSpec(l).name == name) {
                l = text;
                replaced = true;
            }
        }
        if (!replaced) {
            spec.lets.push_back(text);
        }
    }
    if (!a.bytes.empty()) {
        spec.bytes = a.bytes;
    }
    if (!a.flops.empty()) {
        spec.flops = a.flops;
    }
    if (!a.outputs.empty()) {
        spec.outputs = a.outputs;
    }
    if (!a.args.empty()) {
        if (fromSidecar && !spec.args.empty()) {
            // --arg overrides sidecar arguments by name; every name must exist there.
            for (const auto& text : a.args) {
                ArgSpec given = parseArgSpec(text);
                bool found = false;
                for (auto& s : spec.args) {
                    if (parseArgSpec(s).name == given.name) {
                        s = text;
                        found = true;
                    }
                }
                for (auto& s : spec.lets) {  // a sidecar's let (e.g. a size) may be set the same way
                    if (parseArgSpec(s).name == given.name) {
                        s = text;
                        found = true;
                    }
                }
                if (!found) {
                    std::string names;
                    for (const auto& s : spec.args) {
                        names += (names.empty() ? "" : ", ") + parseArgSpec(s).name;
                    }
                    throw Failure{kUsage, "--arg " + given.name + ": the sidecar's " + spec.kernel +
                                              " has no such argument (it has " + names + ")"};
                }
            }
        } else {
            spec.args = a.args;
        }
    }
    if (spec.grid.empty() || spec.block.empty()) {
        throw Failure{kUsage, "kernel " + spec.kernel + ": give --grid and --block (no sidecar entry for it)"};
    }
    return spec;
}

} // namespace

BuiltLaunch buildLaunch(const Toolchain& tc, const std::string& file, const BuildOptions& options,
                        const std::string& kernelFlag, const LaunchArgs& a, const std::string& label) {
    LaunchSpec spec;
    try {
        spec = launchSpecFor(file, kernelFlag, a);
    } catch (const ArgSpecError& e) {
        throw Failure{kUsage, e.what()};
    }
    try {
        return buildKernelLaunch(tc, file, options, spec, label, [](const std::string& line) { std::cerr << line << '\n'; });
    } catch (const LaunchBuildError& e) {
        throw Failure{e.code, e.what()};
    }
}

std::unique_ptr<ProcessRunner> makeRunner(const LaunchArgs& a) {
    RunnerConfig c;
    if (!a.runner.empty()) {
        try {
            c.command = splitShellWords(a.runner);
        } catch (const std::invalid_argument& e) {
            throw Failure{kUsage, std::string("--runner: ") + e.what()};
        }
    }
    c.deadline = std::chrono::milliseconds(static_cast<long long>(a.timeoutS * 1000));
    // --timeout bounds the start-up too, and the whole request is bounded (runner_client.h): a
    // runner that never says hello or keeps sending progress cannot keep the CLI waiting.
    c.startTimeout = c.deadline;
    c.limitRequestTime = true;
    return std::make_unique<ProcessRunner>(c);
}

namespace {

MeasureSettings settingsOf(const LaunchArgs& a) {
    MeasureSettings s;
    auto mode = parseMode(a.mode);
    if (!mode) {
        throw Failure{kUsage, "--mode must be auto, cold or hot"};
    }
    s.mode = *mode;
    s.stop.minSamples = std::max<size_t>(1, a.minSamples);
    s.stop.minGpuTimeS = a.minTimeS;
    s.stop.maxNoise = a.maxNoisePct / 100.0;
    s.stop.wallLimitS = a.maxTimeS;
    s.measureGraph = a.graph;
    s.returnOutputs = !a.keepOutputs.empty();
    s.atol = a.atol;
    s.rtol = a.rtol;
    s.profileLaunches = a.profileLaunches;
    s.shareBuffers = !a.separateBuffers;
    s.graphPath = a.graphPath;
    return s;
}

// Measures the sides, printing progress to stderr when it is a terminal. Throws Failure.
MeasurementRecord execute(ProcessRunner& runner, const std::vector<PreparedSide>& sides, const MeasureSettings& settings) {
    MeasurementRecord rec = measure(runner, sides, settings, terminalProgress());
    clearTerminalProgress();
    if (rec.error) {
        const LaunchBuildError f = measurementFailure(*rec.error);
        throw Failure{f.code, f.what()};
    }
    return rec;
}

// The human-readable summary of launch `i` of a record.
void printRun(const MeasurementRecord& rec, size_t i, const std::string& label = "") {
    const VariantResult& v = rec.result.variants.at(i);
    const LaunchRecord l = i < rec.launches.size() ? rec.launches[i] : LaunchRecord{};
    const DeviceInfo& d = rec.result.device;
    const SampleStats st = computeStats(v.samplesMs);
    const double clock = meanClockMhz(rec, i);
    const std::string prefix = label.empty() ? "" : label + ": ";
    std::printf("%s%s on %s, %s mode", prefix.c_str(), l.kernelName.c_str(), d.name.c_str(), v.mode.c_str());
    if (v.launchesPerSample > 1) {
        std::printf(" (graph of %d launches per sample)", v.launchesPerSample);
    }
    std::printf("\n  grid %u,%u,%u  block %u,%u,%u  regs %d  occupancy %.0f%%  waves %.2f\n", l.grid[0], l.grid[1],
                l.grid[2], l.block[0], l.block[1], l.block[2], v.resources.registers, v.occupancy.fraction * 100,
                v.occupancy.waves);
    if (l.cluster[0] && l.cluster[1] && l.cluster[2]) {
        std::printf("  cluster %u,%u,%u  dynamic shared %u bytes\n", l.cluster[0], l.cluster[1], l.cluster[2],
                    l.sharedBytes);
    }
    std::printf("  median %s  [%s, %s] 95%% CI   min %s  mean %s  p10 %s  p90 %s\n", formatDuration(st.median).c_str(),
                formatDuration(st.ciLow).c_str(), formatDuration(st.ciHigh).c_str(), formatDuration(st.min).c_str(),
                formatDuration(st.mean).c_str(), formatDuration(st.p10).c_str(), formatDuration(st.p90).c_str());
    // Which clock the numbers above come from (issue 19), and the others taken for the same samples.
    std::string others;
    for (const auto& [name, series] : v.samplesByClock) {
        if (name != v.durationClock && !series.empty()) {
            others += (others.empty() ? "" : ", ") + escapeControl(name);
        }
    }
    std::printf("  timed on %s%s%s\n", escapeControl(v.durationClock).c_str(), others.empty() ? "" : "; also taken: ",
                others.c_str());
    if (auto nodes = v.samplesByClock.find(kClockNodeTimestamps);
        nodes != v.samplesByClock.end() && !nodes->second.empty()) {
        // Hot mode's second number: what one kernel node spans inside a replay (first block to
        // last block), without the launch work that the replay's per-launch time and ncu include.
        const SampleStats ns = computeStats(nodes->second);
        std::printf("  graph nodes (GPU timestamps): median %s over %zu replays (one kernel's span in the "
                    "replay, launch work excluded)\n",
                    formatDuration(ns.median).c_str(), ns.count);
    }
    if (!v.clockNote.empty()) {
        std::printf("  clock note: %s\n", escapeControl(v.clockNote).c_str());
    }
    std::printf("  %zu samples (stop: %s), noise %.2f%%, %zu outliers flagged; clock %.0f MHz (%d throttled "
                "samples discarded), %.0f cycles\n",
                st.count, v.stopReason.c_str(), st.noise * 100, st.outliers.size(), clock, v.throttledSamples,
                st.median * 1e-3 * clock * 1e6);
    const Throughput t = throughputOf(l, st.median, d);
    if (t.gbs) {
        std::printf("  %.1f GB/s (%.0f%% of %.0f GB/s peak, %.0f%% of the %.0f GB/s copy ceiling)\n", *t.gbs,
                    *t.pctOfPeakBandwidth, d.peakBandwidthGBs, *t.pctOfCopyBandwidth, d.copyBandwidthGBs);
    }
    if (t.gflops) {
        std::printf("  %.1f GFLOP/s (%.1f%% of the %.0f GFLOP/s FP32 peak)\n", *t.gflops, *t.pctOfPeakFp32,
                    d.fp32PeakGflops);
    }
    std::printf("  first launch %s (module load %.2f ms)\n", formatDuration(v.firstLaunchMs).c_str(), v.moduleLoadMs);
    for (const OutputReport& o : v.outputs) {
        std::printf("  output %s: digest %s, %s\n", o.name.c_str(), o.digest.c_str(),
                    o.fullyWritten ? "fully written"
                                   : ("NOT fully written: " + std::to_string(o.unwrittenCount) + " of " +
                                      std::to_string(o.count) + " elements untouched")
                                         .c_str());
    }
    if (v.graph) {
        const GraphCosts& g = *v.graph;
        std::printf("  graph of %d: capture %.3f ms, instantiate %.3f ms; per launch %.2f us replayed vs %.2f us "
                    "from the stream; empty node %.2f us, empty kernel %.2f us; ",
                    g.launchesPerGraph, g.captureMs, g.instantiateMs, g.replayPerLaunchUs, g.streamPerLaunchUs,
                    g.emptyNodeUs, g.emptyKernelUs);
        if (!g.breakEvenReplays) {
            std::printf("no break-even (replay is not cheaper)\n");
        } else {
            std::printf("pays off after %.1f replays\n", *g.breakEvenReplays);
        }
    }
}

int runRun(const RunArgs& a) {
    try {
        Toolchain tc = discoverToolchain();
        BuiltLaunch b = buildLaunch(tc, a.file, a.options, a.launch.kernel, a.launch);
        auto runner = makeRunner(a.launch);
        const MeasurementRecord rec = execute(*runner, {b.side}, settingsOf(a.launch));
        const json doc = writeMeasurement(rec);
        if (a.launch.profileLaunches > 0) {
            if (!a.launch.jsonOut.empty() && !writeJson(doc, a.launch.jsonOut)) {
                return kUsage;
            }
            if (a.launch.jsonOut != "-") {
                std::printf("%s: %d plain launches (L2 flushed before each), event median %s\n",
                            b.side.launch.kernelName.c_str(), a.launch.profileLaunches,
                            formatDuration(computeStats(rec.result.variants.at(0).samplesMs).median).c_str());
            }
            return kOk;
        }
        if (!a.launch.keepOutputs.empty()) {
            keepOutputs(a.launch.keepOutputs, rec.result.variants.at(0));
        }
        if (!a.launch.jsonOut.empty() && !writeJson(doc, a.launch.jsonOut)) {
            return kUsage;
        }
        if (a.launch.jsonOut != "-") {
            printRun(rec, 0);
        }
        for (const auto& o : rec.result.variants.at(0).outputs) {
            if (!o.fullyWritten) {
                std::cerr << "warning: output " << o.name << " was not fully written (" << o.unwrittenCount
                          << " elements untouched)\n";
            }
        }
        return kOk;
    } catch (const Failure& f) {
        std::cerr << "lowerscope-cli run: " << f.message << '\n';
        return f.code;
    }
}

// Builds, measures and writes the compare document (shared with `experiment` via compare_run.h).
// compare --profile: each side's lowerscope.profile/1 document after the timing (so counters never
// disturb it), the kernel metric deltas and, on the aligned SASS diff of A and B, per-row counts and
// stall samples. A failed collection is recorded ("errors") and never fails the comparison.
json profileBothSides(Runner& runner, const BuiltLaunch& ba, const BuiltLaunch& bb, const std::string& fileA,
                      const std::string& fileB, const BuildOptions& optsA, const BuildOptions& optsB,
                      const ProfileCollectOptions& opts) {
    ProfileSide sa = profileSide(ba, fileA, optsA);
    ProfileSide sb = profileSide(bb, fileB, optsB);
    ProfileCollectResult ra = collectProfile(runner, sa.target, opts);
    ProfileCollectResult rb = collectProfile(runner, sb.target, opts);
    json errors = json::array();
    for (const auto& e : ra.errors) errors.push_back("A: " + e);
    for (const auto& e : rb.errors) errors.push_back("B: " + e);
    for (const auto& e : errors) {
        std::cerr << "lowerscope-cli: profile " << escapeControl(e.get<std::string>()) << '\n';
    }
    const SassDiff diff = diffSass(*sa.target.sass, *sb.target.sass,
                                   DiffOptions{.mode = DiffMode::Full, .naming = RegisterNaming::PerAnchor});
    return json{{"ok", ra.exitCode == 0 && rb.exitCode == 0},
                {"errors", errors},
                {"a", ra.document},
                {"b", rb.document},
                {"metric_deltas", profileMetricDeltas(ra.document, rb.document)},
                {"rows", profileRowDeltasJson(profileRowDeltas(diff, ra.join, rb.join), *sa.target.sass,
                                              *sb.target.sass)}};
}

// compare --cluster slurm (cluster.h): A and B interleaved in one request per group (GPU type ×
// repetition). One group: the same document as a local compare. Several: each group's document in
// OUT.LABEL.json and, in OUT, a "lowerscope.cluster-compare/1" index of the groups (label, type,
// repetition, job, node, attempts, and the document or the error). A failed group is listed as such;
// the others land.
CompareRun compareOnCluster(const CompareArgs& a, const BuiltLaunch& ba, const BuiltLaunch& bb) {
    if (a.launch.profile || !a.launch.keepOutputs.empty()) {
        throw Failure{kUsage, "--cluster does not take --profile or --keep-outputs (yet)"};
    }
    const std::vector<ClusterGroup> groups = clusterGroups(a.launch.cluster); // checks the flags first
    const std::string stateDir = clusterStateDir(a.launch.cluster, a.launch.jsonOut);
    std::vector<ClusterRecord> recs = measureOnCluster({ba.side, bb.side}, a.launch, stateDir);
    if (interruptSignal()) {
        throw Failure{130, "interrupted; the cluster jobs were cancelled (scancel)"};
    }
    auto docOf = [&](ClusterRecord& r) {
        r.record.optionsA = a.optsA;
        r.record.optionsB = a.optsB;
        return writeMeasurement(r.record);
    };
    if (recs.size() == 1) {
        if (recs[0].record.error) {
            const LaunchBuildError f = measurementFailure(*recs[0].record.error);
            throw Failure{f.code, f.what()};
        }
        json doc = docOf(recs[0]);
        if (!a.launch.jsonOut.empty() && !writeJson(doc, a.launch.jsonOut)) {
            throw Failure{kUsage, "cannot write " + a.launch.jsonOut};
        }
        return CompareRun{std::move(doc), ba.spec, bb.spec};
    }
    json index{{"schema", "lowerscope.cluster-compare/1"}, {"groups", json::array()}};
    for (auto& r : recs) {
        json g{{"label", r.group.label},         {"type", r.group.type},    {"repetition", r.group.repetition},
               {"job", r.status.jobId},          {"node", r.status.node},   {"attempts", r.status.attempts},
               {"resumed", r.status.resumed},    {"ok", !r.record.error}};
        if (r.record.error) {
            g["error"] = escapeControl(r.record.error->message.substr(0, 2000));
        } else {
            g["document"] = docOf(r);
            if (!a.launch.jsonOut.empty() && a.launch.jsonOut != "-") {
                const std::string path = a.launch.jsonOut + "." + r.group.label + ".json";
                if (!writeJson(g["document"], path)) throw Failure{kUsage, "cannot write " + path};
            }
        }
        index["groups"].push_back(std::move(g));
    }
    // The side-by-side table (device, clocks, driver, node per column; then the medians and B/A).
    std::vector<std::vector<std::string>> rows(3);
    for (const auto& r : recs) {
        if (r.record.error) {
            for (auto& row : rows) row.push_back("");
            continue;
        }
        const auto& vs = r.record.result.variants;
        const RatioStats ratio = compareSamples(vs.at(0).samplesMs, vs.at(1).samplesMs);
        char buf[96];
        rows[0].push_back(formatDuration(ratio.medianA));
        rows[1].push_back(formatDuration(ratio.medianB));
        std::snprintf(buf, sizeof buf, "%.4f [%.4f, %.4f]%s", ratio.ratio, ratio.ciLow, ratio.ciHigh,
                      ratio.significant ? "" : " (n.s.)");
        rows[2].push_back(buf);
    }
    index["markdown"] = clusterColumnsMarkdown(recs, {"A median", "B median", "B/A (95% CI)"}, rows);
    if (!a.launch.jsonOut.empty() && !writeJson(index, a.launch.jsonOut)) {
        throw Failure{kUsage, "cannot write " + a.launch.jsonOut};
    }
    return CompareRun{std::move(index), ba.spec, bb.spec};
}

CompareRun compareDocument(const CompareArgs& a) {
    BuildOptions optsA, optsB;
    try {
        std::optional<BuildOptions> base;
        if (!a.project.empty()) base = projectOptions(a.project, a.file).options;
        optsA = parseBuildOptionString(a.optsA, base ? &*base : nullptr);
        optsB = parseBuildOptionString(a.optsB, base ? &*base : nullptr);
    } catch (const std::invalid_argument& e) {
        throw Failure{kUsage, std::string("--a/--b: ") + e.what()};
    } catch (const std::runtime_error& e) {
        throw Failure{kUsage, std::string("--project: ") + e.what()};
    }
    // --profile-metrics is checked before anything is built or measured.
    ProfileCollectOptions profileOpts;
    if (a.launch.profile) {
        std::string error;
        if (!parseProfileCollections(a.launch.profileCollect, profileOpts.collections, error)) {
            throw Failure{kUsage, "--profile-metrics: " + error};
        }
    }
    Toolchain tc = discoverToolchain();
    const std::string fileB = a.fileB.empty() ? a.file : a.fileB;
    const std::string kernelB = a.kernelB.empty() ? a.launch.kernel : a.kernelB;
    BuiltLaunch ba = buildLaunch(tc, a.file, optsA, a.launch.kernel, a.launch, "A");
    // With a different kernel or file, B takes its own sidecar entry (flags still override).
    BuiltLaunch bb = buildLaunch(tc, fileB, optsB, kernelB.empty() ? ba.spec.kernel : kernelB, a.launch, "B");
    if (!a.launch.cluster.cluster.empty()) return compareOnCluster(a, ba, bb);
    auto runner = makeRunner(a.launch);
    MeasurementRecord rec = execute(*runner, {ba.side, bb.side}, settingsOf(a.launch));
    rec.optionsA = a.optsA;
    rec.optionsB = a.optsB;
    json doc = writeMeasurement(rec);
    if (a.launch.profile) {
        doc["profile"] = profileBothSides(*runner, ba, bb, a.file, fileB, optsA, optsB, profileOpts);
    }
    if (!a.launch.keepOutputs.empty()) {
        keepOutputs((std::filesystem::path(a.launch.keepOutputs) / "a").string(), rec.result.variants.at(0));
        keepOutputs((std::filesystem::path(a.launch.keepOutputs) / "b").string(), rec.result.variants.at(1));
    }
    if (!a.launch.jsonOut.empty() && !writeJson(doc, a.launch.jsonOut)) {
        throw Failure{kUsage, "cannot write " + a.launch.jsonOut};
    }
    return CompareRun{std::move(doc), ba.spec, bb.spec};
}

// The counters part of a compare --profile document: kernel metrics A, B and B/A, then the SASS rows
// whose executed counts or stall samples changed most.
void printProfileDeltas(const json& p) {
    const json metrics = p.value("metric_deltas", json::array());
    if (metrics.is_array() && !metrics.empty()) {
        std::printf("counters (one profiled launch each):\n");
        for (const auto& m : metrics) {
            if (!m.is_object() || !m.contains("a") || !m["a"].is_number() || !m["b"].is_number()) continue;
            const double va = m["a"].get<double>(), vb = m["b"].get<double>();
            char ratio[32] = "-";
            if (va != 0) std::snprintf(ratio, sizeof ratio, "%.4fx", vb / va);
            std::printf("  %-64s %14.6g %14.6g  %s\n", escapeControl(m.value("name", std::string())).c_str(), va, vb,
                        ratio);
        }
    }
    const json rows = p.value("rows", json::array());
    if (rows.is_array() && !rows.empty()) {
        std::printf("SASS rows that changed most (executed, stall samples; A -> B):\n");
        for (const auto& [row, change] : rankProfileRows(rows, 8)) {
            const json& r = *row;
            auto op = [&](const char* k) { return r.contains(k) && r[k].is_string() ? escapeControl(r[k].get<std::string>()) : std::string("-"); };
            std::printf("  row %5d %-8s %-22s %-22s executed %s -> %s, samples %s -> %s\n", r.value("row", 0),
                        escapeControl(r.value("status", std::string())).c_str(), op("opcode_a").c_str(), op("opcode_b").c_str(),
                        formatCount(r.value("executed_a", uint64_t{0})).c_str(), formatCount(r.value("executed_b", uint64_t{0})).c_str(),
                        formatCount(r.value("samples_a", uint64_t{0})).c_str(), formatCount(r.value("samples_b", uint64_t{0})).c_str());
        }
    }
    if (auto e = p.find("errors"); e != p.end() && e->is_array()) {
        for (const auto& x : *e) {
            if (x.is_string()) std::printf("profile: %s\n", escapeControl(x.get<std::string>()).c_str());
        }
    }
}

// Prints from the document alone (through the one reader), so a saved document prints the same.
void printCompare(const json& doc) {
    const MeasurementRecord rec = readMeasurement(doc);
    const auto& vs = rec.result.variants;
    printRun(rec, 0, "A [" + rec.optionsA.value_or("") + "]");
    printRun(rec, 1, "B [" + rec.optionsB.value_or("") + "]");
    const RatioStats ratio = compareSamples(vs.at(0).samplesMs, vs.at(1).samplesMs);
    const std::string verdict = !ratio.significant ? "no significant difference"
                                : ratio.ratio < 1  ? "B is faster"
                                                   : "A is faster";
    const std::string why = ratio.significant ? "" : " (" + insignificanceReason(ratio) + ")";
    std::printf("B/A = %.4f  [%.4f, %.4f] 95%% CI over %zu interleaved pairs: %s%s\n", ratio.ratio, ratio.ciLow,
                ratio.ciHigh, ratio.pairs, verdict.c_str(), why.c_str());
    std::printf("%s\n", rec.result.buffersShared ? "A and B were timed on the same device buffers"
                                                 : "A and B were timed on separate device buffers");
    for (const OutputAgreement& g : rec.result.agreement) {
        std::printf("output %s: %s (max abs error %.3g, max rel error %.3g, %lld of %lld beyond atol %.1g + "
                    "rtol %.1g)\n",
                    g.name.c_str(), g.sameDigest ? "identical" : g.agree ? "agree within tolerance" : "DIFFER",
                    g.maxAbsError, g.maxRelError, static_cast<long long>(g.mismatches),
                    static_cast<long long>(g.count), rec.atol, rec.rtol);
    }
    if (auto p = doc.find("profile"); p != doc.end() && p->is_object()) {
        printProfileDeltas(*p);
    }
}

int runCompare(const CompareArgs& a) {
    try {
        CompareRun run = compareDocument(a);
        if (run.doc.value("schema", std::string()) == "lowerscope.cluster-compare/1") {
            int code = kOk;
            for (const auto& g : run.doc["groups"]) {
                if (a.launch.jsonOut != "-" && g.contains("document")) {
                    std::printf("== %s\n", escapeControl(g["label"].get<std::string>()).c_str());
                    printCompare(g["document"]);
                }
                if (!g["ok"].get<bool>()) code = 1;
            }
            if (a.launch.jsonOut != "-") std::printf("\n%s", run.doc["markdown"].get<std::string>().c_str());
            if (code != kOk) std::cerr << "lowerscope-cli compare: a group failed on the cluster (see above); the others landed\n";
            return code;
        }
        if (a.launch.jsonOut != "-") {
            printCompare(run.doc);
        }
        return kOk;
    } catch (const Failure& f) {
        std::cerr << "lowerscope-cli compare: " << f.message << '\n';
        return f.code;
    } catch (const MeasurementError& e) {
        std::cerr << "lowerscope-cli compare: " << e.what() << '\n';
        return kUsage;
    }
}

void addLaunchFlags(CLI::App& cmd, LaunchArgs& a, bool compare) {
    addLaunchSpecFlags(cmd, a);
    cmd.add_option("--output", a.outputs, "output buffer name (repeatable; default: non-const pointers)")
        ->type_name("NAME");
    cmd.add_option("--bytes", a.bytes, "bytes moved per launch (expression), for GB/s")->type_name("EXPR");
    cmd.add_option("--flops", a.flops, "floating-point operations per launch (expression), for FLOP/s")
        ->type_name("EXPR");
    cmd.add_option("--mode", a.mode, "auto (cold for launches >= 20 us, else hot), cold (L2 flushed), hot (graph)")
        ->check(CLI::IsMember({"auto", "cold", "hot"}));
    cmd.add_option("--min-samples", a.minSamples, "at least N samples (default 10)")->type_name("N");
    cmd.add_option("--min-time", a.minTimeS, "at least S seconds of kernel time in samples (default 0.5)")
        ->check(CLI::NonNegativeNumber)
        ->type_name("S");
    cmd.add_option("--max-noise", a.maxNoisePct, "stop when stdev/mean <= PCT percent (default 0.5)")
        ->check(CLI::NonNegativeNumber)
        ->type_name("PCT");
    cmd.add_option("--max-time", a.maxTimeS, "wall-clock limit of the measuring loop, seconds (default 15)")
        ->check(CLI::PositiveNumber)
        ->type_name("S");
    cmd.add_option("--timeout", a.timeoutS,
                   "deadline: the runner is killed when it reports nothing for S seconds (a hung kernel; default 10); "
                   "it also bounds the runner's start-up, and the whole run is stopped --max-time + 3 x --timeout "
                   "after start-up")
        ->check(CLI::PositiveNumber)
        ->type_name("S");
    cmd.add_flag("--graph", a.graph, "also measure CUDA graph costs in cold mode (always done in hot mode)");
    cmd.add_option("--keep-outputs", a.keepOutputs,
                   compare ? "save outputs to DIR/a and DIR/b (<name>.bin + outputs.json)"
                           : "save outputs to DIR (<name>.bin + outputs.json) for compare-outputs")
        ->type_name("DIR");
    addRunnerFlag(cmd, a);
    cmd.add_option("--json", a.jsonOut, "write the JSON document to OUT ('-' = stdout)")->type_name("OUT");
    if (!compare) {
        cmd.add_option("--profile-launches", a.profileLaunches,
                       "no measurement: launch the kernel N times plainly (L2 flushed, synchronised), for running "
                       "under an external profiler such as ncu")
            ->check(CLI::Range(1, 1000000))
            ->type_name("N");
    }
    if (compare) {
        cmd.add_option("--atol", a.atol, "absolute tolerance for output agreement (default 1e-5)");
        cmd.add_option("--rtol", a.rtol, "relative tolerance for output agreement (default 1e-4)");
        cmd.add_flag("--profile", a.profile,
                     "after timing, profile one launch of each side (kernel metrics, per-instruction counts, stall "
                     "samples, as `profile`) and add the metric deltas and per-row deltas on the aligned SASS diff");
        cmd.add_option("--profile-metrics", a.profileCollect,
                       "with --profile: what to collect, comma-separated (kernel, instructions, samples)")
            ->type_name("LIST");
        cmd.add_flag("--separate-buffers", a.separateBuffers,
                     "time A and B each on its own device buffers; by default both are timed on the same buffers "
                     "(when their arguments match), so where the buffers landed in memory cannot bias B/A");
    }
}

} // namespace

CompareRun runCompareDocument(const CompareArgs& args) { return compareDocument(args); }

MeasureSettings measureSettingsOf(const LaunchArgs& a) { return settingsOf(a); }

RunProgressFn terminalProgress() {
    if (!isatty(2)) return {};
    return [](const RunProgress& p) {
        std::fprintf(stderr, "\r%-14s %-2s samples %-6zu noise %5.2f%%  %5.1f s ", p.stage.c_str(), p.variant.c_str(),
                     p.samples, p.noise * 100, p.elapsedS);
        std::fflush(stderr);
    };
}

void clearTerminalProgress() {
    if (isatty(2)) std::fprintf(stderr, "\r%60s\r", "");
}

MeasurementRecord measureSides(ProcessRunner& runner, const std::vector<PreparedSide>& sides, const LaunchArgs& a) {
    return execute(runner, sides, settingsOf(a));
}

MeasurementRecord measureSides(ProcessRunner& runner, const std::vector<PreparedSide>& sides,
                               const MeasureSettings& settings) {
    return execute(runner, sides, settings);
}

void printCompareSummary(const nlohmann::json& compareDoc) { printCompare(compareDoc); }
void printRunSummary(const MeasurementRecord& record, size_t i, const std::string& label) { printRun(record, i, label); }

void addLaunchFlagsTo(CLI::App& cmd, LaunchArgs& args, bool compare) { addLaunchFlags(cmd, args, compare); }

void addLaunchSpecFlags(CLI::App& cmd, LaunchArgs& a) {
    cmd.add_option("--kernel", a.kernel, "kernel name (plain or mangled); default: the sidecar's first kernel")
        ->type_name("NAME");
    cmd.add_option("--grid", a.grid, "grid: an expression or x,y,z expressions, e.g. 'ceil(n/256)'")->type_name("G");
    cmd.add_option("--block", a.block, "block: an expression or x,y,z expressions")->type_name("B");
    cmd.add_option("--shared", a.shared, "dynamic shared memory, bytes (expression)")->type_name("BYTES");
    cmd.add_option("--arg", a.args,
                   "argument in parameter order: n=1<<20, a=2.5, x=f32[n]:random(seed=7)|random(seed=7, run=32)|zeros|ones|iota|const(V), "
                   "tm=tensormap(A, bf16, dims=[K,M], box=[64,128], swizzle=128B), s=bytes(i32:1,2 f32:0.5)|bytes(hex:..) "
                   "(repeatable; with a sidecar, overrides its argument or let of that name)")
        ->type_name("SPEC");
    cmd.add_option("--let", a.lets,
                   "a scalar or buffer defined but not passed to the kernel, e.g. the buffer behind a tensor map: "
                   "A=bf16[M*K]:random(seed=1) (repeatable; replaces the sidecar's let of that name)")
        ->type_name("SPEC");
    cmd.add_option("--cluster-dims", a.clusterDims,
                   "thread block cluster: x,y,z expressions, e.g. 2,1,1 (launched with cuLaunchKernelEx)")
        ->type_name("X,Y,Z");
}

void addCompareSideFlags(CLI::App& cmd, CompareArgs& c, bool fileRequired) {
    CLI::Option* file = cmd.add_option("file", c.file, "CUDA source file (A)");
    if (fileRequired) {
        file->required();
    }
    file->type_name("FILE.cu");
    cmd.add_option("file_b", c.fileB, "CUDA source file for B (default: the same file)")->type_name("FILE_B.cu");
    cmd.add_option("--file-b", c.fileB, "CUDA source file for B")->type_name("FILE.cu");
    cmd.add_option("--a", c.optsA, "build options of A, e.g. \"--arch sm_90 -O3\"")->type_name("OPTS");
    cmd.add_option("--b", c.optsB, "build options of B, e.g. \"--fast-math\"")->type_name("OPTS");
    cmd.add_option("--kernel-b", c.kernelB, "kernel of B (default: the same as A)")->type_name("NAME");
}

void addRunnerFlag(CLI::App& cmd, LaunchArgs& a) {
    cmd.add_option("--runner", a.runner,
                   "command line that starts the runner, e.g. 'ssh gpu1 lowerscope-runner' (default: "
                   "$LOWERSCOPE_RUNNER or lowerscope-runner next to this program); both are split into words like a "
                   "shell would (quotes, backslashes), with nothing expanded or run by a shell")
        ->type_name("CMD");
}

void registerRunCommands(CLI::App& app, int& exitCode) {
    auto runArgs = std::make_shared<RunArgs>();
    CLI::App* run = app.add_subcommand(
        "run", "Build a kernel and time it on the GPU through lowerscope-runner (cold: L2 flushed, events behind a "
               "spin gate; hot: CUDA graph replays). Without --kernel/--grid/--arg the sidecar FILE.json is used.\n"
               "Exit: 0 measured, 1 build error or kernel fault/timeout, 2 usage error, missing tool, no GPU or a "
               "runner that broke the protocol.");
    run->add_option("file", runArgs->file, "CUDA source file (not with --from-capture)")->type_name("FILE.cu");
    auto runReplayArgs = std::make_shared<ReplayArgs>();
    addReplayFlags(*run, *runReplayArgs);
    addClusterFlags(*run, runArgs->launch.cluster); // with --from-capture only
    addBuildOptionFlags(*run, runArgs->options);
    auto runProject = std::make_shared<std::string>();
    run->add_option("--project", *runProject, "compile_commands.json (or its folder): the file's project flags")
        ->type_name("PATH");
    addLaunchFlags(*run, runArgs->launch, false);
    run->callback([run, runArgs, runProject, runReplayArgs, &exitCode] {
        if (!runReplayArgs->capture.empty()) {
            if (!runArgs->file.empty()) {
                std::cerr << "lowerscope-cli run: --from-capture replays the captured cubin; give no FILE.cu (use "
                             "compare FILE.cu --from-capture ... --b OPTS for a rebuilt variant)\n";
                exitCode = kUsage;
                return;
            }
            exitCode = runReplay(*runReplayArgs, runArgs->launch);
            return;
        }
        if (!runArgs->launch.cluster.cluster.empty()) {
            std::cerr << "lowerscope-cli run: --cluster replays captured launches (--from-capture); for builds use "
                         "compare or experiment --vary with --cluster\n";
            exitCode = kUsage;
            return;
        }
        if (runArgs->file.empty()) {
            std::cerr << "lowerscope-cli run: FILE.cu is required (or --from-capture CAPTURE.json)\n";
            exitCode = kUsage;
            return;
        }
        if (!runProject->empty() &&
            !applyProjectFlag(*run, *runProject, runArgs->file, runArgs->options, "lowerscope-cli run")) {
            exitCode = kUsage;
            return;
        }
        exitCode = runRun(*runArgs);
    });

    auto cmpArgs = std::make_shared<CompareArgs>();
    CLI::App* cmp = app.add_subcommand(
        "compare", "Time two builds (or two files / kernels) interleaved A B A B and report the ratio B/A with its "
                   "95% interval, whether the difference is significant, and whether the outputs agree.\n"
                   "Exit: 0 compared, 1 build error or kernel fault/timeout, 2 usage error, missing tool, no GPU or a runner "
                   "that broke the protocol.");
    addCompareSideFlags(*cmp, *cmpArgs, true);
    addProjectBaseFlag(*cmp, cmpArgs->project);
    addLaunchFlags(*cmp, cmpArgs->launch, true);
    addClusterFlags(*cmp, cmpArgs->launch.cluster);
    auto cmpReplayArgs = std::make_shared<ReplayArgs>();
    addReplayFlags(*cmp, *cmpReplayArgs);
    cmp->callback([cmpArgs, cmpReplayArgs, &exitCode] {
        if (!cmpReplayArgs->capture.empty()) {
            if (!cmpArgs->launch.cluster.cluster.empty()) {
                std::cerr << "lowerscope-cli compare: --from-capture runs on the local runner (or --runner); not yet with --cluster\n";
                exitCode = kUsage;
                return;
            }
            exitCode = compareReplay(*cmpReplayArgs, *cmpArgs);
            return;
        }
        exitCode = runCompare(*cmpArgs);
    });

    registerCompareOutputsCommand(app, exitCode);
}

} // namespace lowerscope::cli
