// CFG layout with Graphviz dot: one node per block, one spline per edge, sane geometry, errors for
// bad input; and the real CFG of the fast-math kernel (tests/data/diff) laid out whole.
#include "core/analysis/cfg.h"
#include "core/analysis/graph_layout.h"
#include "core/parse/sass_parser.h"
#include "golden_util.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

using namespace lowerscope;

namespace {

bool overlap(const NodeLayout& a, const NodeLayout& b) {
    return std::abs(a.x - b.x) * 2 < a.width + b.width - 1e-6 && std::abs(a.y - b.y) * 2 < a.height + b.height - 1e-6;
}

void checkLayout(const GraphLayout& g, const std::vector<LayoutBlock>& blocks, const std::vector<LayoutEdge>& edges,
                 bool exitNode) {
    ASSERT_TRUE(g.ok) << g.error;
    size_t exits = 0;
    for (const auto& e : edges) exits += e.to == -1;
    ASSERT_EQ(g.nodes.size(), blocks.size() + (exitNode ? exits : 0));
    for (size_t i = 0; i < blocks.size(); ++i) EXPECT_EQ(g.nodes[i].id, blocks[i].id);
    for (size_t i = blocks.size(); i < g.nodes.size(); ++i) {
        EXPECT_EQ(g.nodes[i].id, kExitNodeId);
        ASSERT_GE(g.nodes[i].exitEdge, 0);
        EXPECT_EQ(edges[size_t(g.nodes[i].exitEdge)].to, -1);
    }
    std::multiset<std::pair<int, int>> wanted, got;
    for (const auto& e : edges)
        if (e.to != -1 || exitNode) wanted.insert({e.from, e.to});
    for (const auto& e : g.edges) got.insert({e.from, e.to});
    EXPECT_EQ(got, wanted) << "every edge exactly one spline";
    for (const auto& n : g.nodes) {
        EXPECT_GE(n.x - n.width / 2, -0.5);
        EXPECT_GE(n.y - n.height / 2, -0.5);
        EXPECT_LE(n.x + n.width / 2, g.width + 0.5);
        EXPECT_LE(n.y + n.height / 2, g.height + 0.5);
    }
    for (const auto& e : g.edges) {
        ASSERT_GE(e.points.size(), 4u);
        EXPECT_EQ((e.points.size() - 1) % 3, 0u) << "cubic Bézier: 1 + 3k points";
        for (const auto& p : e.points) {
            EXPECT_GE(p.x, -1);
            EXPECT_GE(p.y, -1);
            EXPECT_LE(p.x, g.width + 1);
            EXPECT_LE(p.y, g.height + 1);
        }
    }
    if (g.nodes.size() <= 300)
        for (size_t i = 0; i < g.nodes.size(); ++i)
            for (size_t j = i + 1; j < g.nodes.size(); ++j)
                EXPECT_FALSE(overlap(g.nodes[i], g.nodes[j])) << "nodes " << g.nodes[i].id << " and " << g.nodes[j].id;
}

} // namespace

TEST(GraphLayout, DiamondWithLoopAndExit) {
    std::vector<LayoutBlock> blocks{{0, {"0000 S2R R0, SR_TID.X", "0010 ISETP.GE.AND P0, PT, R0, 0x4, PT"}},
                                    {1, {"0020 FADD R1, R0, R0"}},
                                    {2, {"0030 FMUL R1, R0, R0"}},
                                    {3, {"0040 @P1 BRA `(.L_x_0)"}},
                                    {4, {"0050 EXIT"}}};
    std::vector<LayoutEdge> edges{{0, 1, CfgEdgeKind::FallThrough}, {0, 2, CfgEdgeKind::Taken},
                                  {1, 3, CfgEdgeKind::FallThrough}, {2, 3, CfgEdgeKind::Taken},
                                  {3, 0, CfgEdgeKind::Back},         {3, 4, CfgEdgeKind::FallThrough},
                                  {4, -1, CfgEdgeKind::Exit}};
    GraphLayout g = layoutGraph(blocks, edges);
    checkLayout(g, blocks, edges, true);
    ASSERT_EQ(g.nodes.back().id, kExitNodeId);
    EXPECT_EQ(g.nodes.back().exitEdge, 6);
    // Top to bottom: the entry above the join, the join above the exit block.
    EXPECT_LT(g.nodes[0].y, g.nodes[3].y);
    EXPECT_LT(g.nodes[3].y, g.nodes[4].y);
    EXPECT_LT(g.nodes[4].y, g.nodes.back().y);
    // Node size from the text: the widest line of block 0 is 37 characters.
    EXPECT_NEAR(g.nodes[0].width, 2 * 6 + 37 * 6.6, 0.01);
    EXPECT_NEAR(g.nodes[0].height, 2 * 6 + 2 * 13, 0.01);
    // The edges end at (or point at) their target: the last point or the arrow tip lies on the
    // target's box edge (within a few points).
    for (const auto& e : g.edges) {
        if (e.to == -1) continue;
        const NodeLayout& t = g.nodes[size_t(e.to)];
        const PointF end = e.hasArrow ? e.arrowTip : e.points.back();
        EXPECT_LE(std::abs(end.x - t.x), t.width / 2 + 2) << e.from << "→" << e.to;
        EXPECT_LE(std::abs(end.y - t.y), t.height / 2 + 2) << e.from << "→" << e.to;
    }
    GraphLayoutOptions noExit;
    noExit.exitNode = false;
    checkLayout(layoutGraph(blocks, edges, noExit), blocks, edges, false);
}

TEST(GraphLayout, ParallelEdgesStayDistinct) {
    std::vector<LayoutBlock> blocks{{10, {"a"}}, {20, {"b"}}};
    std::vector<LayoutEdge> edges{{10, 20, CfgEdgeKind::FallThrough}, {10, 20, CfgEdgeKind::Taken}};
    GraphLayout g = layoutGraph(blocks, edges);
    checkLayout(g, blocks, edges, true);
    ASSERT_EQ(g.edges.size(), 2u);
    EXPECT_EQ(g.edges[0].kind, CfgEdgeKind::FallThrough);
    EXPECT_EQ(g.edges[1].kind, CfgEdgeKind::Taken);
    EXPECT_NE(g.edges[0].points, g.edges[1].points);
}

TEST(GraphLayout, ExplicitSizesAndEmptyGraph) {
    GraphLayout g = layoutGraph({{1, {}, 100, 50}}, {});
    ASSERT_TRUE(g.ok) << g.error;
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_DOUBLE_EQ(g.nodes[0].width, 100);
    EXPECT_DOUBLE_EQ(g.nodes[0].height, 50);
    EXPECT_NEAR(g.width, 100, 1);
    GraphLayout empty = layoutGraph({}, {});
    EXPECT_TRUE(empty.ok) << empty.error;
    EXPECT_TRUE(empty.nodes.empty());
}

TEST(GraphLayout, LargeGraphsAreCapped) {
    std::vector<LayoutBlock> blocks;
    std::vector<LayoutEdge> edges;
    for (int i = 0; i < 60; ++i) {
        blocks.push_back({i, {"x"}});
        if (i) edges.push_back({i - 1, i, CfgEdgeKind::FallThrough});
    }
    GraphLayoutOptions o;
    o.largeGraphThreshold = 50;
    GraphLayout capped = layoutGraph(blocks, edges, o);
    EXPECT_TRUE(capped.capped);
    checkLayout(capped, blocks, edges, true);
    EXPECT_FALSE(layoutGraph(blocks, edges).capped);
}

TEST(GraphLayout, BadInputIsAnErrorNotACrash) {
    GraphLayout dup = layoutGraph({{1, {"x"}}, {1, {"y"}}}, {});
    EXPECT_FALSE(dup.ok);
    EXPECT_NE(dup.error.find("duplicate block id 1"), std::string::npos);
    GraphLayout unknown = layoutGraph({{1, {"x"}}}, {{1, 7, CfgEdgeKind::Taken}});
    EXPECT_FALSE(unknown.ok);
    EXPECT_NE(unknown.error.find("unknown block"), std::string::npos);
    EXPECT_FALSE(layoutGraph({{-1, {"x"}}}, {}).ok);
}

TEST(GraphLayout, RandomCfgsKeepTheInvariants) {
    std::mt19937 rng(99);
    for (int round = 0; round < 5; ++round) {
        const int n = 20 + int(rng() % 80);
        std::vector<LayoutBlock> blocks;
        std::vector<LayoutEdge> edges;
        for (int i = 0; i < n; ++i) {
            LayoutBlock b{i * 3 + 5, {}};
            for (unsigned l = 0; l < 1 + rng() % 6; ++l) b.lines.push_back(std::string(10 + rng() % 30, 'x'));
            blocks.push_back(b);
            if (i + 1 < n) edges.push_back({i * 3 + 5, (i + 1) * 3 + 5, CfgEdgeKind::FallThrough});
            if (rng() % 3 == 0) {
                const int t = int(rng() % unsigned(n));
                edges.push_back({i * 3 + 5, t * 3 + 5, t <= i ? CfgEdgeKind::Back : CfgEdgeKind::Taken});
            }
        }
        edges.push_back({(n - 1) * 3 + 5, -1, CfgEdgeKind::Exit});
        edges.push_back({5, -1, CfgEdgeKind::Exit}); // an early exit
        checkLayout(layoutGraph(blocks, edges), blocks, edges, true);
        if (HasFailure()) break;
    }
}

TEST(GraphLayout, RealCfgOfTheFastMathKernel) {
    const auto dir = golden::dataDir() / "diff";
    const SassListing l = parseSass(golden::readFile(dir / "fast_math.default.sass"));
    ASSERT_EQ(l.functions.size(), 1u);
    const SassFunction& f = l.functions[0];
    const Cfg cfg = buildCfg(f);
    ASSERT_GT(cfg.blocks.size(), 10u);
    GraphLayout g = layoutCfg(cfg, f);
    ASSERT_TRUE(g.ok) << g.error;
    size_t exits = 0;
    for (const auto& e : cfg.edges) exits += e.to == -1;
    EXPECT_GT(exits, 0u);
    EXPECT_EQ(g.nodes.size(), cfg.blocks.size() + exits) << "one node per core block (plus exit stubs)";
    EXPECT_EQ(g.edges.size(), cfg.edges.size()) << "one spline per core edge";
    for (size_t i = 0; i < cfg.blocks.size(); ++i) {
        EXPECT_EQ(g.nodes[i].id, cfg.blocks[i].id);
        const int lines = cfg.blocks[i].lastIndex - cfg.blocks[i].firstIndex + 1;
        EXPECT_NEAR(g.nodes[i].height, std::max(20.0, 12 + 13.0 * lines), 0.01);
    }
}
