#pragma once
// Aligned comparison of two builds of a kernel (A and B): an aligned SASS diff, per-source-line
// deltas, resource deltas and instruction-mix comparison. Pure functions over the lowering model;
// the GUI's diff view and the Markdown report render what these return.
//
// Alignment, in two levels:
//   1. By source line: an LCS (dtl) over the instructions' (file, line) keys. Maximal stretches of
//      matched instructions with one line are the anchors: the same source line in both, in order.
//   2. By instruction sequence inside each anchor and each gap between anchors: an LCS on the
//      instruction keys of the chosen mode. Unmatched instructions next to each other are paired as
//      "changed" when they share a mnemonic, else they stay removed (A only) / added (B only).
//   3. Cleanup: a run of non-equal rows that spans an anchor boundary (same code attributed to a
//      neighbouring line by the other build) is re-aligned by instruction sequence alone, and that
//      result kept when it finds equal instructions (or more changed pairs).
// Rows are monotonic in both A and B: reading the A column top to bottom gives A's listing.

#include "core/build/build.h"
#include "core/analysis/lowering.h"
#include "core/model.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lowerscope {

enum class DiffMode : uint8_t {
    Opcode, // compare the opcode with its modifiers ("FMUL.FTZ"), ignoring operands and guard
    Full    // compare guard + opcode + operands (operand `.reuse` flags are ignored: they are
            // scheduling hints, shown as control bits)
};

enum class RegisterNaming : uint8_t {
    Exact,       // R7 and R9 differ
    PerFunction, // registers (R, P, UR, UP separately) and branch labels are renumbered by first
                 // appearance in the function, so a consistent renaming compares equal
    PerAnchor    // renumbered afresh in each anchor / gap (tolerates renaming that differs by region)
};
// PerFunction is all-or-nothing: one extra register early in B shifts every later number, so the
// rest of the function compares "changed" (on an 18k-instruction listing with 5 % of operands
// perturbed: 2,761 equal rows per function vs 17,370 per anchor). PerAnchor is the robust choice
// for builds that differ by more than a consistent renaming.

struct DiffOptions {
    DiffMode mode = DiffMode::Full;
    RegisterNaming naming = RegisterNaming::Exact;
    InlineAttribution attribution = InlineAttribution::CallSite; // which line inlined code belongs to
                                                                 // (AnyFrame counts as Callee: a diff
                                                                 // needs one line per instruction)
    bool alignBySource = true; // false: one instruction-sequence diff over the whole function
};

enum class DiffStatus : uint8_t { Equal, Changed, Added, Removed };

// "equal", "changed", "added", "removed".
const char* diffStatusName(DiffStatus status);

struct DiffRow {
    int a = -1;              // index into A's instructions, -1 when the row exists only in B
    int b = -1;              // index into B's instructions, -1 when the row exists only in A
    DiffStatus status = DiffStatus::Equal;
    SourceFrame source;      // the source line of the row (A's when both; line 0 = no line info)
    bool operator==(const DiffRow&) const = default;
};

struct DiffSummary {
    int equal = 0, changed = 0, added = 0, removed = 0;
    int instructionsA = 0, instructionsB = 0;
    int anchors = 0; // matched source-line regions (level 1)
    int differences() const { return changed + added + removed; }
};

// A contiguous run of non-equal rows [firstRow, lastRow].
struct DiffHunk {
    int firstRow = 0;
    int lastRow = 0;
    int size() const { return lastRow - firstRow + 1; }
};

struct SassDiff {
    std::vector<DiffRow> rows;
    DiffSummary summary;
    std::vector<DiffHunk> hunks;   // in row order
    std::vector<int> rowOfA;       // A instruction index → row
    std::vector<int> rowOfB;       // B instruction index → row

    // First row of the next hunk starting after `row`; -1 when none (no wrap-around). Pass -1 to
    // get the first difference.
    int nextDifference(int row) const;
    // First row of the last hunk starting before `row` (from inside a hunk: that hunk's start);
    // -1 when none. Pass rows.size() to get the last difference.
    int previousDifference(int row) const;
    // Difference density for a heat strip: `bins` values in [0, 1], bin i covering rows
    // [i*n/bins, (i+1)*n/bins); the fraction of non-equal rows there. Empty when bins <= 0.
    std::vector<double> heat(int bins) const;
};

// Aligns two functions (instructions in address order, source locations filled by the parser).
SassDiff diffSass(const SassFunction& a, const SassFunction& b, const DiffOptions& options = {});

// The comparison key of one instruction under `options` (no register renumbering: that needs the
// function context). Exposed for tests and for the GUI's "why equal?" tooltip.
std::string instructionKey(const SassInstruction& instruction, DiffMode mode);

// Renumbers registers and labels in `text` using `map` (class letter + number → canonical
// number), adding new names by first appearance. "R7, R9.64" → "R0, R1.64". Exposed for tests.
struct RegisterRenaming {
    std::vector<std::pair<std::string, int>> names; // insertion order; small and linear on purpose
    int counters[5] = {0, 0, 0, 0, 0};              // R, P, UR, UP, label
    std::string apply(const std::string& text);
};

// Plain-text rendering of rows [firstRow, lastRow] (clamped), one line per row:
//   "= kernels/x.cu:16  /*0040*/ HFMA2.MMA R23, -RZ, RZ, 0, 0   | /*0040*/ HFMA2.MMA R23, ..."
// status marks: '=' equal, '~' changed, '-' removed, '+' added. `width` pads the A column.
std::string formatDiffRows(const SassDiff& diff, const SassFunction& a, const SassFunction& b, int firstRow,
                           int lastRow, int width = 48);

// Excerpt around the largest hunks: up to `maxHunks` hunks, largest first by size (ties: earlier),
// shown in row order with `context` equal rows around each; gaps are marked "  ...". A run of more
// than `maxRunRows` consecutive rows of one status (e.g. a removed slow path) shows its first and
// last maxRunRows/2 rows around a line "  ... N more removed rows", so the rows where the two
// builds differ in kind stay visible. Empty when there is no difference.
std::string formatDiffExcerpt(const SassDiff& diff, const SassFunction& a, const SassFunction& b,
                              int maxHunks = 3, int context = 2, int width = 48, int maxRunRows = 16);

// ------------------------------------------------------------------------- per-line deltas

struct LineStats {
    int instructions = 0;
    int stallCycles = 0;  // sum of the control stall counts
    int maxLiveGpr = -1;  // -1 when no live counts are available
    bool operator==(const LineStats&) const = default;
};

struct LineDelta {
    SourceFrame source; // file + line (column 0)
    LineStats a, b;
    int instructionDelta() const { return b.instructions - a.instructions; }
    int stallDelta() const { return b.stallCycles - a.stallCycles; }
    // B − A of max live GPRs; 0 when either side has no live counts.
    int maxLiveDelta() const { return (a.maxLiveGpr < 0 || b.maxLiveGpr < 0) ? 0 : b.maxLiveGpr - a.maxLiveGpr; }
};

// Per source line of either side (sorted by file, line), the stats of A and B. Instructions without
// line info are collected under line 0.
std::vector<LineDelta> lineDeltas(const SassFunction& a, const SassFunction& b,
                                  InlineAttribution attribution = InlineAttribution::CallSite);
// The same from the analysis' per-line aggregates (KernelModel::lines).
std::vector<LineDelta> lineDeltas(const std::vector<LineAggregate>& a, const std::vector<LineAggregate>& b);

// ----------------------------------------------------------------------- resource deltas

// Theoretical occupancy of one kernel on one SM, from the CUDA occupancy rules (register
// allocation per warp in 256-register units, shared memory per block rounded to 128 bytes plus the
// 1 KiB the driver reserves per block on sm_80+, warp and block limits per SM). Architecture limits
// come from a small built-in table (sm_70 … sm_120); unknown architectures use sm_90's.
struct OccupancyEstimate {
    int blocksPerSm = 0;
    int activeWarps = 0;
    int maxWarps = 0;
    double fraction = 0;       // activeWarps / maxWarps, 0..1
    std::string limiter;       // "registers", "shared memory", "warps", "blocks", "invalid"
};

// `registers` per thread, `sharedBytes` static + dynamic per block, `blockThreads` threads per block.
// A block that cannot run at all (too many threads/registers/shared) gives blocksPerSm 0 and limiter
// "invalid".
OccupancyEstimate estimateOccupancy(const std::string& arch, int registers, int sharedBytes, int blockThreads);

struct ResourceDelta {
    std::string name;   // "registers", "spill stores (bytes)", "spill loads (bytes)", "shared (bytes)",
                        // "local (bytes)", "stack (bytes)", "occupancy (%)", "blocks per SM"
    double a = -1, b = -1; // -1: not reported
    bool known() const { return a >= 0 && b >= 0; }
    double delta() const { return known() ? b - a : 0; }
};

// Rows for the resource table. Occupancy rows are included when blockThreads > 0
// (dynamicSharedBytes is added to the static shared memory of both).
std::vector<ResourceDelta> resourceDeltas(const Resources& a, const Resources& b, const std::string& arch,
                                          int blockThreads = 0, int dynamicSharedBytes = 0);

// ------------------------------------------------------------------------- instruction mix

struct MixRow {
    std::string name;   // mnemonic ("FFMA") or category name
    int a = 0, b = 0;
    int delta() const { return b - a; }
};

// Count per mnemonic in A and B, sorted by |delta| descending, then by a+b descending, then name.
std::vector<MixRow> mnemonicMix(const SassFunction& a, const SassFunction& b);

// Count per instruction category (from the analysis' aggregates, e.g. KernelModel::total.mix), in
// the category enum's order; categories absent from both are left out.
std::vector<MixRow> categoryMix(const LineAggregate& a, const LineAggregate& b);

} // namespace lowerscope
