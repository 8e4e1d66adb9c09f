#include "core/analysis/graph_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace lowerscope {

namespace {

// Graphviz keeps global state (the plugin registry, error handlers, static buffers): one layout
// at a time, and one context kept for the process (loading the plugins costs milliseconds).
std::mutex& graphvizMutex() {
    static std::mutex m;
    return m;
}

GVC_t* context() {
    static GVC_t* gvc = gvContext();
    return gvc;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

void set(void* obj, const char* name, const std::string& value) {
    agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

// Graphviz reports problems through agerr, printing to stderr by default; collect them instead.
std::string g_errors;
int collectErrors(char* message) {
    if (g_errors.size() < 4096) g_errors += message;
    return 0;
}

} // namespace

GraphLayout layoutGraph(const std::vector<LayoutBlock>& blocks, const std::vector<LayoutEdge>& edges,
                        const GraphLayoutOptions& o) {
    GraphLayout out;
    std::unordered_map<int, size_t> index;
    for (size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].id == kExitNodeId) {
            out.error = "block id -1 is reserved for the exit node";
            return out;
        }
        if (!index.emplace(blocks[i].id, i).second) {
            out.error = "duplicate block id " + std::to_string(blocks[i].id);
            return out;
        }
    }
    size_t exits = 0;
    for (const auto& e : edges) {
        if (!index.count(e.from) || (e.to != -1 && !index.count(e.to))) {
            out.error = "edge " + std::to_string(e.from) + " → " + std::to_string(e.to) + " names an unknown block";
            return out;
        }
        exits += e.to == -1 && o.exitNode;
    }

    std::lock_guard<std::mutex> lock(graphvizMutex());
    g_errors.clear();
    agseterrf(collectErrors);
    GVC_t* gvc = context();
    if (!gvc) {
        out.error = "Graphviz could not create a context";
        return out;
    }
    Agraph_t* g = agopen(const_cast<char*>("cfg"), Agdirected, nullptr);
    set(g, "rankdir", o.topToBottom ? "TB" : "LR");
    set(g, "nodesep", num(o.nodeSepPt / 72.0));
    set(g, "ranksep", num(o.rankSepPt / 72.0));
    const size_t nodeCount = blocks.size() + exits;
    if (o.largeGraphThreshold > 0 && nodeCount > size_t(o.largeGraphThreshold)) {
        // dot's defaults run network simplex to optimality: superlinear on long CFGs (a 2,000-block
        // chain took ~8 s of CPU); capped passes give slightly less straight edges.
        const double scale = double(o.largeGraphThreshold) / double(nodeCount);
        set(g, "nslimit", num(scale));
        set(g, "nslimit1", num(scale));
        set(g, "mclimit", num(std::max(0.1, scale)));
        out.capped = true;
    }
    // Node sizes are ours (fixedsize boxes, no label): Graphviz never measures text, so no font
    // lookup (fontconfig) happens and the layout does not depend on installed fonts.
    agattr(g, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
    agattr(g, AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
    agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
    agattr(g, AGNODE, const_cast<char*>("width"), const_cast<char*>("0.75"));
    agattr(g, AGNODE, const_cast<char*>("height"), const_cast<char*>("0.5"));
    agattr(g, AGEDGE, const_cast<char*>("constraint"), const_cast<char*>("true"));
    agattr(g, AGEDGE, const_cast<char*>("weight"), const_cast<char*>("1"));

    std::vector<Agnode_t*> nodes(blocks.size(), nullptr);
    std::vector<std::pair<double, double>> sizes(blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i) {
        const LayoutBlock& b = blocks[i];
        double w = b.widthPt, h = b.heightPt;
        if (w <= 0) {
            size_t chars = 0;
            for (const auto& l : b.lines) chars = std::max(chars, l.size());
            w = std::max(o.minWidthPt, 2 * o.paddingPt + double(chars) * o.charWidthPt);
        }
        if (h <= 0) h = std::max(o.minHeightPt, 2 * o.paddingPt + double(b.lines.size()) * o.lineHeightPt);
        sizes[i] = {w, h};
        const std::string name = "b" + std::to_string(i);
        nodes[i] = agnode(g, const_cast<char*>(name.c_str()), 1);
        set(nodes[i], "width", num(w / 72.0));
        set(nodes[i], "height", num(h / 72.0));
    }
    // Exit stubs: a quarter-size box per Exit edge.
    const double stubW = o.minWidthPt, stubH = o.minHeightPt / 2;
    std::vector<std::pair<Agnode_t*, size_t>> stubs; // (node, edge index)
    std::vector<Agedge_t*> gedges(edges.size(), nullptr);
    for (size_t i = 0; i < edges.size(); ++i) {
        const LayoutEdge& e = edges[i];
        Agnode_t* tail = nodes[index.at(e.from)];
        Agnode_t* head = nullptr;
        if (e.to != -1) {
            head = nodes[index.at(e.to)];
        } else if (o.exitNode) {
            const std::string name = "x" + std::to_string(i);
            head = agnode(g, const_cast<char*>(name.c_str()), 1);
            set(head, "width", num(stubW / 72.0));
            set(head, "height", num(stubH / 72.0));
            stubs.emplace_back(head, i);
        }
        if (!head) continue;
        // A distinct name per edge keeps parallel edges (taken + fall-through to one block) apart.
        const std::string name = "e" + std::to_string(i);
        gedges[i] = agedge(g, tail, head, const_cast<char*>(name.c_str()), 1);
        // Fall-through edges pull hardest: the listing order reads straight down.
        if (e.kind == CfgEdgeKind::FallThrough) set(gedges[i], "weight", "4");
        if (e.kind == CfgEdgeKind::Back && !o.backEdgesConstrain) set(gedges[i], "constraint", "false");
    }

    const auto t0 = std::chrono::steady_clock::now();
    const int rc = gvLayout(gvc, g, "dot");
    out.layoutMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != 0) {
        out.error = "Graphviz dot layout failed" + (g_errors.empty() ? std::string() : ": " + g_errors);
        agclose(g);
        return out;
    }

    // Graphviz: points, y up. GD_bb covers the nodes but not always the control points of edges
    // routed around them (back edges), so the box is recomputed over nodes, control points and
    // arrow tips; the curves lie inside it because a Bézier lies in its control points' hull.
    boxf bb = GD_bb(g);
    auto grow = [&](double x, double y) {
        bb.LL.x = std::min(bb.LL.x, x);
        bb.LL.y = std::min(bb.LL.y, y);
        bb.UR.x = std::max(bb.UR.x, x);
        bb.UR.y = std::max(bb.UR.y, y);
    };
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const pointf c = ND_coord(n);
        const double hw = ND_width(n) * 36.0, hh = ND_height(n) * 36.0; // inches → half size in points
        grow(c.x - hw, c.y - hh);
        grow(c.x + hw, c.y + hh);
    }
    for (Agedge_t* e : gedges) {
        if (!e || !ED_spl(e)) continue;
        const splines* spl = ED_spl(e);
        for (int s = 0; s < spl->size; ++s) {
            for (int p = 0; p < spl->list[s].size; ++p) grow(spl->list[s].list[p].x, spl->list[s].list[p].y);
            if (spl->list[s].eflag) grow(spl->list[s].ep.x, spl->list[s].ep.y);
            if (spl->list[s].sflag) grow(spl->list[s].sp.x, spl->list[s].sp.y);
        }
    }
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    auto convert = [&](pointf p) { return PointF{p.x - bb.LL.x, bb.UR.y - p.y}; };
    auto nodeLayout = [&](Agnode_t* n, int id, double w, double h) {
        const PointF c = convert(ND_coord(n));
        return NodeLayout{id, c.x, c.y, w, h};
    };
    for (size_t i = 0; i < blocks.size(); ++i)
        out.nodes.push_back(nodeLayout(nodes[i], blocks[i].id, sizes[i].first, sizes[i].second));
    for (const auto& [node, edge] : stubs) {
        out.nodes.push_back(nodeLayout(node, kExitNodeId, stubW, stubH));
        out.nodes.back().exitEdge = int(edge);
    }

    for (size_t i = 0; i < edges.size(); ++i) {
        if (!gedges[i]) continue;
        EdgeLayout el;
        el.from = edges[i].from;
        el.to = edges[i].to;
        el.kind = edges[i].kind;
        const splines* spl = ED_spl(gedges[i]);
        if (spl && spl->size > 0) {
            // One bezier per edge for dot's splines (more only for compound/cluster edges).
            for (int s = 0; s < spl->size; ++s) {
                const bezier& bz = spl->list[s];
                for (int p = 0; p < bz.size; ++p) {
                    if (s > 0 && p == 0) continue; // joined segments share the end point
                    el.points.push_back(convert(bz.list[p]));
                }
                if (s == spl->size - 1 && bz.eflag) {
                    el.hasArrow = true;
                    el.arrowTip = convert(bz.ep);
                }
            }
        } else {
            // No spline (should not happen with dot): a straight segment between the centres.
            const NodeLayout& a = out.nodes[index.at(el.from)];
            const NodeLayout* b = nullptr;
            if (el.to != -1) b = &out.nodes[index.at(el.to)];
            for (const auto& n : out.nodes)
                if (el.to == -1 && n.exitEdge == int(i)) b = &n;
            if (b) el.points = {{a.x, a.y}, {a.x, a.y}, {b->x, b->y}, {b->x, b->y}};
        }
        out.edges.push_back(std::move(el));
    }
    gvFreeLayout(gvc, g);
    agclose(g);
    out.ok = true;
    return out;
}

GraphLayout layoutCfg(const Cfg& cfg, const SassFunction& function, const GraphLayoutOptions& options) {
    std::vector<LayoutBlock> blocks;
    blocks.reserve(cfg.blocks.size());
    for (const BasicBlock& b : cfg.blocks) {
        LayoutBlock lb;
        lb.id = b.id;
        for (int i = b.firstIndex; i <= b.lastIndex && i >= 0 && size_t(i) < function.instructions.size(); ++i) {
            char addr[16];
            std::snprintf(addr, sizeof addr, "%04x ", function.instructions[size_t(i)].address);
            lb.lines.push_back(addr + function.instructions[size_t(i)].text);
        }
        blocks.push_back(std::move(lb));
    }
    std::vector<LayoutEdge> edges;
    edges.reserve(cfg.edges.size());
    for (const CfgEdge& e : cfg.edges) edges.push_back({e.from, e.to, e.kind});
    return layoutGraph(blocks, edges, options);
}

} // namespace lowerscope
