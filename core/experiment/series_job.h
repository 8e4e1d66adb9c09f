#pragma once
// A parameter series run (issue 15): every point of a SeriesSpec built, all points measured in one
// interleaved run, optionally one profiled launch per point after the timing, and the
// "lowerscope.series/1" document made of it (core/experiment/series.h). Shared by
// `lowerscope-cli experiment --vary` and the GUI's "Run series" (views/series_view.h); no Qt.
//
// How a point's options are made, how it is built and how the sides are measured are hooks: the
// CLI parses its flag language and resolves launches from the sidecar and its flags; the GUI
// applies the point to its build options and its typed launch (runLocalSeriesJob below). The
// orchestration, the resources per point and the document are this file's.

#include "core/experiment/series.h"
#include "core/run/built_launch.h"
#include "core/run/measure_job.h"
#include "core/run/profile_collect.h"
#include "core/run/runner_client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace lowerscope {

struct SeriesJobHooks {
    // Point `i`'s build options (the base with the point's words). Throws LaunchBuildError.
    std::function<BuildOptions(size_t i)> options;
    // Builds point `i` with `options` and resolves its launch (with the point's argument or
    // dimension for launch kinds). Throws LaunchBuildError.
    std::function<BuiltLaunch(size_t i, const BuildOptions& options, const std::string& label)> build;
    // Measures the prepared sides interleaved in one run. Throws LaunchBuildError (or returns a
    // record whose error the job turns into one).
    std::function<MeasurementRecord(const std::vector<PreparedSide>& sides)> measure;
    // One profiled launch of point `i` after the timing: its lowerscope.profile/1 document.
    // Empty = no counters.
    std::function<nlohmann::json(size_t i, const BuiltLaunch& built, const BuildOptions& options)> profile;
    // "build 2/4", "measure", "profile 3/4" as the job goes (may be empty).
    std::function<void(const std::string& stage)> progress;
    std::atomic<bool>* cancel = nullptr; // checked between points; the measure hook should honour it too
};

// Thrown when the cancel flag was seen between steps.
struct SeriesCancelled : std::runtime_error {
    SeriesCancelled() : std::runtime_error("cancelled") {}
};

// Runs the series: builds every point (hooks.build), fills registers, spill bytes and occupancy
// from the build, measures all points in one run (hooks.measure), profiles each when asked, and
// returns the document (`fileName` recorded as given: a name, not a path). Throws
// LaunchBuildError, SeriesCancelled.
nlohmann::json runSeriesJob(const SeriesSpec& spec, const std::string& fileName, const SeriesJobHooks& hooks);

// The message of a measurement's error as the CLI prints it ("KernelFault: ... [cuda] (stage s,
// variant v)"), and its exit code (2 setup or protocol, 1 the kernel's).
LaunchBuildError measurementFailure(const RunError& error);
// Returns when `record` has no error; throws SeriesCancelled when it was cancelled, else
// measurementFailure's LaunchBuildError.
void throwIfMeasurementFailed(const MeasurementRecord& record);

// The frame of a job the GUI runs in core (runLocalSeriesJob, runLocalGraphBreakEvenJob): a fresh
// runner for `command` ("" = the default one), killed when silent for `deadlineS`; `body(runner,
// warn)` returns the document, `warn` collects at most 200 warning lines. SeriesCancelled ends the
// job cancelled; any other exception with its message (cancelled too when `cancel` was set). The
// runner is stopped before the outcome is returned. Never throws.
template <typename Outcome, typename Body>
Outcome runLocalJob(const std::vector<std::string>& command, double deadlineS, std::atomic<bool>* cancel,
                    Body&& body) {
    Outcome out;
    const std::function<void(const std::string&)> warn = [&out](const std::string& line) {
        if (out.warnings.size() < 200) out.warnings.push_back(line);
    };
    RunnerConfig config;
    config.command = command;
    config.deadline = std::chrono::milliseconds(int64_t(std::max(1.0, deadlineS) * 1000));
    ProcessRunner runner(config);
    try {
        out.document = body(runner, warn);
        out.ok = true;
    } catch (const SeriesCancelled&) {
        out.cancelled = true;
        out.error = "cancelled";
    } catch (const std::exception& e) {
        out.cancelled = cancel && cancel->load();
        out.error = e.what();
    }
    runner.stop();
    return out;
}

// ---------------------------------------------------------------- the GUI's series, all in core

// Point `i` applied to `base` for Define and BuildOption specs: a define is added (replacing one of
// the same name); --maxrregcount, --ptxas-opt, --opt, --arch, --std and --ftz/--prec-div/
// --prec-sqrt/--fmad (true/false) set their field, --fast-math, --extra-device-vectorization,
// --no-lineinfo and --device-debug (off/on) turn theirs off or on. Throws LaunchBuildError (2) for another
// option or a value that does not fit; the result passes checkBuildOptions.
BuildOptions applySeriesOption(const BuildOptions& base, const SeriesSpec& spec, size_t i);
// Point `i` applied to `launch` for launch kinds: a launch argument replaces the one of its name
// (or is added), a dimension replaces the grid or block ("x,y,z" split at commas).
LaunchText applySeriesLaunch(const LaunchText& launch, const SeriesSpec& spec, size_t i);
// Replaces the launch argument named like `assignment` ("NAME=spec") or adds it.
void setLaunchArg(LaunchText& launch, const std::string& assignment);

struct LocalSeriesRequest {
    SeriesSpec spec;
    Toolchain toolchain;                    // the GUI fills in its cached one on the worker when empty
    std::string sourcePath;                 // a file on disk
    std::string fileName;                   // recorded in the document ("" = sourcePath's file name)
    BuildOptions base;                      // the options every point starts from
    std::string kernel;                     // demangled, plain or mangled name
    LaunchText launch;                      // as typed
    std::string mode = "auto";              // auto | cold | hot
    StopOptions stop;                       // when a point has enough samples (measurement.h's defaults)
    double deadlineS = 10;                  // the client kills a runner silent for this long
    std::vector<std::string> runnerCommand; // empty = defaultRunnerCommand()
    bool profile = false;                   // one profiled launch per point after the timing
    ProfileCollectOptions profileOptions;
};

struct LocalSeriesOutcome {
    bool ok = false;
    bool cancelled = false;
    nlohmann::json document;           // the series document when ok
    std::string error;                 // one or two sentences when !ok
    std::vector<std::string> warnings; // build diagnostics and profile errors, one line each
};

// Core's own hooks for runSeriesJob on `runner`: applySeriesOption / applySeriesLaunch,
// buildKernelLaunch with `toolchain` and `control` (diagnostics to `warn`), measure() with the
// request's mode and stop rule, and collectProfile when request.profile (its errors to `warn`).
// Every argument is referenced, not copied: they must outlive the hooks.
SeriesJobHooks localSeriesHooks(const LocalSeriesRequest& request, const Toolchain& toolchain, Runner& runner,
                                BuildControl& control, const std::function<void(const std::string&)>& warn,
                                std::atomic<bool>* cancel, const std::function<void(const std::string&)>& progress);

// runSeriesJob with localSeriesHooks on a fresh ProcessRunner for the run (stopped afterwards).
// Never throws.
LocalSeriesOutcome runLocalSeriesJob(const LocalSeriesRequest& request, std::atomic<bool>* cancel,
                                     const std::function<void(const std::string& stage)>& progress);

} // namespace lowerscope
