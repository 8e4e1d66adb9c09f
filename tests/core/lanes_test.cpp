// Arrow lane layout: no overlaps within a lane, every edge exactly once, minimal lane count,
// interval queries equal to a brute-force scan.
#include "core/analysis/lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

using namespace lowerscope;

namespace {

// Checks the layout invariants against brute force; returns the max overlap (minimal lane count).
int checkLayout(const std::vector<LaneEdge>& edges, const LaneLayout& layout, bool shared, bool bundled = false) {
    EXPECT_EQ(layout.lanes().size(), edges.size());
    EXPECT_EQ(layout.edges(), edges);
    int maxLane = -1;
    for (size_t i = 0; i < edges.size(); ++i) {
        EXPECT_GE(layout.lanes()[i], 0) << "edge " << i << " has no lane";
        maxLane = std::max(maxLane, layout.lanes()[i]);
    }
    EXPECT_EQ(layout.laneCount(), maxLane + 1);
    for (size_t i = 0; i < edges.size(); ++i) {
        for (size_t j = i + 1; j < edges.size(); ++j) {
            if (layout.lanes()[i] != layout.lanes()[j]) continue;
            if (shared && edges[i].fromRow == edges[j].fromRow && edges[i].toRow == edges[j].toRow) continue;
            if (bundled && sameFanOutBundle(edges[i], edges[j])) continue;
            const bool overlap = edges[i].lo() <= edges[j].hi() && edges[j].lo() <= edges[i].hi();
            EXPECT_FALSE(overlap) << "edges " << i << " [" << edges[i].lo() << "," << edges[i].hi() << "] and " << j
                                  << " [" << edges[j].lo() << "," << edges[j].hi() << "] share lane "
                                  << layout.lanes()[i];
        }
    }
    // Every member of a fan-out bundle is in its bundle's lane.
    for (size_t i = 0; bundled && i < edges.size(); ++i)
        for (size_t j = i + 1; j < edges.size(); ++j)
            if (sameFanOutBundle(edges[i], edges[j]))
                EXPECT_EQ(layout.lanes()[i], layout.lanes()[j]) << "bundle members " << i << ", " << j << " split";
    // Max number of distinct units (a bundle: its rows' union) covering one row: the clique
    // number, a lower bound on lanes.
    std::map<int, int> delta;
    std::vector<std::pair<int, int>> spans;
    std::map<std::pair<int, int>, std::pair<int, int>> bundles; // (from, kind) -> (lo, hi)
    for (const auto& e : edges) {
        if (bundled && e.toRow > e.fromRow) {
            auto [it, inserted] = bundles.emplace(std::make_pair(e.fromRow, int(e.kind)), std::make_pair(e.lo(), e.hi()));
            if (!inserted) it->second = {std::min(it->second.first, e.lo()), std::max(it->second.second, e.hi())};
            continue;
        }
        if (shared && std::find(spans.begin(), spans.end(), std::make_pair(e.fromRow, e.toRow)) != spans.end())
            continue;
        spans.emplace_back(e.fromRow, e.toRow);
        delta[e.lo()] += 1;
        delta[e.hi() + 1] -= 1;
    }
    for (const auto& [key, span] : bundles) {
        delta[span.first] += 1;
        delta[span.second + 1] -= 1;
    }
    int cur = 0, best = 0;
    for (auto& [row, d] : delta) {
        cur += d;
        best = std::max(best, cur);
    }
    return best;
}

std::vector<int> bruteQuery(const std::vector<LaneEdge>& edges, int a, int b) {
    std::vector<int> out;
    if (a > b) return out;
    for (size_t i = 0; i < edges.size(); ++i)
        if (edges[i].lo() <= b && a <= edges[i].hi()) out.push_back(static_cast<int>(i));
    std::sort(out.begin(), out.end(), [&](int x, int y) {
        const auto& p = edges[static_cast<size_t>(x)];
        const auto& q = edges[static_cast<size_t>(y)];
        return std::make_tuple(p.lo(), p.hi(), p.fromRow, x) < std::make_tuple(q.lo(), q.hi(), q.fromRow, y);
    });
    return out;
}

} // namespace

TEST(Lanes, Empty) {
    LaneLayout layout = layoutLanes({});
    EXPECT_EQ(layout.laneCount(), 0);
    EXPECT_TRUE(layout.lanes().empty());
    EXPECT_TRUE(layout.edgesInRows(0, 100).empty());
}

TEST(Lanes, DisjointEdgesShareOneLane) {
    std::vector<LaneEdge> edges{{0, 2}, {3, 5}, {9, 6}, {10, 20}};
    LaneLayout layout = layoutLanes(edges);
    EXPECT_EQ(layout.laneCount(), 1);
    EXPECT_EQ(layout.lanes(), (std::vector<int>{0, 0, 0, 0}));
}

TEST(Lanes, TouchingEndpointsNeedTwoLanes) {
    // [0,3] and [3,6] meet at row 3: an arrow arriving there and one leaving would join.
    std::vector<LaneEdge> edges{{0, 3}, {3, 6}};
    LaneLayout layout = layoutLanes(edges);
    EXPECT_EQ(layout.laneCount(), 2);
    EXPECT_EQ(checkLayout(edges, layout, false), 2);
}

TEST(Lanes, NestedEdgesKnownCase) {
    // Three nested spans plus one that fits after the inner ones end: 3 lanes, lowest lane reused.
    std::vector<LaneEdge> edges{{0, 10}, {1, 4}, {2, 3}, {5, 8}, {11, 12, DepKind::Scoreboard}};
    LaneLayout layout = layoutLanes(edges);
    EXPECT_EQ(layout.laneCount(), 3);
    EXPECT_EQ(layout.lanes(), (std::vector<int>{0, 1, 2, 1, 0}));
    EXPECT_EQ(checkLayout(edges, layout, false), 3);
}

TEST(Lanes, UpwardArrowsAreSpans) {
    std::vector<LaneEdge> edges{{10, 0}, {5, 2}, {4, 7}};
    LaneLayout layout = layoutLanes(edges);
    EXPECT_EQ(layout.laneCount(), 3);
    EXPECT_EQ(checkLayout(edges, layout, false), 3);
}

TEST(Lanes, IdenticalSpansOptionallyShare) {
    std::vector<LaneEdge> edges{{0, 4}, {0, 4}, {4, 0}, {1, 2}};
    EXPECT_EQ(layoutLanes(edges).laneCount(), 4);
    LaneLayout shared = layoutLanes(edges, {.shareIdenticalSpans = true});
    EXPECT_EQ(shared.laneOf(0), shared.laneOf(1));
    EXPECT_NE(shared.laneOf(0), shared.laneOf(2)); // opposite direction is a different arrow
    EXPECT_EQ(shared.laneCount(), 3);
    EXPECT_EQ(checkLayout(edges, shared, true), 3);
}

TEST(Lanes, StableAcrossInputPermutationOfDistinctEdges) {
    // The lane of an edge depends on its span only, not on where it sits in the input.
    std::vector<LaneEdge> edges{{0, 10}, {1, 4}, {2, 3}, {5, 8}, {11, 12}, {3, 9}};
    LaneLayout a = layoutLanes(edges);
    std::vector<LaneEdge> reversed(edges.rbegin(), edges.rend());
    LaneLayout b = layoutLanes(reversed);
    for (size_t i = 0; i < edges.size(); ++i) EXPECT_EQ(a.laneOf(int(i)), b.laneOf(int(edges.size() - 1 - i)));
}

TEST(Lanes, QueryKnownCase) {
    std::vector<LaneEdge> edges{{0, 10}, {1, 4}, {2, 3}, {5, 8}, {11, 12}};
    LaneLayout layout = layoutLanes(edges);
    EXPECT_EQ(layout.edgesInRows(4, 5), (std::vector<int>{0, 1, 3}));
    EXPECT_EQ(layout.edgesInRows(12, 40), (std::vector<int>{4}));
    EXPECT_EQ(layout.edgesInRows(13, 40), (std::vector<int>{}));
    EXPECT_EQ(layout.edgesInRows(5, 4), (std::vector<int>{}));
    EXPECT_EQ(layout.edgesInRows(-5, 0), (std::vector<int>{0}));
}

// The comb: one producer read by 40 consumers, next to an unrelated edge crossing them.
TEST(Lanes, FanOutBundleTakesOneLane) {
    std::vector<LaneEdge> edges;
    for (int to = 1; to <= 40; ++to) edges.push_back({0, to, DepKind::Register});
    edges.push_back({0, 3, DepKind::Predicate}); // another kind from the same producer: its own bundle
    edges.push_back({5, 50, DepKind::Register}); // another producer, overlapping
    edges.push_back({30, 2, DepKind::Register}); // upward (loop-carried): never bundled
    const LaneLayout plain = layoutLanes(edges);
    EXPECT_EQ(plain.laneCount(), checkLayout(edges, plain, false));
    EXPECT_GE(plain.laneCount(), 40);
    const LaneLayout bundled = layoutLanes(edges, {.bundleFanOut = true});
    EXPECT_EQ(bundled.laneCount(), checkLayout(edges, bundled, false, true));
    EXPECT_EQ(bundled.laneCount(), 3); // rows 5..30: the R bundle, 5->50 and the upward edge
    for (int i = 1; i < 40; ++i) EXPECT_EQ(bundled.laneOf(i), bundled.laneOf(0));
    EXPECT_NE(bundled.laneOf(40), bundled.laneOf(0));
    // Queries still report each member by its own span.
    EXPECT_EQ(bundled.edgesInRows(45, 45), std::vector<int>{41});
    EXPECT_EQ(bundled.edgesInRows(40, 40), (std::vector<int>{39, 41})); // 0->40 and 5->50
}

TEST(Lanes, RandomisedProperties) {
    std::mt19937 rng(12345);
    for (int round = 0; round < 200; ++round) {
        const int rows = 1 + int(rng() % 300);
        const int count = int(rng() % 120);
        const bool longTail = round % 3 == 0;
        std::vector<LaneEdge> edges;
        for (int i = 0; i < count; ++i) {
            int from = int(rng() % unsigned(rows));
            int len = longTail ? int(rng() % unsigned(rows)) : int(rng() % 12);
            int to = (rng() % 4 == 0) ? from - len : from + len; // some upward, some leave the range
            edges.push_back({from, to, DepKind(rng() % 4)});
            if (rng() % 10 == 0) edges.push_back(edges.back()); // duplicates
        }
        const bool shared = round % 2 == 1;
        const bool bundled = round % 4 >= 2;
        LaneLayout layout = layoutLanes(edges, {.shareIdenticalSpans = shared, .bundleFanOut = bundled});
        const int clique = checkLayout(edges, layout, shared, bundled);
        EXPECT_EQ(layout.laneCount(), clique) << "round " << round << ": not minimal";
        for (int q = 0; q < 20; ++q) {
            int a = int(rng() % unsigned(rows + 20)) - 10;
            int b = a + int(rng() % 40) - 5;
            EXPECT_EQ(layout.edgesInRows(a, b), bruteQuery(edges, a, b)) << "round " << round << " [" << a << "," << b << "]";
        }
        if (HasFailure()) break;
    }
}

TEST(Lanes, LargeListingQueryIsOutputSensitive) {
    // 100,000 rows, 300,000 edges mostly short plus some very long: a screenful query returns
    // exactly the brute-force set (speed is measured in bench/lanes_bench.cpp).
    std::mt19937 rng(7);
    std::vector<LaneEdge> edges;
    const int rows = 100000;
    for (int i = 0; i < 300000; ++i) {
        int from = int(rng() % rows);
        int len = (i % 1000 == 0) ? int(rng() % rows) : int(rng() % 30) + 1;
        edges.push_back({from, std::min(rows - 1, from + len)});
    }
    LaneLayout layout = layoutLanes(edges);
    EXPECT_EQ(layout.edgesInRows(50000, 50060), bruteQuery(edges, 50000, 50060));
    std::vector<int> lanes = layout.lanes();
    EXPECT_TRUE(std::all_of(lanes.begin(), lanes.end(), [](int l) { return l >= 0; }));
}

TEST(Lanes, FromDepsMapsAddressesToRows) {
    SassFunction f;
    for (uint32_t a = 0; a < 5; ++a) f.instructions.push_back(SassInstruction{.address = a * 16});
    std::vector<DepEdge> deps{{0, 32, "R0", DepKind::Register, 2},
                              {16, 999, "R1", DepKind::Register, 0},
                              {48, 64, "SB0", DepKind::Scoreboard, 1}};
    std::vector<int> kept;
    auto edges = laneEdgesFromDeps(f, deps, &kept);
    ASSERT_EQ(edges.size(), 2u);
    EXPECT_EQ(edges[0], (LaneEdge{0, 2, DepKind::Register}));
    EXPECT_EQ(edges[1], (LaneEdge{3, 4, DepKind::Scoreboard}));
    EXPECT_EQ(kept, (std::vector<int>{0, 2}));
}
