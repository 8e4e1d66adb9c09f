#pragma once
// Markdown export of an experiment session: the experiment card, both build configurations (the
// exact nvcc command lines), a resource table A vs B, the timing table with the verdict, the key
// excerpt of the aligned SASS diff, per-line and instruction-mix changes, and links to chart PNGs
// the caller has written. Pure text generation: nothing is built, run or written to disk here.

#include "core/analysis/diff.h"
#include "core/experiment/experiment_session.h"

#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

struct ReportChart {
    std::string title;    // alt text and caption, e.g. "Sample distributions A vs B"
    std::string fileName; // relative to the report, e.g. "fast_math-samples.png"
};

// Everything beyond the session that the report can show. Pointers are borrowed, may be null
// (that section is then left out or says why).
struct ReportInputs {
    const ExperimentSession* session = nullptr;   // required
    std::string arch;                   // for occupancy; "" = the A configuration's arch
    std::optional<Resources> resourcesA, resourcesB; // from the builds; else taken from the runner's
                                                     // result (registers, shared, local) when present
    int blockThreads = 0;               // threads per block of the launch, for occupancy (0 = skip)
    int dynamicSharedBytes = 0;
    const SassFunction* sassA = nullptr; // both needed for the diff sections
    const SassFunction* sassB = nullptr;
    DiffOptions diffOptions{.mode = DiffMode::Full, .naming = RegisterNaming::PerFunction};
    int excerptHunks = 3;               // largest diff hunks shown
    int excerptContext = 3;             // equal rows around each
    int measurementIndex = -1;          // which session.measurements entry to tabulate; -1 = the
                                        // last one that holds a result
    std::vector<ReportChart> charts;
};

// The timing comparison of one runner result, also used for the GUI's verdict label.
struct TimingVerdict {
    bool valid = false;         // two variants with samples
    std::string labelA, labelB;
    double medianA = 0, medianB = 0;  // ms
    double ratio = 0;                 // B/A of paired samples (median), with its 95 % CI
    double ratioLow = 0, ratioHigh = 0;
    bool significant = false;         // the two medians' 95 % CIs do not overlap (TIMING.md) and
                                      // |ratio − 1| ≥ the minimum effect (core/run/stats.h)
    std::string notCalledBecause;     // when not significant: "the medians' intervals overlap", ...
    std::string outputs;              // "outputs match within 1e-6", "outputs are bit-identical",
                                      // "outputs DIFFER: ...", or "" when not compared
    std::string sentence;             // "B is 1.42× faster (95 % CI 1.40–1.44), outputs match within 1e-6"
};

// Reads a result document as stored in a session and returns it as a runner result object
// (core/run/protocol.h's RunResult JSON): a runner result ({"result": {...}} or the bare
// {"id", "variants", ...}), or the CLI's `run --json` ("lowerscope.run/1", one variant) or
// `compare --json` ("lowerscope.compare/1": variants A and B plus the output agreement).
// std::nullopt with `error` set when the document is an error report or unreadable.
std::optional<nlohmann::json> runResultOf(const nlohmann::json& document, std::string* error = nullptr);

// The verdict of a result with two variants (A = variants[0], B = variants[1]).
TimingVerdict timingVerdict(const nlohmann::json& runResult);

// The whole report. Never throws on odd measurement documents: they are reported as unreadable.
std::string renderMarkdownReport(const ReportInputs& inputs);

// Formats a duration given in milliseconds with a unit that keeps 3–4 significant digits
// ("812.3 ns", "41.27 µs", "3.104 ms", "1.250 s").
std::string reportDuration(double ms);

} // namespace lowerscope
