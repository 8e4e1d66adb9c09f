#pragma once
// Experiment 4 run from the GUI (issue 15): the gallery's "Rerun on my GPU" of the CUDA Graph
// break-even. One kernel built, one measure request with the graph path (core/run/protocol.h's
// GraphPathOptions) through a fresh runner, and the "lowerscope.graph_break_even/1" document made
// of the result (core/experiment/graph_break_even.h). `lowerscope-cli experiment --graph-break-even`
// shares graphBreakEvenOfRecord. Runs on a worker thread; no Qt.

#include "core/experiment/graph_break_even.h"
#include "core/run/built_launch.h"
#include "core/run/measure_job.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace lowerscope {

// The document of a measurement with a graph path: graphBreakEvenDocument of its first variant,
// the kernel named without its parameter list, `fileName` recorded as given. Throws
// std::invalid_argument when the record has no graph path (an older lowerscope-runner).
nlohmann::json graphBreakEvenOfRecord(const std::string& fileName, const MeasurementRecord& record);

struct LocalGraphBreakEvenRequest {
    Toolchain toolchain;                    // the GUI fills in its cached one on the worker when empty
    std::string sourcePath;                 // a file on disk (its sidecar beside it gives the launch)
    std::string fileName;                   // recorded in the document ("" = sourcePath's file name)
    BuildOptions options;                   // the build
    std::string kernel;                     // demangled, plain or mangled name
    LaunchText launch;                      // as typed (the sidecar's, usually)
    GraphPathOptions graphPath;             // checked with checkGraphPathOptions before anything runs
    std::string mode = "auto";              // auto | cold | hot: the kernel's own timing
    StopOptions stop;                       // the kernel's own timing (measurement.h's defaults)
    double deadlineS = 10;                  // the client kills a runner silent for this long
    std::vector<std::string> runnerCommand; // empty = defaultRunnerCommand()
};

struct LocalGraphBreakEvenOutcome {
    bool ok = false;
    bool cancelled = false;
    nlohmann::json document;           // the graph break-even document when ok
    std::string error;                 // one or two sentences when !ok
    std::vector<std::string> warnings; // build diagnostics, launch warnings; one line each
};

// Builds, measures and writes the document. `progress` gets "build", then the runner's stages
// ("graph_path 12 timings, 3.1 s"). Setting `*cancel` stops the build or kills the runner. Never
// throws.
LocalGraphBreakEvenOutcome
runLocalGraphBreakEvenJob(const LocalGraphBreakEvenRequest& request, std::atomic<bool>* cancel,
                          const std::function<void(const std::string& stage)>& progress);

} // namespace lowerscope
