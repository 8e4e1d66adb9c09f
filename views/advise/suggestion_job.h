#pragma once
// The job behind the advisor's *Test this* (issue 34, item 2): variant B of the current build
// (A's options with the variant's flags, its launch when it changes) built, then A and B measured
// interleaved in one run on the same buffers, outputs compared: the compare path of
// `lowerscope-cli advise --test`, on a worker of the window's job tracker. No Qt.

#include "core/advise/advice_record.h"
#include "core/advise/variants.h"
#include "core/build/build_options.h"
#include "core/build/toolchain.h"
#include "core/run/measure_job.h"
#include "core/run/measurement.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace lowerscope {

struct SuggestionJobRequest {
    MeasureSide a;                          // A's current build (cubin, kernel, parameters)
    Toolchain toolchain;                    // empty: the cached one, looked up on the worker
    std::string sourcePath;                 // B's source: the editor's text as a file
    BuildOptions optionsB;                  // A's options with the variant's flags
    LaunchText launchA, launchB;            // as typed; B's with the variant's grid/block
    std::string mode = "auto";              // auto | cold | hot
    double deadlineS = 10;                  // a runner silent this long is killed
    std::vector<std::string> runnerCommand; // empty = defaultRunnerCommand()
};

struct SuggestionJobOutcome {
    SuggestionTest test;           // measured, or error says why not (build failure, no GPU, fault)
    nlohmann::json measurement;    // the compare document when the run answered; null otherwise
    bool cancelled = false;
};

using SuggestionStageFn = std::function<void(const std::string& stage)>;
// How a test is carried out (tests install fakes). Must not throw.
using SuggestionJobBackend =
    std::function<SuggestionJobOutcome(const SuggestionJobRequest&, std::atomic<bool>* cancel, const SuggestionStageFn&)>;

// The real backend: buildKernelLaunch for B, prepareSide for A, measure() through a fresh
// ProcessRunner (stopped afterwards). Never throws: failures land in outcome.test.error.
SuggestionJobOutcome runSuggestionJob(const SuggestionJobRequest& request, std::atomic<bool>* cancel,
                                      const SuggestionStageFn& stage);

// A's options with a variant's option flags (core/advise/variants.h writes "--maxrregcount N",
// "-D NAME=V" and "--fast-math"). False with `error` for a flag the GUI does not apply.
bool applyVariantFlags(const BuildOptions& a, const std::string& flags, BuildOptions& out, std::string& error);

// "x,y,z" of a launch dimension.
std::vector<std::string> dimensionText(const std::array<uint32_t, 3>& d);

} // namespace lowerscope
