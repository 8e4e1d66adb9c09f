#include "core/analysis/lanes.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <tuple>
#include <queue>
#include <utility>

namespace lowerscope {

bool sameFanOutBundle(const LaneEdge& a, const LaneEdge& b) {
    return a.fromRow == b.fromRow && a.kind == b.kind && a.toRow > a.fromRow && b.toRow > b.fromRow;
}

LaneLayout layoutLanes(std::vector<LaneEdge> edges, const LaneOptions& options) {
    LaneLayout layout;
    layout.m_edges = std::move(edges);
    const size_t n = layout.m_edges.size();
    layout.m_lane.assign(n, -1);
    const auto& e = layout.m_edges;

    // Units to place: an edge alone, or a group that shares one lane (identical spans, or a
    // fan-out bundle), spanning the union of its members' rows.
    struct Unit {
        int lo = 0, hi = 0, fromRow = 0, first = 0;
    };
    std::vector<Unit> units;
    std::vector<int> unitOf(n, -1);
    std::map<std::tuple<int, int, int>, int> groups; // (option, from, to or kind) -> unit
    for (size_t i = 0; i < n; ++i) {
        const LaneEdge& edge = e[i];
        std::tuple<int, int, int> key{-1, 0, 0};
        if (options.bundleFanOut && edge.toRow > edge.fromRow) key = {0, edge.fromRow, int(edge.kind)};
        else if (options.shareIdenticalSpans) key = {1, edge.fromRow, edge.toRow};
        int u = -1;
        if (std::get<0>(key) >= 0) {
            auto [it, inserted] = groups.emplace(key, int(units.size()));
            if (!inserted) u = it->second;
        }
        if (u < 0) {
            u = int(units.size());
            units.push_back(Unit{edge.lo(), edge.hi(), edge.fromRow, int(i)});
        } else {
            units[size_t(u)].lo = std::min(units[size_t(u)].lo, edge.lo());
            units[size_t(u)].hi = std::max(units[size_t(u)].hi, edge.hi());
        }
        unitOf[i] = u;
    }

    // Sorting by start and giving each interval the lowest lane whose previous occupant has ended
    // is optimal for interval graphs: a new lane is opened only when every existing lane is busy
    // at this start row, i.e. laneCount equals the largest number of spans sharing one row.
    // The first member's index makes the order total, so the result never depends on the sort
    // implementation.
    // The query index's order (per edge: each member of a bundle is reported where its own span is).
    std::vector<int> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const LaneEdge& x = e[static_cast<size_t>(a)];
        const LaneEdge& y = e[static_cast<size_t>(b)];
        return std::make_tuple(x.lo(), x.hi(), x.fromRow, a) < std::make_tuple(y.lo(), y.hi(), y.fromRow, b);
    });
    std::vector<int> unitOrder;
    if (units.size() == n) {
        unitOrder = order; // nothing grouped: unit i is edge i, same key
    } else {
        unitOrder.resize(units.size());
        for (size_t i = 0; i < units.size(); ++i) unitOrder[i] = static_cast<int>(i);
        std::sort(unitOrder.begin(), unitOrder.end(), [&](int a, int b) {
            const Unit& x = units[static_cast<size_t>(a)];
            const Unit& y = units[static_cast<size_t>(b)];
            return std::tie(x.lo, x.hi, x.fromRow, x.first) < std::tie(y.lo, y.hi, y.fromRow, y.first);
        });
    }
    using Busy = std::pair<int, int>; // (last row occupied, lane)
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    std::priority_queue<int, std::vector<int>, std::greater<>> freeLanes;
    std::vector<int> unitLane(units.size(), -1);
    int laneCount = 0;
    for (int u : unitOrder) {
        const Unit& unit = units[static_cast<size_t>(u)];
        // Closed spans: a lane whose occupant ends on this unit's first row is still busy (the
        // two arrows would meet at that row).
        while (!busy.empty() && busy.top().first < unit.lo) {
            freeLanes.push(busy.top().second);
            busy.pop();
        }
        int lane;
        if (!freeLanes.empty()) {
            lane = freeLanes.top();
            freeLanes.pop();
        } else {
            lane = laneCount++;
        }
        busy.emplace(unit.hi, lane);
        unitLane[static_cast<size_t>(u)] = lane;
    }
    for (size_t i = 0; i < n; ++i) layout.m_lane[i] = unitLane[static_cast<size_t>(unitOf[i])];
    layout.m_laneCount = laneCount;

    layout.m_order = std::move(order);
    layout.buildIndex();
    return layout;
}

void LaneLayout::buildIndex() {
    const size_t n = m_order.size();
    m_sortedLo.resize(n);
    m_sortedHi.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const LaneEdge& edge = m_edges[static_cast<size_t>(m_order[i])];
        m_sortedLo[i] = edge.lo();
        m_sortedHi[i] = edge.hi();
    }
    // A max-hi tree over the lo-sorted order: every edge with lo <= lastRow is a prefix of the
    // order, and within that prefix only subtrees whose max hi reaches firstRow hold answers, so a
    // query touches O(log n) nodes per reported edge, however long the longest arrows are.
    m_leaves = 1;
    while (m_leaves < n) m_leaves *= 2;
    m_maxHi.assign(2 * m_leaves, INT_MIN);
    for (size_t i = 0; i < n; ++i) m_maxHi[m_leaves + i] = m_sortedHi[i];
    for (size_t i = m_leaves - 1; i >= 1; --i) m_maxHi[i] = std::max(m_maxHi[2 * i], m_maxHi[2 * i + 1]);
}

void LaneLayout::collect(size_t node, size_t nodeLo, size_t nodeHi, size_t limit, int firstRow,
                         std::vector<int>& out) const {
    if (nodeLo >= limit || m_maxHi[node] < firstRow) return;
    if (nodeHi - nodeLo == 1) {
        out.push_back(m_order[nodeLo]);
        return;
    }
    const size_t mid = (nodeLo + nodeHi) / 2;
    collect(2 * node, nodeLo, mid, limit, firstRow, out);
    collect(2 * node + 1, mid, nodeHi, limit, firstRow, out);
}

void LaneLayout::edgesInRows(int firstRow, int lastRow, std::vector<int>& out) const {
    if (firstRow > lastRow || m_order.empty()) return;
    const size_t limit =
        static_cast<size_t>(std::upper_bound(m_sortedLo.begin(), m_sortedLo.end(), lastRow) - m_sortedLo.begin());
    collect(1, 0, m_leaves, limit, firstRow, out);
}

std::vector<int> LaneLayout::edgesInRows(int firstRow, int lastRow) const {
    std::vector<int> out;
    edgesInRows(firstRow, lastRow, out);
    return out;
}

std::vector<LaneEdge> laneEdgesFromDeps(const SassFunction& function, const std::vector<DepEdge>& deps,
                                        std::vector<int>* kept) {
    std::vector<LaneEdge> out;
    out.reserve(deps.size());
    if (kept) kept->clear();
    for (size_t i = 0; i < deps.size(); ++i) {
        const int from = function.indexOf(deps[i].from);
        const int to = function.indexOf(deps[i].to);
        if (from < 0 || to < 0) continue;
        out.push_back(LaneEdge{from, to, deps[i].kind});
        if (kept) kept->push_back(static_cast<int>(i));
    }
    return out;
}

} // namespace lowerscope
