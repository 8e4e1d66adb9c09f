#pragma once
// The advisor's findings (issue 34, item 1): what limits a kernel, read from the hardware evidence
// of one profiled launch (a lowerscope.profile/1 document: kernel metrics, per-instruction counts,
// stall samples, joined onto SASS rows and source lines) plus what the build says of the kernel
// (registers, shared memory, spills, launch bounds) and the launch (grid, block).
//
// Every rule only speaks from evidence the profile actually holds: a rule whose inputs are absent
// (no per-instruction sectors, no stall samples, no resources) says nothing. Each finding names the
// limiter, lists the rows that show it (SASS address and source line, so a GUI can link them), and
// predicts the effect of removing the limiter as a time ratio B/A (< 1: faster), with the formula
// written out with the numbers put in, and a confidence with its reason.
//
// The rules, in our own words (thresholds are the constants in findings.cpp):
//   occupancy        Theoretical occupancy (core/analysis/occupancy.h) below 50 % because of
//                    registers or shared memory, or below 75 % because blocks are so small that the
//                    SM's block slots run out ("block size"). Silent when the scheduler already
//                    issues in ≥ 80 % of cycles (more warps cannot help then).
//                    Predicted B/A = 1 − s × (1 − T/T′): T, T′ theoretical occupancy now and after
//                    the next step of relief, s the share of time warps wait (stall samples of the
//                    waiting reasons; else 1 − issue-active).
//   uncoalesced      Global loads/stores whose sectors per request exceed the ideal
//                    (smsp__sass_sectors_mem_global vs …_ideal) by ≥ 25 %, on rows holding ≥ 5 % of
//                    the kernel's sectors. Predicted for a memory-bound kernel: B/A = (S − X) / S,
//                    S all sectors, X the excess sectors of the named rows.
//   bank_conflicts   Shared-memory instructions needing ≥ 25 % more wavefronts than ideal
//                    (…_wavefronts_mem_shared vs …_ideal). Predicted B/A = 1 − f × (1 − I/W) with f
//                    the share of stall samples (else of executed instructions) on those rows.
//   latency          Long-scoreboard stalls (waiting on global/local memory) ≥ 30 % of the stall
//                    samples while achieved occupancy is below 50 %: too few warps to hide the latency.
//                    Predicted B/A = 1 − s × (1 − W/W′): s the long-scoreboard share, W achieved warps
//                    (% of peak), W′ = min(100, 2W) or the theoretical occupancy when that is lower.
//   divergence       Branches with divergent targets (smsp__sass_branch_targets_threads_divergent) and
//                    ≥ 15 % idle lanes over all executed instructions. Predicted (bound):
//                    B/A = 1 − i × u, i the idle-lane fraction, u the issue-active fraction.
//   spills           Local-memory spills in the build (ptxas spill bytes) or executed LDL/STL rows.
//                    Predicted B/A = 1 − l, l the share of stall samples (else of executed
//                    instructions) on local-memory rows.
//   few_warps        The launch leaves fewer than 16 warps resident per SM (4 per scheduler): the
//                    blocks the grid places on an SM, ⌈G / SMs⌉, or the occupancy limit, whichever is
//                    lower, times the warps per block. Each warp's own independent work (unrolled
//                    loads, independent chains) then sets the pace. Silent when issue active ≥ 80 %.
//                    Static: needs only the build, the launch and the SM count. Predicted for twice
//                    the independent work per warp: r = max(1/2, W/16) (16 warps' worth in flight
//                    saturates issue); B/A = 1 − s × (1 − r) with s the waiting share, else the bound r.
//   launch_overhead  Kernels shorter than 10 µs (gpu__time_duration): a stream launch costs
//                    ≈ 4.7 µs of host time, a graph node ≈ 0.55 µs of GPU time (TIMING.md, H200), so a
//                    path of back-to-back launches is launch-bound: a CUDA Graph candidate.
//                    Predicted per launch of such a path: B/A = (d + 0.55 µs) / max(d, 4.7 µs).
//   tail             The grid fills w = G / (k × SMs) waves (k blocks per SM at the theoretical
//                    occupancy) and the last wave is so partly filled that w / ⌈w⌉ < 0.9 (a grid
//                    smaller than one wave included). Predicted ideal: B/A = w / ⌈w⌉.
//   math_precision   A kernel that issues in ≥ 50 % of cycles and executes multi-function-unit
//                    instructions (MUFU: reciprocal, square root, exp, log, sin): the precise
//                    division/sqrt/transcendental sequences around them are what fast math shortens.
//                    Predicted B/A = 1 − m × 0.5, m the executed share of the source lines holding a
//                    MUFU (the 0.5 is an assumption, hence low confidence). Silent on a fast-math build.
//                    Each math line is classed: "division" (an FCHK guards the precise division's slow
//                    path), "transcendental" (MUFU.EX2/LG2/SIN/COS), "other"; values math_share.KIND
//                    give each class's share (the variants --prec-div false read the division share).
//                    Static evidence only (no metrics and no counts: `advise --static`): the SASS rows
//                    stand in for executed instructions, each counted once, and the issue gate is
//                    skipped (said in the limiter, the formula and the confidence).
//
// Pure functions, no Qt.

#include "core/model.h"
#include "core/run/profile_data.h"
#include "core/run/protocol.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

// One SASS instruction of the profiled kernel with what the profile says of it.
struct AdviseRow {
    uint32_t address = 0;      // byte offset in the function (the SASS pane's address)
    std::string opcode;        // "LDG.E", "" when the document does not say
    std::string file;          // source file ("" when no line info)
    int line = 0;              // 1-based source line (call-site attribution), 0 = none
    std::map<std::string, uint64_t> counts;  // SASS metric → count
    std::map<std::string, uint64_t> samples; // stall reason → samples
    uint64_t count(const std::string& name) const;
    uint64_t sampleTotal() const; // without the "_not_issued" subsets
};

// Everything the rules read. Unknown parts stay empty / zero and the rules that need them are silent.
struct AdviseEvidence {
    std::string kernel;                       // mangled
    std::string arch;                         // "sm_90"
    std::vector<ProfileMetric> metrics;       // kernel collection
    std::optional<DeviceInfo> device;
    std::vector<AdviseRow> rows;              // address order
    std::array<uint32_t, 3> grid{0, 0, 0};    // 0 = unknown
    std::array<uint32_t, 3> block{0, 0, 0};
    int dynamicSharedBytes = 0;
    std::optional<Resources> resources;       // from the build
    PtxLaunchBounds bounds;                   // the kernel's PTX launch bounds
    int maxRegCount = 0;                      // the build's -maxrregcount (0 = none)
    bool fastMath = false;                    // the build used --use_fast_math

    // The metric's value when present and a fact (metricRangeProblem() says nothing), else nullopt.
    std::optional<double> metric(const std::string& name) const;
    uint64_t blockThreads() const { return uint64_t{block[0]} * block[1] * block[2]; }
    uint64_t gridBlocks() const { return uint64_t{grid[0]} * grid[1] * grid[2]; }
};

enum class Confidence { Low, Medium, High };
const char* confidenceName(Confidence c); // "low", "medium", "high"

// A predicted effect: the time ratio B/A of the changed kernel over the original (< 1 faster).
struct Prediction {
    double ratio = 1;
    std::string formula;       // the formula with the numbers put in, e.g. "1 − 0.62 × (1 − 25 % / 50 %) = 0.69"
    Confidence confidence = Confidence::Low;
    std::string confidenceReason;
};

// One row that shows a finding (linked in the GUI by address and line).
struct EvidenceRow {
    uint32_t address = 0;
    std::string opcode;
    std::string file;
    int line = 0;
    std::string detail; // what this row shows, e.g. "8.0 sectors/request (ideal 4.0), 31 % of all sectors"
};

struct Finding {
    std::string id;      // rule[.limiter], unique within one advice: "occupancy.registers", "uncoalesced"
    std::string rule;    // one of the rule names above
    std::string limiter; // one sentence: what limits the kernel
    std::vector<std::string> facts; // the numbers the rule read, one short phrase each
    std::vector<EvidenceRow> rows;  // most telling first, at most kMaxEvidenceRows
    Prediction prediction;          // of removing the limiter
    // Rule-specific numbers the variant proposer reads (e.g. "occupancy", "blocks_per_sm").
    std::map<std::string, double> values;
};

inline constexpr size_t kMaxEvidenceRows = 8;

// Every rule over `evidence`, in the order of the list above.
std::vector<Finding> adviseFindings(const AdviseEvidence& evidence);

// The evidence held by a lowerscope.profile/1 document (core/run/profile_document.h reads it; the
// rows' opcode, file and line and the launch are read here with the same checks). The build's part
// (resources, bounds, maxRegCount, fastMath) is the caller's to fill in. Throws
// ProfileDocumentError on a malformed document.
AdviseEvidence evidenceFromProfileDocument(const nlohmann::json& document);

// The SASS rows of `function` without counts or samples (opcode, call-site file and line): the
// evidence of `advise --static`, where only the build and the launch are known.
std::vector<AdviseRow> rowsFromSass(const SassFunction& function);

// The evidence of `advise --static` (and the GUI's Advisor without a profile): kernel `mangled`,
// the rows of `function` when given (rowsFromSass), a device named `deviceName` with `smCount`
// SMs, assumed. The build's part and the launch are the caller's to fill in, as for a profile.
AdviseEvidence staticEvidence(const std::string& mangled, const SassFunction* function, int smCount,
                              const std::string& deviceName);

nlohmann::json toJson(const Finding& f);
nlohmann::json toJson(const Prediction& p);

// "0.873" style ratio text and "12.5 %" style percentages, as the formulas write them.
std::string ratioText(double r);
std::string percentText(double fraction);

} // namespace lowerscope
