// lowerscope._native: the Python module's C++ half. Each function wraps the core's own API (the
// same calls the CLI and the GUI make) and answers one JSON text:
//   {"ok": true,  "document": {...}, "warnings": [...], ...}
//   {"ok": false, "error": {"kind": "...", "code": N, "message": "...", "diagnostics": [...]}}
// The Python half (lowerscope/__init__.py) turns these into typed objects and exceptions; the
// messages are the CLI's (core's LaunchBuildError, measurementFailure, a build's error). The GIL is
// released while tools, the runner or the analysis run.
#include "core/analysis/inspect.h"
#include "core/analysis/lowering.h"
#include "core/analysis/source_files.h"
#include "core/build/build.h"
#include "core/build/demangle.h"
#include "core/build/input.h"
#include "core/build/json_io.h"
#include "core/build/kernel_name.h"
#include "core/build/toolchain.h"
#include "core/experiment/series.h"
#include "core/experiment/series_job.h"
#include "core/parse/diagnostics.h"
#include "core/parse/ptx_parser.h"
#include "core/run/argspec.h"
#include "core/run/built_launch.h"
#include "core/run/measure_job.h"
#include "core/run/measurement.h"
#include "core/run/profile_job.h"
#include "core/run/provenance.h"
#include "core/run/runner_client.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using nlohmann::json;

namespace lowerscope::python {
namespace {

std::string dumpJson(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A failure as the Python half raises it: kind picks the exception class.
struct Failure {
    std::string kind; // "usage", "build", "compile", "run", "profile", "tool"
    int code = 2;     // the CLI's exit code for it
    std::string message;
    std::vector<std::string> diagnostics;
    json extra = json::object();
};

std::string failJson(const Failure& f) {
    json e{{"kind", f.kind}, {"code", f.code}, {"message", f.message}, {"diagnostics", f.diagnostics}};
    for (auto it = f.extra.begin(); it != f.extra.end(); ++it) e[it.key()] = it.value();
    return dumpJson(json{{"ok", false}, {"error", e}});
}

BuildOptions optionsFrom(const std::string& optionsJson) {
    BuildOptions o;
    if (!optionsJson.empty()) o = json::parse(optionsJson).get<BuildOptions>();
    if (std::string why = checkBuildOptions(o); !why.empty()) throw Failure{"usage", 2, why, {}, {}};
    return o;
}

Toolchain toolchain(const std::string& toolsDir) {
    DiscoveryOptions d;
    d.projectToolsDir = toolsDir;
    return discoverToolchain(d);
}

std::vector<std::string> diagnosticsOf(const BuildResult& r) {
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics) out.push_back(formatDiagnostic(d));
    return out;
}

// The CLI's words for a build that did not succeed (cmd_build.cpp / cmd_inspect.cpp).
void throwIfFailed(const BuildResult& r, const std::string& path) {
    if (r.setupError) throw Failure{"tool", 2, "error: " + r.error, diagnosticsOf(r), {}};
    if (r.compileError) throw Failure{"compile", 1, path + ": compilation failed", diagnosticsOf(r), {}};
    if (!r.ok) throw Failure{"build", 1, "error: " + r.error, diagnosticsOf(r), {}};
}

BuildInput inputFor(const std::string& path, const BuildOptions& options, const std::string& member) {
    BuildInput in = describeInput(path, options);
    in.member = member;
    return in;
}

BuildControl controlFor(bool useCache, const std::string& cacheDir, double timeoutS) {
    BuildControl c;
    c.useCache = useCache;
    c.cacheDir = cacheDir;
    c.timeout = std::chrono::milliseconds(static_cast<long long>(timeoutS * 1000));
    return c;
}

std::string doctor(const std::string& toolsDir) {
    py::gil_scoped_release nogil;
    const Toolchain tc = toolchain(toolsDir);
    return dumpJson(json{{"ok", true},
                         {"document", json{{"schema", "lowerscope.doctor/1"}, {"toolchain", tc}, {"cache_dir", cacheDirectory()}}},
                         {"problems", tc.problems()}});
}

std::string build(const std::string& path, const std::string& optionsJson, const std::string& member, bool useCache,
                  const std::string& cacheDir, double timeoutS, const std::string& toolsDir) {
    try {
        py::gil_scoped_release nogil;
        const BuildOptions options = optionsFrom(optionsJson);
        const Toolchain tc = toolchain(toolsDir);
        const BuildInput in = inputFor(path, options, member);
        const BuildResult r = buildInput(tc, in, controlFor(useCache, cacheDir, timeoutS));
        throwIfFailed(r, path);
        json doc = buildReportJson(path, tc, in.options, r);
        json files = json::array();
        for (const auto& f : collectSourceFiles(ptxFileTable(r.ptx), {}, sourceContextFor(in, tc)))
            files.push_back(json{{"path", f.path},
                                 {"resolved", f.resolved.empty() ? json(nullptr) : json(f.resolved)},
                                 {"kind", sourceFileKindName(f.kind)},
                                 {"read_only", f.readOnly}});
        doc["files"] = std::move(files);
        doc["provenance"] = buildProvenance(tc, path, in.options);
        return dumpJson(json{{"ok", true}, {"document", doc}, {"warnings", diagnosticsOf(r)}});
    } catch (const Failure& f) {
        return failJson(f);
    } catch (const std::exception& e) {
        return failJson(Failure{"usage", 2, std::string("error: ") + e.what(), {}, {}});
    }
}

std::string inspect(const std::string& path, const std::string& optionsJson, const std::string& member,
                    const std::string& kernel, const std::string& line, const std::string& frame, bool useCache,
                    const std::string& toolsDir) {
    try {
        py::gil_scoped_release nogil;
        const std::optional<InlineAttribution> attribution = parseAttribution(frame);
        if (!attribution)
            throw Failure{"usage", 2, "error: frame is call-site, callee or any, not '" + frame + "'", {}, {}};
        const BuildOptions options = optionsFrom(optionsJson);
        const Toolchain tc = toolchain(toolsDir);
        const BuildInput in = inputFor(path, options, member);
        const BuildResult r = buildInput(tc, in, controlFor(useCache, "", 120));
        throwIfFailed(r, path);
        const LoweringModel model = buildLoweringModel(r, sourceContextFor(in, tc));
        if (std::string why; !kernel.empty() && !model.kernel(kernel, &why))
            throw Failure{"usage", 2, "error: " + why, {}, {}};
        InspectOptions o;
        o.sourceFile = path;
        o.kernel = kernel;
        o.frame = *attribution;
        if (!line.empty()) {
            std::string error;
            if (!resolveLineQuery(model, line, o.queryFile, o.line, error))
                throw Failure{"usage", 2, "error: " + error, {}, {}};
        }
        json doc = inspectJson(model, o);
        doc["provenance"] = buildProvenance(tc, path, in.options);
        json out{{"ok", true}, {"document", doc}, {"warnings", diagnosticsOf(r)}};
        if (o.line > 0) out["line_report"] = lineReport(model, o);
        return dumpJson(out);
    } catch (const Failure& f) {
        return failJson(f);
    } catch (const std::exception& e) {
        return failJson(Failure{"usage", 2, std::string("error: ") + e.what(), {}, {}});
    }
}

// ---------------------------------------------------------------- launches

// The launch as Python gave it, in the CLI / sidecar language.
struct LaunchArgs {
    std::string kernel;                     // "" = the sidecar's first kernel, else the build's first
    std::vector<std::string> grid, block;   // empty = the sidecar's / the guess
    std::string shared;
    std::vector<std::string> args;          // NAME=SPEC, replacing the sidecar's argument of that name
    std::vector<std::string> outputs;
    std::string bytes, flops;
};

LaunchArgs launchArgsFrom(const json& j) {
    LaunchArgs a;
    a.kernel = j.value("kernel", "");
    a.grid = j.value("grid", std::vector<std::string>{});
    a.block = j.value("block", std::vector<std::string>{});
    a.shared = j.value("shared", "");
    a.args = j.value("args", std::vector<std::string>{});
    a.outputs = j.value("outputs", std::vector<std::string>{});
    a.bytes = j.value("bytes", "");
    a.flops = j.value("flops", "");
    return a;
}

// The kernel to run when none was named: the sidecar's first, as the CLI does.
std::string kernelFor(const std::string& file, const std::string& given) {
    if (!given.empty()) return given;
    const std::string sidecar = sidecarPathFor(file);
    std::error_code ec;
    if (std::filesystem::exists(sidecar, ec)) {
        const std::vector<LaunchSpec> specs = loadSidecar(sidecar);
        if (!specs.empty()) return specs.front().kernel;
    }
    return "";
}

// One built kernel, its side for the runner and its launch (sidecar or PTX guess, then the flags).
struct Side {
    BuildResult build;
    MeasureSide side;
    LaunchText launch;
    std::string launchOrigin;
};

Side buildSide(const Toolchain& tc, const std::string& file, const BuildOptions& options, const LaunchArgs& a,
               const std::string& label, std::vector<std::string>& warnings, bool keepBuild) {
    Side s;
    BuildResult r = buildFile(tc, file, options);
    for (const auto& d : r.diagnostics)
        if (d.severity == Severity::Error || d.severity == Severity::Warning) warnings.push_back(formatDiagnostic(d));
    if (r.setupError) throw Failure{"tool", 2, r.error, diagnosticsOf(r), {}};
    if (r.compileError) throw Failure{"compile", 1, file + ": compilation failed", diagnosticsOf(r), {}};
    if (r.cubin.empty() || r.ptx.empty()) throw Failure{"build", 1, file + ": build failed: " + r.error, diagnosticsOf(r), {}};
    if (!r.ok) warnings.push_back("warning: " + r.error + " (the cubin was built; measuring anyway)");
    std::vector<KernelName> names;
    for (const auto& k : r.kernels) names.push_back(KernelName{k.mangled, k.name});
    if (names.empty()) throw Failure{"build", 1, file + ": the build has no kernel", {}, {}};
    const std::string want = kernelFor(file, a.kernel);
    int found = 0;
    if (!want.empty()) {
        std::string why;
        found = findKernel(names, want, &why);
        if (found < 0) throw Failure{"usage", 2, file + ": " + why, {}, {}};
    }
    const KernelArtifacts& k = r.kernels[size_t(found)];
    s.side.label = label;
    s.side.mangled = k.mangled;
    s.side.signature = k.name.empty() ? demangle(k.mangled) : k.name;
    s.side.file = file;
    s.side.buildOptions = shellQuote(toNvccArgs(options));
    const PtxListing ptx = parsePtx(r.ptx);
    const PtxFunction* fn = nullptr;
    for (const auto& f : ptx.functions)
        if (f.isEntry && f.name == k.mangled) fn = &f;
    if (!fn) throw Failure{"build", 1, "kernel " + k.mangled + " not found in the PTX", {}, {}};
    s.side.params = fn->params;
    s.launch = defaultLaunch(file, want.empty() ? s.side.signature : want, fn->params, &s.launchOrigin, &fn->launchBounds);
    if (!a.grid.empty()) s.launch.grid = a.grid;
    if (!a.block.empty()) s.launch.block = a.block;
    if (!a.shared.empty()) s.launch.sharedBytes = a.shared;
    for (const auto& arg : a.args) {
        if (arg.find('=') == std::string::npos)
            throw Failure{"usage", 2, "argument '" + arg + "' is not NAME=SPEC", {}, {}};
        setLaunchArg(s.launch, arg);
    }
    if (!a.outputs.empty()) s.launch.outputs = a.outputs;
    if (!a.bytes.empty()) s.launch.bytes = a.bytes;
    if (!a.flops.empty()) s.launch.flops = a.flops;
    s.side.cubin = r.cubin;
    if (keepBuild) s.build = std::move(r);
    return s;
}

PreparedSide prepare(Side& s, const LaunchText& launch) {
    s.side.spec.kernel = s.side.mangled;
    applyLaunchText(launch, s.side.spec);
    try {
        return prepareSide(s.side);
    } catch (const std::exception& e) {
        throw Failure{"usage", 2, (s.side.label.empty() ? "" : s.side.label + ": ") + e.what(), {}, {}};
    }
}

MeasureSettings settingsFrom(const json& j) {
    MeasureSettings m;
    const std::string mode = j.value("mode", "auto");
    const std::optional<MeasureMode> parsed = parseMode(mode);
    if (!parsed) throw Failure{"usage", 2, "mode is auto, cold or hot, not '" + mode + "'", {}, {}};
    m.mode = *parsed;
    m.stop.minSamples = j.value("min_samples", m.stop.minSamples);
    m.stop.minGpuTimeS = j.value("min_time_s", m.stop.minGpuTimeS);
    m.stop.maxNoise = j.value("max_noise_pct", m.stop.maxNoise * 100) / 100;
    m.stop.wallLimitS = j.value("max_time_s", m.stop.wallLimitS);
    m.atol = j.value("atol", m.atol);
    m.rtol = j.value("rtol", m.rtol);
    m.returnOutputs = j.value("return_outputs", false);
    return m;
}

std::unique_ptr<ProcessRunner> runnerFor(const std::vector<std::string>& command, double deadlineS) {
    RunnerConfig config;
    config.command = command;
    config.deadline = std::chrono::milliseconds(int64_t(std::max(1.0, deadlineS) * 1000));
    return std::make_unique<ProcessRunner>(config);
}

Failure runFailure(const MeasurementRecord& record) {
    const LaunchBuildError e = measurementFailure(*record.error);
    Failure f{"run", e.code, e.what(), {}, {}};
    f.extra["run_error_kind"] = runErrorKindName(record.error->kind);
    if (!record.runnerStderr.empty()) f.extra["runner_stderr"] = record.runnerStderr;
    return f;
}

// `run` (one side) and `compare` (two): built, measured interleaved, the document with provenance.
std::string measureSidesJson(const json& request, const std::vector<std::string>& runner, bool compare) {
    try {
        py::gil_scoped_release nogil;
        std::vector<std::string> warnings;
        const Toolchain tc = toolchain(request.value("tools_dir", ""));
        const LaunchArgs launch = launchArgsFrom(request.at("launch"));
        const MeasureSettings settings = settingsFrom(request.at("settings"));
        const std::string file = request.at("file");
        std::vector<Side> sides;
        std::vector<BuildOptions> options;
        options.push_back(optionsFrom(request.at("options").dump()));
        sides.push_back(buildSide(tc, file, options[0], launch, compare ? "A" : "", warnings, false));
        if (compare) {
            options.push_back(optionsFrom(request.at("options_b").dump()));
            LaunchArgs launchB = launch;
            const std::string kernelB = request.value("kernel_b", "");
            if (!kernelB.empty()) launchB.kernel = kernelB;
            const std::string fileB = request.value("file_b", "");
            sides.push_back(buildSide(tc, fileB.empty() ? file : fileB, options[1], launchB, "B", warnings, false));
        }
        std::vector<PreparedSide> prepared;
        // One launch for both sides (as the GUI's A/B): A's, with B's kernel when it differs.
        for (auto& s : sides) prepared.push_back(prepare(s, sides.front().launch));
        for (const auto& p : prepared)
            for (const auto& w : p.warnings) warnings.push_back("warning: " + w);
        auto proc = runnerFor(runner, request.value("deadline_s", 10.0));
        MeasurementRecord record = measure(*proc, prepared, settings);
        proc->stop();
        if (record.error) throw runFailure(record);
        json doc = writeMeasurement(record);
        json prov = json::array();
        for (size_t i = 0; i < sides.size(); ++i)
            prov.push_back(buildProvenance(tc, sides[i].side.file, options[i]));
        doc["provenance"] = measurementProvenance(prov, record);
        return dumpJson(json{{"ok", true},
                             {"document", doc},
                             {"warnings", warnings},
                             {"launch_origin", sides.front().launchOrigin}});
    } catch (const Failure& f) {
        return failJson(f);
    } catch (const std::exception& e) {
        return failJson(Failure{"usage", 2, std::string("error: ") + e.what(), {}, {}});
    }
}

std::string run(const std::string& requestJson, const std::vector<std::string>& runner) {
    return measureSidesJson(json::parse(requestJson), runner, false);
}
std::string compare(const std::string& requestJson, const std::vector<std::string>& runner) {
    return measureSidesJson(json::parse(requestJson), runner, true);
}

std::string profile(const std::string& requestJson, const std::vector<std::string>& runner) {
    try {
        const json request = json::parse(requestJson);
        py::gil_scoped_release nogil;
        std::vector<std::string> warnings;
        const Toolchain tc = toolchain(request.value("tools_dir", ""));
        const std::string file = request.at("file");
        const BuildOptions options = optionsFrom(request.at("options").dump());
        Side s = buildSide(tc, file, options, launchArgsFrom(request.at("launch")), "", warnings, true);
        auto model = std::make_shared<LoweringModel>(buildLoweringModel(s.build));
        const SassFunction* sass = nullptr;
        for (const auto& k : model->kernels)
            if (k.mangled == s.side.mangled) sass = &k.sass;
        if (!sass) throw Failure{"build", 1, "kernel " + s.side.mangled + " has no SASS in this build", {}, {}};
        ProfileJobRequest job;
        job.side = s.side;
        job.sass = std::shared_ptr<const SassFunction>(model, sass);
        job.arch = model->arch;
        job.launch = s.launch;
        if (request.contains("collect")) {
            std::string error;
            if (!parseProfileCollections(request.at("collect").get<std::string>(), job.options.collections, error))
                throw Failure{"usage", 2, error, {}, {}};
        }
        job.deadlineS = request.value("deadline_s", 60.0);
        job.runnerCommand = runner;
        const ProfileJobOutcome out = runProfileJob(job, nullptr, {});
        if (!out.launchError.empty()) throw Failure{"usage", 2, out.launchError, {}, {}};
        if (out.result.exitCode != 0 && !request.value("partial", false)) {
            std::string message;
            for (const auto& e : out.result.errors) message += (message.empty() ? "" : "; ") + e;
            Failure f{"profile", out.result.exitCode, message.empty() ? "profiling failed" : message, {}, {}};
            f.extra["document"] = out.result.document;
            throw f;
        }
        json doc = out.result.document;
        doc["provenance"] = buildProvenance(tc, file, options);
        return dumpJson(json{{"ok", true}, {"document", doc}, {"warnings", warnings}, {"errors", out.result.errors}});
    } catch (const Failure& f) {
        return failJson(f);
    } catch (const std::exception& e) {
        return failJson(Failure{"usage", 2, std::string("error: ") + e.what(), {}, {}});
    }
}

std::string series(const std::string& requestJson, const std::vector<std::string>& runner) {
    try {
        const json request = json::parse(requestJson);
        py::gil_scoped_release nogil;
        LocalSeriesRequest r;
        try {
            r.spec = parseSeriesSpec(request.at("vary").get<std::string>());
        } catch (const std::invalid_argument& e) {
            throw Failure{"usage", 2, std::string("--vary: ") + e.what(), {}, {}};
        }
        r.toolchain = toolchain(request.value("tools_dir", ""));
        r.sourcePath = request.at("file");
        r.base = optionsFrom(request.at("options").dump());
        const LaunchArgs launch = launchArgsFrom(request.at("launch"));
        // The launch every point starts from: the first point's build gives the sidecar's / the guess.
        std::vector<std::string> warnings;
        Side first = buildSide(r.toolchain, r.sourcePath, r.base, launch, "", warnings, false);
        r.kernel = first.side.mangled;
        r.launch = first.launch;
        const MeasureSettings settings = settingsFrom(request.at("settings"));
        r.mode = modeName(settings.mode);
        r.stop = settings.stop;
        r.deadlineS = request.value("deadline_s", 10.0);
        r.runnerCommand = runner;
        const LocalSeriesOutcome out = runLocalSeriesJob(r, nullptr, {});
        for (const auto& w : out.warnings) warnings.push_back(w);
        if (!out.ok) throw Failure{"run", 1, out.error, {}, {}};
        json doc = out.document;
        doc["provenance"] = buildProvenance(r.toolchain, r.sourcePath, r.base);
        return dumpJson(json{{"ok", true}, {"document", doc}, {"warnings", warnings}});
    } catch (const Failure& f) {
        return failJson(f);
    } catch (const std::exception& e) {
        return failJson(Failure{"usage", 2, std::string("error: ") + e.what(), {}, {}});
    }
}

// Reads a measurement document (the one reader): the same document written back, or an error.
std::string readMeasurementDocument(const std::string& text) {
    try {
        const MeasurementRecord record = readMeasurementText(text);
        json doc = writeMeasurement(record);
        const json in = json::parse(text);
        if (in.is_object() && in.contains("provenance")) doc["provenance"] = in.at("provenance");
        return dumpJson(json{{"ok", true}, {"document", doc}});
    } catch (const std::exception& e) {
        return failJson(Failure{"usage", 2, e.what(), {}, {}});
    }
}

std::string defaultOptions() { return dumpJson(json(BuildOptions{})); }

} // namespace
} // namespace lowerscope::python

PYBIND11_MODULE(_native, m) {
    using namespace lowerscope::python;
    m.doc() = "Lowerscope's core, for the lowerscope package (answers JSON text)";
    m.def("doctor", &doctor, py::arg("tools_dir") = "");
    m.def("build", &build, py::arg("path"), py::arg("options"), py::arg("member") = "", py::arg("use_cache") = true,
          py::arg("cache_dir") = "", py::arg("timeout_s") = 120.0, py::arg("tools_dir") = "");
    m.def("inspect", &inspect, py::arg("path"), py::arg("options"), py::arg("member") = "", py::arg("kernel") = "",
          py::arg("line") = "", py::arg("frame") = "any", py::arg("use_cache") = true, py::arg("tools_dir") = "");
    m.def("run", &run, py::arg("request"), py::arg("runner"));
    m.def("compare", &compare, py::arg("request"), py::arg("runner"));
    m.def("profile", &profile, py::arg("request"), py::arg("runner"));
    m.def("series", &series, py::arg("request"), py::arg("runner"));
    m.def("read_measurement", &readMeasurementDocument, py::arg("text"));
    m.def("default_options", &defaultOptions);
    m.attr("version") = "0.1.0";
}
