// A parameter series run (series_job.h).
#include "core/experiment/series_job.h"

#include "core/analysis/diff.h"
#include "core/run/runner_client.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace lowerscope {

namespace {

void checkCancel(const SeriesJobHooks& h) {
    if (h.cancel && h.cancel->load()) throw SeriesCancelled();
}

// Registers, spill bytes and theoretical occupancy of the built kernel, as the build reports them.
void fillResources(SeriesPoint& p, const BuiltLaunch& b, const BuildOptions& o) {
    for (const auto& k : b.build.kernels) {
        if (k.mangled != b.mangled) continue;
        p.registers = k.resources.registers;
        if (k.resources.spillStores >= 0 && k.resources.spillLoads >= 0)
            p.spillBytes = k.resources.spillStores + k.resources.spillLoads;
        const auto& v = b.side.variant;
        const int threads = int(v.block[0] * v.block[1] * v.block[2]);
        if (k.resources.registers >= 0 && k.resources.sharedBytes >= 0) {
            const OccupancyEstimate e = estimateOccupancy(
                o.arch, k.resources.registers, k.resources.sharedBytes + int(v.sharedBytes), threads);
            if (e.limiter != "invalid") p.occupancy = e.fraction;
        }
    }
}

std::vector<std::string> splitCommas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == ',') {
            out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

} // namespace

LaunchBuildError measurementFailure(const RunError& e) {
    std::string msg = std::string(runErrorKindName(e.kind)) + ": " + e.message;
    if (!e.cudaError.empty() && e.message.find(e.cudaError) == std::string::npos)
        msg += " [" + e.cudaError + "]";
    if (!e.stage.empty())
        msg += " (stage " + e.stage + (e.variant.empty() ? "" : ", variant " + e.variant) + ")";
    // A runner that breaks the protocol is a setup problem (the wrong program, a broken link), not
    // the kernel's: exit 2 like a missing runner.
    return LaunchBuildError(isSetupError(e.kind) || e.kind == RunErrorKind::Protocol ? 2 : 1,
                            escapeControl(msg));
}

void throwIfMeasurementFailed(const MeasurementRecord& rec) {
    if (!rec.error) return;
    if (rec.error->kind == RunErrorKind::Cancelled) throw SeriesCancelled();
    throw measurementFailure(*rec.error);
}

nlohmann::json runSeriesJob(const SeriesSpec& spec, const std::string& fileName, const SeriesJobHooks& h) {
    auto stage = [&](const std::string& s) {
        if (h.progress) h.progress(s);
    };
    const size_t n = spec.values.size();
    std::vector<BuiltLaunch> built;
    std::vector<BuildOptions> pointOptions;
    std::vector<SeriesPoint> points;
    for (size_t i = 0; i < n; ++i) {
        checkCancel(h);
        stage("build " + std::to_string(i + 1) + "/" + std::to_string(n));
        BuildOptions o = h.options(i);
        const std::string label = seriesPointLabel(spec, i);
        BuiltLaunch b = h.build(i, o, label);
        SeriesPoint p;
        p.label = label;
        p.value = spec.values[i];
        p.buildOptions = shellQuote(toNvccArgs(o));
        fillResources(p, b, o);
        points.push_back(std::move(p));
        built.push_back(std::move(b));
        pointOptions.push_back(std::move(o));
    }
    checkCancel(h);
    stage("measure");
    std::vector<PreparedSide> sides;
    for (const auto& b : built) sides.push_back(b.side);
    MeasurementRecord rec = h.measure(sides);
    throwIfMeasurementFailed(rec);
    for (size_t i = 0; i < points.size() && i < rec.result.variants.size(); ++i) {
        points[i].samplesMs = rec.result.variants[i].samplesMs;
        points[i].mode = rec.result.variants[i].mode;
    }
    // Counters after the timing, so they never disturb it: one profiled launch per point.
    std::vector<nlohmann::json> profiles;
    if (h.profile) {
        for (size_t i = 0; i < built.size(); ++i) {
            checkCancel(h);
            stage("profile " + std::to_string(i + 1) + "/" + std::to_string(n));
            profiles.push_back(h.profile(i, built[i], pointOptions[i]));
        }
    }
    const std::string kernel = built.front().side.launch.kernelName;
    nlohmann::json doc =
        seriesDocument(spec, fileName, kernel.substr(0, kernel.find('(')), rec.result.device, points);
    for (size_t i = 0; i < profiles.size() && i < doc["points"].size(); ++i)
        doc["points"][i]["profile"] = seriesPointProfile(profiles[i]);
    return doc;
}

BuildOptions applySeriesOption(const BuildOptions& base, const SeriesSpec& spec, size_t i) {
    BuildOptions o = base;
    const std::string& v = spec.values.at(i);
    auto number = [&](int lo, int hi) {
        // parseSeriesSpec made v a plain token; here it must be a small decimal.
        if (v.empty() || v.size() > 6 ||
            !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
            throw LaunchBuildError(2, spec.name + "=" + v + ": not a number");
        const int n = std::stoi(v);
        if (n < lo || n > hi)
            throw LaunchBuildError(2, spec.name + "=" + v + ": outside " + std::to_string(lo) + ".." +
                                          std::to_string(hi));
        return n;
    };
    auto triState = [&]() {
        if (v == "true" || v == "1") return 1;
        if (v == "false" || v == "0") return 0;
        throw LaunchBuildError(2, spec.name + "=" + v + ": expected true or false");
    };
    if (spec.kind == SeriesKind::Define) {
        const std::string prefix = spec.name + "=";
        std::erase_if(o.defines,
                      [&](const std::string& d) { return d == spec.name || d.rfind(prefix, 0) == 0; });
        o.defines.push_back(prefix + v);
    } else if (spec.kind == SeriesKind::BuildOption) {
        const std::string& f = spec.name;
        if (f == "--maxrregcount")
            o.maxRegCount = number(0, 255);
        else if (f == "--ptxas-opt")
            o.ptxasOpt = number(0, 3);
        else if (f == "--opt")
            o.hostOpt = number(0, 3);
        else if (f == "--arch")
            o.arch = v;
        else if (f == "--std")
            o.cppStd = v;
        else if (f == "--ftz")
            o.ftz = triState();
        else if (f == "--prec-div")
            o.precDiv = triState();
        else if (f == "--prec-sqrt")
            o.precSqrt = triState();
        else if (f == "--fmad")
            o.fmad = triState();
        // Flags without a value vary as FLAG=off,on (parseSeriesSpec allows nothing else for them).
        else if (f == "--fast-math")
            o.fastMath = v == "on";
        else if (f == "--extra-device-vectorization")
            o.extraDeviceVectorization = v == "on";
        else if (f == "--no-lineinfo")
            o.lineinfo = v != "on";
        else if (f == "--device-debug")
            o.deviceDebug = v == "on";
        else
            throw LaunchBuildError(
                2, f + ": the GUI varies a define, --maxrregcount, --ptxas-opt, --opt, --arch, "
                       "--std, --ftz, --prec-div, --prec-sqrt, --fmad, --fast-math, "
                       "--extra-device-vectorization, --no-lineinfo or --device-debug (the CLI "
                       "takes every build flag)");
    }
    if (std::string bad = checkBuildOptions(o); !bad.empty())
        throw LaunchBuildError(2, seriesPointLabel(spec, i) + ": " + bad);
    return o;
}

LaunchText applySeriesLaunch(const LaunchText& launch, const SeriesSpec& spec, size_t i) {
    LaunchText l = launch;
    const std::string& v = spec.values.at(i);
    if (spec.kind == SeriesKind::LaunchArg) {
        setLaunchArg(l, spec.name + "=" + v);
    } else if (spec.kind == SeriesKind::Grid) {
        l.grid = splitCommas(v);
    } else if (spec.kind == SeriesKind::Block) {
        l.block = splitCommas(v);
    }
    return l;
}

void setLaunchArg(LaunchText& launch, const std::string& assignment) {
    const std::string prefix = assignment.substr(0, assignment.find('=') + 1);
    bool replaced = false;
    for (auto& a : launch.args) {
        if (a.rfind(prefix, 0) == 0) {
            a = assignment;
            replaced = true;
        }
    }
    if (!replaced) launch.args.push_back(assignment);
}

SeriesJobHooks localSeriesHooks(const LocalSeriesRequest& r, const Toolchain& tc, Runner& runner, BuildControl& control,
                                const std::function<void(const std::string&)>& warn, std::atomic<bool>* cancel,
                                const std::function<void(const std::string&)>& progress) {
    SeriesJobHooks h;
    h.cancel = cancel;
    h.progress = progress;
    h.options = [&r](size_t i) { return applySeriesOption(r.base, r.spec, i); };
    h.build = [&r, &tc, &control, &warn](size_t i, const BuildOptions& o, const std::string& label) {
        LaunchSpec spec;
        spec.kernel = r.kernel;
        applyLaunchText(applySeriesLaunch(r.launch, r.spec, i), spec);
        return buildKernelLaunch(tc, r.sourcePath, o, spec, label, warn, control);
    };
    h.measure = [&r, &runner, cancel](const std::vector<PreparedSide>& sides) {
        MeasureSettings settings;
        settings.mode = parseMode(r.mode).value_or(MeasureMode::Auto);
        settings.stop = r.stop;
        return measure(runner, sides, settings, {}, cancel);
    };
    if (r.profile) {
        h.profile = [&r, &runner, &warn, cancel](size_t i, const BuiltLaunch& b, const BuildOptions& o) {
            LaunchProfileTarget t = profileTargetFor(b, r.sourcePath, o);
            ProfileCollectResult res = collectProfile(runner, t.target, r.profileOptions, {}, cancel);
            for (const auto& e : res.errors) warn("profile " + seriesPointLabel(r.spec, i) + ": " + e);
            return res.document;
        };
    }
    return h;
}

LocalSeriesOutcome runLocalSeriesJob(const LocalSeriesRequest& r, std::atomic<bool>* cancel,
                                     const std::function<void(const std::string& stage)>& progress) {
    const std::string fileName =
        r.fileName.empty() ? std::filesystem::path(r.sourcePath).filename().string() : r.fileName;
    return runLocalJob<LocalSeriesOutcome>(
        r.runnerCommand, r.deadlineS, cancel,
        [&](ProcessRunner& runner, const std::function<void(const std::string&)>& warn) {
            BuildControl control;
            control.cancel = cancel;
            return runSeriesJob(r.spec, fileName,
                                localSeriesHooks(r, r.toolchain, runner, control, warn, cancel, progress));
        });
}

} // namespace lowerscope
