#pragma once
// Lane layout for dependency arrows beside a listing (the SASS pane's gutter). A pure function of
// the edges: the core hands out lanes, the view only paints. An edge occupies the closed row span
// [min(from, to), max(from, to)] in its lane; two edges in one lane never share a row, so arrows
// in a lane neither cross nor touch. The lane count is minimal (interval-graph colouring: greedy by
// start, reusing the lowest free lane), and the result depends only on the input, never on hashing.

#include "core/model.h"

#include <cstdint>
#include <vector>

namespace lowerscope {

// One arrow to place: rows are 0-based indices into the listing (e.g. instruction indices).
// `kind` is carried through for colouring; the layout ignores it.
struct LaneEdge {
    int fromRow = 0;
    int toRow = 0;
    DepKind kind = DepKind::Register;
    int lo() const { return fromRow < toRow ? fromRow : toRow; }
    int hi() const { return fromRow < toRow ? toRow : fromRow; }
    bool operator==(const LaneEdge&) const = default;
};

struct LaneOptions {
    // Edges with the same (fromRow, toRow) share one lane (they would be drawn on top of each
    // other anyway, e.g. R2 and R3 of one 64-bit operand). Off: every edge gets its own lane slot.
    bool shareIdenticalSpans = false;
    // Fan-out bundling: the downward edges that leave one row with one kind (a producer and its
    // consumers of one resource class) share one lane, as a trunk from the producer down to its
    // last consumer with a branch into each consumer. So one instruction with 40 consumers takes
    // one lane, not 40 (the "comb"). Members of a bundle overlap in their lane by design;
    // the guarantee "never share a row" holds between different bundles. Upward (loop-carried)
    // edges are never bundled.
    bool bundleFanOut = false;
};

// The layout plus an interval index over it. Immutable after construction; cheap to query from
// any thread (const). Memory: O(edges).
class LaneLayout {
public:
    LaneLayout() = default;

    // Lane (0 = innermost, next to the text) of input edge i; same size and order as the input.
    const std::vector<int>& lanes() const { return m_lane; }
    int laneOf(int edgeIndex) const { return m_lane.at(static_cast<size_t>(edgeIndex)); }
    // Number of lanes used (0 for no edges); max lane + 1.
    int laneCount() const { return m_laneCount; }
    const std::vector<LaneEdge>& edges() const { return m_edges; }

    // Indices of the input edges whose row span intersects rows [firstRow, lastRow] (inclusive),
    // ordered by (lo, hi, fromRow, index). O((k + 1) log n) for k results. Empty when
    // firstRow > lastRow.
    std::vector<int> edgesInRows(int firstRow, int lastRow) const;
    // Same, appending to `out` (no allocation when `out` has capacity; for the paint loop).
    void edgesInRows(int firstRow, int lastRow, std::vector<int>& out) const;

private:
    friend LaneLayout layoutLanes(std::vector<LaneEdge> edges, const LaneOptions& options);
    void buildIndex();
    void collect(size_t node, size_t nodeLo, size_t nodeHi, size_t limit, int firstRow,
                 std::vector<int>& out) const;

    std::vector<LaneEdge> m_edges;
    std::vector<int> m_lane;
    int m_laneCount = 0;
    // Index: edge indices sorted by (lo, hi, fromRow, index), their lo values, and a max-hi segment tree
    // over that order (size 2^k leaves) so a query visits only subtrees that reach firstRow.
    std::vector<int> m_order;
    std::vector<int> m_sortedLo;
    std::vector<int> m_sortedHi;
    std::vector<int> m_maxHi;
    size_t m_leaves = 0;
};

// Whether edges a and b are one fan-out bundle under bundleFanOut (same producer row and kind,
// both downward).
bool sameFanOutBundle(const LaneEdge& a, const LaneEdge& b);

// Assigns every edge exactly one lane. Rows may be in any order (from > to is an upward arrow);
// negative rows are allowed. O(n log n).
LaneLayout layoutLanes(std::vector<LaneEdge> edges, const LaneOptions& options = {});

// Convenience: DepEdges of one function → LaneEdges in instruction-index rows (edges whose
// addresses are not in `function` are dropped; `kept` receives the index into `deps` of each kept
// edge, in output order, when non-null).
std::vector<LaneEdge> laneEdgesFromDeps(const SassFunction& function, const std::vector<DepEdge>& deps,
                                        std::vector<int>* kept = nullptr);

} // namespace lowerscope
