#include "core/analysis/cfg.h"

#include "core/parse/opcodes.h"

#include <algorithm>
#include <string_view>

namespace lowerscope {

namespace {

// Labels of an indirect branch: `(*"BRANCH_TARGETS .L_x_79,.L_x_80,..."*)` in the text.
// nvdisasm truncates long lists, so names that do not resolve are skipped.
std::vector<uint32_t> indirectTargets(const SassFunction& fn, const SassInstruction& ins) {
    std::vector<uint32_t> out;
    const std::string_view text(ins.text);
    const size_t p = text.find("BRANCH_TARGETS");
    if (p == std::string_view::npos) return out;
    std::string_view list = text.substr(p + 14);
    const size_t end = list.find('"');
    if (end != std::string_view::npos) list = list.substr(0, end);
    size_t i = 0;
    while (i < list.size()) {
        while (i < list.size() && (list[i] == ' ' || list[i] == ',')) ++i;
        size_t j = i;
        while (j < list.size() && list[j] != ',' && list[j] != ' ') ++j;
        if (j > i) {
            auto it = fn.labels.find(std::string(list.substr(i, j - i)));
            if (it != fn.labels.end()) out.push_back(it->second);
        }
        i = j;
    }
    return out;
}

} // namespace

bool isLocalLabelCall(const SassInstruction& ins) {
    if (flowOf(ins) != FlowKind::Call || !ins.branchTarget) return false;
    for (const auto& o : ins.operands)
        if (o.kind == OperandKind::Label) return o.text.find("(.L") != std::string::npos;
    return false;
}

bool isConditionalBranch(const SassInstruction& ins) {
    if (!ins.predicate.empty() && ins.predicate != "@PT") return true;
    for (const auto& o : ins.operands)
        if ((o.kind == OperandKind::Predicate || o.kind == OperandKind::UniformPredicate) && !o.regs.empty()) return true;
    for (const auto& m : ins.modifiers)
        if (m == "DIV" || m == "CONV") return true;
    return false;
}

FlowKind flowOf(const SassInstruction& ins) {
    const OpcodeInfo* info = lookupSassOpcode(ins.mnemonic);
    return info ? info->flow : FlowKind::None;
}

std::vector<std::vector<int>> interproceduralSuccessors(const SassFunction& fn, const Cfg& cfg) {
    std::vector<std::vector<int>> succ(cfg.blocks.size());
    for (const auto& b : cfg.blocks) succ[static_cast<size_t>(b.id)] = b.successors;
    const auto& ins = fn.instructions;
    std::vector<int> blockOf = blockOfInstruction(cfg, ins.size());
    // callee entry block → return-site blocks
    std::vector<std::pair<int, int>> calls;
    for (const auto& b : cfg.blocks) {
        const SassInstruction& t = ins[static_cast<size_t>(b.lastIndex)];
        if (flowOf(t) != FlowKind::Call || !t.branchTarget || isLocalLabelCall(t)) continue;
        const int k = fn.indexOf(*t.branchTarget);
        if (k < 0) continue;
        const int entry = blockOf[static_cast<size_t>(k)];
        const int ret = static_cast<size_t>(b.lastIndex) + 1 < ins.size() ? blockOf[static_cast<size_t>(b.lastIndex) + 1] : -1;
        succ[static_cast<size_t>(b.id)] = {entry};
        if (ret >= 0) calls.push_back({entry, ret});
    }
    std::sort(calls.begin(), calls.end());
    std::vector<char> seen(cfg.blocks.size());
    for (size_t c = 0; c < calls.size();) {
        const int entry = calls[c].first;
        std::vector<int> sites;
        for (; c < calls.size() && calls[c].first == entry; ++c) sites.push_back(calls[c].second);
        std::fill(seen.begin(), seen.end(), 0);
        std::vector<int> work = {entry};
        while (!work.empty()) {
            const int v = work.back();
            work.pop_back();
            if (seen[static_cast<size_t>(v)]) continue;
            seen[static_cast<size_t>(v)] = 1;
            const auto& blk = cfg.blocks[static_cast<size_t>(v)];
            if (flowOf(ins[static_cast<size_t>(blk.lastIndex)]) == FlowKind::Return)
                for (int s : sites)
                    if (std::find(succ[static_cast<size_t>(v)].begin(), succ[static_cast<size_t>(v)].end(), s) == succ[static_cast<size_t>(v)].end())
                        succ[static_cast<size_t>(v)].push_back(s);
            for (int s : blk.successors) work.push_back(s);
        }
    }
    return succ;
}

std::vector<int> blockOfInstruction(const Cfg& cfg, size_t instructionCount) {
    std::vector<int> out(instructionCount, -1);
    for (const auto& b : cfg.blocks)
        for (int i = b.firstIndex; i <= b.lastIndex && i >= 0 && static_cast<size_t>(i) < instructionCount; ++i)
            out[static_cast<size_t>(i)] = b.id;
    return out;
}

Cfg buildCfg(const SassFunction& fn) {
    Cfg cfg;
    const auto& ins = fn.instructions;
    const size_t n = ins.size();
    if (n == 0) return cfg;

    std::vector<char> leader(n, 0);
    leader[0] = 1;
    for (const auto& [name, addr] : fn.labels) {
        const int k = fn.indexOf(addr);
        if (k >= 0) leader[static_cast<size_t>(k)] = 1;
    }
    std::vector<std::vector<uint32_t>> targets(n);
    for (size_t i = 0; i < n; ++i) {
        const FlowKind f = flowOf(ins[i]);
        if (f == FlowKind::None) continue;
        if (i + 1 < n) leader[i + 1] = 1;
        if ((f == FlowKind::Branch || isLocalLabelCall(ins[i])) && ins[i].branchTarget) targets[i].push_back(*ins[i].branchTarget);
        if (f == FlowKind::Indirect) targets[i] = indirectTargets(fn, ins[i]);
        for (uint32_t t : targets[i]) {
            const int k = fn.indexOf(t);
            if (k >= 0) leader[static_cast<size_t>(k)] = 1;
        }
    }

    std::vector<int> blockOf(n, 0);
    for (size_t i = 0; i < n; ++i) {
        if (leader[i]) {
            BasicBlock b;
            b.id = static_cast<int>(cfg.blocks.size());
            b.firstIndex = static_cast<int>(i);
            b.startAddress = ins[i].address;
            cfg.blocks.push_back(b);
        }
        auto& b = cfg.blocks.back();
        b.lastIndex = static_cast<int>(i);
        b.endAddress = ins[i].address;
        blockOf[i] = b.id;
    }

    size_t firstEdge = 0; // edges of the current block are contiguous from here
    auto addEdge = [&](int from, int to, CfgEdgeKind kind) {
        for (size_t k = firstEdge; k < cfg.edges.size(); ++k)
            if (cfg.edges[k].to == to) return; // one edge per block pair (first kind wins)
        cfg.edges.push_back(CfgEdge{from, to, kind});
    };
    for (auto& b : cfg.blocks) {
        firstEdge = cfg.edges.size();
        const size_t last = static_cast<size_t>(b.lastIndex);
        const SassInstruction& t = ins[last];
        const FlowKind f = flowOf(t);
        const bool hasNext = last + 1 < n;
        const int next = hasNext ? blockOf[last + 1] : -1;
        switch (f) {
        case FlowKind::None:
        case FlowKind::Call:
            for (uint32_t a : targets[last]) { // a CALL to a .L label is a jump (see the header)
                const int k = fn.indexOf(a);
                if (k >= 0) addEdge(b.id, blockOf[static_cast<size_t>(k)], CfgEdgeKind::Taken);
            }
            if (hasNext) addEdge(b.id, next, CfgEdgeKind::FallThrough);
            else if (f == FlowKind::None) addEdge(b.id, -1, CfgEdgeKind::Exit); // ran off the end
            break;
        case FlowKind::Branch:
        case FlowKind::Indirect:
            for (uint32_t a : targets[last]) {
                const int k = fn.indexOf(a);
                if (k >= 0) addEdge(b.id, blockOf[static_cast<size_t>(k)], CfgEdgeKind::Taken);
            }
            if ((isConditionalBranch(t) || targets[last].empty()) && hasNext) addEdge(b.id, next, CfgEdgeKind::FallThrough);
            break;
        case FlowKind::Return:
        case FlowKind::Exit:
            addEdge(b.id, -1, CfgEdgeKind::Exit);
            if (isConditionalBranch(t) && hasNext) addEdge(b.id, next, CfgEdgeKind::FallThrough);
            break;
        }
    }

    for (const auto& e : cfg.edges) {
        if (e.to < 0) continue;
        auto& s = cfg.blocks[static_cast<size_t>(e.from)].successors;
        if (std::find(s.begin(), s.end(), e.to) == s.end()) s.push_back(e.to);
        auto& p = cfg.blocks[static_cast<size_t>(e.to)].predecessors;
        if (std::find(p.begin(), p.end(), e.from) == p.end()) p.push_back(e.from);
    }

    // Back edges: iterative DFS from the entry; an edge to a block on the stack closes a loop.
    const size_t nb = cfg.blocks.size();
    std::vector<char> state(nb, 0); // 0 new, 1 on stack, 2 done
    std::vector<std::pair<int, size_t>> stack;
    std::vector<std::pair<int, int>> backEdges;
    auto dfsFrom = [&](int root) {
        if (state[static_cast<size_t>(root)] != 0) return;
        stack.push_back({root, 0});
        state[static_cast<size_t>(root)] = 1;
        while (!stack.empty()) {
            auto& [v, k] = stack.back();
            const auto& succ = cfg.blocks[static_cast<size_t>(v)].successors;
            if (k < succ.size()) {
                const int w = succ[k++];
                if (state[static_cast<size_t>(w)] == 1) backEdges.push_back({v, w});
                else if (state[static_cast<size_t>(w)] == 0) {
                    state[static_cast<size_t>(w)] = 1;
                    stack.push_back({w, 0});
                }
            } else {
                state[static_cast<size_t>(v)] = 2;
                stack.pop_back();
            }
        }
    };
    dfsFrom(0);
    for (size_t b = 0; b < nb; ++b) dfsFrom(static_cast<int>(b)); // unreachable code too
    std::sort(backEdges.begin(), backEdges.end());
    for (auto& e : cfg.edges)
        if (std::binary_search(backEdges.begin(), backEdges.end(), std::make_pair(e.from, e.to))) e.kind = CfgEdgeKind::Back;

    // Loop depth: each back edge v→h defines the loop {h} ∪ {blocks reaching v without passing h};
    // loops sharing a header are one loop. A block's depth is the number of loops containing it.
    std::vector<int> headers;
    for (const auto& be : backEdges)
        if (std::find(headers.begin(), headers.end(), be.second) == headers.end()) headers.push_back(be.second);
    std::vector<char> inLoop(nb);
    std::vector<int> work;
    for (int h : headers) {
        std::fill(inLoop.begin(), inLoop.end(), 0);
        inLoop[static_cast<size_t>(h)] = 1;
        work.clear();
        for (const auto& be : backEdges)
            if (be.second == h && !inLoop[static_cast<size_t>(be.first)]) {
                inLoop[static_cast<size_t>(be.first)] = 1;
                work.push_back(be.first);
            }
        while (!work.empty()) {
            const int v = work.back();
            work.pop_back();
            for (int p : cfg.blocks[static_cast<size_t>(v)].predecessors)
                if (!inLoop[static_cast<size_t>(p)]) {
                    inLoop[static_cast<size_t>(p)] = 1;
                    work.push_back(p);
                }
        }
        for (size_t b = 0; b < nb; ++b)
            if (inLoop[b]) ++cfg.blocks[b].loopDepth;
    }
    return cfg;
}

std::vector<int> depthFirstPostOrder(const std::vector<std::vector<int>>& successors) {
    const size_t nb = successors.size();
    std::vector<int> post;
    post.reserve(nb);
    std::vector<char> seen(nb, 0);
    std::vector<std::pair<int, size_t>> st;
    for (size_t root = 0; root < nb; ++root) {
        if (seen[root]) continue;
        seen[root] = 1;
        st.push_back({static_cast<int>(root), 0});
        while (!st.empty()) {
            auto& [v, k] = st.back();
            const auto& succ = successors[static_cast<size_t>(v)];
            if (k < succ.size()) {
                const int w = succ[k++];
                if (!seen[static_cast<size_t>(w)]) {
                    seen[static_cast<size_t>(w)] = 1;
                    st.push_back({w, 0});
                }
            } else {
                post.push_back(v);
                st.pop_back();
            }
        }
    }
    return post;
}

} // namespace lowerscope
