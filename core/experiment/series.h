#pragma once
// Parameter series (issue 15): one parameter varied over a list of values — a define
// ("-D CHAINS=1,2,4,8"), a build option ("--maxrregcount=32,64,128", "--ptxas-opt=0,1,2,3"), a launch
// argument ("--arg iters=1024,4096") or a launch dimension ("--block=32;64;128": ';' separates the
// points because a dimension may itself be "x,y,z"). Each point is one build and one variant of a
// single interleaved measurement (the runner runs N variants round by round, reversing the order
// every round, so drift cannot masquerade as an effect). This file parses the spec and writes the
// result: the "lowerscope.series/1" document, a Markdown table and an SVG chart (median and its
// 95 % interval per point). Building and measuring are the caller's (the CLI).
//
// Values are untrusted text on their way to nvcc's argv: every value must be a plain token
// (letters, digits, '.', '_', '-', '+', ':'; a define's name an identifier); the build options
// made from them are checked again by checkBuildOptions before anything is built.

#include "core/run/measurement.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lowerscope {

enum class SeriesKind { Define, BuildOption, LaunchArg, Grid, Block };

struct SeriesSpec {
    SeriesKind kind = SeriesKind::Define;
    std::string name;                // CHAINS, --maxrregcount, iters, grid, block
    std::vector<std::string> values; // in the order given (at least 2, no duplicates)
    std::string text;                // as written
};

// Throws std::invalid_argument naming the problem (unknown form, fewer than two values, a value
// that is not a plain token, a duplicate).
SeriesSpec parseSeriesSpec(const std::string& text);

// The label of point `i`: "CHAINS=4", "--maxrregcount=64", "iters=4096", "block=128".
std::string seriesPointLabel(const SeriesSpec& spec, size_t i);
// For Define/BuildOption: the build option words point `i` adds (e.g. {"-DCHAINS=4"},
// {"--maxrregcount=64"}, {"-O2"}); empty for launch kinds.
std::vector<std::string> seriesBuildWords(const SeriesSpec& spec, size_t i);

// One measured point.
struct SeriesPoint {
    std::string label;
    std::string value;
    std::string buildOptions;  // shell-quoted nvcc options of the point's build
    int registers = -1;        // per thread, -1 unknown
    int spillBytes = -1;       // spill stores + loads, bytes; -1 unknown
    double occupancy = -1;     // theoretical, 0..1; -1 unknown
    std::vector<double> samplesMs;
    std::string mode;          // "cold" / "hot"
};

// The document: {"schema": "lowerscope.series/1", "file", "kernel", "vary", "kind", "name",
// "device", "points": [{"label", "value", "build_options", "registers", "spill_bytes",
// "occupancy", "samples", "median_ms", "ci_low_ms", "ci_high_ms", "noise", "mode",
// "ratio_to_first", "ratio_ci_low", "ratio_ci_high", "significant"}]}. Ratios pair each point's
// samples with the first point's (interleaved rounds), as compare does.
nlohmann::json seriesDocument(const SeriesSpec& spec, const std::string& file, const std::string& kernel,
                              const DeviceInfo& device, const std::vector<SeriesPoint>& points);

// What a series point keeps of its lowerscope.profile/1 document (`experiment --vary --profile`):
// {"metrics": {name: value} of the kernel collection, "stalls": [[reason, share 0..1], ...] top
// five, "instructions_executed", "collections_failed": [names]}. Untrusted input: fields of the
// wrong type are left out.
nlohmann::json seriesPointProfile(const nlohmann::json& profileDocument);

// A standalone SVG line chart of the document: the median per point with its 95 % interval as an
// error bar, points in the order measured (categorical x axis).
std::string seriesSvg(const nlohmann::json& document);

// Several series on one chart (`lowerscope-cli chart`): one coloured line per (name, document) with a
// legend, the x axis taken from the first document's point values (the caller checks that the
// documents share them), medians with their 95 % intervals, a linear or logarithmic time axis.
// Untrusted documents: points of the wrong shape are skipped, never thrown on.
std::string seriesOverlaySvg(const std::vector<std::pair<std::string, nlohmann::json>>& lines,
                             const std::string& title, bool logY);

// `s` with &, <, > and " as XML entities (SVG text and attributes).
std::string xmlEscape(const std::string& s);

// The Markdown report: title, the hypothesis (may be empty), the table, the chart (`svgFile`,
// relative to the report; "" = none), and how it was measured.
// With `pricePerGpuHour` >= 0 a cost section follows (core/experiment/report.h costMarkdown).
std::string seriesMarkdown(const nlohmann::json& document, const std::string& title, const std::string& hypothesis,
                           const std::string& svgFile, const std::string& command, double pricePerGpuHour = -1,
                           double launchesPerRequest = 1);

// A series document as a viewer shows it (the GUI's series view, the gallery), read from untrusted
// input: only what has the right type is taken, strings are cut to 200 bytes (labels, names) and
// cleaned of control characters, numbers must be finite.
struct SeriesRow {
    std::string label, value;
    int registers = -1, spillBytes = -1; // -1 unknown
    double occupancy = -1;               // 0..1, -1 unknown
    double medianMs = 0, ciLowMs = 0, ciHighMs = 0;
    double noise = -1;                   // relative, -1 unknown
    bool hasRatio = false;               // ratio to the first point with its 95 % interval
    double ratio = 1, ratioLow = 1, ratioHigh = 1;
    bool significant = false;
};
struct SeriesSummary {
    std::string file, kernel, vary, name, device;
    std::vector<SeriesRow> points;
};
inline constexpr size_t kMaxSeriesPoints = 64;
inline constexpr size_t kMaxSeriesDocumentBytes = size_t(4) << 20;

// False with `error` (one sentence) when `document` is not a lowerscope.series/1 object, has no
// points or more than kMaxSeriesPoints, or a point without a positive, finite median and an
// interval around it.
bool readSeriesDocument(const nlohmann::json& document, SeriesSummary& out, std::string& error);
// The same from text: at most kMaxSeriesDocumentBytes, parsed with core/bounded_json.h.
bool readSeriesText(const std::string& text, SeriesSummary& out, std::string& error);

} // namespace lowerscope
