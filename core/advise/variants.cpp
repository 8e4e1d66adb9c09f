#include "core/advise/variants.h"
#include "core/format.h"

#include "core/analysis/occupancy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

namespace lowerscope {

using nlohmann::json;

namespace {

constexpr size_t kMaxTunables = 16, kMaxTunableValues = 64;

bool isIdentifier(const std::string& s) {
    if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The tunable's value in build `a` (its -D NAME=V), else its default.
long long currentValue(const Tunable& t, const BuildOptions& a) {
    for (const auto& d : a.defines) {
        const size_t eq = d.find('=');
        if (d.substr(0, eq) == t.name && eq != std::string::npos) {
            try {
                return std::stoll(d.substr(eq + 1));
            } catch (const std::exception&) {
                return t.defaultValue;
            }
        }
    }
    return t.defaultValue;
}

const Tunable* tunableWithRole(const std::vector<Tunable>& tunables, const std::string& role) {
    for (const auto& t : tunables) {
        if (t.role == role) return &t;
    }
    return nullptr;
}

std::string define(const Tunable& t, long long v) { return "-D " + t.name + "=" + std::to_string(v); }

// At most `c`, with `why` first among the reasons (also when the confidence was already that low:
// a variant's own risk, such as spilling, is said even when the finding's evidence was thin).
Prediction withConfidence(Prediction p, Confidence c, const std::string& why) {
    if (static_cast<int>(c) <= static_cast<int>(p.confidence)) {
        p.confidence = c;
        p.confidenceReason = p.confidenceReason.empty() ? why : why + "; " + p.confidenceReason;
    }
    return p;
}

TheoreticalOccupancy occupancyAt(const AdviseEvidence& e, int registers, int threads) {
    const ArchLimits limits = archLimits(e.arch.empty() ? "sm_90" : e.arch);
    const int shared = std::max(0, e.resources ? e.resources->sharedBytes : 0) + e.dynamicSharedBytes;
    return computeOccupancy(limits, std::max(0, registers), shared, threads, &e.bounds);
}

bool oneDimensional(const AdviseEvidence& e) {
    return e.block[1] == 1 && e.block[2] == 1 && e.grid[1] == 1 && e.grid[2] == 1 && e.block[0] > 0 && e.grid[0] > 0;
}

// A 1-D launch with blocks of `threads` covering the same threads as the original one.
Variant blockVariant(const AdviseEvidence& e, uint32_t threads) {
    Variant v;
    const uint64_t total = uint64_t{e.grid[0]} * e.block[0];
    v.block = std::array<uint32_t, 3>{threads, 1, 1};
    v.grid = std::array<uint32_t, 3>{static_cast<uint32_t>((total + threads - 1) / threads), 1, 1};
    v.change = "block " + std::to_string(e.block[0]) + " → " + std::to_string(threads) + ", grid " +
               std::to_string(e.grid[0]) + " → " + std::to_string((*v.grid)[0]) + " (same threads)";
    return v;
}

bool blockAllowed(const AdviseEvidence& e, uint32_t threads) {
    return threads >= 32 && threads <= 1024 && checkBlockSize(e.bounds, static_cast<int>(threads)).empty();
}

// The occupancy finding's prediction redone for occupancy `after` (T′) instead of its own next step:
// B/A = 1 − s × (1 − T/T′) with the finding's waiting share, else the bound T/T′.
Prediction occupancyPrediction(const Finding& f, double after) {
    Prediction p;
    const double T = f.values.at("occupancy");
    const auto s = f.values.find("waiting_share");
    if (s != f.values.end()) {
        p.ratio = 1 - s->second * (1 - T / after);
        p.formula = "B/A = 1 − s × (1 − T/T′) = 1 − " + fmt("%.2f", s->second) + " × (1 − " + percentText(T) + " / " +
                    percentText(after) + ") = " + ratioText(p.ratio);
        p.confidence = f.prediction.confidence;
    } else {
        p.ratio = T / after;
        p.formula = "B/A ≥ T/T′ = " + percentText(T) + " / " + percentText(after) + " = " + ratioText(p.ratio) +
                    " (a bound: no stall samples or issue metric say how much time waits)";
        p.confidence = Confidence::Low;
    }
    p.confidenceReason = f.prediction.confidenceReason;
    return p;
}

// A kernel whose PTX carries launch bounds (or a register cap): ptxas takes its register budget
// from them, not from --maxrregcount.
bool registerBudgetFromBounds(const PtxLaunchBounds& b) {
    return b.maxThreads() > 0 || b.requiredThreads() > 0 || b.minnctapersm > 0 || b.maxnreg > 0;
}

void occupancyVariants(const Finding& f, const AdviseEvidence& e, const std::vector<Tunable>& tunables,
                       const BuildOptions& a, std::vector<Variant>& out) {
    const int blocks = static_cast<int>(f.values.at("blocks_per_sm"));
    const int threads = static_cast<int>(e.blockThreads());
    // ptxas keeps the register budget of a kernel's launch bounds and ignores --maxrregcount for it
    // (nvcc 13.0, sm_90: regs_heavy, __launch_bounds__(256[, 1]), stays at 80 registers under
    // --maxrregcount 64, so the variant was the same code; the first calibration measured it at
    // 1.000): such a kernel is only offered its min_blocks tunable.
    if (f.id == "occupancy.registers" && e.resources && !registerBudgetFromBounds(e.bounds)) {
        // The register caps that fit one and two more blocks per SM (the largest cap for each).
        const int regs = e.resources->registers;
        int want = blocks + 1;
        for (int r = regs - 1; r >= 16 && want <= blocks + 2; --r) {
            const TheoreticalOccupancy o = occupancyAt(e, r, threads);
            if (o.blocksPerSm < want) continue;
            Variant v;
            v.optionFlags = "--maxrregcount " + std::to_string(r);
            v.change = "--maxrregcount " + std::to_string(r) + " (" + std::to_string(regs) + " registers → at most " +
                       std::to_string(r) + "; " + std::to_string(blocks) + " → " + std::to_string(o.blocksPerSm) +
                       " blocks per SM)";
            const Prediction p = o.blocksPerSm == blocks + 1 ? f.prediction : occupancyPrediction(f, o.occupancy);
            v.prediction = r < regs * 3 / 4 ? withConfidence(p, Confidence::Low,
                                                               "a cap this far below the registers it needs is likely to spill")
                                            : p;
            out.push_back(std::move(v));
            want = o.blocksPerSm + 1;
        }
    }
    if (f.id == "occupancy.block_size" && oneDimensional(e)) {
        const uint32_t twice = e.block[0] * 2;
        if (blockAllowed(e, twice)) {
            Variant v = blockVariant(e, twice);
            v.prediction = withConfidence(f.prediction, Confidence::Low, "the kernel may assume its block size (outputs are compared)");
            out.push_back(std::move(v));
        }
    }
    if (f.id == "occupancy.shared_memory" && e.resources) {
        if (const Tunable* t = tunableWithRole(tunables, "tile")) {
            // The two next smaller tiles, each predicted at the occupancy of its shared memory,
            // assuming the static shared memory scales with the tile.
            const long long now = currentValue(*t, a);
            std::vector<long long> smaller;
            for (long long x : t->values) {
                if (x > 0 && x < now) smaller.push_back(x);
            }
            std::sort(smaller.rbegin(), smaller.rend());
            if (smaller.size() > 2) smaller.resize(2);
            for (long long x : smaller) {
                AdviseEvidence scaled = e;
                scaled.resources->sharedBytes = static_cast<int>(std::max(0, e.resources->sharedBytes) * x / now);
                const TheoreticalOccupancy o = occupancyAt(scaled, e.resources->registers, threads);
                if (o.occupancy <= f.values.at("occupancy")) continue;
                Variant v;
                v.optionFlags = define(*t, x);
                v.change = "tile " + t->name + " " + std::to_string(now) + " → " + std::to_string(x) + " (shared " +
                           std::to_string(e.resources->sharedBytes) + " → " +
                           std::to_string(scaled.resources->sharedBytes) + " B per block; " + std::to_string(blocks) +
                           " → " + std::to_string(o.blocksPerSm) + " blocks per SM)";
                v.prediction = withConfidence(occupancyPrediction(f, o.occupancy), Confidence::Low,
                                              "a smaller tile also changes the work per block");
                v.prediction.formula += " (T′ with the static shared memory scaled by " + std::to_string(x) + "/" +
                                        std::to_string(now) + ")";
                out.push_back(std::move(v));
            }
        }
    }
    if (const Tunable* t = tunableWithRole(tunables, "min_blocks");
        t && (f.id == "occupancy.registers" || f.id == "occupancy.shared_memory")) {
        // __launch_bounds__ asking for one and two more blocks per SM (values the sidecar lists).
        for (int step = 1; step <= 2; ++step) {
            const long long want = blocks + step;
            if (std::find(t->values.begin(), t->values.end(), want) == t->values.end() || currentValue(*t, a) == want) {
                continue;
            }
            const int warps = (threads + 31) / 32;
            const ArchLimits limits = archLimits(e.arch.empty() ? "sm_90" : e.arch);
            const double after = std::min(1.0, static_cast<double>(want * warps) / limits.maxWarpsPerSm);
            Variant v;
            v.optionFlags = define(*t, want);
            v.change = t->name + " = " + std::to_string(want) + " (__launch_bounds__ asks for " + std::to_string(want) +
                       " blocks per SM)";
            v.prediction = step == 1 ? f.prediction : occupancyPrediction(f, after);
            // The registers ptxas gets to fit `want` blocks: as far below what the kernel uses as
            // the caps above, it spills (regs_heavy, MIN_BLOCKS 5: 80 → 48 registers, 404 bytes of
            // spill stores, measured 4.03× slower on the H100).
            if (f.id == "occupancy.registers" && e.resources) {
                const int regs = e.resources->registers;
                int budget = 0;
                for (int r = regs; r >= 16 && budget == 0; --r)
                    if (occupancyAt(e, r, threads).blocksPerSm >= want) budget = r;
                if (budget > 0 && budget < regs * 3 / 4)
                    v.prediction = withConfidence(v.prediction, Confidence::Low,
                                                  "fitting " + std::to_string(want) + " blocks leaves " +
                                                      std::to_string(budget) + " of the " + std::to_string(regs) +
                                                      " registers it uses: likely to spill");
            }
            out.push_back(std::move(v));
        }
    }
}

void tailVariants(const Finding& f, const AdviseEvidence& e, std::vector<Variant>& out) {
    if (!oneDimensional(e) || !e.device || !e.resources || e.device->smCount <= 0) return;
    const double w = f.values.at("waves");
    const double k = f.values.at("blocks_per_sm");
    const double sms = e.device->smCount;
    std::optional<Variant> best;
    if (w < 1) {
        // Less than one wave: every block is resident at once and the SM holding the most threads,
        // ⌈G/SMs⌉ blocks of B, sets the time (a wave's time ∝ the threads it holds per SM). Smaller
        // blocks spread the same threads over more SMs.
        const double before = std::ceil(e.grid[0] / sms) * e.block[0];
        for (uint32_t threads : {e.block[0] / 2, e.block[0] / 4}) {
            if (!blockAllowed(e, threads) || threads % 32 != 0) continue;
            Variant v = blockVariant(e, threads);
            const double g2 = (*v.grid)[0];
            const TheoreticalOccupancy o = occupancyAt(e, e.resources->registers, static_cast<int>(threads));
            if (o.blocksPerSm <= 0 || g2 > o.blocksPerSm * sms) continue;
            const double after = std::ceil(g2 / sms) * threads;
            const double ratio = after / before;
            Prediction& p = v.prediction;
            p.ratio = ratio;
            p.formula = "B/A = ⌈G′/SMs⌉·B′ / (⌈G/SMs⌉·B) = " + fmt("%.0f", std::ceil(g2 / sms)) + "·" +
                        std::to_string(threads) + " / (" + fmt("%.0f", std::ceil(e.grid[0] / sms)) + "·" +
                        std::to_string(e.block[0]) + ") = " + ratioText(ratio) +
                        " (under one wave: the SM holding the most threads sets the time)";
            p.confidence = Confidence::Low;
            p.confidenceReason = f.prediction.confidenceReason +
                                 "; a short kernel is bound by launch and memory latency, not by threads per SM; "
                                 "the kernel may assume its block size (outputs are compared)";
            if (ratio < 0.97 && (!best || ratio < best->prediction.ratio)) best = std::move(v);
        }
        if (best) out.push_back(std::move(*best));
        return;
    }
    const double before = std::ceil(w) * k * e.block[0];
    for (uint32_t threads : {e.block[0] / 2, e.block[0] * 2}) {
        if (!blockAllowed(e, threads) || threads % 32 != 0) continue;
        Variant v = blockVariant(e, threads);
        const TheoreticalOccupancy o = occupancyAt(e, e.resources->registers, static_cast<int>(threads));
        if (o.blocksPerSm <= 0) continue;
        const double w2 = static_cast<double>((*v.grid)[0]) / (static_cast<double>(o.blocksPerSm) * e.device->smCount);
        const double ratio = std::ceil(w2) * o.blocksPerSm * threads / before;
        Prediction& p = v.prediction;
        p.ratio = ratio;
        p.formula = "B/A = ⌈w′⌉·k′·B′ / (⌈w⌉·k·B) = " + fmt("%.0f", std::ceil(w2)) + "·" + std::to_string(o.blocksPerSm) +
                    "·" + std::to_string(threads) + " / (" + fmt("%.0f", std::ceil(w)) + "·" + fmt("%.0f", k) + "·" +
                    std::to_string(e.block[0]) + ") = " + ratioText(ratio) + " (w′ = " + fmt("%.2f", w2) +
                    " waves; a wave's time ∝ the threads it holds per SM)";
        p.confidence = Confidence::Low;
        p.confidenceReason = f.prediction.confidenceReason + "; the kernel may assume its block size (outputs are compared)";
        if (ratio < 0.97 && (!best || ratio < best->prediction.ratio)) best = std::move(v);
    }
    if (best) out.push_back(std::move(*best));
}

// Few warps per SM: each larger value of an "unroll" tunable (at most two), predicted from the
// independent work per warp growing by U′/U until 16 warps' worth is in flight.
void fewWarpsVariants(const Finding& f, const std::vector<Tunable>& tunables, const BuildOptions& a,
                      std::vector<Variant>& out) {
    const Tunable* t = tunableWithRole(tunables, "unroll");
    if (!t) return;
    const long long now = currentValue(*t, a);
    if (now <= 0) return;
    std::vector<long long> larger;
    for (long long x : t->values) {
        if (x > now) larger.push_back(x);
    }
    std::sort(larger.begin(), larger.end());
    if (larger.size() > 2) larger.resize(2);
    const double W = f.values.at("warps_per_sm");
    const auto s = f.values.find("waiting_share");
    for (long long next : larger) {
        const double r = std::max(static_cast<double>(now) / static_cast<double>(next), W / 16.0);
        Variant v;
        v.optionFlags = define(*t, next);
        v.change = "unroll " + t->name + " " + std::to_string(now) + " → " + std::to_string(next) +
                   " (more independent work in flight per warp)";
        Prediction& p = v.prediction;
        const std::string rText = "r = max(U/U′, W/16) = max(" + std::to_string(now) + "/" + std::to_string(next) + ", " +
                                  fmt("%.0f", W) + "/16) = " + fmt("%.3f", r);
        if (s != f.values.end()) {
            p.ratio = 1 - s->second * (1 - r);
            p.formula = "B/A = 1 − s × (1 − r), " + rText + ": 1 − " + fmt("%.2f", s->second) + " × (1 − " +
                        fmt("%.3f", r) + ") = " + ratioText(p.ratio) + "; s the waiting share";
        } else {
            p.ratio = r;
            p.formula = "B/A ≥ " + rText + " = " + ratioText(r) +
                        " (a bound: time ∝ 1 / independent work in flight until 16 warps' worth saturates issue)";
        }
        p.confidence = Confidence::Low;
        p.confidenceReason = f.prediction.confidenceReason;
        out.push_back(std::move(v));
    }
}

} // namespace

std::vector<Tunable> tunablesFromSidecar(const json& sidecar, const std::string& kernel) {
    std::vector<Tunable> out;
    if (!sidecar.is_object()) return out;
    auto ks = sidecar.find("kernels");
    if (ks == sidecar.end() || !ks->is_array()) return out;
    for (const auto& k : *ks) {
        if (!k.is_object() || !k.contains("name") || !k["name"].is_string() || k["name"].get<std::string>() != kernel) {
            continue;
        }
        auto t = k.find("tunables");
        if (t == k.end()) return out;
        if (!t->is_object()) throw std::invalid_argument("tunables: must be an object of define name → {values, default, role}");
        if (t->size() > kMaxTunables) throw std::invalid_argument("tunables: more than 16");
        for (const auto& [name, spec] : t->items()) {
            const std::string where = "tunables." + name;
            if (!isIdentifier(name)) throw std::invalid_argument(where + ": not a C identifier");
            if (!spec.is_object()) throw std::invalid_argument(where + ": must be an object");
            Tunable tu;
            tu.name = name;
            auto vals = spec.find("values");
            if (vals == spec.end() || !vals->is_array() || vals->empty() || vals->size() > kMaxTunableValues) {
                throw std::invalid_argument(where + ".values: an array of 1 to 64 integers");
            }
            for (const auto& v : *vals) {
                if (!v.is_number_integer()) throw std::invalid_argument(where + ".values: integers only");
                tu.values.push_back(v.get<long long>());
            }
            auto def = spec.find("default");
            if (def == spec.end() || !def->is_number_integer()) throw std::invalid_argument(where + ".default: an integer");
            tu.defaultValue = def->get<long long>();
            if (std::find(tu.values.begin(), tu.values.end(), tu.defaultValue) == tu.values.end()) {
                throw std::invalid_argument(where + ".default: not one of the values");
            }
            auto role = spec.find("role");
            static const std::set<std::string> roles = {"unroll", "tile", "pad", "min_blocks"};
            if (role == spec.end() || !role->is_string() || !roles.count(role->get<std::string>())) {
                throw std::invalid_argument(where + ".role: one of unroll, tile, pad, min_blocks");
            }
            tu.role = role->get<std::string>();
            out.push_back(std::move(tu));
        }
        return out;
    }
    return out;
}

std::vector<Variant> proposeVariants(const std::vector<Finding>& findings, const AdviseEvidence& e,
                                     const std::vector<Tunable>& tunables, const BuildOptions& a) {
    std::vector<Variant> out;
    for (const Finding& f : findings) {
        std::vector<Variant> mine;
        if (f.rule == "occupancy") {
            occupancyVariants(f, e, tunables, a, mine);
        } else if (f.rule == "latency") {
            if (const Tunable* t = tunableWithRole(tunables, "unroll")) {
                const long long now = currentValue(*t, a);
                long long next = 0;
                for (long long x : t->values) {
                    if (x > now && (next == 0 || x < next)) next = x;
                }
                if (next > 0) {
                    Variant v;
                    v.optionFlags = define(*t, next);
                    v.change = "unroll " + t->name + " " + std::to_string(now) + " → " + std::to_string(next) +
                               " (more independent loads in flight per warp)";
                    v.prediction = f.prediction;
                    mine.push_back(std::move(v));
                }
            }
        } else if (f.rule == "bank_conflicts") {
            if (const Tunable* t = tunableWithRole(tunables, "pad")) {
                const long long now = currentValue(*t, a);
                for (long long x : t->values) {
                    if (x == now) continue;
                    Variant v;
                    v.optionFlags = define(*t, x);
                    v.change = "padding " + t->name + " " + std::to_string(now) + " → " + std::to_string(x);
                    v.prediction = f.prediction;
                    mine.push_back(std::move(v));
                }
            }
        } else if (f.rule == "spills") {
            if (a.maxRegCount > 0 && a.maxRegCount < 255 && !registerBudgetFromBounds(e.bounds)) {
                const int r = std::min(255, a.maxRegCount * 2);
                Variant v;
                v.optionFlags = "--maxrregcount " + std::to_string(r);
                v.change = "--maxrregcount " + std::to_string(a.maxRegCount) + " → " + std::to_string(r) +
                           " (room for the spilled values)";
                v.prediction = f.prediction;
                mine.push_back(std::move(v));
            }
            if (const Tunable* t = tunableWithRole(tunables, "min_blocks")) {
                const long long now = currentValue(*t, a);
                long long lower = 0;
                for (long long x : t->values) {
                    if (x < now && x > lower) lower = x;
                }
                if (lower > 0) {
                    Variant v;
                    v.optionFlags = define(*t, lower);
                    v.change = t->name + " " + std::to_string(now) + " → " + std::to_string(lower) +
                               " (__launch_bounds__ asks for fewer blocks per SM, so more registers)";
                    v.prediction = f.prediction;
                    mine.push_back(std::move(v));
                }
            }
        } else if (f.rule == "tail") {
            tailVariants(f, e, mine);
        } else if (f.rule == "few_warps") {
            fewWarpsVariants(f, tunables, a, mine);
        } else if (f.rule == "uncoalesced") {
            // -Xptxas -dlcm=cg: global loads cached in L2 only. The sectors L2 and DRAM serve stay
            // the same, so the prediction is no change; a measured change says L1 allocation
            // mattered (reuse lost: slower; thrashing avoided: faster).
            if (std::find(a.extraPtxasFlags.begin(), a.extraPtxasFlags.end(), "-dlcm=cg") == a.extraPtxasFlags.end()) {
                Variant v;
                v.optionFlags = "--ptxas-flag=-dlcm=cg";
                v.change = "-Xptxas -dlcm=cg (global loads bypass L1, cached in L2 only)";
                Prediction& p = v.prediction;
                p.ratio = 1;
                p.formula = "B/A = S′ / S = 1: the sectors requested from L2 (S = " +
                            fmt("%.0f", f.values.at("sectors")) +
                            ") do not change when loads skip L1; only L1 reuse (lost) or L1 thrashing (avoided) would "
                            "show";
                p.confidence = Confidence::Low;
                p.confidenceReason = "no evidence of the L1 hit rate on these rows";
                mine.push_back(std::move(v));
            }
        } else if (f.rule == "math_precision" && !a.fastMath) {
            Variant v;
            v.optionFlags = "--fast-math";
            v.change = "--fast-math (approximate division, sqrt and transcendentals; flush denormals)";
            v.prediction = f.prediction;
            mine.push_back(std::move(v));
            // One flag of the family: only the division lines change.
            const auto div = f.values.find("math_share.division");
            if (div != f.values.end() && div->second >= 0.05 && a.precDiv != 0) {
                Variant d;
                d.optionFlags = "--prec-div false";
                d.change = "--prec-div false (approximate single-precision division only)";
                Prediction& p = d.prediction;
                p.ratio = 1 - 0.5 * div->second;
                p.formula = "B/A = 1 − m_div × 0.5 = 1 − " + fmt("%.3f", div->second) + " × 0.5 = " + ratioText(p.ratio) +
                            "; m_div the share of instructions on division lines, 0.5 an assumed shortening";
                p.confidence = Confidence::Low;
                p.confidenceReason = f.prediction.confidenceReason;
                mine.push_back(std::move(d));
            }
        } else if (f.rule == "launch_overhead") {
            Variant v;
            v.graph = true;
            v.change = "replay the launches as a CUDA Graph";
            v.notTestable = "an A/B of one launch cannot show launch overhead; measure the path with "
                            "`lowerscope-cli experiment FILE --graph-break-even 1,4,16,64 -o OUT`";
            v.prediction = f.prediction;
            mine.push_back(std::move(v));
        }
        for (Variant& v : mine) {
            v.findingId = f.id;
            std::string key = v.graph ? "graph" : v.optionFlags;
            if (v.block) key += (key.empty() ? "" : " ") + std::string("block=") + std::to_string((*v.block)[0]);
            v.id = f.id + "/" + key;
            // One variant per change: the first finding that proposes it keeps it.
            bool seen = false;
            for (const Variant& o : out) {
                seen = seen || (o.optionFlags == v.optionFlags && o.block == v.block && o.grid == v.grid && o.graph == v.graph);
            }
            if (!seen) out.push_back(std::move(v));
        }
    }
    return out;
}

json toJson(const Variant& v) {
    json j{{"id", v.id},
           {"finding", v.findingId},
           {"change", v.change},
           {"option_flags", v.optionFlags},
           {"graph", v.graph},
           {"prediction", toJson(v.prediction)}};
    if (v.block) j["block"] = *v.block;
    if (v.grid) j["grid"] = *v.grid;
    if (!v.notTestable.empty()) j["not_testable"] = v.notTestable;
    return j;
}

} // namespace lowerscope
