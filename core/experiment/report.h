#pragma once
// Markdown export of an experiment session: the experiment card, both build configurations (the
// exact nvcc command lines), a resource table A vs B, the timing table with the verdict, the key
// excerpt of the aligned SASS diff, per-line and instruction-mix changes, and links to chart PNGs
// the caller has written. Pure text generation: nothing is built, run or written to disk here.
// Measurements are read with core/run/measurement.h (readMeasurement, timingVerdict).

#include "core/analysis/diff.h"
#include "core/experiment/experiment_session.h"
#include "core/run/measurement.h"

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
    double pricePerGpuHour = 2.50;      // for the cost section (any currency; the GUI's default)
    double launchesPerRequest = 1;      // the user's workload: kernel launches per request
};

// A Markdown table cell: '|' escaped, line breaks made spaces (a '|' would end the cell, a line
// break the row). For every table the reports write.
std::string markdownCell(const std::string& text);

// The cost section (issue 15): per variant, GPU-seconds and cost per million launches at
// `pricePerGpuHour`, and for a workload of `launchesPerRequest` launches per request the GPU time
// per request and the cost per million requests, each with its change against the first variant.
// `variants` are (label, median ms); variants with a non-positive median are left out.
std::string costMarkdown(const std::vector<std::pair<std::string, double>>& variants, double pricePerGpuHour,
                         double launchesPerRequest);

// The whole report. Never throws on odd measurement documents: they are reported as unreadable.
std::string renderMarkdownReport(const ReportInputs& inputs);

} // namespace lowerscope
