#include "core/analysis/deps.h"

#include "core/analysis/cfg.h"
#include "core/analysis/defuse.h"

#include <algorithm>
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

std::vector<DepEdge> computeDependencies(const SassFunction& fn, const Cfg& cfg) {
    std::vector<DepEdge> edges;
    const auto& ins = fn.instructions;
    const size_t nb = cfg.blocks.size();
    if (ins.empty() || nb == 0) return edges;

    // Edges are gathered as instruction indices and resource ids, sorted and deduplicated, and only
    // then given their names: sorting 12-byte records instead of DepEdges with strings.
    struct RawEdge {
        int from, to, res;
    };
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
        const auto succs = interproceduralSuccessors(fn, cfg);
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
        edges.push_back(std::move(e));
    }
    return edges;
}

} // namespace lowerscope
