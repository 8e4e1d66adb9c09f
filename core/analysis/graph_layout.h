#pragma once
// Control-flow-graph layout with Graphviz's `dot` (libgvc + libcgraph, Debian libgraphviz-dev).
// Optional: core/CMakeLists.txt compiles graph_layout.cpp only when pkg-config finds libgvc, and
// then defines LOWERSCOPE_HAVE_GRAPHVIZ=1 for lowerscope_core and everything linking it. Code that
// uses this header must test that macro (a GPU host may build the core without Graphviz).
//
// All coordinates are in points (1/72 inch), y pointing down, origin at the top-left corner of the
// drawing's bounding box, so a view can use them directly as scene coordinates.

#include "core/model.h"

#include <string>
#include <vector>

namespace lowerscope {

struct LayoutBlock {
    int id = 0;                     // the caller's block id (e.g. BasicBlock::id); must be unique
    std::vector<std::string> lines; // text shown in the node (sizes it when width/height are 0)
    double widthPt = 0;             // explicit size; 0 = computed from `lines` and the options
    double heightPt = 0;
};

struct LayoutEdge {
    int from = 0;                   // block ids
    int to = -1;                    // -1: an Exit edge (drawn to the exit node when enabled)
    CfgEdgeKind kind = CfgEdgeKind::FallThrough;
};

struct GraphLayoutOptions {
    double charWidthPt = 6.6;       // monospace advance at the view's font (11 px DejaVu Sans Mono ≈ 6.6)
    double lineHeightPt = 13;
    double paddingPt = 6;           // inside each node, all sides
    double minWidthPt = 40;
    double minHeightPt = 20;
    double nodeSepPt = 18;          // horizontal gap between nodes of one rank
    double rankSepPt = 28;          // vertical gap between ranks
    bool topToBottom = true;        // false: left to right
    bool exitNode = true;           // Exit edges end at a small stub node of their own, one rank
                                    // below their block (id kExitNodeId); false: left out. One
                                    // shared exit node would make every early `@P0 EXIT` edge span
                                    // the whole graph, which costs dot minutes on large CFGs.
    bool backEdgesConstrain = true; // false: back edges do not influence the ranking
    // Above this many nodes, dot's network-simplex and crossing-minimisation passes are capped
    // (nslimit, nslimit1, mclimit scaled by threshold / nodes) so a 2,000-block CFG stays within
    // the ~2 s budget; below it dot runs to convergence. 0 = never cap.
    int largeGraphThreshold = 600;
};

inline constexpr int kExitNodeId = -1;

struct PointF {
    double x = 0, y = 0;
    bool operator==(const PointF&) const = default;
};

struct NodeLayout {
    int id = 0;            // LayoutBlock::id, or kExitNodeId for an exit stub
    double x = 0, y = 0;   // centre
    double width = 0, height = 0;
    int exitEdge = -1;     // for an exit stub: the index of its Exit edge in the input
};

struct EdgeLayout {
    int from = 0, to = -1;
    CfgEdgeKind kind = CfgEdgeKind::FallThrough;
    // Piecewise cubic Bézier: points[0] is the start, then 3 points per segment (2 controls + end).
    std::vector<PointF> points;
    bool hasArrow = false; // the line ends short of the node; the arrow head goes to `arrowTip`
    PointF arrowTip;
};

struct GraphLayout {
    bool ok = false;
    std::string error;              // why not ok (Graphviz failure, bad input)
    double width = 0, height = 0;   // bounding box
    std::vector<NodeLayout> nodes;  // blocks in input order, then one exit stub per Exit edge
    std::vector<EdgeLayout> edges;  // input order; Exit edges are left out when !exitNode
    double layoutMs = 0;            // wall time spent in gvLayout
    bool capped = false;            // the large-graph caps were applied
};

// Runs `dot` on the graph. Thread-safe (Graphviz itself is not: calls are serialised); meant to run
// on a worker thread, a 2,000-block CFG takes one to two seconds (docs/PERFORMANCE.md). Never throws:
// duplicate block ids, edges naming unknown blocks or a Graphviz failure give ok = false.
GraphLayout layoutGraph(const std::vector<LayoutBlock>& blocks, const std::vector<LayoutEdge>& edges,
                        const GraphLayoutOptions& options = {});

// Convenience for a core CFG: one LayoutBlock per BasicBlock with the instruction texts of
// `function` as lines (addresses prefixed), one LayoutEdge per CfgEdge.
GraphLayout layoutCfg(const Cfg& cfg, const SassFunction& function, const GraphLayoutOptions& options = {});

} // namespace lowerscope
