// Replays of a captured launch (issue 29 item 2; core/capture/replay.h):
//   run --from-capture FILE [--launch ID]               the captured launch timed standalone, from the
//                                                       captured cubin on the captured memory
//   compare SOURCE.cu --from-capture FILE [--launch ID] --b OPTS
//                                                       the captured original (A) against the kernel
//                                                       rebuilt from SOURCE with OPTS (B), interleaved on
//                                                       the same restored memory, outputs compared
// The runner runs with --fixed-addresses so that the memory returns at the addresses the program
// used (pointers in the parameters, in memory and in tensor maps stay valid). After the run, the
// original's memory is compared with the memory as the launch left it in the program: a replay
// that does not reproduce it is said so.
#include "app/cli/build_flags.h"
#include "app/cli/cluster.h"
#include "app/cli/compare_run.h"
#include "app/cli/commands.h"
#include "app/cli/replay_run.h"

#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/capture/capture_metrics.h"
#include "core/capture/replay.h"
#include "core/experiment/series_job.h"
#include "core/run/measurement.h"
#include "core/run/stats.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <iostream>

namespace lowerscope::cli {

namespace {

using nlohmann::json;

PreparedSide replaySide(const capture::ReplayInput& in, std::vector<uint8_t> cubin, const std::string& label,
                        const std::string& file, const std::string& options) {
    PreparedSide side;
    side.variant = capture::replayVariant(in, std::move(cubin), label);
    LaunchRecord& l = side.launch;
    l.file = file;
    l.kernelName = in.kernelDemangled.empty() ? in.snapshot.name : in.kernelDemangled;
    l.buildOptions = options;
    l.grid = side.variant.grid;
    l.block = side.variant.block;
    l.sharedBytes = side.variant.sharedBytes;
    l.cluster = side.variant.cluster;
    for (const ParamSlot& p : side.variant.params) {
        std::string hex;
        char b[4];
        for (uint8_t x : p.scalar) {
            std::snprintf(b, sizeof b, "%02x", x);
            hex += b;
        }
        l.args.push_back(RecordedArg{p.name, "0x" + hex, "b" + std::to_string(p.size * 8)});
    }
    return side;
}

// Sends the request with the captured memory; the record as measure() makes it. Throws CliFailure.
MeasurementRecord measureReplay(ProcessRunner& runner, const std::vector<PreparedSide>& sides, const LaunchArgs& a,
                                std::vector<MemoryRegion> regions) {
    MeasureSettings settings = measureSettingsOf(a);
    settings.returnOutputs = true; // the replay's memory is checked against the program's
    settings.regions = std::move(regions);
    return measureSides(runner, sides, settings);
}

// The replay section of the document, and its lines on stdout.
json replaySection(const capture::ReplayInput& in, const MeasurementRecord& rec, bool print) {
    const std::vector<capture::ReplayCheck> checks = capture::checkReplay(in, rec.result.variants.at(0).outputs);
    json regions = json::array();
    bool reproduced = true, anyCompared = false;
    for (const capture::ReplayCheck& c : checks) {
        regions.push_back(json{{"name", c.name},
                               {"bytes", c.bytes},
                               {"compared", c.compared},
                               {"differing_bytes", c.differingBytes},
                               {"first_difference", c.firstDifference}});
        anyCompared = anyCompared || c.compared;
        if (c.compared && c.differingBytes) reproduced = false;
        if (print) {
            if (!c.compared)
                std::printf("  replay %s (%llu bytes): not compared (the capture did not save it after the launch)\n",
                            c.name.c_str(), static_cast<unsigned long long>(c.bytes));
            else if (c.differingBytes == 0)
                std::printf("  replay %s (%llu bytes): identical to the program's memory after the launch\n",
                            c.name.c_str(), static_cast<unsigned long long>(c.bytes));
            else
                std::printf("  replay %s (%llu bytes): DIFFERS from the program's memory after the launch in %llu bytes "
                            "(first at byte %lld)\n",
                            c.name.c_str(), static_cast<unsigned long long>(c.bytes),
                            static_cast<unsigned long long>(c.differingBytes), static_cast<long long>(c.firstDifference));
        }
    }
    json relocated = json::array();
    for (uint64_t r : rec.result.regionsRelocated) relocated.push_back(addressHex(r));
    if (print && !rec.result.regionsRelocated.empty()) {
        // What the runner said about the addresses it asked for.
        size_t from = 0;
        while (from < rec.runnerStderr.size()) {
            const size_t end = std::min(rec.runnerStderr.find('\n', from), rec.runnerStderr.size());
            const std::string line = rec.runnerStderr.substr(from, end - from);
            if (line.rfind("lowerscope-runner: replay:", 0) == 0) std::printf("  %s\n", escapeControl(line).c_str());
            from = end + 1;
        }
    }
    if (print) {
        for (uint64_t r : rec.result.regionsRelocated)
            std::printf("  note: the memory at %s could not get its original address; the parameters that pointed into "
                        "it were relocated\n",
                        addressHex(r).c_str());
        for (const std::string& n : in.notes) std::printf("  note: %s\n", escapeControl(n).c_str());
        if (anyCompared)
            std::printf("  %s\n", reproduced ? "the replay reproduces the program's result"
                                             : "the replay does NOT reproduce the program's result (the kernel reads "
                                               "state the capture did not save, or is not deterministic)");
    }
    return json{{"capture", in.documentPath},
                {"launch", in.snapshot.id()},
                {"kernel", in.snapshot.name},
                {"regions", regions},
                {"relocated", relocated},
                {"reproduced", anyCompared ? json(reproduced) : json(nullptr)},
                {"notes", in.notes}};
}

// The launch's duration in the program against the replay's, on the clock that matches the
// capture's: CUPTI's concurrent records are the blocks' span (the runner's kernel_timestamps),
// its serialising records include the front end's work as gpu__time_duration does. Null when the
// capture has no duration for the launch.
json programSection(const capture::ReplayInput& in, const VariantResult& v, bool print) {
    if (in.programDurationNs <= 0) return nullptr;
    // Cold samples carry kernel_timestamps, hot ones node_timestamps: both are activity spans.
    const char* matching = in.programSerialized ? kClockGpuTimeDuration
                           : v.mode == "hot"    ? kClockNodeTimestamps
                                                : kClockKernelTimestamps;
    const std::string how = in.programSerialized ? "CUPTI's serialising kernel records"
                                                 : "CUPTI's concurrent kernel records: the blocks' span";
    json out{{"duration_us", in.programDurationNs / 1e3},
             {"records", in.programSerialized ? "serialized" : "concurrent"},
             {"matching_clock", matching}};
    std::vector<double> s;
    if (const auto it = v.samplesByClock.find(matching); it != v.samplesByClock.end())
        for (double x : it->second)
            if (std::isfinite(x)) s.push_back(x);
    if (print) std::printf("  in the program: %.2f µs (this launch, %s)\n", in.programDurationNs / 1e3, how.c_str());
    if (s.empty()) {
        if (print)
            std::printf("  the replay was not timed on the matching clock (%s)%s\n", matching,
                        in.programSerialized || v.mode == "hot" ? "" : "; --program-clock times it on that clock");
        return out;
    }
    std::sort(s.begin(), s.end());
    const double medianUs = quantileSorted(s, 0.5) * 1e3;
    const double diffPct = 100.0 * (medianUs / (in.programDurationNs / 1e3) - 1.0);
    out["replay_median_us"] = medianUs;
    out["diff_pct"] = diffPct;
    if (print)
        std::printf("  the replay on that clock (%s): median %.2f µs, %+.2f %% against the program\n", matching, medianUs,
                    diffPct);
    return out;
}

ElemType compareType(const std::string& name) {
    const auto t = parseElemType(name);
    if (!t) throw CliFailure{2, "--compare-as: unknown element type '" + escapeControl(name) + "' (f32, f16, bf16, f64, u8, ...)"};
    return *t;
}

// --program-clock: the concurrent records' clock is the activity span (the runner's
// kernel_timestamps, taken alone); the serialising records' is gpu__time_duration, the default.
std::map<std::string, std::string> programClockEnv(const ReplayArgs& r, const capture::ReplayInput& in) {
    if (r.programClock && !in.programSerialized) return {{"LOWERSCOPE_GPU_CLOCKS", "timestamps"}};
    return {};
}

capture::ReplayInput loadInput(const ReplayArgs& r) {
    capture::ReplayInput in;
    std::string error;
    if (!capture::loadReplay(r.capture, r.launch, in, error)) throw CliFailure{2, escapeControl(error)};
    return in;
}

} // namespace

std::unique_ptr<ProcessRunner> replayRunner(const LaunchArgs& a, const std::vector<AddressRange>& hold,
                                            const std::map<std::string, std::string>& env) {
    std::unique_ptr<ProcessRunner> base = makeRunner(a);
    RunnerConfig c = base->config();
    for (const auto& [k, v] : env) c.env[k] = v;
    std::string error;
    if (!capture::replayRunnerConfig(c, error, hold)) throw CliFailure{2, "cannot start the runner: " + error};
    return std::make_unique<ProcessRunner>(c);
}

// run --from-capture --cluster slurm: the replay once per group (GPU type × repetition) on the
// cluster's nodes, each group's document in OUT.LABEL.json when there are several.
int runReplayOnCluster(const capture::ReplayInput& in, const ReplayArgs& r, const LaunchArgs& a, ElemType type) {
    const std::string stateDir = clusterStateDir(a.cluster, a.jsonOut);
    const std::vector<PreparedSide> sides{replaySide(in, in.cubin, "", r.capture, "(captured)")};
    const std::vector<ClusterRecord> recs = measureOnCluster(sides, a, stateDir, capture::replayRegions(in, type));
    int code = 0;
    for (const ClusterRecord& g : recs) {
        const std::string label = g.group.label.empty() ? "all" : g.group.label;
        if (!g.record.ok()) {
            std::printf("== %s: FAILED: %s\n", escapeControl(label).c_str(),
                        escapeControl(g.record.error ? g.record.error->message : "no result").c_str());
            code = 1;
            continue;
        }
        std::printf("== %s (job %s on %s)\n", escapeControl(label).c_str(), escapeControl(g.status.jobId).c_str(),
                    escapeControl(g.status.node).c_str());
        printRunSummary(g.record, 0);
        json doc = writeMeasurement(g.record);
        doc["replay"] = replaySection(in, g.record, true);
        if (!g.record.result.variants.empty())
            doc["replay"]["program"] = programSection(in, g.record.result.variants.front(), true);
        if (!a.jsonOut.empty() && a.jsonOut != "-") {
            const std::string out = recs.size() == 1 ? a.jsonOut : a.jsonOut + "." + label + ".json";
            if (!writeJson(doc, out)) return 2;
        }
    }
    return code;
}

int runReplay(const ReplayArgs& r, const LaunchArgs& a) {
    try {
        const capture::ReplayInput in = loadInput(r);
        const ElemType type = compareType(r.compareAs);
        if (!a.cluster.cluster.empty()) return runReplayOnCluster(in, r, a, type);
        auto runner = replayRunner(a, capture::snapshotAddressRanges({in.snapshot}), programClockEnv(r, in));
        const std::vector<PreparedSide> sides{replaySide(in, in.cubin, "", r.capture, "(captured)")};
        const MeasurementRecord rec = measureReplay(*runner, sides, a, capture::replayRegions(in, type));
        json doc = writeMeasurement(rec);
        const bool print = a.jsonOut != "-";
        if (print) {
            std::printf("replay of launch %s from %s\n", in.snapshot.id().c_str(), escapeControl(r.capture).c_str());
            printRunSummary(rec, 0);
        }
        doc["replay"] = replaySection(in, rec, print);
        doc["replay"]["program"] = programSection(in, rec.result.variants.at(0), print);
        if (!a.jsonOut.empty() && !writeJson(doc, a.jsonOut)) return 2;
        return 0;
    } catch (const CliFailure& f) {
        std::cerr << "lowerscope-cli run: " << f.message << '\n';
        return f.code;
    }
}

int compareReplay(const ReplayArgs& r, const CompareArgs& c) {
    try {
        if (c.file.empty()) throw CliFailure{2, "compare --from-capture needs the source to rebuild B from (FILE.cu)"};
        const capture::ReplayInput in = loadInput(r);
        const ElemType type = compareType(r.compareAs);
        BuildOptions optsB;
        try {
            optsB = parseBuildOptionString(c.optsB);
        } catch (const std::invalid_argument& e) {
            throw CliFailure{2, std::string("--b: ") + e.what()};
        }
        const Toolchain tc = discoverToolchain();
        BuildResult built = buildFile(tc, c.file, optsB);
        if (!built.ok) {
            throw CliFailure{built.compileError ? 1 : 2,
                             "cannot build B from " + escapeControl(c.file) + ": " +
                                 (built.error.empty() ? std::string("compile error") : escapeControl(built.error))};
        }
        auto runner = replayRunner(c.launch, capture::snapshotAddressRanges({in.snapshot}), programClockEnv(r, in));
        const std::vector<PreparedSide> sides{replaySide(in, in.cubin, "A", r.capture, "(captured)"),
                                              replaySide(in, built.cubin, "B", c.file, c.optsB)};
        MeasurementRecord rec = measureReplay(*runner, sides, c.launch, capture::replayRegions(in, type));
        rec.optionsA = "(captured)";
        rec.optionsB = c.optsB;
        json doc = writeMeasurement(rec);
        const bool print = c.launch.jsonOut != "-";
        if (print) {
            std::printf("launch %s of %s (A, as captured) against %s rebuilt with [%s] (B), on the captured memory\n",
                        in.snapshot.id().c_str(), escapeControl(r.capture).c_str(), escapeControl(c.file).c_str(),
                        escapeControl(c.optsB).c_str());
            printCompareSummary(doc);
        }
        doc["replay"] = replaySection(in, rec, print);
        if (!c.launch.jsonOut.empty() && !writeJson(doc, c.launch.jsonOut)) return 2;
        return 0;
    } catch (const CliFailure& f) {
        std::cerr << "lowerscope-cli compare: " << f.message << '\n';
        return f.code;
    } catch (const MeasurementError& e) {
        std::cerr << "lowerscope-cli compare: " << e.what() << '\n';
        return 2;
    }
}

void addReplayFlags(CLI::App& cmd, ReplayArgs& r) {
    cmd.add_option("--from-capture", r.capture,
                   "replay a launch saved by `capture --save-launches`: its parameters and memory, restored at their "
                   "original device addresses")
        ->type_name("CAPTURE.json");
    cmd.add_option("--launch", r.launch, "the saved launch to replay (PID-CORR, as capture printed it)")->type_name("ID");
    cmd.add_flag("--program-clock", r.programClock,
                 "with --from-capture: time the replay on the clock the capture timed the program with (CUPTI's kernel "
                 "activity span, unless the capture used --serialize-kernels), so that the two compare like with like");
    cmd.add_option("--compare-as", r.compareAs,
                   "element type for comparing the replayed memory between A and B (default u8: byte for byte)")
        ->type_name("TYPE");
}

} // namespace lowerscope::cli
