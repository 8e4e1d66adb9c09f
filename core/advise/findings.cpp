#include "core/advise/findings.h"
#include "core/format.h"

#include "core/analysis/occupancy.h"
#include "core/run/profile_document.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

namespace lowerscope {

using nlohmann::json;

namespace {

// Thresholds of the rules (documented in findings.h).
constexpr double kLowOccupancy = 0.5;          // registers / shared memory
constexpr double kLowOccupancyBlockSize = 0.75; // block slots
constexpr double kIssueSaturated = 80;         // % issue active: more warps cannot help
constexpr double kExcessFactor = 1.25;         // sectors or wavefronts over ideal
constexpr double kMinShare = 0.05;             // of the kernel's sectors / wavefronts
constexpr double kLongScoreboardShare = 0.30;
constexpr double kLowAchievedOccupancyPct = 50;
constexpr double kIdleLanes = 0.15;
constexpr double kShortKernelNs = 10000;
constexpr double kHostLaunchUs = 4.7;          // TIMING.md, H200: cuLaunchKernel host cost
constexpr double kGraphNodeUs = 0.55;          // TIMING.md, H200: GPU time per graph node
constexpr double kWaveEfficiency = 0.9;
constexpr double kIssueActiveForMath = 50;
constexpr int kFewWarpsPerSm = 16;             // 4 per scheduler: what hides the ALU's dependent-issue latency

const char* kInst = "smsp__sass_inst_executed";
const char* kThreadInst = "smsp__sass_thread_inst_executed";
const char* kSectors = "smsp__sass_sectors_mem_global";
const char* kSectorsIdeal = "smsp__sass_sectors_mem_global_ideal";
const char* kWavefronts = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared";
const char* kWavefrontsIdeal = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal";
const char* kDivergent = "smsp__sass_branch_targets_threads_divergent";
const char* kGlobalLd = "smsp__sass_inst_executed_op_global_ld";
const char* kGlobalSt = "smsp__sass_inst_executed_op_global_st";

const char* kAchieved = "sm__warps_active.avg.pct_of_peak_sustained_active";
const char* kIssueActive = "smsp__issue_active.avg.pct_of_peak_sustained_active";
const char* kDramPct = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
const char* kMemPct = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
const char* kDuration = "gpu__time_duration.sum";
const char* kBankConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";

bool isNotIssued(const std::string& reason) {
    static const std::string suffix = "_not_issued";
    return reason.size() > suffix.size() && reason.compare(reason.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Stall reasons where a warp waits for something (latency), as opposed to being ready.
bool isWaiting(const std::string& r) {
    static const std::set<std::string> waiting = {"long_scoreboard", "short_scoreboard", "wait",     "imc_miss",
                                                  "no_instructions", "branch_resolving", "barrier", "membar",
                                                  "drain",           "sleeping"};
    return waiting.count(r) > 0;
}

std::string count(uint64_t n) {
    if (n >= 10'000'000) return fmt("%.1fM", n / 1e6);
    if (n >= 10'000) return fmt("%.1fk", n / 1e3);
    return std::to_string(n);
}

EvidenceRow evidenceRow(const AdviseRow& r, std::string detail) {
    return EvidenceRow{r.address, r.opcode, r.file, r.line, std::move(detail)};
}

bool opcodeIs(const AdviseRow& r, const char* base) {
    const std::string& op = r.opcode;
    const size_t n = std::strlen(base);
    return op.compare(0, n, base) == 0 && (op.size() == n || op[n] == '.');
}

struct SampleTotals {
    uint64_t all = 0;
    std::map<std::string, uint64_t> byReason;
    uint64_t waiting() const {
        uint64_t w = 0;
        for (const auto& [r, n] : byReason) {
            if (isWaiting(r)) w += n;
        }
        return w;
    }
    uint64_t reason(const std::string& r) const {
        auto it = byReason.find(r);
        return it == byReason.end() ? 0 : it->second;
    }
};

SampleTotals sampleTotals(const AdviseEvidence& e) {
    SampleTotals t;
    for (const auto& row : e.rows) {
        for (const auto& [r, n] : row.samples) {
            if (isNotIssued(r)) continue;
            t.byReason[r] += n;
            t.all += n;
        }
    }
    return t;
}

uint64_t countTotal(const AdviseEvidence& e, const char* name, bool* present = nullptr) {
    uint64_t t = 0;
    bool any = false;
    for (const auto& row : e.rows) {
        auto it = row.counts.find(name);
        if (it != row.counts.end()) {
            any = true;
            t += it->second;
        }
    }
    if (present) *present = any;
    return t;
}

// The share of time warps wait (latency) for the occupancy rule: from stall samples, else from the
// issue-active metric. nullopt when neither is there.
std::optional<std::pair<double, std::string>> waitingShare(const AdviseEvidence& e) {
    const SampleTotals st = sampleTotals(e);
    if (st.all > 0) {
        const double s = static_cast<double>(st.waiting()) / static_cast<double>(st.all);
        return std::make_pair(s, "s = " + percentText(s) + " of stall samples waiting (scoreboards, barriers, fetch)");
    }
    if (auto u = e.metric(kIssueActive)) {
        const double s = std::clamp(1 - *u / 100, 0.0, 1.0);
        return std::make_pair(s, "s = 1 − issue active " + percentText(*u / 100) + " = " + percentText(s));
    }
    return std::nullopt;
}

TheoreticalOccupancy occupancyOf(const AdviseEvidence& e, int registers, int threads) {
    const ArchLimits limits = archLimits(e.arch.empty() ? "sm_90" : e.arch);
    const int shared = std::max(0, e.resources->sharedBytes) + e.dynamicSharedBytes;
    return computeOccupancy(limits, std::max(0, registers), shared, threads, &e.bounds);
}

// ------------------------------------------------------------------------------------ rules

void occupancyRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    if (!e.resources || e.resources->registers < 0 || e.blockThreads() == 0) return;
    const int threads = static_cast<int>(e.blockThreads());
    const TheoreticalOccupancy occ = occupancyOf(e, e.resources->registers, threads);
    const bool blockSize = occ.limiter == OccupancyLimiter::Blocks ||
                           (occ.limiter == OccupancyLimiter::Warps && occ.occupancy < 1);
    const bool resource = occ.limiter == OccupancyLimiter::Registers || occ.limiter == OccupancyLimiter::SharedMemory;
    if (!(resource && occ.occupancy < kLowOccupancy) && !(blockSize && occ.occupancy < kLowOccupancyBlockSize)) return;
    const std::optional<double> issue = e.metric(kIssueActive);
    if (issue && *issue >= kIssueSaturated) return;
    // A grid that fits in one wave at today's occupancy has every block resident already: more
    // blocks per SM (or bigger blocks, which halve the grid) have nothing to add. The grid, not
    // the resource, limits the warps (the tail rule speaks for that case).
    if (e.device && e.device->smCount > 0 && e.gridBlocks() > 0 &&
        e.gridBlocks() <= static_cast<uint64_t>(std::max(occ.blocksPerSm, 0)) * static_cast<uint64_t>(e.device->smCount))
        return;

    const ArchLimits limits = archLimits(e.arch.empty() ? "sm_90" : e.arch);
    // The next step of relief: one more block per SM.
    double next = std::min(1.0, static_cast<double>((occ.blocksPerSm + 1) * ((threads + 31) / 32)) /
                                    limits.maxWarpsPerSm);
    if (blockSize) {
        // Blocks of twice the size with the same block slots.
        const TheoreticalOccupancy twice = occupancyOf(e, e.resources->registers, std::min(threads * 2, 1024));
        next = std::max(occ.occupancy, twice.occupancy);
    }
    if (next <= occ.occupancy) return;

    Finding f;
    f.rule = "occupancy";
    const std::string what = occ.limiter == OccupancyLimiter::Registers      ? "registers"
                             : occ.limiter == OccupancyLimiter::SharedMemory ? "shared_memory"
                                                                              : "block_size";
    f.id = "occupancy." + what;
    const int shared = std::max(0, e.resources->sharedBytes) + e.dynamicSharedBytes;
    f.limiter = "Theoretical occupancy is " + percentText(occ.occupancy) + " (" + std::to_string(occ.blocksPerSm) +
                " blocks of " + std::to_string(threads) + " threads per SM), limited by " +
                (what == "registers"       ? std::to_string(e.resources->registers) + " registers per thread"
                 : what == "shared_memory" ? std::to_string(shared) + " bytes of shared memory per block"
                                           : "the block size (" + std::to_string(threads) + " threads; the SM runs at most " +
                                                 std::to_string(limits.maxBlocksPerSm) + " blocks)");
    f.facts.push_back("registers " + std::to_string(e.resources->registers) + ", shared " + std::to_string(shared) +
                      " B/block, block " + std::to_string(threads));
    f.facts.push_back(std::string("blocks/SM by warps ") + std::to_string(occ.blocksByWarps) + ", by registers " +
                      std::to_string(occ.blocksByRegisters) + ", by shared " + std::to_string(occ.blocksByShared) +
                      ", by slots " + std::to_string(occ.blocksByBlockSlots));
    if (auto a = e.metric(kAchieved)) f.facts.push_back("achieved occupancy " + percentText(*a / 100));
    if (issue) f.facts.push_back("issue active " + percentText(*issue / 100));
    f.values["occupancy"] = occ.occupancy;
    f.values["next_occupancy"] = next;
    f.values["blocks_per_sm"] = occ.blocksPerSm;
    f.values["registers"] = e.resources->registers;

    Prediction& p = f.prediction;
    if (auto s = waitingShare(e)) {
        f.values["waiting_share"] = s->first;
        p.ratio = 1 - s->first * (1 - occ.occupancy / next);
        p.formula = "B/A = 1 − s × (1 − T/T′) = 1 − " + fmt("%.2f", s->first) + " × (1 − " +
                    percentText(occ.occupancy) + " / " + percentText(next) + ") = " + ratioText(p.ratio) + "; " +
                    s->second;
        p.confidence = Confidence::Medium;
        p.confidenceReason = "more warps hide latency only while they are waiting; the relief may cost spills or "
                             "cache hit rate";
    } else {
        p.ratio = occ.occupancy / next;
        p.formula = "B/A ≥ T/T′ = " + percentText(occ.occupancy) + " / " + percentText(next) + " = " +
                    ratioText(p.ratio) + " (a bound: no stall samples or issue metric to say how much time waits)";
        p.confidence = Confidence::Low;
        p.confidenceReason = "no evidence of how much time warps wait";
    }
    out.push_back(std::move(f));
}

void uncoalescedRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    bool present = false, idealPresent = false;
    const uint64_t total = countTotal(e, kSectors, &present);
    countTotal(e, kSectorsIdeal, &idealPresent);
    if (!present || !idealPresent || total == 0) return;
    std::vector<std::pair<const AdviseRow*, uint64_t>> bad;
    uint64_t excess = 0;
    for (const auto& r : e.rows) {
        const uint64_t s = r.count(kSectors), ideal = r.count(kSectorsIdeal);
        if (s == 0 || ideal == 0 || static_cast<double>(s) < kExcessFactor * static_cast<double>(ideal)) continue;
        if (static_cast<double>(s) < kMinShare * static_cast<double>(total)) continue;
        bad.emplace_back(&r, s - ideal);
        excess += s - ideal;
    }
    if (bad.empty()) return;
    std::stable_sort(bad.begin(), bad.end(), [](auto& a, auto& b) { return a.second > b.second; });
    Finding f;
    f.rule = f.id = "uncoalesced";
    f.limiter = "Global memory accesses on " + std::to_string(bad.size()) +
                " instruction(s) touch more sectors than their addresses need (uncoalesced or misaligned)";
    for (const auto& [r, x] : bad) {
        if (f.rows.size() >= kMaxEvidenceRows) break;
        const uint64_t requests = r->count(kGlobalLd) + r->count(kGlobalSt);
        const uint64_t req = requests ? requests : r->count(kInst);
        std::string d = fmt("%.1f", static_cast<double>(r->count(kSectors)) / std::max<uint64_t>(1, req)) +
                        " sectors/request (ideal " +
                        fmt("%.1f", static_cast<double>(r->count(kSectorsIdeal)) / std::max<uint64_t>(1, req)) + "), " +
                        percentText(static_cast<double>(r->count(kSectors)) / static_cast<double>(total)) +
                        " of all sectors";
        f.rows.push_back(evidenceRow(*r, d));
    }
    f.facts.push_back("sectors " + count(total) + ", excess on these rows " + count(excess));
    const std::optional<double> dram = e.metric(kDramPct), mem = e.metric(kMemPct);
    const double memPct = std::max(dram.value_or(0), mem.value_or(0));
    if (dram || mem) f.facts.push_back("memory throughput " + percentText(memPct / 100) + " of peak");
    Prediction& p = f.prediction;
    const double S = static_cast<double>(total), X = static_cast<double>(excess);
    p.ratio = (S - X) / S;
    p.formula = "B/A = (S − X) / S = (" + count(total) + " − " + count(excess) + ") / " + count(total) + " = " +
                ratioText(p.ratio) + " (time ∝ sectors moved, for a memory-bound kernel)";
    if (dram || mem) {
        p.confidence = memPct >= 60 ? Confidence::Medium : Confidence::Low;
        p.confidenceReason = memPct >= 60 ? "memory throughput is " + percentText(memPct / 100) + " of peak: time follows traffic"
                                          : "memory throughput is only " + percentText(memPct / 100) +
                                                " of peak: time may not follow the sectors";
    } else {
        p.confidence = Confidence::Low;
        p.confidenceReason = "no throughput metric says the kernel is memory-bound";
    }
    f.values["sectors"] = S;
    f.values["excess_sectors"] = X;
    out.push_back(std::move(f));
}

void bankConflictRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    bool present = false, idealPresent = false;
    const uint64_t total = countTotal(e, kWavefronts, &present);
    countTotal(e, kWavefrontsIdeal, &idealPresent);
    if (!present || !idealPresent || total == 0) return;
    std::vector<const AdviseRow*> bad;
    uint64_t W = 0, I = 0, rowSamples = 0, rowInst = 0;
    for (const auto& r : e.rows) {
        const uint64_t w = r.count(kWavefronts), ideal = r.count(kWavefrontsIdeal);
        if (w == 0 || ideal == 0 || static_cast<double>(w) < kExcessFactor * static_cast<double>(ideal)) continue;
        if (static_cast<double>(w) < kMinShare * static_cast<double>(total)) continue;
        bad.push_back(&r);
        W += w;
        I += ideal;
        rowSamples += r.sampleTotal();
        rowInst += r.count(kInst);
    }
    if (bad.empty()) return;
    std::stable_sort(bad.begin(), bad.end(), [](auto* a, auto* b) {
        return a->count(kWavefronts) - a->count(kWavefrontsIdeal) > b->count(kWavefronts) - b->count(kWavefrontsIdeal);
    });
    Finding f;
    f.rule = f.id = "bank_conflicts";
    f.limiter = "Shared-memory accesses on " + std::to_string(bad.size()) +
                " instruction(s) are split into extra wavefronts by bank conflicts";
    for (const AdviseRow* r : bad) {
        if (f.rows.size() >= kMaxEvidenceRows) break;
        const double ways = static_cast<double>(r->count(kWavefronts)) / static_cast<double>(r->count(kWavefrontsIdeal));
        f.rows.push_back(evidenceRow(*r, fmt("%.1f× the ideal wavefronts", ways) + " (" + count(r->count(kWavefronts)) +
                                             " vs " + count(r->count(kWavefrontsIdeal)) + ")"));
    }
    if (auto c = e.metric(kBankConflicts)) f.facts.push_back("bank conflicts (kernel) " + count(static_cast<uint64_t>(*c)));
    f.facts.push_back("wavefronts on these rows " + count(W) + ", ideal " + count(I));
    const SampleTotals st = sampleTotals(e);
    const uint64_t allInst = countTotal(e, kInst);
    Prediction& p = f.prediction;
    double share = 0;
    std::string shareText;
    if (st.all > 0) {
        share = static_cast<double>(rowSamples) / static_cast<double>(st.all);
        shareText = "f = " + percentText(share) + " of stall samples on these rows";
        p.confidence = Confidence::Medium;
        p.confidenceReason = "the stall samples say how much time waits on these rows";
    } else if (allInst > 0) {
        share = static_cast<double>(rowInst) / static_cast<double>(allInst);
        shareText = "f = " + percentText(share) + " of executed instructions on these rows (no stall samples)";
        p.confidence = Confidence::Low;
        p.confidenceReason = "no stall samples: the share of instructions stands in for the share of time";
    } else {
        return;
    }
    const double ideal = static_cast<double>(I) / static_cast<double>(W);
    p.ratio = 1 - share * (1 - ideal);
    p.formula = "B/A = 1 − f × (1 − I/W) = 1 − " + fmt("%.3f", share) + " × (1 − " + count(I) + " / " + count(W) +
                ") = " + ratioText(p.ratio) + "; " + shareText;
    out.push_back(std::move(f));
}

void latencyRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    const SampleTotals st = sampleTotals(e);
    const std::optional<double> achieved = e.metric(kAchieved);
    if (st.all == 0 || !achieved) return;
    const double s = static_cast<double>(st.reason("long_scoreboard")) / static_cast<double>(st.all);
    if (s < kLongScoreboardShare || *achieved >= kLowAchievedOccupancyPct) return;
    Finding f;
    f.rule = f.id = "latency";
    f.limiter = "Warps wait on global or local memory (long scoreboard, " + percentText(s) +
                " of stall samples) and too few are resident to hide it (achieved occupancy " +
                percentText(*achieved / 100) + ")";
    std::vector<const AdviseRow*> rows;
    for (const auto& r : e.rows) {
        auto it = r.samples.find("long_scoreboard");
        if (it != r.samples.end() && it->second > 0) rows.push_back(&r);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](auto* a, auto* b) { return a->samples.at("long_scoreboard") > b->samples.at("long_scoreboard"); });
    for (const AdviseRow* r : rows) {
        if (f.rows.size() >= kMaxEvidenceRows) break;
        f.rows.push_back(evidenceRow(*r, percentText(static_cast<double>(r->samples.at("long_scoreboard")) /
                                                     static_cast<double>(st.all)) +
                                             " of stall samples wait here on the long scoreboard"));
    }
    double target = std::min(100.0, 2 * *achieved);
    std::string targetWhy = "W′ = min(100 %, 2W)";
    if (e.resources && e.resources->registers >= 0 && e.blockThreads() > 0) {
        const double theo = 100 * occupancyOf(e, e.resources->registers, static_cast<int>(e.blockThreads())).occupancy;
        if (theo > *achieved && theo < target) {
            target = theo;
            targetWhy = "W′ = the theoretical occupancy";
        }
    }
    if (target <= *achieved * 1.05) return;
    f.facts.push_back("long-scoreboard share " + percentText(s) + ", achieved occupancy " + percentText(*achieved / 100));
    f.values["achieved_pct"] = *achieved;
    f.values["long_scoreboard_share"] = s;
    Prediction& p = f.prediction;
    p.ratio = 1 - s * (1 - *achieved / target);
    p.formula = "B/A = 1 − s × (1 − W/W′) = 1 − " + fmt("%.2f", s) + " × (1 − " + percentText(*achieved / 100) + " / " +
                percentText(target / 100) + ") = " + ratioText(p.ratio) + "; " + targetWhy;
    p.confidence = Confidence::Low;
    p.confidenceReason = "assumes latency hiding grows in proportion to resident warps; memory bandwidth may cap it";
    out.push_back(std::move(f));
}

void divergenceRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    bool hasDiv = false, hasThreads = false;
    countTotal(e, kDivergent, &hasDiv);
    const uint64_t threads = countTotal(e, kThreadInst, &hasThreads);
    const uint64_t inst = countTotal(e, kInst);
    if (!hasDiv || !hasThreads || inst == 0) return;
    const double idle = 1 - static_cast<double>(threads) / (32.0 * static_cast<double>(inst));
    std::vector<const AdviseRow*> branches;
    for (const auto& r : e.rows) {
        if (r.count(kDivergent) > 0) branches.push_back(&r);
    }
    if (branches.empty() || idle < kIdleLanes) return;
    std::stable_sort(branches.begin(), branches.end(),
                     [](auto* a, auto* b) { return a->count(kDivergent) > b->count(kDivergent); });
    Finding f;
    f.rule = f.id = "divergence";
    f.limiter = percentText(idle) + " of the lanes are idle over all executed instructions; " +
                std::to_string(branches.size()) + " branch(es) split warps";
    for (const AdviseRow* r : branches) {
        if (f.rows.size() >= kMaxEvidenceRows) break;
        const double lanes = r->count(kInst) ? static_cast<double>(r->count(kThreadInst)) / r->count(kInst) : 0;
        f.rows.push_back(evidenceRow(*r, count(r->count(kDivergent)) + " divergent targets, " + fmt("%.1f", lanes) +
                                             " of 32 lanes active"));
    }
    f.facts.push_back("thread instructions " + count(threads) + " of " + count(inst) + " × 32");
    const std::optional<double> issue = e.metric(kIssueActive);
    Prediction& p = f.prediction;
    if (issue) {
        p.ratio = 1 - idle * (*issue / 100);
        p.formula = "B/A ≥ 1 − i × u = 1 − " + fmt("%.3f", idle) + " × " + fmt("%.3f", *issue / 100) + " = " +
                    ratioText(p.ratio) + " (a bound: every idle lane put to work, in the cycles that issue)";
        p.confidence = Confidence::Low;
    } else {
        p.ratio = 1 - idle;
        p.formula = "B/A ≥ 1 − i = " + ratioText(p.ratio) + " (a bound; no issue-active metric)";
        p.confidence = Confidence::Low;
    }
    p.confidenceReason = "a bound: removing divergence needs a code change whose cost is unknown";
    f.values["idle_lanes"] = idle;
    out.push_back(std::move(f));
}

void spillRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    const int spillBytes = e.resources ? std::max(0, e.resources->spillStores) + std::max(0, e.resources->spillLoads) : 0;
    std::vector<const AdviseRow*> local;
    uint64_t localInst = 0, localSamples = 0;
    for (const auto& r : e.rows) {
        if ((opcodeIs(r, "LDL") || opcodeIs(r, "STL")) && r.count(kInst) > 0) {
            local.push_back(&r);
            localInst += r.count(kInst);
            localSamples += r.sampleTotal();
        }
    }
    if (spillBytes == 0 && local.empty()) return;
    Finding f;
    f.rule = f.id = "spills";
    f.limiter = "Registers spill to local memory" +
                (spillBytes > 0 ? " (" + std::to_string(e.resources->spillStores) + " bytes stored, " +
                                      std::to_string(e.resources->spillLoads) + " loaded, per ptxas)"
                                : std::string()) +
                (local.empty() ? std::string() : "; " + std::to_string(local.size()) + " local-memory instruction(s) ran");
    std::stable_sort(local.begin(), local.end(), [](auto* a, auto* b) { return a->sampleTotal() > b->sampleTotal(); });
    for (const AdviseRow* r : local) {
        if (f.rows.size() >= kMaxEvidenceRows) break;
        f.rows.push_back(evidenceRow(*r, count(r->count(kInst)) + " executed, " + count(r->sampleTotal()) + " stall samples"));
    }
    if (e.maxRegCount > 0) f.facts.push_back("built with -maxrregcount " + std::to_string(e.maxRegCount));
    if (e.resources && e.resources->registers >= 0) f.facts.push_back("registers " + std::to_string(e.resources->registers));
    f.values["spill_bytes"] = spillBytes;
    const SampleTotals st = sampleTotals(e);
    const uint64_t allInst = countTotal(e, kInst);
    Prediction& p = f.prediction;
    if (st.all > 0 && !local.empty()) {
        const double l = static_cast<double>(localSamples) / static_cast<double>(st.all);
        p.ratio = 1 - l;
        p.formula = "B/A = 1 − l = 1 − " + percentText(l) + " = " + ratioText(p.ratio) +
                    "; l the share of stall samples on local-memory rows";
        p.confidence = Confidence::Medium;
        p.confidenceReason = "stall samples on the spill rows; the registers that replace them may lower occupancy";
    } else if (allInst > 0 && !local.empty()) {
        const double l = static_cast<double>(localInst) / static_cast<double>(allInst);
        p.ratio = 1 - l;
        p.formula = "B/A = 1 − l = 1 − " + percentText(l) + " = " + ratioText(p.ratio) +
                    "; l the share of executed instructions on local-memory rows (no stall samples)";
        p.confidence = Confidence::Low;
        p.confidenceReason = "instruction share stands in for time: a spill load costs far more than one issue slot";
    } else {
        p.ratio = 1;
        p.formula = "no per-instruction evidence: the size of the effect is unknown (B/A = 1 assumed)";
        p.confidence = Confidence::Low;
        p.confidenceReason = "spills known from the build only";
    }
    out.push_back(std::move(f));
}

void launchOverheadRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    const std::optional<double> ns = e.metric(kDuration);
    if (!ns || *ns <= 0 || *ns >= kShortKernelNs) return;
    const double d = *ns / 1000;
    const double ratio = (d + kGraphNodeUs) / std::max(d, kHostLaunchUs);
    if (ratio >= 0.95) return;
    Finding f;
    f.rule = f.id = "launch_overhead";
    f.limiter = "The kernel runs " + fmt("%.2f", d) +
                " µs: launched back to back from a stream, the host's launch cost (≈ 4.7 µs) sets the pace (a CUDA Graph "
                "candidate)";
    f.facts.push_back("gpu__time_duration " + fmt("%.2f µs", d));
    f.values["duration_us"] = d;
    Prediction& p = f.prediction;
    p.ratio = ratio;
    p.formula = "per launch of a path: B/A = (d + 0.55 µs) / max(d, 4.7 µs) = (" + fmt("%.2f", d) + " + 0.55) / " +
                fmt("%.2f", std::max(d, kHostLaunchUs)) + " = " + ratioText(ratio);
    p.confidence = Confidence::Low;
    p.confidenceReason = "launch and graph-node costs are one H200's (TIMING.md); the program's path decides";
    out.push_back(std::move(f));
}

void tailRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    if (!e.resources || e.resources->registers < 0 || !e.device || e.device->smCount <= 0 || e.gridBlocks() == 0 ||
        e.blockThreads() == 0)
        return;
    const TheoreticalOccupancy occ = occupancyOf(e, e.resources->registers, static_cast<int>(e.blockThreads()));
    if (occ.blocksPerSm <= 0) return;
    const double perWave = static_cast<double>(occ.blocksPerSm) * e.device->smCount;
    const double w = static_cast<double>(e.gridBlocks()) / perWave;
    const double waves = std::ceil(w);
    const double eff = w / waves;
    if (eff >= kWaveEfficiency) return;
    Finding f;
    f.rule = f.id = "tail";
    f.limiter = w < 1 ? "The grid fills only " + percentText(w) + " of one wave: SMs sit idle"
                      : "The grid runs " + fmt("%.2f", w) + " waves; the last one is " + percentText(w - std::floor(w)) +
                            " full, so the GPU idles through the tail";
    f.facts.push_back(std::to_string(e.gridBlocks()) + " blocks, " + std::to_string(occ.blocksPerSm) + " per SM × " +
                      std::to_string(e.device->smCount) + " SMs = " + fmt("%.0f", perWave) + " per wave");
    f.values["waves"] = w;
    f.values["blocks_per_sm"] = occ.blocksPerSm;
    Prediction& p = f.prediction;
    p.ratio = eff;
    p.formula = "B/A = w / ⌈w⌉ = " + fmt("%.2f", w) + " / " + fmt("%.0f", waves) + " = " + ratioText(eff) +
                " (if the same work filled whole waves)";
    p.confidence = Confidence::Low;
    p.confidenceReason = "assumes every block takes the same time and the SM is throughput-bound within a wave";
    out.push_back(std::move(f));
}

void fewWarpsRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    if (!e.resources || e.resources->registers < 0 || !e.device || e.device->smCount <= 0 || e.gridBlocks() == 0 ||
        e.blockThreads() == 0)
        return;
    const std::optional<double> issue = e.metric(kIssueActive);
    if (issue && *issue >= kIssueSaturated) return;
    const int threads = static_cast<int>(e.blockThreads());
    const TheoreticalOccupancy occ = occupancyOf(e, e.resources->registers, threads);
    if (occ.blocksPerSm <= 0) return;
    const uint64_t sms = static_cast<uint64_t>(e.device->smCount);
    const uint64_t placed = std::min<uint64_t>(static_cast<uint64_t>(occ.blocksPerSm), (e.gridBlocks() + sms - 1) / sms);
    const int warpsPerBlock = (threads + 31) / 32;
    const int W = static_cast<int>(placed) * warpsPerBlock;
    if (W >= kFewWarpsPerSm) return;
    Finding f;
    f.rule = "few_warps";
    f.id = "few_warps";
    const bool byGrid = placed < static_cast<uint64_t>(occ.blocksPerSm);
    f.limiter = "At most " + std::to_string(W) + " warp(s) per SM are resident (" +
                (byGrid ? "the grid of " + std::to_string(e.gridBlocks()) + " blocks spreads over " + std::to_string(sms) +
                              " SMs"
                        : "occupancy allows " + std::to_string(occ.blocksPerSm) + " blocks per SM") +
                "): fewer than the " + std::to_string(kFewWarpsPerSm) +
                " (4 per scheduler) that hide dependent-issue latency, so each warp's own independent work sets the pace";
    f.facts.push_back(std::to_string(placed) + " block(s) of " + std::to_string(warpsPerBlock) + " warp(s) per SM, " +
                      std::to_string(sms) + " SMs, " + std::to_string(e.gridBlocks()) + " blocks");
    if (auto a = e.metric(kAchieved)) f.facts.push_back("achieved occupancy " + percentText(*a / 100));
    f.values["warps_per_sm"] = W;
    // Removing the limiter: twice the independent work in flight per warp, capped where 16 warps' worth
    // is in flight (then the SM is issue-bound).
    const double r = std::max(0.5, static_cast<double>(W) / kFewWarpsPerSm);
    Prediction& p = f.prediction;
    if (auto s = waitingShare(e)) {
        f.values["waiting_share"] = s->first;
        p.ratio = 1 - s->first * (1 - r);
        p.formula = "B/A = 1 − s × (1 − r), r = max(1/2, W/16) = " + fmt("%.3f", r) + ": 1 − " + fmt("%.2f", s->first) +
                    " × (1 − " + fmt("%.3f", r) + ") = " + ratioText(p.ratio) + " for twice the independent work per warp; " +
                    s->second;
        p.confidence = Confidence::Low;
        p.confidenceReason = "assumes the waiting time shrinks with the work in flight; the compiler may already "
                             "interleave independent work";
    } else {
        p.ratio = r;
        p.formula = "B/A ≥ r = max(1/2, W/16) = max(0.5, " + std::to_string(W) + "/16) = " + ratioText(r) +
                    " for twice the independent work per warp (a bound: no stall samples or issue metric say how "
                    "much time waits)";
        p.confidence = Confidence::Low;
        p.confidenceReason = "static evidence only (launch and resources); the compiler may already interleave "
                             "independent work";
    }
    out.push_back(std::move(f));
}

// The kind of special-function math on a source line: "division" (an FCHK guards the precise
// division's slow path), "transcendental" (MUFU.EX2/LG2/SIN/COS), else "other" (reciprocal, sqrt).
std::string mathKind(const std::vector<const AdviseRow*>& rowsOfLine) {
    bool div = false, trans = false;
    for (const AdviseRow* r : rowsOfLine) {
        div = div || opcodeIs(*r, "FCHK");
        const std::string& op = r->opcode;
        trans = trans || op.rfind("MUFU.EX2", 0) == 0 || op.rfind("MUFU.LG2", 0) == 0 || op.rfind("MUFU.SIN", 0) == 0 ||
                op.rfind("MUFU.COS", 0) == 0;
    }
    return div ? "division" : trans ? "transcendental" : "other";
}

void mathPrecisionRule(const AdviseEvidence& e, std::vector<Finding>& out) {
    if (e.fastMath) return;
    const std::optional<double> issue = e.metric(kIssueActive);
    // Static evidence only (no metrics, no counts: `advise --static`): the SASS rows stand in for the
    // executed instructions, each counted once; said so in the formula and the confidence.
    const bool staticOnly = e.metrics.empty() && countTotal(e, kInst) == 0;
    if (!staticOnly && (!issue || *issue < kIssueActiveForMath)) return;
    auto weight = [staticOnly](const AdviseRow& r) -> uint64_t { return staticOnly ? 1 : r.count(kInst); };
    std::set<std::pair<std::string, int>> mathLines;
    std::vector<const AdviseRow*> mufu;
    // An integer division or modulo by a runtime value also uses MUFU.RCP (on the I2F.U32.RP of the
    // divisor); fast math does not change it, so such reciprocals are not math.
    std::set<std::pair<std::string, int>> integerDivision;
    for (const auto& r : e.rows) {
        if (r.line > 0 && (opcodeIs(r, "I2F") || opcodeIs(r, "F2I"))) integerDivision.emplace(r.file, r.line);
    }
    for (const auto& r : e.rows) {
        if (opcodeIs(r, "MUFU") && weight(r) > 0) {
            if (r.opcode.rfind("MUFU.RCP", 0) == 0 && integerDivision.count({r.file, r.line})) continue;
            mufu.push_back(&r);
            if (r.line > 0) mathLines.emplace(r.file, r.line);
        }
    }
    uint64_t allInst = 0;
    for (const auto& r : e.rows) allInst += weight(r);
    if (mufu.empty() || allInst == 0) return;
    std::map<std::pair<std::string, int>, std::vector<const AdviseRow*>> byLine;
    for (const auto& r : e.rows) {
        if (mathLines.count({r.file, r.line})) byLine[{r.file, r.line}].push_back(&r);
    }
    uint64_t onLines = 0;
    std::map<std::string, uint64_t> byKind;
    for (const auto& r : e.rows) {
        if (r.line == 0 && opcodeIs(r, "MUFU")) {
            onLines += weight(r);
            byKind["other"] += weight(r);
        }
    }
    for (const auto& [loc, rows] : byLine) {
        uint64_t w = 0;
        for (const AdviseRow* r : rows) w += weight(*r);
        onLines += w;
        byKind[mathKind(rows)] += w;
    }
    const double m = static_cast<double>(onLines) / static_cast<double>(allInst);
    if (m < kMinShare) return;
    Finding f;
    f.rule = f.id = "math_precision";
    f.limiter = (staticOnly ? std::string("Statically, ") + percentText(m) + " of the kernel's SASS instructions are"
                            : "The kernel is busy issuing (" + percentText(*issue / 100) + " of cycles) and " +
                                  percentText(m) + " of its instructions are") +
                " on lines with special-function math (precise division, sqrt or transcendentals)";
    for (const AdviseRow* r : mufu) {
        if (f.rows.size() >= kMaxEvidenceRows) break;
        f.rows.push_back(evidenceRow(*r, staticOnly ? std::string("in the SASS") : count(r->count(kInst)) + " executed"));
    }
    f.values["math_share"] = m;
    for (const auto& [kind, n] : byKind) {
        f.values["math_share." + kind] = static_cast<double>(n) / static_cast<double>(allInst);
        f.facts.push_back(kind + " lines: " + percentText(static_cast<double>(n) / static_cast<double>(allInst)) +
                          " of the instructions");
    }
    Prediction& p = f.prediction;
    p.ratio = 1 - 0.5 * m;
    p.formula = "B/A = 1 − m × 0.5 = 1 − " + fmt("%.3f", m) + " × 0.5 = " + ratioText(p.ratio) + "; m the " +
                (staticOnly ? "static share of those lines (each SASS row counted once: no profile)"
                            : "executed share of those lines") +
                ", 0.5 an assumed shortening";
    p.confidence = Confidence::Low;
    p.confidenceReason = staticOnly ? "static evidence only: whether the kernel is issue-bound is unknown, and the fast "
                                      "sequences' length is assumed; accuracy changes"
                                    : "the fast sequences' length is assumed, not read from the build; accuracy changes";
    out.push_back(std::move(f));
}

} // namespace

uint64_t AdviseRow::count(const std::string& name) const {
    auto it = counts.find(name);
    return it == counts.end() ? 0 : it->second;
}

uint64_t AdviseRow::sampleTotal() const {
    uint64_t t = 0;
    for (const auto& [r, n] : samples) {
        if (!isNotIssued(r)) t += n;
    }
    return t;
}

std::optional<double> AdviseEvidence::metric(const std::string& name) const {
    const ProfileMetric* m = findMetric(metrics, name);
    if (!m || metricRangeProblem(*m)) return std::nullopt;
    return m->value;
}

const char* confidenceName(Confidence c) {
    switch (c) {
    case Confidence::High: return "high";
    case Confidence::Medium: return "medium";
    case Confidence::Low: break;
    }
    return "low";
}

std::string ratioText(double r) { return fmt("%.3f", r); }

std::string percentText(double fraction) { return fmt(fraction * 100 >= 9.95 ? "%.0f %%" : "%.1f %%", fraction * 100); }

std::vector<Finding> adviseFindings(const AdviseEvidence& e) {
    std::vector<Finding> out;
    occupancyRule(e, out);
    uncoalescedRule(e, out);
    bankConflictRule(e, out);
    latencyRule(e, out);
    divergenceRule(e, out);
    spillRule(e, out);
    fewWarpsRule(e, out);
    launchOverheadRule(e, out);
    tailRule(e, out);
    mathPrecisionRule(e, out);
    return out;
}

std::vector<AdviseRow> rowsFromSass(const SassFunction& function) {
    std::vector<AdviseRow> rows;
    rows.reserve(function.instructions.size());
    for (const SassInstruction& i : function.instructions) {
        AdviseRow r;
        r.address = i.address;
        r.opcode = i.opcode;
        if (i.source.valid()) {
            const SourceFrame at = i.source.callSite();
            r.file = at.file;
            r.line = at.line;
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

AdviseEvidence staticEvidence(const std::string& mangled, const SassFunction* function, int smCount,
                              const std::string& deviceName) {
    AdviseEvidence e;
    e.kernel = mangled;
    if (function) e.rows = rowsFromSass(*function);
    DeviceInfo d;
    d.name = deviceName;
    d.smCount = smCount;
    e.device = d;
    return e;
}

AdviseEvidence evidenceFromProfileDocument(const json& document) {
    const ProfileDocument doc = readProfileDocument(document);
    AdviseEvidence e;
    e.kernel = doc.kernel;
    e.arch = doc.arch;
    e.metrics = doc.metrics;
    e.device = doc.device;
    // Opcode, file and line of each row (readProfileDocument checked the array and the addresses).
    std::map<uint64_t, const json*> info;
    if (auto it = document.find("instructions"); it != document.end() && it->is_array()) {
        for (const auto& i : *it) {
            if (i.is_object() && i.contains("address") && i["address"].is_number_unsigned()) {
                info[i["address"].get<uint64_t>()] = &i;
            }
        }
    }
    auto str = [](const json& j, const char* key) {
        auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    for (const auto& ip : doc.rows.instructions) {
        AdviseRow r;
        r.address = static_cast<uint32_t>(ip.pcOffset);
        r.counts = ip.counts;
        r.samples = ip.samples;
        if (auto it = info.find(ip.pcOffset); it != info.end()) {
            const json& j = *it->second;
            r.opcode = str(j, "opcode");
            r.file = str(j, "file");
            if (auto l = j.find("line"); l != j.end() && l->is_number_integer() && l->get<int64_t>() > 0 &&
                                         l->get<int64_t>() < (1 << 30)) {
                r.line = static_cast<int>(l->get<int64_t>());
            }
        }
        e.rows.push_back(std::move(r));
    }
    // The launch: three unsigned dimensions each, else unknown.
    if (auto l = document.find("launch"); l != document.end() && l->is_object()) {
        auto dims = [&](const char* key, std::array<uint32_t, 3>& out) {
            auto it = l->find(key);
            if (it == l->end() || !it->is_array() || it->size() != 3) return;
            std::array<uint32_t, 3> d{};
            for (size_t k = 0; k < 3; ++k) {
                const json& v = (*it)[k];
                if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > 0xffffffffu) return;
                d[k] = static_cast<uint32_t>(v.get<uint64_t>());
            }
            out = d;
        };
        dims("grid", e.grid);
        dims("block", e.block);
    }
    return e;
}

json toJson(const Prediction& p) {
    return json{{"ratio", p.ratio},
                {"formula", p.formula},
                {"confidence", confidenceName(p.confidence)},
                {"confidence_reason", p.confidenceReason}};
}

json toJson(const Finding& f) {
    json rows = json::array();
    for (const auto& r : f.rows) {
        json j{{"address", r.address}, {"detail", r.detail}};
        if (!r.opcode.empty()) j["opcode"] = r.opcode;
        if (r.line > 0) {
            j["file"] = r.file;
            j["line"] = r.line;
        }
        rows.push_back(std::move(j));
    }
    return json{{"id", f.id},       {"rule", f.rule},          {"limiter", f.limiter},
                {"facts", f.facts}, {"evidence", std::move(rows)}, {"prediction", toJson(f.prediction)}};
}

} // namespace lowerscope
