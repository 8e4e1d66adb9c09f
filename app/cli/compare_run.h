#pragma once
// The interleaved A/B comparison behind `compare`, shared with `experiment` (cmd_run.cpp defines it).

#include "core/run/argspec.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace lowerscope::cli {

// Launch and measurement flags shared by run, compare and experiment.
struct LaunchArgs {
    std::string kernel;
    std::string grid, block, shared;
    std::vector<std::string> args;
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

// One measured comparison: the "lowerscope.compare/1" document and the launch each side used
// (sidecar entry overridden by the flags).
struct CompareRun {
    nlohmann::json doc;
    LaunchSpec specA, specB;
};

// Builds both sides, runs them interleaved through the runner, saves outputs when asked
// (--keep-outputs) and writes the document to --json when given. Throws CliFailure.
CompareRun runCompareDocument(const CompareArgs& args);

// The human-readable summary `compare` prints (both variants, the ratio and output agreement).
void printCompareSummary(const nlohmann::json& compareDoc);

// Adds the launch/measurement flags (--kernel, --grid, ..., --json; --atol/--rtol when compare).
void addLaunchFlagsTo(CLI::App& cmd, LaunchArgs& args, bool compare);

} // namespace lowerscope::cli
