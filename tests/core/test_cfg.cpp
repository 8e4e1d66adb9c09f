// CFG construction: unit cases on real nvdisasm excerpts, and every golden kernel checked against
// nvdisasm's own -bbcfg graph (same block boundaries and edges among the blocks reachable from the
// entry; nvdisasm leaves out unreachable padding and exit edges — see core/analysis/cfg.h).
#include "analysis_util.h"

#include "core/analysis/cfg.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

using namespace lowerscope;
using namespace lowerscope::testutil;

namespace {

// relu_matvec_skip_zeros-like shape from an sm_90 build: early exit, a loop, a join.
const char* kLoop = R"(
        .section        .text._Z4loopPfi,"ax",@progbits
_Z4loopPfi:
.text._Z4loopPfi:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;
        /*0030*/               @P0 EXIT ;
        /*0040*/                   MOV R3, RZ ;
.L_x_0:
        /*0050*/                   IADD3 R3, R3, 0x1, RZ ;
        /*0060*/                   ISETP.NE.AND P1, PT, R3, R0, PT ;
        /*0070*/               @P1 BRA `(.L_x_0) ;
        /*0080*/                   BRA.U !UP0, `(.L_x_1) ;
        /*0090*/                   MOV R3, 0x1 ;
.L_x_1:
        /*00a0*/                   STG.E desc[UR4][R4.64], R3 ;
        /*00b0*/                   EXIT ;
.L_x_2:
        /*00c0*/                   BRA `(.L_x_2);
        /*00d0*/                   NOP;
)";

struct DotGraph {
    std::vector<std::string> nodes;  // in order
    std::vector<int> sizes;          // instructions per node
    std::set<std::pair<int, int>> edges;
    std::vector<std::pair<std::string, std::string>> namedEdges; // resolved after all nodes are read
};

// Parses the clusters of `nvdisasm -bbcfg` output: function name → graph.
std::map<std::string, DotGraph> parseDot(const std::string& text) {
    std::map<std::string, DotGraph> out;
    static const std::regex cluster(R"re(^subgraph "cluster_(.*)" \{$)re");
    static const std::regex node(R"re(^"([^"]+)"$)re");
    static const std::regex edge(R"re(^"([^"]+)":\w+:\w -> "([^"]+)":entry)re");
    DotGraph* g = nullptr;
    std::istringstream in(text);
    std::string line, pendingNode;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, cluster)) {
            g = &out[m[1]];
        } else if (g && std::regex_match(line, m, node)) {
            pendingNode = m[1];
        } else if (g && !pendingNode.empty() && line.rfind("[label=", 0) == 0) {
            g->nodes.push_back(pendingNode);
            int count = 0;
            for (size_t p = line.find("\\ ;\\l"); p != std::string::npos; p = line.find("\\ ;\\l", p + 1)) ++count;
            g->sizes.push_back(count);
            pendingNode.clear();
        } else if (g && std::regex_search(line, m, edge)) {
            g->namedEdges.push_back({m[1], m[2]});
        }
    }
    for (auto& [name, graph] : out) {
        std::map<std::string, int> idx;
        for (size_t i = 0; i < graph.nodes.size(); ++i) idx[graph.nodes[i]] = static_cast<int>(i);
        for (const auto& [a, b] : graph.namedEdges)
            graph.edges.insert({idx.count(a) ? idx[a] : -1, idx.count(b) ? idx[b] : -1});
    }
    return out;
}

} // namespace

TEST(Cfg, BlocksEdgesLoops) {
    SassListing l = parseSass(kLoop);
    ASSERT_EQ(l.functions.size(), 1u);
    const Cfg cfg = buildCfg(l.functions[0]);
    // Blocks: [0..3] (ends at @P0 EXIT), [4], [5..7] loop, [8] BRA.U, [9], [10..11], [12] the
    // self-branch after the last EXIT, [13] NOP padding.
    ASSERT_EQ(cfg.blocks.size(), 8u);
    const std::vector<std::pair<int, int>> ranges = {{0, 3}, {4, 4}, {5, 7}, {8, 8}, {9, 9}, {10, 11}, {12, 12}, {13, 13}};
    for (size_t b = 0; b < ranges.size(); ++b) {
        EXPECT_EQ(cfg.blocks[b].firstIndex, ranges[b].first) << b;
        EXPECT_EQ(cfg.blocks[b].lastIndex, ranges[b].second) << b;
    }
    auto has = [&](int from, int to, CfgEdgeKind kind) {
        for (const auto& e : cfg.edges)
            if (e.from == from && e.to == to && e.kind == kind) return true;
        return false;
    };
    EXPECT_TRUE(has(0, -1, CfgEdgeKind::Exit));
    EXPECT_TRUE(has(0, 1, CfgEdgeKind::FallThrough)); // predicated EXIT falls through
    EXPECT_TRUE(has(1, 2, CfgEdgeKind::FallThrough));
    EXPECT_TRUE(has(2, 2, CfgEdgeKind::Back));        // the loop
    EXPECT_TRUE(has(2, 3, CfgEdgeKind::FallThrough));
    EXPECT_TRUE(has(3, 5, CfgEdgeKind::Taken));       // BRA.U !UP0 is conditional
    EXPECT_TRUE(has(3, 4, CfgEdgeKind::FallThrough));
    EXPECT_TRUE(has(5, -1, CfgEdgeKind::Exit));
    EXPECT_FALSE(has(5, 6, CfgEdgeKind::FallThrough)); // unconditional EXIT
    EXPECT_TRUE(has(6, 6, CfgEdgeKind::Back));
    EXPECT_FALSE(has(6, 7, CfgEdgeKind::FallThrough)); // unconditional branch
    EXPECT_TRUE(has(7, -1, CfgEdgeKind::Exit));        // runs off the end
    EXPECT_EQ(cfg.blocks[2].loopDepth, 1);
    EXPECT_EQ(cfg.blocks[1].loopDepth, 0);
    EXPECT_EQ(cfg.blocks[5].loopDepth, 0);
    EXPECT_EQ(cfg.blocks[2].predecessors, (std::vector<int>{1, 2}));
    const auto of = blockOfInstruction(cfg, l.functions[0].instructions.size());
    EXPECT_EQ(of[6], 2);
}

TEST(Cfg, EmptyAndGarbage) {
    EXPECT_TRUE(buildCfg(SassFunction{}).blocks.empty());
    SassListing l = parseSass("/*0000*/ BRA `(.L_nowhere) ;\n/*0010*/ @P0 BRX R4 -0x10 (*\"BRANCH_TARGETS .L_a,.L_b\"*) ;\n");
    ASSERT_EQ(l.functions.size(), 1u);
    const Cfg cfg = buildCfg(l.functions[0]);
    EXPECT_EQ(cfg.blocks.size(), 2u);
}

TEST(Cfg, MatchesNvdisasmBbcfgOnGoldenKernels) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    int compared = 0;
    for (const auto& arch : goldenArchs()) {
        for (const auto& k : goldenKernels(arch)) {
            const auto dotPath = dataDir() / arch / (k + ".cfg.dot");
            if (!std::filesystem::exists(dotPath)) continue;
            const auto dot = parseDot(readFile(dotPath));
            for (const auto& fn : loadGolden(arch, k).functions) {
                SCOPED_TRACE(arch + "/" + k + "/" + fn.name);
                auto it = dot.find(fn.name);
                ASSERT_NE(it, dot.end()) << "function missing from -bbcfg output";
                const DotGraph& g = it->second;
                const Cfg cfg = buildCfg(fn);
                // Our blocks reachable from the entry, in address order, numbered densely.
                std::vector<char> reach(cfg.blocks.size(), 0);
                std::vector<int> work = {0};
                reach[0] = 1;
                while (!work.empty()) {
                    const int b = work.back();
                    work.pop_back();
                    for (int s : cfg.blocks[static_cast<size_t>(b)].successors)
                        if (!reach[static_cast<size_t>(s)]) {
                            reach[static_cast<size_t>(s)] = 1;
                            work.push_back(s);
                        }
                }
                std::vector<int> dense(cfg.blocks.size(), -1);
                std::vector<int> sizes;
                for (size_t b = 0; b < cfg.blocks.size(); ++b)
                    if (reach[b]) {
                        dense[b] = static_cast<int>(sizes.size());
                        sizes.push_back(cfg.blocks[b].lastIndex - cfg.blocks[b].firstIndex + 1);
                    }
                EXPECT_EQ(sizes, g.sizes) << "block sizes differ";
                std::set<std::pair<int, int>> edges;
                for (const auto& e : cfg.edges)
                    if (e.to >= 0 && reach[static_cast<size_t>(e.from)]) edges.insert({dense[static_cast<size_t>(e.from)], dense[static_cast<size_t>(e.to)]});
                EXPECT_EQ(edges, g.edges) << "edges differ";
                ++compared;
            }
        }
    }
    EXPECT_GT(compared, 10);
}
