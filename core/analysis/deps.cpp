#include "core/analysis/deps.h"

#include "core/analysis/cfg.h"
#include "core/analysis/defuse.h"
#include "core/build/demangle.h"
#include "core/parse/opcodes.h"

#include <algorithm>
#include <bitset>
#include <functional>
#include <cstdint>
#include <string>

namespace lowerscope {

namespace {

// Dense resource ids: 256 per register class, then the six scoreboards.
constexpr int kClassStride = 256;
constexpr int kScoreboardBase = 4 * kClassStride;
constexpr int kResourceCount = kScoreboardBase + 8;

int resourceId(RegClass cls, int index) { return static_cast<int>(cls) * kClassStride + index; }

std::string resourceName(int id) {
    if (id >= kScoreboardBase) return "SB" + std::to_string(id - kScoreboardBase);
    return registerName(static_cast<RegClass>(id / kClassStride), id % kClassStride);
}

// Position of each resource id's name in the string order of all names (for sorting by name).
const std::vector<int>& resourceRanks() {
    static const std::vector<int> ranks = [] {
        std::vector<std::pair<std::string, int>> names;
        names.reserve(kResourceCount);
        for (int id = 0; id < kResourceCount; ++id) names.emplace_back(resourceName(id), id);
        std::sort(names.begin(), names.end());
        std::vector<int> r(kResourceCount);
        for (size_t k = 0; k < names.size(); ++k) r[static_cast<size_t>(names[k].second)] = static_cast<int>(k);
        return r;
    }();
    return ranks;
}

DepKind kindOf(int id) {
    if (id >= kScoreboardBase) return DepKind::Scoreboard;
    switch (static_cast<RegClass>(id / kClassStride)) {
    case RegClass::R: return DepKind::Register;
    case RegClass::P: return DepKind::Predicate;
    default: return DepKind::Uniform;
    }
}

bool guarded(const SassInstruction& ins) { return !ins.predicate.empty() && ins.predicate != "@PT"; }

void expand(const std::vector<RegRange>& ranges, std::vector<int>& out) {
    for (const auto& r : ranges)
        for (int k = 0; k < r.count; ++k) {
            const int idx = r.first + k;
            if (idx >= 0 && idx < kClassStride) out.push_back(resourceId(r.cls, idx));
        }
}

// `DEPBAR.LE SBn, k`: waits until at most k operations of scoreboard n are outstanding.
bool depbarWait(const SassInstruction& ins, int& sb, bool& full) {
    if (ins.mnemonic != "DEPBAR" || ins.operands.empty()) return false;
    const std::string& t = ins.operands[0].text;
    if (t.size() != 3 || t[0] != 'S' || t[1] != 'B' || t[2] < '0' || t[2] > '5') return false;
    sb = t[2] - '0';
    full = ins.operands.size() < 2 || ins.operands[1].text == "0x0" || ins.operands[1].text == "0";
    return true;
}

struct Pending {
    int block;
    int resource;
    int use; // instruction index
};

} // namespace

const char* depKindName(DepKind kind) {
    switch (kind) {
    case DepKind::Register: return "register";
    case DepKind::Predicate: return "predicate";
    case DepKind::Uniform: return "uniform";
    case DepKind::Scoreboard: return "scoreboard";
    }
    return "register";
}

namespace {

// Edges are gathered as instruction indices and resource ids, sorted and deduplicated, and only
// then given their names: sorting 12-byte records instead of DepEdges with strings.
struct RawEdge {
    int from, to, res;
};

// What a local subroutine does, seen from a CALL to it.
struct CallSummary {
    std::bitset<kScoreboardBase> reads;  // read before written on some path from its entry
    std::bitset<kScoreboardBase> writes; // written on some path from its entry to a RET
};

// Reaching definitions over `succs` (block successors). `calls`, when given, holds per instruction
// index the summary a CALL adds to its own uses and defs (nullptr entries elsewhere).
std::vector<RawEdge> reachingEdges(const SassFunction& fn, const Cfg& cfg, const std::vector<std::vector<int>>& succs,
                                   const std::vector<const CallSummary*>* calls) {
    const auto& ins = fn.instructions;
    const size_t nb = cfg.blocks.size();
    std::vector<RawEdge> raw;
    auto emit = [&](int from, int to, int res) { raw.push_back({from, to, res}); };

    // ---- Pass 1: inside each block. Local edges are emitted directly; uses not covered by an
    // unguarded local definition are remembered for the global pass; each block's downward-exposed
    // definitions become the "sites" of the global reaching-definitions problem.
    std::vector<std::vector<int>> cur(kResourceCount);
    std::vector<uint32_t> stamp(kResourceCount, 0);
    std::vector<char> killed(kResourceCount, 0);
    std::vector<int> touched;
    std::vector<Pending> pending;
    struct Site { int instr; int resource; };
    std::vector<Site> sites;
    std::vector<std::vector<int>> sitesOf(kResourceCount);
    std::vector<std::vector<int>> genSites(nb), killRes(nb);
    std::vector<int> uses, defs, waits;
    uint32_t epoch = 0;

    for (size_t b = 0; b < nb; ++b) {
        ++epoch;
        touched.clear();
        auto touch = [&](int r) {
            if (stamp[static_cast<size_t>(r)] != epoch) {
                stamp[static_cast<size_t>(r)] = epoch;
                cur[static_cast<size_t>(r)].clear();
                killed[static_cast<size_t>(r)] = 0;
                touched.push_back(r);
            }
        };
        const auto& blk = cfg.blocks[b];
        for (int i = blk.firstIndex; i <= blk.lastIndex; ++i) {
            const SassInstruction& in = ins[static_cast<size_t>(i)];
            uses.clear();
            defs.clear();
            expand(in.uses, uses);
            expand(in.defs, defs);
            if (calls && (*calls)[static_cast<size_t>(i)]) {
                const CallSummary& c = *(*calls)[static_cast<size_t>(i)];
                for (int r = 0; r < kScoreboardBase; ++r) {
                    if (c.reads.test(static_cast<size_t>(r))) uses.push_back(r);
                    if (c.writes.test(static_cast<size_t>(r))) defs.push_back(r);
                }
            }
            waits.clear(); // scoreboards this instruction waits on (full waits clear them)
            bool depFull = true;
            if (in.hasEncoding) {
                for (int n = 0; n < 6; ++n)
                    if (in.control.waitMask & (1u << n)) waits.push_back(kScoreboardBase + n);
            }
            int dsb = 0;
            if (depbarWait(in, dsb, depFull)) {
                if (std::find(waits.begin(), waits.end(), kScoreboardBase + dsb) == waits.end())
                    waits.push_back(kScoreboardBase + dsb);
            }
            std::sort(uses.begin(), uses.end());
            uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
            for (int r : waits) uses.push_back(r);

            for (int r : uses) {
                const size_t ur = static_cast<size_t>(r);
                if (stamp[ur] == epoch) {
                    for (int d : cur[ur]) emit(d, i, r);
                    if (!killed[ur]) pending.push_back({static_cast<int>(b), r, i});
                } else {
                    pending.push_back({static_cast<int>(b), r, i});
                }
            }
            for (int r : waits) {
                // A full wait means every earlier producer of this scoreboard has completed.
                const bool full = !(in.mnemonic == "DEPBAR" && r == kScoreboardBase + dsb && !depFull);
                if (!full) continue;
                touch(r);
                cur[static_cast<size_t>(r)].clear();
                killed[static_cast<size_t>(r)] = 1;
            }
            const bool g = guarded(in);
            for (int r : defs) {
                touch(r);
                auto& c = cur[static_cast<size_t>(r)];
                if (!g) {
                    c.clear();
                    killed[static_cast<size_t>(r)] = 1;
                }
                if (std::find(c.begin(), c.end(), i) == c.end()) c.push_back(i);
            }
            if (in.hasEncoding) {
                // New producers add to a scoreboard's count; they never hide older ones.
                for (int sb : {in.control.writeBarrier, in.control.readBarrier}) {
                    if (sb < 0 || sb > 5) continue;
                    const int r = kScoreboardBase + sb;
                    touch(r);
                    auto& c = cur[static_cast<size_t>(r)];
                    if (std::find(c.begin(), c.end(), i) == c.end()) c.push_back(i);
                }
            }
        }
        for (int r : touched) {
            const size_t ur = static_cast<size_t>(r);
            if (killed[ur]) killRes[b].push_back(r);
            for (int d : cur[ur]) {
                const int id = static_cast<int>(sites.size());
                sites.push_back({d, r});
                sitesOf[ur].push_back(id);
                genSites[b].push_back(id);
            }
        }
    }

    // ---- Pass 2: reaching definitions over blocks, bitsets of sites, iterated to a fixed point
    // in reverse post-order.
    const size_t words = (sites.size() + 63) / 64;
    if (words > 0 && !pending.empty()) {
        std::vector<std::vector<int>> preds(nb);
        for (size_t b = 0; b < nb; ++b)
            for (int s : succs[b]) preds[static_cast<size_t>(s)].push_back(static_cast<int>(b));
        std::vector<uint64_t> in(nb * words, 0), out(nb * words, 0);
        const std::vector<int> post = depthFirstPostOrder(succs);
        const std::vector<int> order(post.rbegin(), post.rend());
        std::vector<uint64_t> tmp(words);
        bool changed = true;
        while (changed) {
            changed = false;
            for (int b : order) {
                uint64_t* ib = &in[static_cast<size_t>(b) * words];
                std::fill(ib, ib + words, 0);
                for (int p : preds[static_cast<size_t>(b)]) {
                    const uint64_t* op = &out[static_cast<size_t>(p) * words];
                    for (size_t w = 0; w < words; ++w) ib[w] |= op[w];
                }
                std::copy(ib, ib + words, tmp.begin());
                for (int r : killRes[static_cast<size_t>(b)])
                    for (int s : sitesOf[static_cast<size_t>(r)]) tmp[static_cast<size_t>(s) / 64] &= ~(uint64_t{1} << (s % 64));
                for (int s : genSites[static_cast<size_t>(b)]) tmp[static_cast<size_t>(s) / 64] |= uint64_t{1} << (s % 64);
                uint64_t* ob = &out[static_cast<size_t>(b) * words];
                if (!std::equal(tmp.begin(), tmp.end(), ob)) {
                    std::copy(tmp.begin(), tmp.end(), ob);
                    changed = true;
                }
            }
        }
        // ---- Pass 3: upward-exposed uses take every reaching site of their resource.
        for (const auto& p : pending) {
            const uint64_t* ib = &in[static_cast<size_t>(p.block) * words];
            for (int s : sitesOf[static_cast<size_t>(p.resource)])
                if (ib[static_cast<size_t>(s) / 64] & (uint64_t{1} << (s % 64))) emit(sites[static_cast<size_t>(s)].instr, p.use, p.resource);
        }
    }

    return raw;
}

// The label a CALL names, readable: `($__internal_3_$__cuda_sm3x_div_rn_noftz_f32_slowpath)` →
// "__cuda_sm3x_div_rn_noftz_f32_slowpath", `($_Z6kernelv$_Z5blendfff)` → "blend(float, float, float)".
std::string calleeOf(const SassInstruction& call) {
    for (const auto& o : call.operands) {
        if (o.kind != OperandKind::Label) continue;
        std::string t = o.text;
        const size_t open = t.find('(');
        if (open != std::string::npos) t = t.substr(open + 1);
        if (!t.empty() && t.back() == ')') t.pop_back();
        while (!t.empty() && t.back() == '$') t.pop_back();
        const size_t dollar = t.rfind('$');
        if (dollar != std::string::npos) t = t.substr(dollar + 1);
        return t.rfind("_Z", 0) == 0 ? demangle(t, 4096) : t;
    }
    return {};
}

// Summaries of the local subroutines the function calls (CALL.REL to a `$...` label of the same
// function, not the `.L` exits the CFG treats as jumps), per instruction index of each such CALL.
// The body of a subroutine is what the CFG reaches from its entry (calls fall through, RET ends
// it); a nested call contributes its own summary, a recursive one nothing more.
std::vector<CallSummary> summariseCalls(const SassFunction& fn, const Cfg& cfg, std::vector<int>& summaryOf) {
    const auto& ins = fn.instructions;
    const std::vector<int> blockOf = blockOfInstruction(cfg, ins.size());
    std::vector<CallSummary> summaries;
    std::vector<int> entryOf;         // per summary: the entry block
    std::vector<char> state;          // per summary: 0 not done, 1 in progress, 2 done
    summaryOf.assign(ins.size(), -1); // per instruction: the summary of the subroutine it calls
    for (size_t i = 0; i < ins.size(); ++i) {
        if (flowOf(ins[i]) != FlowKind::Call || !ins[i].branchTarget || isLocalLabelCall(ins[i])) continue;
        const int k = fn.indexOf(*ins[i].branchTarget);
        if (k < 0 || blockOf[static_cast<size_t>(k)] < 0) continue;
        const int entry = blockOf[static_cast<size_t>(k)];
        const auto known = std::find(entryOf.begin(), entryOf.end(), entry);
        if (known != entryOf.end()) {
            summaryOf[i] = static_cast<int>(known - entryOf.begin());
            continue;
        }
        summaryOf[i] = static_cast<int>(entryOf.size());
        entryOf.push_back(entry);
    }
    summaries.resize(entryOf.size());
    state.assign(entryOf.size(), 0);
    std::vector<int> defsOf, usesOf;
    const std::function<void(int)> summarise = [&](int s) {
        if (state[static_cast<size_t>(s)] != 0) return;
        state[static_cast<size_t>(s)] = 1;
        // The body: blocks reachable from the entry.
        std::vector<int> body;
        std::vector<char> in(cfg.blocks.size(), 0);
        std::vector<int> work = {entryOf[static_cast<size_t>(s)]};
        while (!work.empty()) {
            const int b = work.back();
            work.pop_back();
            if (in[static_cast<size_t>(b)]) continue;
            in[static_cast<size_t>(b)] = 1;
            body.push_back(b);
            for (int t : cfg.blocks[static_cast<size_t>(b)].successors) work.push_back(t);
        }
        // Per block: upward-exposed reads and (unguarded) writes, nested calls by their summaries.
        using Set = std::bitset<kScoreboardBase>;
        std::vector<Set> gen(cfg.blocks.size()), kill(cfg.blocks.size()), written(cfg.blocks.size());
        for (int b : body) {
            const auto& blk = cfg.blocks[static_cast<size_t>(b)];
            for (int i = blk.lastIndex; i >= blk.firstIndex; --i) {
                const SassInstruction& t = ins[static_cast<size_t>(i)];
                Set callReads, callWrites;
                const int nested = summaryOf[static_cast<size_t>(i)];
                if (nested >= 0 && nested != s) {
                    summarise(nested); // before defsOf/usesOf are filled: it uses them too
                    callReads = summaries[static_cast<size_t>(nested)].reads;
                    callWrites = summaries[static_cast<size_t>(nested)].writes;
                }
                defsOf.clear();
                usesOf.clear();
                expand(t.defs, defsOf);
                expand(t.uses, usesOf);
                for (int r : defsOf) {
                    written[static_cast<size_t>(b)].set(static_cast<size_t>(r));
                    if (!guarded(t)) {
                        kill[static_cast<size_t>(b)].set(static_cast<size_t>(r));
                        gen[static_cast<size_t>(b)].reset(static_cast<size_t>(r));
                    }
                }
                written[static_cast<size_t>(b)] |= callWrites;
                for (int r : usesOf) gen[static_cast<size_t>(b)].set(static_cast<size_t>(r));
                gen[static_cast<size_t>(b)] |= callReads;
            }
        }
        // Backward liveness inside the body, to a fixed point.
        std::vector<Set> liveIn(cfg.blocks.size());
        bool changed = true;
        while (changed) {
            changed = false;
            for (auto it = body.rbegin(); it != body.rend(); ++it) {
                const size_t b = static_cast<size_t>(*it);
                Set out;
                for (int t : cfg.blocks[b].successors)
                    if (in[static_cast<size_t>(t)]) out |= liveIn[static_cast<size_t>(t)];
                const Set next = gen[b] | (out & ~kill[b]);
                if (next != liveIn[b]) {
                    liveIn[b] = next;
                    changed = true;
                }
            }
        }
        CallSummary& sum = summaries[static_cast<size_t>(s)];
        sum.reads = liveIn[static_cast<size_t>(entryOf[static_cast<size_t>(s)])];
        for (int b : body) sum.writes |= written[static_cast<size_t>(b)];
        // The stack pointer comes back as it went in: not a result.
        sum.writes.reset(static_cast<size_t>(resourceId(RegClass::R, 1)));
        state[static_cast<size_t>(s)] = 2;
    };
    for (size_t s = 0; s < summaries.size(); ++s) summarise(static_cast<int>(s));
    return summaries;
}

} // namespace

std::vector<DepEdge> computeDependencies(const SassFunction& fn, const Cfg& cfg) {
    std::vector<DepEdge> edges;
    const auto& ins = fn.instructions;
    const size_t nb = cfg.blocks.size();
    if (ins.empty() || nb == 0) return edges;

    // Values flow through local subroutines: a use after a CALL depends on the definitions inside
    // the callee, and a callee's read on the definitions before each call to it.
    std::vector<RawEdge> raw = reachingEdges(fn, cfg, interproceduralSuccessors(fn, cfg), nullptr);

    // Calls as single instructions: a CALL reads what its callee reads before writing (arguments,
    // the return address) and writes what the callee writes (results). Edges into and out of such
    // a CALL come from a second pass over the CFG, where calls fall through; they name the callee.
    std::vector<int> summaryOf;
    const std::vector<CallSummary> summaries = summariseCalls(fn, cfg, summaryOf);
    if (!summaries.empty()) {
        std::vector<const CallSummary*> perInstruction(ins.size(), nullptr);
        for (size_t i = 0; i < ins.size(); ++i)
            if (summaryOf[i] >= 0) perInstruction[i] = &summaries[static_cast<size_t>(summaryOf[i])];
        std::vector<std::vector<int>> fallThrough(nb);
        for (const auto& b : cfg.blocks) fallThrough[static_cast<size_t>(b.id)] = b.successors;
        for (const RawEdge& e : reachingEdges(fn, cfg, fallThrough, &perInstruction)) {
            const CallSummary* from = perInstruction[static_cast<size_t>(e.from)];
            const CallSummary* to = perInstruction[static_cast<size_t>(e.to)];
            if ((from && e.res < kScoreboardBase && from->writes.test(static_cast<size_t>(e.res))) ||
                (to && e.res < kScoreboardBase && to->reads.test(static_cast<size_t>(e.res))))
                raw.push_back(e);
        }
    }

    // Order: producer, consumer (addresses grow with the index), then resource name as a string
    // ("P0" < "R10" < "R2" < "SB0" < "UR4"), through each id's rank among all names.
    const auto& rank = resourceRanks();
    std::sort(raw.begin(), raw.end(), [&](const RawEdge& a, const RawEdge& b) {
        if (a.from != b.from) return a.from < b.from;
        if (a.to != b.to) return a.to < b.to;
        return rank[static_cast<size_t>(a.res)] < rank[static_cast<size_t>(b.res)];
    });
    raw.erase(std::unique(raw.begin(), raw.end(),
                          [](const RawEdge& a, const RawEdge& b) { return a.from == b.from && a.to == b.to && a.res == b.res; }),
              raw.end());
    edges.reserve(raw.size());
    for (const RawEdge& r : raw) {
        DepEdge e;
        e.from = ins[static_cast<size_t>(r.from)].address;
        e.to = ins[static_cast<size_t>(r.to)].address;
        e.resource = resourceName(r.res);
        e.kind = kindOf(r.res);
        e.distance = r.to - r.from;
        if (r.res < kScoreboardBase) {
            if (summaryOf[static_cast<size_t>(r.from)] >= 0 &&
                summaries[static_cast<size_t>(summaryOf[static_cast<size_t>(r.from)])].writes.test(static_cast<size_t>(r.res)))
                e.callee = calleeOf(ins[static_cast<size_t>(r.from)]);
            else if (summaryOf[static_cast<size_t>(r.to)] >= 0 &&
                     summaries[static_cast<size_t>(summaryOf[static_cast<size_t>(r.to)])].reads.test(static_cast<size_t>(r.res)))
                e.callee = calleeOf(ins[static_cast<size_t>(r.to)]);
        }
        edges.push_back(std::move(e));
    }
    return edges;
}

} // namespace lowerscope
