// `lowerscope-cli run`, `compare` and `compare-outputs`: build a kernel, hand it to
// lowerscope-runner (a separate process: the CLI never loads the CUDA driver), report timings.
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"
#include "app/cli/compare_run.h"

#include "core/build/build.h"
#include "core/build/demangle.h"
#include "core/parse/diagnostics.h"
#include "core/parse/ptx_parser.h"
#include "core/run/argspec.h"
#include "core/run/buffer_data.h"
#include "core/run/protocol.h"
#include "core/run/runner_client.h"
#include "core/run/stats.h"
#include "core/build/toolchain.h"

#include <cmath>
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


struct CompareOutputsArgs {
    std::string dirA, dirB;
    double atol = 1e-5, rtol = 1e-4;
    std::string jsonOut;
};

// Exit codes (commands.h): 0 ok, 1 kernel or build error, 2 usage / missing tool / no GPU.
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

// "saxpy" matches "_Z5saxpyifPKfPf" / "saxpy(int, ...)"; an exact mangled name matches itself.
bool kernelMatches(const KernelArtifacts& k, const std::string& want) {
    if (k.mangled == want || k.name == want) {
        return true;
    }
    std::string base = k.name.substr(0, k.name.find('('));
    if (base == want) {
        return true;
    }
    // Qualified names: "ns::kern" also matches "kern".
    size_t colon = base.rfind("::");
    return colon != std::string::npos && base.substr(colon + 2) == want;
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

struct BuiltLaunch {
    std::string file;
    BuildOptions options;
    LaunchSpec spec;
    ResolvedLaunch resolved;
    std::string mangled;
    std::string demangled;
    std::vector<uint8_t> cubin;
    bool cacheHit = false;
};

BuiltLaunch buildLaunch(const Toolchain& tc, const std::string& file, const BuildOptions& options,
                        const std::string& kernelFlag, const LaunchArgs& a) {
    BuiltLaunch b;
    b.file = file;
    b.options = options;
    try {
        b.spec = launchSpecFor(file, kernelFlag, a);
    } catch (const ArgSpecError& e) {
        throw Failure{kUsage, e.what()};
    }
    BuildResult r = buildFile(tc, file, options);
    for (const auto& d : r.diagnostics) {
        if (d.severity == Severity::Error || d.severity == Severity::Warning) {
            std::cerr << formatDiagnostic(d) << '\n';
        }
    }
    if (r.setupError) {
        throw Failure{kUsage, r.error};
    }
    if (r.compileError) {
        throw Failure{kKernelError, file + ": compilation failed"};
    }
    if (r.cubin.empty() || r.ptx.empty()) {
        throw Failure{kKernelError, file + ": build failed: " + r.error};
    }
    if (!r.ok) {
        std::cerr << "warning: " << r.error << " (the cubin was built; measuring anyway)\n";
    }
    b.cacheHit = r.cacheHit;
    const KernelArtifacts* k = nullptr;
    std::string names;
    for (const auto& ka : r.kernels) {
        names += (names.empty() ? "" : ", ") + ka.name;
        if (kernelMatches(ka, b.spec.kernel)) {
            if (k) {
                throw Failure{kUsage, "kernel name '" + b.spec.kernel + "' is ambiguous in " + file +
                                          " (give the mangled name): " + k->mangled + ", " + ka.mangled};
            }
            k = &ka;
        }
    }
    if (!k) {
        throw Failure{kUsage, "no kernel '" + b.spec.kernel + "' in " + file + " (kernels: " + names + ")"};
    }
    b.mangled = k->mangled;
    b.demangled = k->name.empty() ? demangle(k->mangled) : k->name;
    PtxListing ptx = parsePtx(r.ptx);
    const PtxFunction* fn = nullptr;
    for (const auto& f : ptx.functions) {
        if (f.isEntry && f.name == b.mangled) {
            fn = &f;
        }
    }
    if (!fn) {
        throw Failure{kKernelError, "kernel " + b.mangled + " not found in the PTX"};
    }
    try {
        b.resolved = resolveLaunch(b.spec, fn->params, b.demangled);
    } catch (const ArgSpecError& e) {
        throw Failure{kUsage, e.what()};
    }
    for (const auto& w : b.resolved.warnings) {
        std::cerr << "warning: " << w << '\n';
    }
    b.cubin = std::move(r.cubin);
    return b;
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
    return std::make_unique<ProcessRunner>(c);
}

RunRequest baseRequest(const LaunchArgs& a) {
    RunRequest req;
    auto mode = parseMode(a.mode);
    if (!mode) {
        throw Failure{kUsage, "--mode must be auto, cold or hot"};
    }
    req.mode = *mode;
    req.stop.minSamples = std::max<size_t>(1, a.minSamples);
    req.stop.minGpuTimeS = a.minTimeS;
    req.stop.maxNoise = a.maxNoisePct / 100.0;
    req.stop.wallLimitS = a.maxTimeS;
    req.measureGraph = a.graph;
    req.returnOutputs = !a.keepOutputs.empty();
    req.atol = a.atol;
    req.rtol = a.rtol;
    req.profileLaunches = a.profileLaunches;
    req.shareBuffers = !a.separateBuffers;
    return req;
}

// Runs the request, printing progress to stderr when it is a terminal. Throws Failure.
RunResult execute(ProcessRunner& runner, const RunRequest& req) {
    const bool tty = isatty(2);
    RunOutcome o = runner.run(req, [&](const RunProgress& p) {
        if (tty) {
            std::fprintf(stderr, "\r%-14s %-2s samples %-6zu noise %5.2f%%  %5.1f s ", p.stage.c_str(),
                         p.variant.c_str(), p.samples, p.noise * 100, p.elapsedS);
            std::fflush(stderr);
        }
    });
    if (tty) {
        std::fprintf(stderr, "\r%60s\r", "");
    }
    if (!o.ok) {
        const RunError& e = o.error;
        bool noGpu = e.kind == "no_driver" || e.kind == "no_device" || e.kind == "driver_error" ||
                     e.kind == "runner_start";
        std::string msg = e.kind + ": " + e.message;
        if (!e.cudaError.empty() && e.message.find(e.cudaError) == std::string::npos) {
            msg += " [" + e.cudaError + "]";
        }
        if (!e.stage.empty()) {
            msg += " (stage " + e.stage + (e.variant.empty() ? "" : ", variant " + e.variant) + ")";
        }
        throw Failure{noGpu || e.kind == "bad_request" ? kUsage : kKernelError, msg};
    }
    return o.result;
}

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

double meanOf(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) {
        s += x;
    }
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// The "lowerscope.run/1" document for one variant.
json runDocument(const BuiltLaunch& b, const VariantResult& v, const DeviceInfo& d) {
    SampleStats st = computeStats(v.samplesMs);
    double clock = meanOf(v.sampleClockMhz);
    json args = json::array();
    for (const auto& p : b.resolved.params) {
        args.push_back(json{{"name", p.name}, {"value", p.valueText}, {"ptx_type", p.ptxType}});
    }
    json outputs = json::array();
    for (const auto& o : v.outputs) {
        outputs.push_back(json{{"name", o.name},
                               {"type", elemTypeName(o.type)},
                               {"count", o.count},
                               {"digest", o.digest},
                               {"fully_written", o.fullyWritten},
                               {"unwritten", o.unwrittenCount}});
    }
    json throughput = json{{"bytes", nullptr}, {"flops", nullptr}};
    double seconds = st.median * 1e-3;
    if (b.resolved.bytes && seconds > 0) {
        double gbs = *b.resolved.bytes / seconds / 1e9;
        throughput["bytes"] = *b.resolved.bytes;
        throughput["gbs"] = gbs;
        throughput["pct_of_peak_bandwidth"] = d.peakBandwidthGBs > 0 ? 100.0 * gbs / d.peakBandwidthGBs : 0.0;
        throughput["pct_of_copy_bandwidth"] = d.copyBandwidthGBs > 0 ? 100.0 * gbs / d.copyBandwidthGBs : 0.0;
    }
    if (b.resolved.flops && seconds > 0) {
        double gflops = *b.resolved.flops / seconds / 1e9;
        throughput["flops"] = *b.resolved.flops;
        throughput["gflops"] = gflops;
        throughput["pct_of_peak_fp32"] = d.fp32PeakGflops > 0 ? 100.0 * gflops / d.fp32PeakGflops : 0.0;
    }
    json graph = nullptr;
    if (v.graph) {
        graph = toJson(*v.graph);
    }
    return json{
        {"schema", "lowerscope.run/1"},
        {"file", b.file},
        {"kernel", b.demangled},
        {"build_options", shellQuote(toNvccArgs(b.options))},
        {"device", deviceJson(d)},
        {"launch",
         {{"kernel", v.kernel},
          {"grid", b.resolved.grid},
          {"block", b.resolved.block},
          {"shared_bytes", b.resolved.sharedBytes},
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
          {"event_overhead_us", v.eventOverheadUs},
          {"gate_timeouts", v.gateTimeouts}}},
        {"first_launch_ms", v.firstLaunchMs},
        {"samples_ms", v.samplesMs},
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
        {"graph", graph}};
}

std::string fmtMs(double ms) {
    char buf[64];
    if (ms < 0.1) {
        std::snprintf(buf, sizeof buf, "%.3f us", ms * 1000);
    } else if (ms < 100) {
        std::snprintf(buf, sizeof buf, "%.4f ms", ms);
    } else {
        std::snprintf(buf, sizeof buf, "%.2f ms", ms);
    }
    return buf;
}

void printRun(const json& doc, const std::string& label = "") {
    const json& st = doc["stats"];
    const json& l = doc["launch"];
    std::string prefix = label.empty() ? "" : label + ": ";
    std::printf("%s%s on %s, %s mode", prefix.c_str(), doc["kernel"].get<std::string>().c_str(),
                doc["device"]["name"].get<std::string>().c_str(), l["mode"].get<std::string>().c_str());
    if (l["launches_per_sample"].get<int>() > 1) {
        std::printf(" (graph of %d launches per sample)", l["launches_per_sample"].get<int>());
    }
    std::printf("\n  grid %u,%u,%u  block %u,%u,%u  regs %d  occupancy %.0f%%  waves %.2f\n",
                l["grid"][0].get<unsigned>(), l["grid"][1].get<unsigned>(), l["grid"][2].get<unsigned>(),
                l["block"][0].get<unsigned>(), l["block"][1].get<unsigned>(), l["block"][2].get<unsigned>(),
                l["registers"].get<int>(), doc["occupancy"]["fraction"].get<double>() * 100,
                doc["occupancy"]["waves"].get<double>());
    std::printf("  median %s  [%s, %s] 95%% CI   min %s  mean %s  p10 %s  p90 %s\n",
                fmtMs(st["median_ms"]).c_str(), fmtMs(st["ci95_ms"][0]).c_str(), fmtMs(st["ci95_ms"][1]).c_str(),
                fmtMs(st["min_ms"]).c_str(), fmtMs(st["mean_ms"]).c_str(), fmtMs(st["p10_ms"]).c_str(),
                fmtMs(st["p90_ms"]).c_str());
    std::printf("  %zu samples (stop: %s), noise %.2f%%, %zu outliers flagged; clock %.0f MHz (%d throttled "
                "samples discarded), %.0f cycles\n",
                st["count"].get<size_t>(), st["stop_reason"].get<std::string>().c_str(),
                st["noise"].get<double>() * 100, st["outliers"].size(), doc["clock_mhz"].get<double>(),
                doc["throttled_samples"].get<int>(), st["median_cycles"].get<double>());
    const json& t = doc["throughput"];
    if (t.contains("gbs")) {
        std::printf("  %.1f GB/s (%.0f%% of %.0f GB/s peak, %.0f%% of the %.0f GB/s copy ceiling)\n",
                    t["gbs"].get<double>(), t["pct_of_peak_bandwidth"].get<double>(),
                    doc["device"]["memory_bandwidth_gbs"].get<double>(), t["pct_of_copy_bandwidth"].get<double>(),
                    doc["device"]["copy_bandwidth_gbs"].get<double>());
    }
    if (t.contains("gflops")) {
        std::printf("  %.1f GFLOP/s (%.1f%% of the %.0f GFLOP/s FP32 peak)\n", t["gflops"].get<double>(),
                    t["pct_of_peak_fp32"].get<double>(), doc["device"]["fp32_peak_gflops"].get<double>());
    }
    std::printf("  first launch %s (module load %.2f ms)\n", fmtMs(doc["first_launch_ms"]).c_str(),
                l["module_load_ms"].get<double>());
    for (const auto& o : doc["outputs"]) {
        std::printf("  output %s: digest %s, %s\n", o["name"].get<std::string>().c_str(),
                    o["digest"].get<std::string>().c_str(),
                    o["fully_written"].get<bool>()
                        ? "fully written"
                        : ("NOT fully written: " + std::to_string(o["unwritten"].get<int64_t>()) + " of " +
                           std::to_string(o["count"].get<int64_t>()) + " elements untouched")
                              .c_str());
    }
    if (!doc["graph"].is_null()) {
        const json& g = doc["graph"];
        std::printf("  graph of %d: capture %.3f ms, instantiate %.3f ms; per launch %.2f us replayed vs %.2f us "
                    "from the stream; empty node %.2f us, empty kernel %.2f us; ",
                    g["launches_per_graph"].get<int>(), g["capture_ms"].get<double>(),
                    g["instantiate_ms"].get<double>(), g["replay_per_launch_us"].get<double>(),
                    g["stream_per_launch_us"].get<double>(), g["empty_node_us"].get<double>(),
                    g["empty_kernel_us"].get<double>());
        if (g["break_even_replays"].is_null()) {
            std::printf("no break-even (replay is not cheaper)\n");
        } else {
            std::printf("pays off after %.1f replays\n", g["break_even_replays"].get<double>());
        }
    }
}

// Writes each returned output to DIR/<name>.bin and DIR/outputs.json.
void keepOutputs(const std::string& dir, const VariantResult& v) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        throw Failure{kUsage, "cannot create " + dir + ": " + ec.message()};
    }
    json index = json::array();
    for (const auto& o : v.outputs) {
        std::string path = (std::filesystem::path(dir) / (o.name + ".bin")).string();
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(o.data.data()), static_cast<std::streamsize>(o.data.size()));
        if (!out) {
            throw Failure{kUsage, "cannot write " + path};
        }
        index.push_back(json{{"name", o.name},
                             {"type", elemTypeName(o.type)},
                             {"count", o.count},
                             {"digest", o.digest},
                             {"file", o.name + ".bin"}});
    }
    if (!writeJson(json{{"schema", "lowerscope.outputs/1"}, {"kernel", v.kernel}, {"outputs", index}},
                   (std::filesystem::path(dir) / "outputs.json").string())) {
        throw Failure{kUsage, "cannot write " + dir + "/outputs.json"};
    }
}

int runRun(const RunArgs& a) {
    try {
        Toolchain tc = discoverToolchain();
        BuiltLaunch b = buildLaunch(tc, a.file, a.options, a.launch.kernel, a.launch);
        auto runner = makeRunner(a.launch);
        RunRequest req = baseRequest(a.launch);
        req.variants.push_back(makeVariant(b.resolved, b.cubin, b.mangled));
        RunResult r = execute(*runner, req);
        if (a.launch.profileLaunches > 0) {
            const VariantResult& v = r.variants.at(0);
            SampleStats st = computeStats(v.samplesMs);
            json doc{{"schema", "lowerscope.profile-launches/1"},
                     {"file", b.file},
                     {"kernel", b.demangled},
                     {"launch", {{"kernel", v.kernel}, {"grid", b.resolved.grid}, {"block", b.resolved.block}}},
                     {"samples_ms", v.samplesMs},
                     {"median_ms", st.median}};
            if (!a.launch.jsonOut.empty() && !writeJson(doc, a.launch.jsonOut)) {
                return kUsage;
            }
            if (a.launch.jsonOut != "-") {
                std::printf("%s: %d plain launches (L2 flushed before each), event median %s\n", b.demangled.c_str(),
                            a.launch.profileLaunches, fmtMs(st.median).c_str());
            }
            return kOk;
        }
        json doc = runDocument(b, r.variants.at(0), r.device);
        if (!a.launch.keepOutputs.empty()) {
            keepOutputs(a.launch.keepOutputs, r.variants[0]);
        }
        if (!a.launch.jsonOut.empty() && !writeJson(doc, a.launch.jsonOut)) {
            return kUsage;
        }
        if (a.launch.jsonOut != "-") {
            printRun(doc);
        }
        for (const auto& o : r.variants[0].outputs) {
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
    Toolchain tc = discoverToolchain();
    const std::string fileB = a.fileB.empty() ? a.file : a.fileB;
    const std::string kernelB = a.kernelB.empty() ? a.launch.kernel : a.kernelB;
    BuiltLaunch ba = buildLaunch(tc, a.file, optsA, a.launch.kernel, a.launch);
    // With a different kernel or file, B takes its own sidecar entry (flags still override).
    BuiltLaunch bb = buildLaunch(tc, fileB, optsB, kernelB.empty() ? ba.spec.kernel : kernelB, a.launch);
    auto runner = makeRunner(a.launch);
    RunRequest req = baseRequest(a.launch);
    req.variants.push_back(makeVariant(ba.resolved, ba.cubin, ba.mangled, "A"));
    req.variants.push_back(makeVariant(bb.resolved, bb.cubin, bb.mangled, "B"));
    RunResult r = execute(*runner, req);
    json docA = runDocument(ba, r.variants.at(0), r.device);
    json docB = runDocument(bb, r.variants.at(1), r.device);
    RatioStats ratio = compareSamples(r.variants[0].samplesMs, r.variants[1].samplesMs);
    bool agree = true;
    json agreement = json::array();
    for (const auto& g : r.agreement) {
        agree = agree && g.agree;
        agreement.push_back(toJson(g));
    }
    if (r.agreement.empty()) {
        agree = false;  // nothing to compare counts as "not shown to agree"
    }
    std::string verdict = !ratio.significant ? "no significant difference"
                          : ratio.ratio < 1  ? "B is faster"
                                             : "A is faster";
    json doc{{"schema", "lowerscope.compare/1"},
             {"a", docA},
             {"b", docB},
             {"build_options_a", a.optsA},
             {"build_options_b", a.optsB},
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
             {"tolerance", {{"atol", a.launch.atol}, {"rtol", a.launch.rtol}}}};
    if (!a.launch.keepOutputs.empty()) {
        keepOutputs((std::filesystem::path(a.launch.keepOutputs) / "a").string(), r.variants[0]);
        keepOutputs((std::filesystem::path(a.launch.keepOutputs) / "b").string(), r.variants[1]);
    }
    if (!a.launch.jsonOut.empty() && !writeJson(doc, a.launch.jsonOut)) {
        throw Failure{kUsage, "cannot write " + a.launch.jsonOut};
    }
    return CompareRun{std::move(doc), ba.spec, bb.spec};
}

// Prints from the document alone, so a saved document prints the same.
void printCompare(const json& doc) {
    printRun(doc["a"], "A [" + doc.value("build_options_a", std::string()) + "]");
    printRun(doc["b"], "B [" + doc.value("build_options_b", std::string()) + "]");
    const json& ratio = doc["ratio"];
    std::string why;
    if (!ratio.value("significant", false) && ratio.contains("intervals_overlap"))
        why = " (" + insignificanceReason(ratio["intervals_overlap"].get<bool>(), ratio.value("min_effect", kMinEffect)) + ")";
    std::printf("B/A = %.4f  [%.4f, %.4f] 95%% CI over %zu interleaved pairs: %s%s\n", ratio["b_over_a"].get<double>(),
                ratio["ci95"][0].get<double>(), ratio["ci95"][1].get<double>(), ratio["pairs"].get<size_t>(),
                ratio["verdict"].get<std::string>().c_str(), why.c_str());
    if (doc.contains("buffers_shared"))
        std::printf("%s\n", doc["buffers_shared"].get<bool>() ? "A and B were timed on the same device buffers"
                                                               : "A and B were timed on separate device buffers");
    const double atol = doc["tolerance"]["atol"].get<double>(), rtol = doc["tolerance"]["rtol"].get<double>();
    for (const auto& gj : doc["agreement"]) {
        OutputAgreement g;
        fromJson(gj, g);
        std::printf("output %s: %s (max abs error %.3g, max rel error %.3g, %lld of %lld beyond atol %.1g + "
                    "rtol %.1g)\n",
                    g.name.c_str(), g.sameDigest ? "identical" : g.agree ? "agree within tolerance" : "DIFFER",
                    g.maxAbsError, g.maxRelError, static_cast<long long>(g.mismatches),
                    static_cast<long long>(g.count), atol, rtol);
    }
}

int runCompare(const CompareArgs& a) {
    try {
        CompareRun run = compareDocument(a);
        if (a.launch.jsonOut != "-") {
            printCompare(run.doc);
        }
        return kOk;
    } catch (const Failure& f) {
        std::cerr << "lowerscope-cli compare: " << f.message << '\n';
        return f.code;
    }
}

// Reads DIR/outputs.json and the .bin files it names.
std::vector<std::pair<OutputReport, std::vector<uint8_t>>> readKept(const std::string& dir) {
    std::ifstream in((std::filesystem::path(dir) / "outputs.json").string());
    if (!in) {
        throw Failure{kUsage, "cannot read " + dir + "/outputs.json"};
    }
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("outputs") || !j["outputs"].is_array()) {
        throw Failure{kUsage, dir + "/outputs.json is not a lowerscope.outputs/1 document"};
    }
    std::vector<std::pair<OutputReport, std::vector<uint8_t>>> out;
    for (const auto& o : j["outputs"]) {
        OutputReport r;
        r.name = o.value("name", "");
        auto t = parseElemType(o.value("type", ""));
        if (!t || r.name.empty()) {
            throw Failure{kUsage, dir + "/outputs.json: bad entry"};
        }
        r.type = *t;
        r.count = o.value("count", int64_t(0));
        std::ifstream bin((std::filesystem::path(dir) / o.value("file", r.name + ".bin")).string(), std::ios::binary);
        std::vector<uint8_t> data((std::istreambuf_iterator<char>(bin)), std::istreambuf_iterator<char>());
        out.emplace_back(r, std::move(data));
    }
    return out;
}

int runCompareOutputs(const CompareOutputsArgs& a) {
    try {
        auto A = readKept(a.dirA);
        auto B = readKept(a.dirB);
        json results = json::array();
        bool all = true;
        for (const auto& [ra, da] : A) {
            const std::vector<uint8_t>* db = nullptr;
            const OutputReport* rb = nullptr;
            for (const auto& [r, d] : B) {
                if (r.name == ra.name) {
                    db = &d;
                    rb = &r;
                }
            }
            if (!db) {
                std::printf("output %s: missing in %s\n", ra.name.c_str(), a.dirB.c_str());
                all = false;
                continue;
            }
            BufferComparison c = rb->type == ra.type ? compareBuffers(ra.type, da, *db, a.atol, a.rtol)
                                                     : BufferComparison{0, 0, 0, 0, -1, true};
            all = all && c.agree();
            results.push_back(json{{"name", ra.name},
                                   {"agree", c.agree()},
                                   {"size_mismatch", c.sizeMismatch},
                                   {"count", c.count},
                                   {"mismatches", c.mismatches},
                                   {"max_abs_error", c.maxAbsError},
                                   {"max_rel_error", c.maxRelError},
                                   {"first_mismatch", c.firstMismatch}});
            if (a.jsonOut != "-") {
                std::printf("output %s: %s (max abs error %.3g, max rel error %.3g, %lld of %lld beyond tolerance)\n",
                            ra.name.c_str(), c.sizeMismatch ? "DIFFERENT SIZE/TYPE" : c.agree() ? "agree" : "DIFFER",
                            c.maxAbsError, c.maxRelError, static_cast<long long>(c.mismatches),
                            static_cast<long long>(c.count));
            }
        }
        if (!a.jsonOut.empty() &&
            !writeJson(json{{"schema", "lowerscope.compare-outputs/1"}, {"agree", all}, {"outputs", results}},
                       a.jsonOut)) {
            return kUsage;
        }
        return all ? kOk : kKernelError;
    } catch (const Failure& f) {
        std::cerr << "lowerscope-cli compare-outputs: " << f.message << '\n';
        return f.code;
    }
}

void addLaunchFlags(CLI::App& cmd, LaunchArgs& a, bool compare) {
    cmd.add_option("--kernel", a.kernel, "kernel name (plain or mangled); default: the sidecar's first kernel")
        ->type_name("NAME");
    cmd.add_option("--grid", a.grid, "grid: an expression or x,y,z expressions, e.g. 'ceil(n/256)'")->type_name("G");
    cmd.add_option("--block", a.block, "block: an expression or x,y,z expressions")->type_name("B");
    cmd.add_option("--shared", a.shared, "dynamic shared memory, bytes (expression)")->type_name("BYTES");
    cmd.add_option("--arg", a.args,
                   "argument in parameter order: n=1<<20, a=2.5, x=f32[n]:random(seed=7)|zeros|ones|iota|const(V) "
                   "(repeatable; with a sidecar, overrides its argument of that name)")
        ->type_name("SPEC");
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
                   "deadline: the runner is killed when it reports nothing for S seconds (a hung kernel; default 10)")
        ->check(CLI::PositiveNumber)
        ->type_name("S");
    cmd.add_flag("--graph", a.graph, "also measure CUDA graph costs in cold mode (always done in hot mode)");
    cmd.add_option("--keep-outputs", a.keepOutputs,
                   compare ? "save outputs to DIR/a and DIR/b (<name>.bin + outputs.json)"
                           : "save outputs to DIR (<name>.bin + outputs.json) for compare-outputs")
        ->type_name("DIR");
    cmd.add_option("--runner", a.runner,
                   "command line that starts the runner, e.g. 'ssh gpu1 lowerscope-runner' (default: "
                   "$LOWERSCOPE_RUNNER or lowerscope-runner next to this program)")
        ->type_name("CMD");
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
        cmd.add_flag("--separate-buffers", a.separateBuffers,
                     "time A and B each on its own device buffers; by default both are timed on the same buffers "
                     "(when their arguments match), so where the buffers landed in memory cannot bias B/A");
    }
}

} // namespace

CompareRun runCompareDocument(const CompareArgs& args) { return compareDocument(args); }

void printCompareSummary(const nlohmann::json& compareDoc) { printCompare(compareDoc); }

void addLaunchFlagsTo(CLI::App& cmd, LaunchArgs& args, bool compare) { addLaunchFlags(cmd, args, compare); }

void registerRunCommands(CLI::App& app, int& exitCode) {
    auto runArgs = std::make_shared<RunArgs>();
    CLI::App* run = app.add_subcommand(
        "run", "Build a kernel and time it on the GPU through lowerscope-runner (cold: L2 flushed, events behind a "
               "spin gate; hot: CUDA graph replays). Without --kernel/--grid/--arg the sidecar FILE.json is used.\n"
               "Exit: 0 measured, 1 build error or kernel fault/timeout, 2 usage error, missing tool or no GPU.");
    run->add_option("file", runArgs->file, "CUDA source file")->required()->type_name("FILE.cu");
    addBuildOptionFlags(*run, runArgs->options);
    auto runProject = std::make_shared<std::string>();
    run->add_option("--project", *runProject, "compile_commands.json (or its folder): the file's project flags")
        ->type_name("PATH");
    addLaunchFlags(*run, runArgs->launch, false);
    run->callback([run, runArgs, runProject, &exitCode] {
        if (!runProject->empty()) {
            try {
                runArgs->options = overlayGivenFlags(*run, projectOptions(*runProject, runArgs->file).options, runArgs->options);
            } catch (const std::exception& e) {
                std::cerr << "lowerscope-cli run: --project: " << e.what() << '\n';
                exitCode = kUsage;
                return;
            }
        }
        exitCode = runRun(*runArgs);
    });

    auto cmpArgs = std::make_shared<CompareArgs>();
    CLI::App* cmp = app.add_subcommand(
        "compare", "Time two builds (or two files / kernels) interleaved A B A B and report the ratio B/A with its "
                   "95% interval, whether the difference is significant, and whether the outputs agree.\n"
                   "Exit: 0 compared, 1 build error or kernel fault/timeout, 2 usage error, missing tool or no GPU.");
    cmp->add_option("file", cmpArgs->file, "CUDA source file (A)")->required()->type_name("FILE.cu");
    cmp->add_option("file_b", cmpArgs->fileB, "CUDA source file for B (default: the same file)")->type_name("FILE_B.cu");
    cmp->add_option("--file-b", cmpArgs->fileB, "CUDA source file for B")->type_name("FILE.cu");
    cmp->add_option("--a", cmpArgs->optsA, "build options of A, e.g. \"--arch sm_90 -O3\"")->type_name("OPTS");
    cmp->add_option("--b", cmpArgs->optsB, "build options of B, e.g. \"--fast-math\"")->type_name("OPTS");
    cmp->add_option("--kernel-b", cmpArgs->kernelB, "kernel of B (default: the same as A)")->type_name("NAME");
    cmp->add_option("--project", cmpArgs->project, "compile_commands.json (or its folder): the base of --a and --b")
        ->type_name("PATH");
    addLaunchFlags(*cmp, cmpArgs->launch, true);
    cmp->callback([cmpArgs, &exitCode] { exitCode = runCompare(*cmpArgs); });

    auto coArgs = std::make_shared<CompareOutputsArgs>();
    CLI::App* co = app.add_subcommand(
        "compare-outputs", "Compare outputs saved by run/compare --keep-outputs: max abs/rel error and the count of "
                           "elements beyond atol + rtol*|a|. Exit 0 when all agree, 1 when not, 2 on errors.");
    co->add_option("dir_a", coArgs->dirA, "outputs of A (reference)")->required()->type_name("DIR");
    co->add_option("dir_b", coArgs->dirB, "outputs of B")->required()->type_name("DIR");
    co->add_option("--atol", coArgs->atol, "absolute tolerance (default 1e-5)");
    co->add_option("--rtol", coArgs->rtol, "relative tolerance (default 1e-4)");
    co->add_option("--json", coArgs->jsonOut, "write the result as JSON to OUT ('-' = stdout)")->type_name("OUT");
    co->callback([coArgs, &exitCode] { exitCode = runCompareOutputs(*coArgs); });
}

} // namespace lowerscope::cli
