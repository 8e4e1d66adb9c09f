#pragma once
// Experiment 4, the CUDA Graph break-even (issue 15): what the runner measured for a path of N
// launches (GraphPathResult, app/runner/graph_path.h says how) summarised and written up as the
// "lowerscope.graph_break_even/1" document, a Markdown report and an SVG chart of total time
// against replays, stream against graph. Pure computation and text: the CLI builds and measures.
//
// Predicted break-even R* = (capture + instantiate + upload) / (stream − graph per path), from the
// medians (host wall); none when the graph saves nothing per path. Measured break-even: the
// smallest R measured whose median graph total (capture + instantiate + upload + R replays + wait)
// is at most the median stream total (R paths + wait); the crossing is interpolated linearly in R
// between that R and the one before (totals are linear in R), and is absent when the graph already
// wins at the smallest R or never wins.

#include "core/run/protocol.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

inline constexpr const char* kGraphBreakEvenSchema = "lowerscope.graph_break_even/1";

// Replay counts measured when none are given: dense where H4a expects the break-even.
std::vector<int> defaultGraphReplays();

// A comma list of positive integers ("1,4,16,64"). Throws std::invalid_argument naming the bad
// item (empty, not a number, below 1, above `maxValue`).
std::vector<int> parseCountList(const std::string& text, int maxValue);

// One replay count's end-to-end totals: medians and interquartile ranges (ms).
struct GraphBreakEvenPoint {
    int replays = 0;
    size_t repetitions = 0;
    double streamMs = 0, streamQ1Ms = 0, streamQ3Ms = 0;
    double graphMs = 0, graphQ1Ms = 0, graphQ3Ms = 0;
};

// One path length summarised (medians of the repetitions).
struct GraphBreakEvenSummary {
    int pathLength = 0;
    double captureMs = 0, instantiateMs = 0, uploadMs = 0;
    double fixedMs = 0;                       // capture + instantiate + upload
    double streamPathUs = 0, graphPathUs = 0; // host wall per path, steady state
    double streamPathGpuUs = 0, graphPathGpuUs = 0;
    int steadyPaths = 0;
    std::optional<double> predicted; // R*; none when graph ≥ stream per path
    std::vector<GraphBreakEvenPoint> points;
    std::optional<int> measured;    // smallest R where graph ≤ stream
    std::optional<double> crossing; // interpolated R; none unless bracketed
};

// Summarises one path length. Empty series give zeros (and no prediction).
GraphBreakEvenSummary summarizeGraphPath(const GraphPathEntry& entry);

// The document: {"schema", "file", "kernel", "device", "kernel_median_ms", "mode", "repetitions",
// "note", "paths": [{"path_length", "capture_ms", "instantiate_ms", "upload_ms", "fixed_ms",
// "stream_path_us", "graph_path_us", "stream_path_gpu_us", "graph_path_gpu_us", "saving_per_path_us",
// "steady_paths", "predicted_break_even" (number|null), "measured_break_even" (integer|null),
// "measured_crossing" (number|null), "points": [{"replays", "repetitions", "stream_median_ms",
// "stream_q1_ms", "stream_q3_ms", "graph_median_ms", "graph_q1_ms", "graph_q3_ms"}]}], "fits":
// {"instantiate_us" | "stream_path_us" | "graph_path_us": {"fixed", "per_launch"}} (least squares
// over N of the medians, µs; present with two N or more), "raw": the runner's graph_path object}. Throws
// std::invalid_argument when `variant` has no graph path.
nlohmann::json graphBreakEvenDocument(const std::string& file, const std::string& kernel,
                                      const DeviceInfo& device, const VariantResult& variant);

// SVG chart: total host time against replays R, both axes logarithmic; per N one colour, the
// stream a solid line, the graph a dashed one, medians with interquartile bars, the measured
// crossing marked. Untrusted documents: entries of the wrong shape are skipped, never thrown on.
std::string graphBreakEvenSvg(const nlohmann::json& document);

// The Markdown report: title, the hypothesis as given (may be empty), a table per N (costs, per
// path, predicted vs measured R*, the totals per R), the chart (`svgFile` relative to the report;
// "" = none), how it was measured, the cost per path (core/experiment/report.h costMarkdown) when
// `pricePerGpuHour` >= 0 with `pathsPerRequest` paths per request, and the command. Untrusted
// documents: missing or odd fields show as "–", never thrown on.
std::string graphBreakEvenMarkdown(const nlohmann::json& document, const std::string& title,
                                   const std::string& hypothesis, const std::string& svgFile,
                                   const std::string& command, double pricePerGpuHour = -1,
                                   double pathsPerRequest = 1);

// One path length of a document as read back (readGraphBreakEvenDocument): a field that is missing
// or not a finite number is none.
struct GraphBreakEvenRow {
    int pathLength = 0;
    std::optional<double> fixedMs, streamPathUs, graphPathUs; // ms; µs per path
    std::optional<double> predicted;                          // R*
    std::optional<double> measured, crossing;                 // smallest R that wins; interpolated R
};

// What the GUI shows of a document and what a rerun of it measures.
struct GraphBreakEvenReadout {
    std::string file, kernel, device, note; // control characters escaped
    std::vector<GraphBreakEvenRow> rows;    // in the document's order
    GraphPathOptions options;               // its N in order, every R its paths measured (sorted),
                                            // its repetitions (9 when absent); wall limit default
};

// Reads an untrusted "lowerscope.graph_break_even/1" document (parse it bounded first). False with
// `why` (one sentence) when the schema is another, there are no paths or more than 16, a path has
// no integer path length or more than 64 points, or the options it was measured with are outside
// the runner's limits (checkGraphPathOptions: absurd path lengths or replay counts). Never throws.
bool readGraphBreakEvenDocument(const nlohmann::json& document, GraphBreakEvenReadout& out, std::string& why);

// The largest document readGraphBreakEvenDocument's callers parse (the H200 one is ~100 KiB).
inline constexpr size_t kMaxGraphBreakEvenDocumentBytes = size_t(4) << 20;

} // namespace lowerscope
