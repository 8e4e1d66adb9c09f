#include "core/analysis/liveness.h"

#include "core/analysis/cfg.h"
#include "core/analysis/defuse.h"
#include "core/parse/opcodes.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string_view>

namespace lowerscope {

namespace {

// One bit per register: R0..R255 in words 0..3, P0..P7 in word 4 bits 0..7, UP0..UP7 in word 4
// bits 8..15, UR0..UR63 in word 5.
struct RegSet {
    std::array<uint64_t, 6> w{};
    void set(int bit) { w[static_cast<size_t>(bit) >> 6] |= uint64_t{1} << (bit & 63); }
    void clear(int bit) { w[static_cast<size_t>(bit) >> 6] &= ~(uint64_t{1} << (bit & 63)); }
    bool test(int bit) const { return (w[static_cast<size_t>(bit) >> 6] >> (bit & 63)) & 1; }
    RegSet& operator|=(const RegSet& o) {
        for (size_t i = 0; i < w.size(); ++i) w[i] |= o.w[i];
        return *this;
    }
    void minus(const RegSet& o) {
        for (size_t i = 0; i < w.size(); ++i) w[i] &= ~o.w[i];
    }
    bool operator==(const RegSet&) const = default;
};

constexpr int kPredBase = 256;
constexpr int kUpredBase = 264;
constexpr int kUrBase = 320;

// Register bit of one register of a range, -1 outside the register file.
inline int bitOf(RegClass cls, int idx) {
    switch (cls) {
    case RegClass::R:
        return idx >= 0 && idx < 255 ? idx : -1;
    case RegClass::P:
        return idx >= 0 && idx < 7 ? kPredBase + idx : -1;
    case RegClass::UP:
        return idx >= 0 && idx < 7 ? kUpredBase + idx : -1;
    case RegClass::UR:
        return idx >= 0 && idx < 63 ? kUrBase + idx : -1;
    }
    return -1;
}

template <typename F> inline void forEachBit(const std::vector<RegRange>& ranges, const F& f) {
    for (const auto& r : ranges)
        for (int k = 0; k < r.count; ++k) {
            const int bit = bitOf(r.cls, r.first + k);
            if (bit >= 0) f(bit);
        }
}

void addRanges(const std::vector<RegRange>& ranges, RegSet& s) {
    forEachBit(ranges, [&](int bit) { s.set(bit); });
}

LiveCounts countsOf(const RegSet& s) {
    LiveCounts c;
    c.gpr = std::popcount(s.w[0]) + std::popcount(s.w[1]) + std::popcount(s.w[2]) + std::popcount(s.w[3]);
    c.pred = std::popcount(s.w[4] & 0xff);
    c.upred = std::popcount((s.w[4] >> 8) & 0xff);
    c.ugpr = std::popcount(s.w[5]);
    return c;
}

bool guarded(const SassInstruction& ins) {
    return !ins.predicate.empty() && ins.predicate != "@PT";
}

// Whether the instruction's definitions end the liveness of what they write. Unguarded ones do;
// so do those under a uniform predicate (`@UP0`, `@!UP3`): nvdisasm -lrm treats a definition under
// a warp-uniform guard as a full definition, and one under a per-thread guard (`@P0`, `@!P2`) as
// a partial one that leaves the old value live (checked on tests/data/regmodel).
bool definesForSure(const SassInstruction& ins) {
    if (!guarded(ins)) return true;
    std::string_view g(ins.predicate);
    g.remove_prefix(1); // '@'
    if (!g.empty() && g[0] == '!') g.remove_prefix(1);
    return g.size() >= 3 && g[0] == 'U' && g[1] == 'P' && g != "UPT";
}

// What one instruction reads (use), overwrites for sure (kill) and writes at all (def).
struct Effect {
    RegSet use, kill, def;
};

// The GPR split of the calling convention nvdisasm assumes (read off its -lrm narrow columns):
// R0 and R3..R15 are the caller's to save, R16..R31 the callee's, and above R31 the two
// alternate in blocks of four (R32..R35 caller, R36..R39 callee, R40..R43 caller, ...). R1 (stack
// pointer) and R2 are preserved.
bool callerSaved(int r) {
    if (r == 0) return true;
    if (r < 3) return false;
    if (r < 16) return true;
    if (r < 32) return false;
    return ((r - 32) / 4) % 2 == 0;
}

struct Context {
    RegSet callUse;     // registers a CALL reads besides its operands
    RegSet callClobber; // registers a CALL writes
    RegSet returnUse;   // registers a RET reads besides its operands
};

// `last`: the instruction ends its block. EXIT, RET and CALL always do (buildCfg starts a block
// after each), so the opcode table is only consulted there.
void effectOf(const SassInstruction& ins, const Context& ctx, bool last, Effect& e) {
    e = Effect{};
    addRanges(ins.uses, e.use);
    addRanges(ins.defs, e.def);
    switch (last ? flowOf(ins) : FlowKind::None) {
    case FlowKind::Exit:
        e.use.set(1);
        break; // the stack pointer R1
    case FlowKind::Return:
        e.use |= ctx.returnUse;
        break;
    case FlowKind::Call:
        e.use |= ctx.callUse;
        e.def |= ctx.callClobber;
        break;
    default:
        break;
    }
    if (definesForSure(ins)) e.kill = e.def;
}

// One instruction, backwards: `live` holds what is live after it and becomes what is live
// before it; `shown` (when not null) receives what is counted at it. The common case (not the
// end of a block, so no EXIT/RET/CALL) works on the bits directly; the rest goes through Effect.
inline void stepBack(const SassInstruction& ins, const Context& ctx, bool last, RegSet& live, RegSet* shown) {
    if (last) {
        Effect e;
        effectOf(ins, ctx, true, e);
        if (shown) {
            *shown = live;
            *shown |= e.use;
            *shown |= e.def;
        }
        live.minus(e.kill);
        live |= e.use;
        return;
    }
    if (shown) *shown = live;
    const bool kills = definesForSure(ins);
    forEachBit(ins.defs, [&](int bit) {
        if (shown) shown->set(bit);
        if (kills) live.clear(bit);
    });
    forEachBit(ins.uses, [&](int bit) {
        if (shown) shown->set(bit);
        live.set(bit);
    });
}

} // namespace

RegisterLimits registerLimits(const SassFunction& fn) {
    RegisterLimits l;
    for (const auto& i : fn.instructions)
        for (const auto* v : {&i.defs, &i.uses})
            for (const auto& r : *v) {
                const int last = r.first + r.count - 1;
                switch (r.cls) {
                case RegClass::R:
                    break;
                case RegClass::P:
                    l.maxPredicate = std::max(l.maxPredicate, last);
                    break;
                case RegClass::UR:
                    l.maxUniform = std::max(l.maxUniform, last);
                    break;
                case RegClass::UP:
                    l.maxUniformPredicate = std::max(l.maxUniformPredicate, last);
                    break;
                }
            }
    return l;
}

RegisterLimits mergeLimits(const RegisterLimits& a, const RegisterLimits& b) {
    RegisterLimits m;
    m.gprCount = std::max(a.gprCount, b.gprCount);
    m.maxPredicate = std::max(a.maxPredicate, b.maxPredicate);
    m.maxUniform = std::max(a.maxUniform, b.maxUniform);
    m.maxUniformPredicate = std::max(a.maxUniformPredicate, b.maxUniformPredicate);
    return m;
}

namespace {

// Solves the data flow and calls visit(index, set) once per instruction with the registers
// counted there (live-in ∪ live-out ∪ written).
template <typename Visit>
void solve(const SassFunction& fn, const Cfg& cfg, const RegisterLimits& given, const Visit& visit,
           Context* contextOut = nullptr) {
    const auto& ins = fn.instructions;
    const size_t nb = cfg.blocks.size();
    if (ins.empty() || nb == 0) return;

    Context local;
    Context& ctx = contextOut ? *contextOut : local;
    {
        // One scan for the highest index of every class the function names.
        RegisterLimits own;
        int maxR = -1;
        for (const auto& i : ins)
            for (const auto* v : {&i.defs, &i.uses})
                for (const auto& r : *v) {
                    const int last = r.first + r.count - 1;
                    switch (r.cls) {
                    case RegClass::R:
                        maxR = std::max(maxR, last);
                        break;
                    case RegClass::P:
                        own.maxPredicate = std::max(own.maxPredicate, last);
                        break;
                    case RegClass::UR:
                        own.maxUniform = std::max(own.maxUniform, last);
                        break;
                    case RegClass::UP:
                        own.maxUniformPredicate = std::max(own.maxUniformPredicate, last);
                        break;
                    }
                }
        RegisterLimits l = mergeLimits(given, own);
        // ptxas counts two registers beyond the highest one named (sm_75 and later).
        l.gprCount = given.gprCount > 0 ? given.gprCount : maxR + 3;
        // The calling convention as nvdisasm models it (see the header): a CALL clobbers up to the
        // highest GPR the function names, rounded up to a block of four; a RET reads up to the last
        // of its register count; P, UR and UP up to the highest index of the module.
        ctx.callUse.set(0);
        ctx.callUse.set(1);
        ctx.callClobber.set(0);
        for (int r = 3; r <= std::min(254, maxR < 0 ? -1 : maxR | 3); ++r)
            if (callerSaved(r)) ctx.callClobber.set(r);
        for (int p = 0; p <= std::min(6, l.maxPredicate); ++p) ctx.callClobber.set(kPredBase + p);
        for (int u = 4; u <= std::min(35, l.maxUniform); ++u) ctx.callClobber.set(kUrBase + u);
        for (int u = 0; u <= std::min(6, l.maxUniformPredicate); ++u) ctx.callClobber.set(kUpredBase + u);
        ctx.returnUse.set(1);
        ctx.returnUse.set(2);
        for (int r = 16; r <= std::min(254, l.gprCount - 1); ++r)
            if (!callerSaved(r)) ctx.returnUse.set(r);
    }

    // Successors for the data flow: the CFG's, except that a CALL to a `.L` label (which the CFG
    // draws as a jump) only falls through, like every other call, as nvdisasm's counts do.
    std::vector<std::vector<int>> succs(nb);
    for (size_t b = 0; b < nb; ++b) {
        const auto& blk = cfg.blocks[b];
        const size_t last = static_cast<size_t>(blk.lastIndex);
        if (isLocalLabelCall(ins[last])) {
            if (last + 1 < ins.size())
                for (int s : blk.successors)
                    if (cfg.blocks[static_cast<size_t>(s)].firstIndex == static_cast<int>(last + 1))
                        succs[b].push_back(s);
        } else {
            succs[b] = blk.successors;
        }
    }

    // Post-order of a DFS from every block: successors before predecessors, which is the order
    // that converges fastest for a backward problem.
    const std::vector<int> order = depthFirstPostOrder(succs);
    // nvdisasm keeps the stack pointer R1 live at the end of every block from which no EXIT or
    // RET can be reached (an endless loop, the `BRA` to itself after the last EXIT), as if such a
    // block left the function: found by a backward search from the exiting blocks.
    std::vector<char> reachesExit(nb, 0);
    {
        std::vector<std::vector<int>> preds(nb);
        std::vector<int> work;
        for (size_t b = 0; b < nb; ++b) {
            for (int s : succs[b]) preds[static_cast<size_t>(s)].push_back(static_cast<int>(b));
            const FlowKind f = flowOf(ins[static_cast<size_t>(cfg.blocks[b].lastIndex)]);
            if (f == FlowKind::Exit || f == FlowKind::Return || succs[b].empty()) {
                reachesExit[b] = 1;
                work.push_back(static_cast<int>(b));
            }
        }
        while (!work.empty()) {
            const int v = work.back();
            work.pop_back();
            for (int p : preds[static_cast<size_t>(v)])
                if (!reachesExit[static_cast<size_t>(p)]) {
                    reachesExit[static_cast<size_t>(p)] = 1;
                    work.push_back(p);
                }
        }
    }
    RegSet stackPointer;
    stackPointer.set(1);

    // Regions, as nvdisasm -lrm forms them: a region starts at the function's entry and at every
    // block something other than the fall-through of the block before it can reach (a label);
    // a conditional branch, guarded EXIT or call inside a region is a side exit, not an end.
    std::vector<int> regionOf(nb, 0);
    std::vector<int> regionFirst; // first block of each region
    {
        std::vector<int> predCount(nb, 0);
        std::vector<char> fallsInto(nb, 0); // reached by the fall-through of block b - 1
        for (size_t b = 0; b < nb; ++b)
            for (int sx : succs[b]) {
                ++predCount[static_cast<size_t>(sx)];
                if (static_cast<size_t>(sx) == b + 1 &&
                    cfg.blocks[b + 1].firstIndex == cfg.blocks[b].lastIndex + 1)
                    fallsInto[b + 1] = 1;
            }
        std::vector<int> blockStartingAt(ins.size(), -1);
        for (size_t b = 0; b < nb; ++b) {
            const int first = cfg.blocks[b].firstIndex;
            if (first >= 0 && static_cast<size_t>(first) < ins.size()) blockStartingAt[static_cast<size_t>(first)] = static_cast<int>(b);
        }
        std::vector<char> labelled(nb, 0);
        for (const auto& [name, address] : fn.labels) {
            const int at = fn.indexOf(address);
            if (at >= 0 && blockStartingAt[static_cast<size_t>(at)] >= 0)
                labelled[static_cast<size_t>(blockStartingAt[static_cast<size_t>(at)])] = 1;
        }
        for (size_t b = 0; b < nb; ++b) {
            const bool head = b == 0 || !fallsInto[b] || predCount[b] != 1 || labelled[b];
            if (head) regionFirst.push_back(static_cast<int>(b));
            regionOf[b] = static_cast<int>(regionFirst.size()) - 1;
        }
    }
    const size_t nr = regionFirst.size();
    auto regionLast = [&](size_t r) { return r + 1 < nr ? static_cast<size_t>(regionFirst[r + 1]) - 1 : nb - 1; };
    // What leaves block b other than into the next block of its region.
    auto exitsOf = [&](size_t b, auto&& f) {
        const bool lastOfRegion = b + 1 >= nb || regionOf[b + 1] != regionOf[b];
        for (int sx : succs[b])
            if (lastOfRegion || static_cast<size_t>(sx) != b + 1) f(static_cast<size_t>(sx));
    };

    // Per region, the summary nvdisasm's counts are consistent with (tests/data/regmodel): what a
    // read inside the region needs from above (walking it backwards from nothing, where a
    // definition under a per-thread guard lets the old value through), and what the region's exits
    // need, less everything written between the region's start and that exit, guarded or not. So a
    // value needed below a guarded write is live down to the write inside the region but is not
    // carried into the region's predecessors (the accumulators of guarded QMMAs, the results of
    // the math library's slow paths written under a guard).
    std::vector<RegSet> useR(nr), inR(nr), writtenUpTo(nb);
    for (size_t r = 0; r < nr; ++r) {
        RegSet use, written;
        for (size_t b = static_cast<size_t>(regionFirst[r]); b <= regionLast(r); ++b) {
            const auto& blk = cfg.blocks[b];
            for (int i = blk.firstIndex; i <= blk.lastIndex; ++i) {
                Effect e;
                effectOf(ins[static_cast<size_t>(i)], ctx, i == blk.lastIndex, e);
                written |= e.def;
            }
            writtenUpTo[b] = written;
        }
        for (size_t b = regionLast(r) + 1; b-- > static_cast<size_t>(regionFirst[r]);) {
            const auto& blk = cfg.blocks[b];
            for (int i = blk.lastIndex; i >= blk.firstIndex; --i)
                stepBack(ins[static_cast<size_t>(i)], ctx, i == blk.lastIndex, use, nullptr);
        }
        useR[r] = use;
    }
    auto outOfBlock = [&](size_t b) {
        RegSet o;
        exitsOf(b, [&](size_t sx) { o |= inR[static_cast<size_t>(regionOf[sx])]; });
        if (!reachesExit[b]) o |= stackPointer;
        return o;
    };
    // Post-order over regions, from the blocks' order.
    std::vector<int> regionOrder;
    {
        std::vector<char> seen(nr, 0);
        for (int b : order) {
            const size_t r = static_cast<size_t>(regionOf[static_cast<size_t>(b)]);
            if (!seen[r]) {
                seen[r] = 1;
                regionOrder.push_back(static_cast<int>(r));
            }
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int ri : regionOrder) {
            const size_t r = static_cast<size_t>(ri);
            RegSet x = useR[r];
            for (size_t b = static_cast<size_t>(regionFirst[r]); b <= regionLast(r); ++b) {
                RegSet o = outOfBlock(b);
                o.minus(writtenUpTo[b]);
                x |= o;
            }
            if (!(x == inR[r])) {
                inR[r] = x;
                changed = true;
            }
        }
    }

    // Per instruction: the region walked backwards from its exits, every side exit adding what is
    // live where it leads.
    for (size_t r = 0; r < nr; ++r) {
        RegSet live;
        for (size_t b = regionLast(r) + 1; b-- > static_cast<size_t>(regionFirst[r]);) {
            const auto& blk = cfg.blocks[b];
            live |= outOfBlock(b);
            RegSet shown;
            for (int i = blk.lastIndex; i >= blk.firstIndex; --i) {
                stepBack(ins[static_cast<size_t>(i)], ctx, i == blk.lastIndex, live, &shown);
                visit(static_cast<size_t>(i), shown);
            }
        }
    }
}

} // namespace

void computeLiveness(SassFunction& fn, const Cfg& cfg, const RegisterLimits& limits) {
    for (auto& i : fn.instructions) i.live = LiveCounts{};
    solve(fn, cfg, limits, [&](size_t i, const RegSet& s) { fn.instructions[i].live = countsOf(s); });
}

namespace {

LiveSet toLiveSet(const RegSet& s) {
    LiveSet l;
    for (int r = 0; r < 255; ++r)
        if (s.test(r)) l.gpr.set(static_cast<size_t>(r));
    for (int p = 0; p < 7; ++p) {
        if (s.test(kPredBase + p)) l.pred.set(static_cast<size_t>(p));
        if (s.test(kUpredBase + p)) l.upred.set(static_cast<size_t>(p));
    }
    for (int u = 0; u < 63; ++u)
        if (s.test(kUrBase + u)) l.ugpr.set(static_cast<size_t>(u));
    return l;
}

} // namespace

std::vector<LiveSet> liveRegisters(const SassFunction& fn, const Cfg& cfg, const RegisterLimits& limits) {
    std::vector<LiveSet> out(fn.instructions.size());
    solve(fn, cfg, limits, [&](size_t i, const RegSet& s) { out[i] = toLiveSet(s); });
    return out;
}

std::vector<RegisterRow> registerRows(const SassFunction& fn, const Cfg& cfg, const RegisterLimits& limits) {
    std::vector<RegisterRow> out(fn.instructions.size());
    Context ctx;
    solve(fn, cfg, limits, [&](size_t i, const RegSet& s) { out[i].live = toLiveSet(s); }, &ctx);
    const std::vector<int> blockOf = blockOfInstruction(cfg, fn.instructions.size());
    for (size_t i = 0; i < fn.instructions.size(); ++i) {
        const int b = blockOf[i];
        const bool last = b >= 0 && cfg.blocks[static_cast<size_t>(b)].lastIndex == static_cast<int>(i);
        Effect e;
        effectOf(fn.instructions[i], ctx, last, e);
        // EXIT's stack pointer and RET's callee-saved registers are live there but, as in
        // nvdisasm's columns, not shown as read: only CALL's convention counts as its operands.
        const FlowKind flow = flowOf(fn.instructions[i]);
        if (flow == FlowKind::Exit || flow == FlowKind::Return) {
            e.use = RegSet{};
            addRanges(fn.instructions[i].uses, e.use);
        }
        out[i].read = toLiveSet(e.use);
        out[i].written = toLiveSet(e.def);
    }
    return out;
}

void analyseLiveness(SassListing& listing) {
    RegisterLimits module;
    for (auto& f : listing.functions) {
        analyseDefUse(f);
        module = mergeLimits(module, registerLimits(f));
    }
    for (auto& f : listing.functions) computeLiveness(f, buildCfg(f), module);
}

} // namespace lowerscope
