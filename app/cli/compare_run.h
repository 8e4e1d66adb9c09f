#pragma once
// The interleaved A/B comparison behind `compare`, shared with `experiment`, and the build-and-
// resolve step of one launch shared by run, compare and profile (cmd_run.cpp defines them).

#include "app/cli/cluster.h"
#include "core/analysis/lowering.h"
#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/run/argspec.h"
#include "core/run/built_launch.h"
#include "core/run/measurement.h"
#include "core/run/profile_collect.h"
#include "core/run/runner_client.h"

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lowerscope::cli {

// Launch and measurement flags shared by run, compare and experiment.
struct LaunchArgs {
    std::string kernel;
    std::string grid, block, shared;
    std::string clusterDims;             // --cluster-dims x,y,z
    std::vector<std::string> args;
    std::vector<std::string> lets;       // --let: defined, not passed to the kernel
    std::vector<std::string> outputs;
    std::string bytes, flops;
    std::string mode = "auto";
    size_t minSamples = 10;
    double minTimeS = 0.5;
    double maxNoisePct = 0.5;
    double maxTimeS = 15;
    double timeoutS = 10;
    bool graph = false;
    std::string keepOutputs;
    std::string runner;
    std::string jsonOut;
    double atol = 1e-5, rtol = 1e-4;
    int profileLaunches = 0;
    bool separateBuffers = false; // compare: time each side on its own buffers (the old way)
    bool profile = false;         // compare/experiment --profile: counters on both sides after timing
    std::string profileCollect = "kernel,instructions,samples"; // --profile-metrics
    std::optional<GraphPathOptions> graphPath; // experiment --graph-break-even (no flag of its own here)
    ClusterArgs cluster;          // --cluster slurm ... (compare, experiment --vary; cluster.h)
};

struct CompareArgs {
    std::string file, fileB;
    std::string optsA, optsB;  // build option strings (parseBuildOptionString)
    std::string project;       // compile_commands.json: the base of both option strings ("" = none)
    std::string kernelB;
    LaunchArgs launch;
};

// A failed command: exit code (0 ok, 1 kernel or build error, 2 usage / missing tool / no GPU) and
// a one-line message for stderr.
struct CliFailure {
    int code;
    std::string message;
};

// Builds `file` with `options`, finds the kernel (`kernelFlag`, else the sidecar's first) and
// resolves the launch from the sidecar and the flags; diagnostics and warnings go to stderr.
// Throws CliFailure (2: usage or setup, 1: compile error).
BuiltLaunch buildLaunch(const Toolchain& tc, const std::string& file, const BuildOptions& options,
                        const std::string& kernelFlag, const LaunchArgs& a, const std::string& label = "");

// Measures `sides` interleaved through `runner` with the flags' settings (progress on a terminal).
// Throws CliFailure (1: kernel fault or timeout, 2: setup or protocol).
MeasurementRecord measureSides(ProcessRunner& runner, const std::vector<PreparedSide>& sides, const LaunchArgs& a);
// The same with settings made by the caller (a replay adds its memory regions to the flags').
MeasurementRecord measureSides(ProcessRunner& runner, const std::vector<PreparedSide>& sides,
                               const MeasureSettings& settings);

// The measurement settings of the flags (--mode, stop rule, --graph, ...). Throws CliFailure.
MeasureSettings measureSettingsOf(const LaunchArgs& a);

// The progress line `run` and `compare` keep rewriting on stderr while they measure, when stderr
// is a terminal ({} otherwise); clearTerminalProgress() erases it afterwards.
RunProgressFn terminalProgress();
void clearTerminalProgress();

// `experiment --vary SPEC`: one build and one variant per value, measured interleaved in one run;
// writes OUT.series.json, OUT.md and OUT.svg. Returns the exit code (0, 1 build/kernel error, 2 usage).
int runSeries(const CompareArgs& args, const std::string& vary, const std::string& out, const std::string& title,
              const std::string& hypothesis, double pricePerHour = 2.50, double launchesPerRequest = 1);

// `experiment --graph-break-even N1,N2,... [--replays R1,R2,...]` (experiment 4): the kernel timed, then
// its graph path for every N; writes OUT.graph.json, OUT.md and OUT.svg. `replays` "" = the default
// list. Returns the exit code (0, 1 build/kernel error, 2 usage).
struct GraphPathFlags {
    std::string lengths;   // --graph-break-even N1,N2,...
    std::string replays;   // --replays R1,R2,... ("" = defaultGraphReplays())
    double maxTimeS = 120; // --graph-max-time: the graph path's wall limit on the runner
};
int runGraphBreakEven(const CompareArgs& args, const GraphPathFlags& flags, const std::string& out,
                      const std::string& title, const std::string& hypothesis, double pricePerHour = 2.50,
                      double pathsPerRequest = 1);

// Helpers of the experiment variants (cmd_series.cpp): `text` written to `path` (false on failure);
// the reproduce command's launch words (--kernel, --a, --arg..., --grid, --block, --shared,
// --mode), each shell-quoted and led by a blank; `body`'s exit code, with a CliFailure or
// MeasurementError it throws reported on stderr ("lowerscope-cli experiment: ...").
bool writeText(const std::string& path, const std::string& text);
std::string launchReproduceFlags(const CompareArgs& args);
int experimentExitCode(const std::function<int()>& body);

// The runner process the flags ask for (--runner, --timeout). Throws CliFailure on a bad --runner.
std::unique_ptr<ProcessRunner> makeRunner(const LaunchArgs& a);

// One measured comparison: the "lowerscope.compare/1" document and the launch each side used
// (sidecar entry overridden by the flags).
struct CompareRun {
    nlohmann::json doc;
    LaunchSpec specA, specB;
};

// Builds both sides, runs them interleaved through the runner, saves outputs when asked
// (--keep-outputs) and writes the document to --json when given. Throws CliFailure.
CompareRun runCompareDocument(const CompareArgs& args);

// What `profile` (and compare/experiment --profile) needs of one built launch: the lowering model of
// its build and the target pointing into it.
using ProfileSide = LaunchProfileTarget;
// Throws CliFailure (1) when the kernel has no SASS in the build.
ProfileSide profileSide(const BuiltLaunch& built, const std::string& file, const BuildOptions& options);
// The summary `profile` prints: collections, kernel metrics, stall reasons, the hottest lines.
void printProfileSummary(const nlohmann::json& doc, const ProfileJoin& join, const std::vector<ProfileMetric>& metrics);

// The human-readable summary `run` prints of launch `i` of a record.
void printRunSummary(const MeasurementRecord& record, size_t i, const std::string& label = "");

// The human-readable summary `compare` prints (both variants, the ratio and output agreement).
void printCompareSummary(const nlohmann::json& compareDoc);

// Adds the launch/measurement flags (--kernel, --grid, ..., --json; --atol/--rtol when compare).
void addLaunchFlagsTo(CLI::App& cmd, LaunchArgs& args, bool compare);
// The launch alone: --kernel, --grid, --block, --shared, --arg (also used by profile).
void addLaunchSpecFlags(CLI::App& cmd, LaunchArgs& args);
// The two sides of compare and experiment: FILE (required when `fileRequired`; experiment
// --from-json needs none), FILE_B, --file-b, --a, --b, --kernel-b.
void addCompareSideFlags(CLI::App& cmd, CompareArgs& args, bool fileRequired);
// --runner: the command line that starts the runner.
void addRunnerFlag(CLI::App& cmd, LaunchArgs& args);

} // namespace lowerscope::cli
