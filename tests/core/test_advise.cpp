// The advisor's rules, variants and verdicts (issue 34, core/advise/): every rule has a case where
// it fires (synthetic evidence with the numbers that should make it speak) and one where it must
// stay silent; recorded H200 profiles go in and the findings they must (and must not) give come
// out; the verdict of a tested suggestion follows its documented definition.
#include "core/advise/advice_record.h"
#include "core/advise/findings.h"
#include "core/advise/variants.h"
#include "core/analysis/occupancy.h"
#include "tests/core/build_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

using namespace lowerscope;
using nlohmann::json;

namespace {

const char* kInst = "smsp__sass_inst_executed";
const char* kThreadInst = "smsp__sass_thread_inst_executed";

// A launch of 256-thread blocks over 1056 blocks (exactly one wave at 8 blocks per SM on 132 SMs),
// 32 registers, no shared memory: nothing to find.
AdviseEvidence base() {
    AdviseEvidence e;
    e.kernel = "_Z1kPf";
    e.arch = "sm_90";
    DeviceInfo d;
    d.name = "test GPU";
    d.smCount = 132;
    d.ccMajor = 9;
    e.device = d;
    e.block = {256, 1, 1};
    e.grid = {1056, 1, 1};
    Resources r;
    r.registers = 32;
    r.sharedBytes = 0;
    r.spillStores = 0;
    r.spillLoads = 0;
    e.resources = r;
    return e;
}

AdviseRow row(uint32_t address, const std::string& opcode, int line, std::map<std::string, uint64_t> counts,
              std::map<std::string, uint64_t> samples = {}) {
    AdviseRow r;
    r.address = address;
    r.opcode = opcode;
    r.file = "k.cu";
    r.line = line;
    r.counts = std::move(counts);
    r.samples = std::move(samples);
    return r;
}

void metric(AdviseEvidence& e, const std::string& name, double value) {
    e.metrics.push_back(ProfileMetric{name, value, name.find("pct") != std::string::npos ? "percent" : ""});
}

const Finding* find(const std::vector<Finding>& fs, const std::string& id) {
    for (const auto& f : fs) {
        if (f.id == id) return &f;
    }
    return nullptr;
}

std::vector<std::string> ids(const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (const auto& f : fs) out.push_back(f.id);
    return out;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += x + " ";
    return s;
}

} // namespace

TEST(AdviseRules, NothingToFindInABalancedLaunch) {
    EXPECT_TRUE(adviseFindings(base()).empty()) << join(ids(adviseFindings(base())));
}

TEST(AdviseRules, OccupancyLimitedByRegistersFiresAndProposesTheCapThatFitsOneMoreBlock) {
    AdviseEvidence e = base();
    e.resources->registers = 128; // 2 blocks of 256 threads per SM: 25 %
    metric(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", 30);
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "occupancy.registers");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_DOUBLE_EQ(f->values.at("occupancy"), 0.25);
    // s = 1 − 30 % issue active; T/T′ = 25 % / 37.5 %.
    EXPECT_NEAR(f->prediction.ratio, 1 - 0.7 * (1 - 0.25 / 0.375), 1e-9);
    EXPECT_NE(f->prediction.formula.find("1 − s × (1 − T/T′)"), std::string::npos) << f->prediction.formula;
    EXPECT_EQ(f->prediction.confidence, Confidence::Medium);

    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_FALSE(vs.empty());
    const Variant& v = vs.front();
    ASSERT_EQ(v.optionFlags.rfind("--maxrregcount ", 0), 0u) << v.optionFlags;
    const int cap = std::stoi(v.optionFlags.substr(15));
    const ArchLimits lim = archLimits("sm_90");
    EXPECT_GT(computeOccupancy(lim, cap, 0, 256).blocksPerSm, 2);      // the cap fits one more block
    EXPECT_EQ(computeOccupancy(lim, cap + 1, 0, 256).blocksPerSm, 2); // and is the largest that does
    EXPECT_EQ(v.findingId, "occupancy.registers");
}

TEST(AdviseRules, OccupancyIsSilentAtFullOccupancyOrWhenIssueIsSaturated) {
    AdviseEvidence e = base(); // 32 registers: 100 %
    EXPECT_EQ(find(adviseFindings(e), "occupancy.registers"), nullptr);
    e.resources->registers = 128;
    metric(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", 85);
    EXPECT_TRUE(adviseFindings(e).empty()) << join(ids(adviseFindings(e)));
}

TEST(AdviseRules, SmallBlocksRunOutOfBlockSlotsAndTheVariantDoublesTheBlock) {
    AdviseEvidence e = base();
    e.block = {32, 1, 1}; // 32 slots × 1 warp = 50 %
    e.grid = {132 * 32 * 3, 1, 1};
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "occupancy.block_size");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_DOUBLE_EQ(f->values.at("occupancy"), 0.5);
    EXPECT_EQ(f->prediction.confidence, Confidence::Low); // no samples, no issue metric: a bound
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_FALSE(vs.empty());
    ASSERT_TRUE(vs.front().block.has_value());
    EXPECT_EQ((*vs.front().block)[0], 64u);
    EXPECT_EQ((*vs.front().grid)[0], 132u * 32 * 3 / 2); // the same threads

    AdviseEvidence ok = base();
    ok.block = {128, 1, 1};
    ok.grid = {132 * 16, 1, 1};
    EXPECT_EQ(find(adviseFindings(ok), "occupancy.block_size"), nullptr);
}

TEST(AdviseRules, OccupancyIsSilentWhenTheGridAlreadyFitsInOneWave) {
    // 132 blocks of 32 threads on 132 SMs: one block per SM, every block resident at once. Bigger
    // blocks (half the grid) or more blocks per SM add nothing: the grid limits the warps.
    AdviseEvidence e = base();
    e.block = {32, 1, 1};
    e.grid = {132, 1, 1};
    EXPECT_EQ(find(adviseFindings(e), "occupancy.block_size"), nullptr) << join(ids(adviseFindings(e)));
    // The same kernel with registers the limiter, grid under one wave at 2 blocks of 256 per SM.
    AdviseEvidence r = base();
    r.resources->registers = 128;
    r.grid = {200, 1, 1};
    metric(r, "smsp__issue_active.avg.pct_of_peak_sustained_active", 30);
    EXPECT_EQ(find(adviseFindings(r), "occupancy.registers"), nullptr) << join(ids(adviseFindings(r)));
    // One block more than a wave holds: the finding is back.
    r.grid = {2 * 132 + 1, 1, 1};
    EXPECT_NE(find(adviseFindings(r), "occupancy.registers"), nullptr) << join(ids(adviseFindings(r)));
}

TEST(AdviseRules, UncoalescedRowsAreNamedWithTheirSectorsPerRequest) {
    AdviseEvidence e = base();
    e.rows = {row(0x80, "LDG.E", 12,
                  {{kInst, 1000}, {"smsp__sass_inst_executed_op_global_ld", 1000},
                   {"smsp__sass_sectors_mem_global", 32000}, {"smsp__sass_sectors_mem_global_ideal", 4000}}),
              row(0x90, "STG.E", 13,
                  {{kInst, 1000}, {"smsp__sass_inst_executed_op_global_st", 1000},
                   {"smsp__sass_sectors_mem_global", 4000}, {"smsp__sass_sectors_mem_global_ideal", 4000}})};
    metric(e, "dram__throughput.avg.pct_of_peak_sustained_elapsed", 75);
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "uncoalesced");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    ASSERT_EQ(f->rows.size(), 1u);
    EXPECT_EQ(f->rows[0].address, 0x80u);
    EXPECT_EQ(f->rows[0].line, 12);
    EXPECT_NE(f->rows[0].detail.find("32.0 sectors/request (ideal 4.0)"), std::string::npos) << f->rows[0].detail;
    EXPECT_NEAR(f->prediction.ratio, (36000.0 - 28000) / 36000, 1e-9);
    EXPECT_EQ(f->prediction.confidence, Confidence::Medium);
    // Coalescing needs a code change; the one variant is the L2-only load option (predicted no change).
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_EQ(vs[0].optionFlags, "--ptxas-flag=-dlcm=cg");

    for (auto& r : e.rows) r.counts["smsp__sass_sectors_mem_global"] = r.counts["smsp__sass_sectors_mem_global_ideal"];
    EXPECT_EQ(find(adviseFindings(e), "uncoalesced"), nullptr);
}

TEST(AdviseRules, UncoalescedIsSilentWithoutSectorCounts) {
    AdviseEvidence e = base();
    e.rows = {row(0x80, "LDG.E", 12, {{kInst, 1000}})};
    EXPECT_TRUE(adviseFindings(e).empty());
}

TEST(AdviseRules, BankConflictsUseTheStallShareOfTheConflictingRows) {
    AdviseEvidence e = base();
    const char* w = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared";
    const char* wi = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal";
    e.rows = {row(0x100, "LDS", 20, {{kInst, 100}, {w, 800}, {wi, 100}}, {{"short_scoreboard", 40}}),
              row(0x110, "FFMA", 21, {{kInst, 100}}, {{"wait", 60}})};
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "bank_conflicts");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_EQ(f->rows.at(0).address, 0x100u);
    EXPECT_NEAR(f->prediction.ratio, 1 - 0.4 * (1 - 100.0 / 800), 1e-9);
    // A "pad" tunable gives one variant per other value.
    const std::vector<Tunable> t = {Tunable{"PAD", {0, 1}, 0, "pad"}};
    const auto vs = proposeVariants(fs, e, t, BuildOptions{});
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_EQ(vs[0].optionFlags, "-D PAD=1");

    e.rows[0].counts[w] = 100;
    EXPECT_EQ(find(adviseFindings(e), "bank_conflicts"), nullptr);
}

TEST(AdviseRules, LongScoreboardWithFewWarpsIsLatency) {
    AdviseEvidence e = base();
    e.rows = {row(0x40, "LDG.E", 7, {{kInst, 10}}, {{"long_scoreboard", 600}, {"long_scoreboard_not_issued", 500}}),
              row(0x50, "FFMA", 8, {{kInst, 10}}, {{"selected", 400}})};
    metric(e, "sm__warps_active.avg.pct_of_peak_sustained_active", 20);
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "latency");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    // The _not_issued subset is not counted twice: s = 600 / 1000. W′ = 2W = 40 %.
    EXPECT_NEAR(f->values.at("long_scoreboard_share"), 0.6, 1e-9);
    EXPECT_NEAR(f->prediction.ratio, 1 - 0.6 * (1 - 20.0 / 40), 1e-9);
    const auto vs = proposeVariants(fs, e, {Tunable{"UNROLL", {1, 2, 4, 8}, 2, "unroll"}}, BuildOptions{});
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_EQ(vs[0].optionFlags, "-D UNROLL=4");
    BuildOptions a;
    a.defines = {"UNROLL=8"}; // already at the largest value
    EXPECT_TRUE(proposeVariants(fs, e, {Tunable{"UNROLL", {1, 2, 4, 8}, 2, "unroll"}}, a).empty());

    AdviseEvidence busy = e;
    busy.metrics.clear();
    metric(busy, "sm__warps_active.avg.pct_of_peak_sustained_active", 70);
    EXPECT_EQ(find(adviseFindings(busy), "latency"), nullptr);
}

TEST(AdviseRules, DivergentBranchesWithIdleLanes) {
    AdviseEvidence e = base();
    const char* div = "smsp__sass_branch_targets_threads_divergent";
    e.rows = {row(0x20, "BRA", 5, {{kInst, 1000}, {kThreadInst, 32000}, {div, 500}}),
              row(0x30, "FADD", 6, {{kInst, 1000}, {kThreadInst, 8000}, {div, 0}})};
    metric(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", 50);
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "divergence");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_EQ(f->rows.size(), 1u);
    EXPECT_EQ(f->rows[0].address, 0x20u);
    const double idle = 1 - 40000.0 / (32 * 2000);
    EXPECT_NEAR(f->prediction.ratio, 1 - idle * 0.5, 1e-9);

    e.rows[1].counts[kThreadInst] = 32000; // every lane busy
    EXPECT_EQ(find(adviseFindings(e), "divergence"), nullptr);
}

TEST(AdviseRules, SpillsFromTheBuildAndTheLocalMemoryRows) {
    AdviseEvidence e = base();
    e.resources->spillStores = 64;
    e.resources->spillLoads = 64;
    e.maxRegCount = 32;
    e.rows = {row(0x60, "STL", 9, {{kInst, 100}}, {{"lg_throttle", 30}}),
              row(0x70, "LDL", 10, {{kInst, 100}}, {{"long_scoreboard", 20}}),
              row(0x80, "FFMA", 11, {{kInst, 800}}, {{"selected", 50}})};
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "spills");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_EQ(f->rows.size(), 2u);
    EXPECT_NEAR(f->prediction.ratio, 1 - 50.0 / 100, 1e-9);
    BuildOptions a;
    a.maxRegCount = 32;
    const auto vs = proposeVariants(fs, e, {}, a);
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_EQ(vs[0].optionFlags, "--maxrregcount 64");

    AdviseEvidence clean = base();
    clean.rows = {row(0x80, "FFMA", 11, {{kInst, 800}})};
    EXPECT_EQ(find(adviseFindings(clean), "spills"), nullptr);
}

TEST(AdviseRules, ShortKernelsAreGraphCandidatesNotTestableAsAnAB) {
    AdviseEvidence e = base();
    metric(e, "gpu__time_duration.sum", 3000);
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "launch_overhead");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_NEAR(f->prediction.ratio, (3 + 0.55) / 4.7, 1e-9);
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_TRUE(vs[0].graph);
    EXPECT_NE(vs[0].notTestable.find("--graph-break-even"), std::string::npos);

    AdviseEvidence slow = base();
    metric(slow, "gpu__time_duration.sum", 50000);
    EXPECT_EQ(find(adviseFindings(slow), "launch_overhead"), nullptr);
}

TEST(AdviseRules, APartlyFilledLastWaveIsATail) {
    AdviseEvidence e = base();
    e.grid = {1056 + 132, 1, 1}; // 1.125 waves at 8 blocks per SM
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "tail");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_NEAR(f->values.at("waves"), 1.125, 1e-9);
    EXPECT_NEAR(f->prediction.ratio, 1.125 / 2, 1e-9);
    // Blocks of 512 (4 per SM, 594 blocks: 1.125 waves again) do not help; blocks of 128 (16 per
    // SM, 2376 blocks: 1.125 waves) neither: no variant beats the original.
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    EXPECT_TRUE(vs.empty()) << vs.front().change;

    // The wave is counted at the occupancy the registers allow: 64 registers hold 4 blocks of 256
    // per SM, so 594 blocks are 1.125 waves of 528.
    AdviseEvidence r = base();
    r.resources->registers = 64;
    r.grid = {594, 1, 1};
    const auto fr = adviseFindings(r);
    ASSERT_NE(find(fr, "tail"), nullptr) << join(ids(fr));

    EXPECT_EQ(find(adviseFindings(base()), "tail"), nullptr); // exactly one wave
}

TEST(AdviseRules, BusyKernelsWithSpecialFunctionMathGetAFastMathVariant) {
    AdviseEvidence e = base();
    e.rows = {row(0x10, "MUFU.RCP", 30, {{kInst, 100}}), row(0x20, "FFMA", 30, {{kInst, 300}}),
              row(0x30, "FADD", 31, {{kInst, 600}})};
    metric(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", 70);
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "math_precision");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_NEAR(f->values.at("math_share"), 0.4, 1e-9);
    EXPECT_NEAR(f->prediction.ratio, 0.8, 1e-9);
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_EQ(vs[0].optionFlags, "--fast-math");

    e.fastMath = true;
    EXPECT_EQ(find(adviseFindings(e), "math_precision"), nullptr);
}

TEST(AdviseRules, FewWarpsPerSmFromTheLaunchAloneAndTheUnrollVariants) {
    // 64 blocks of 128 threads on 132 SMs: one block, 4 warps, on an SM (docs/examples/advisor_cases.cu
    // strided_sum). Static evidence: no metrics, no counts.
    AdviseEvidence e = base();
    e.grid = {64, 1, 1};
    e.block = {128, 1, 1};
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "few_warps");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_EQ(f->values.at("warps_per_sm"), 4);
    EXPECT_NEAR(f->prediction.ratio, 0.5, 1e-9); // max(1/2, 4/16), a bound
    EXPECT_EQ(f->prediction.confidence, Confidence::Low);
    EXPECT_NE(f->prediction.formula.find("max(1/2, W/16)"), std::string::npos) << f->prediction.formula;

    const std::vector<Tunable> t = {{"UNROLL", {1, 2, 4, 8}, 1, "unroll"}};
    const auto vs = proposeVariants(fs, e, t, BuildOptions{});
    std::map<std::string, const Variant*> byFlags;
    for (const auto& v : vs) byFlags[v.optionFlags] = &v;
    ASSERT_TRUE(byFlags.count("-D UNROLL=2")) << vs.size();
    ASSERT_TRUE(byFlags.count("-D UNROLL=4"));
    EXPECT_FALSE(byFlags.count("-D UNROLL=8")); // at most two larger values
    EXPECT_NEAR(byFlags["-D UNROLL=2"]->prediction.ratio, 0.5, 1e-9);   // max(1/2, 4/16)
    EXPECT_NEAR(byFlags["-D UNROLL=4"]->prediction.ratio, 0.25, 1e-9);  // max(1/4, 4/16)
    EXPECT_EQ(byFlags["-D UNROLL=2"]->findingId, "few_warps");
    // From a build that already uses UNROLL=4 only 8 is larger.
    BuildOptions four;
    four.defines = {"UNROLL=4"};
    const auto v4 = proposeVariants(fs, e, t, four);
    EXPECT_EQ(std::count_if(v4.begin(), v4.end(), [](const Variant& v) { return v.findingId == "few_warps"; }), 1);

    // With a waiting share from the issue metric: B/A = 1 − s × (1 − r).
    AdviseEvidence m = e;
    metric(m, "smsp__issue_active.avg.pct_of_peak_sustained_active", 20);
    const Finding* fm = find(adviseFindings(m), "few_warps");
    ASSERT_NE(fm, nullptr);
    EXPECT_NEAR(fm->prediction.ratio, 1 - 0.8 * 0.5, 1e-9);
    // Silent on a full launch and when the scheduler already issues in ≥ 80 % of cycles.
    EXPECT_EQ(find(adviseFindings(base()), "few_warps"), nullptr);
    metric(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", 85);
    EXPECT_EQ(find(adviseFindings(e), "few_warps"), nullptr);
}

TEST(AdviseRules, UnderOneWaveSmallerBlocksSpreadOverMoreSms) {
    // 16 blocks of 256 threads (docs/examples/graph_path.json): 16 SMs busy, 116 idle. Blocks of 64
    // put 64 blocks on 64 SMs: the busiest SM holds 64 threads instead of 256.
    AdviseEvidence e = base();
    e.grid = {16, 1, 1};
    const auto fs = adviseFindings(e);
    ASSERT_NE(find(fs, "tail"), nullptr) << join(ids(fs));
    std::vector<Variant> tail;
    for (auto& v : proposeVariants(fs, e, {}, BuildOptions{})) {
        if (v.findingId == "tail") tail.push_back(v);
    }
    ASSERT_EQ(tail.size(), 1u);
    EXPECT_EQ((*tail[0].block)[0], 64u);
    EXPECT_EQ((*tail[0].grid)[0], 64u);
    EXPECT_NEAR(tail[0].prediction.ratio, 64.0 / 256, 1e-9);
    EXPECT_NE(tail[0].prediction.formula.find("⌈G′/SMs⌉·B′"), std::string::npos) << tail[0].prediction.formula;

    // 128 blocks of 128 threads (relu_matvec): halving the block gives 256 blocks, two on most SMs,
    // the same 128 threads on the busiest: no variant.
    AdviseEvidence r = base();
    r.grid = {128, 1, 1};
    r.block = {128, 1, 1};
    const auto fr = adviseFindings(r);
    ASSERT_NE(find(fr, "tail"), nullptr);
    for (const auto& v : proposeVariants(fr, r, {}, BuildOptions{})) EXPECT_NE(v.findingId, "tail") << v.change;
}

TEST(AdviseRules, RegisterLimitedOccupancyGetsTwoCapsAndTwoLaunchBounds) {
    // 80 registers × 256 threads: 3 blocks per SM, 37.5 % (advisor_cases.cu regs_heavy).
    AdviseEvidence e = base();
    e.resources->registers = 80;
    e.grid = {16384, 1, 1};
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "occupancy.registers");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_EQ(f->values.at("blocks_per_sm"), 3);
    const std::vector<Tunable> t = {{"MIN_BLOCKS", {1, 2, 3, 4, 5}, 1, "min_blocks"}};
    const auto vs = proposeVariants(fs, e, t, BuildOptions{});
    std::vector<std::string> flags;
    for (const auto& v : vs) flags.push_back(v.optionFlags);
    EXPECT_EQ(join(flags), "--maxrregcount 64 --maxrregcount 48 -D MIN_BLOCKS=4 -D MIN_BLOCKS=5 ") << join(flags);
    const ArchLimits lim = archLimits("sm_90");
    EXPECT_EQ(computeOccupancy(lim, 64, 0, 256).blocksPerSm, 4);
    EXPECT_EQ(computeOccupancy(lim, 48, 0, 256).blocksPerSm, 5);
    EXPECT_EQ(computeOccupancy(lim, 56, 0, 256).blocksPerSm, 4); // 48 is the largest cap for 5
    // With launch bounds in its PTX (regs_heavy's __launch_bounds__(256, MIN_BLOCKS)) ptxas ignores
    // --maxrregcount: only the min_blocks tunable is offered.
    AdviseEvidence bounded = e;
    bounded.bounds.maxntid[0] = 256;
    bounded.bounds.maxntid[1] = bounded.bounds.maxntid[2] = 1;
    flags.clear();
    for (const auto& v : proposeVariants(adviseFindings(bounded), bounded, t, BuildOptions{})) flags.push_back(v.optionFlags);
    EXPECT_EQ(join(flags), "-D MIN_BLOCKS=4 -D MIN_BLOCKS=5 ") << join(flags);
    // 5 blocks leave 48 of 80 registers (the H100 measured 404 bytes of spills, 4.03x slower): low
    // confidence, said why; 4 blocks leave 64, no such warning.
    const auto bv = proposeVariants(adviseFindings(bounded), bounded, t, BuildOptions{});
    ASSERT_EQ(bv.size(), 2u);
    EXPECT_EQ(bv[1].prediction.confidence, Confidence::Low);
    EXPECT_NE(bv[1].prediction.confidenceReason.find("48 of the 80 registers"), std::string::npos)
        << bv[1].prediction.confidenceReason;
    EXPECT_EQ(bv[0].prediction.confidenceReason.find("likely to spill"), std::string::npos);
    // Each step predicted at its own occupancy: the bound T/T′ without a waiting share.
    EXPECT_NEAR(vs[0].prediction.ratio, 24.0 / 32, 1e-9);
    EXPECT_NEAR(vs[1].prediction.ratio, 24.0 / 40, 1e-9);
    EXPECT_NEAR(vs[3].prediction.ratio, 24.0 / 40, 1e-9);
}

TEST(AdviseRules, SharedMemoryLimitedOccupancyGetsTheTwoNextSmallerTiles) {
    // 48 KiB of static shared memory per 128-thread block: 4 blocks per SM, 25 % (smem_colsum).
    AdviseEvidence e = base();
    e.block = {128, 1, 1};
    e.grid = {2112, 1, 1};
    e.resources->sharedBytes = 48 * 1024;
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "occupancy.shared_memory");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    const std::vector<Tunable> t = {{"TILE", {24, 48, 96}, 96, "tile"}};
    const auto vs = proposeVariants(fs, e, t, BuildOptions{});
    ASSERT_EQ(vs.size(), 2u);
    EXPECT_EQ(vs[0].optionFlags, "-D TILE=48");
    EXPECT_EQ(vs[1].optionFlags, "-D TILE=24");
    const ArchLimits lim = archLimits("sm_90");
    const double t48 = computeOccupancy(lim, 32, 24 * 1024, 128).occupancy;
    const double t24 = computeOccupancy(lim, 32, 12 * 1024, 128).occupancy;
    EXPECT_NEAR(vs[0].prediction.ratio, 0.25 / t48, 1e-9);
    EXPECT_NEAR(vs[1].prediction.ratio, 0.25 / t24, 1e-9);
    EXPECT_LT(vs[1].prediction.ratio, vs[0].prediction.ratio);
}

TEST(AdviseRules, StaticMathFromTheSassRowsAndThePrecDivVariant) {
    // No metrics, no counts (advise --static): each SASS row counts once. Line 15 holds the
    // exponential, line 17 the precise division (FCHK guards its slow path).
    AdviseEvidence e = base();
    e.rows = {row(0x00, "LDG.E", 14, {}),    row(0x10, "MUFU.EX2", 15, {}), row(0x20, "FMUL", 15, {}),
              row(0x30, "MUFU.RCP", 17, {}), row(0x40, "FCHK", 17, {}),     row(0x50, "FFMA", 17, {}),
              row(0x60, "FFMA", 17, {}),     row(0x70, "STG.E", 18, {}),    row(0x80, "EXIT", 0, {}),
              row(0x90, "BRA", 0, {})};
    e.rows[8].line = e.rows[9].line = 0;
    const auto fs = adviseFindings(e);
    const Finding* f = find(fs, "math_precision");
    ASSERT_NE(f, nullptr) << join(ids(fs));
    EXPECT_NEAR(f->values.at("math_share"), 0.6, 1e-9);
    EXPECT_NEAR(f->values.at("math_share.division"), 0.4, 1e-9);
    EXPECT_NEAR(f->values.at("math_share.transcendental"), 0.2, 1e-9);
    EXPECT_NE(f->prediction.formula.find("static share"), std::string::npos) << f->prediction.formula;
    EXPECT_NE(f->limiter.find("Statically"), std::string::npos);
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_EQ(vs.size(), 2u);
    EXPECT_EQ(vs[0].optionFlags, "--fast-math");
    EXPECT_EQ(vs[1].optionFlags, "--prec-div false");
    EXPECT_NEAR(vs[1].prediction.ratio, 1 - 0.4 * 0.5, 1e-9);
    // A build that already has -prec-div=false gets no such variant.
    BuildOptions noPrecDiv;
    noPrecDiv.precDiv = 0;
    EXPECT_EQ(proposeVariants(fs, e, {}, noPrecDiv).size(), 1u);
    // An integer modulo's reciprocal (I2F of the divisor on the same line) is not math.
    AdviseEvidence modulo = base();
    modulo.rows = {row(0x00, "I2F.U32.RP", 20, {}), row(0x10, "MUFU.RCP", 20, {}), row(0x20, "F2I.FTZ.U32.TRUNC", 20, {}),
                   row(0x30, "IMAD", 20, {})};
    EXPECT_EQ(find(adviseFindings(modulo), "math_precision"), nullptr);
    // Counts without an issue metric: a profile that cannot say the kernel is busy, silent.
    for (auto& r : e.rows) r.counts[kInst] = 10;
    EXPECT_EQ(find(adviseFindings(e), "math_precision"), nullptr);
}

TEST(AdviseRules, UncoalescedRowsGetTheL2OnlyLoadVariantPredictedAtNoChange) {
    AdviseEvidence e = base();
    e.rows = {row(0x10, "LDG.E", 12, {{kInst, 100}, {"smsp__sass_sectors_mem_global", 3200},
                                      {"smsp__sass_sectors_mem_global_ideal", 400}})};
    const auto fs = adviseFindings(e);
    ASSERT_NE(find(fs, "uncoalesced"), nullptr);
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_EQ(vs.size(), 1u);
    EXPECT_EQ(vs[0].optionFlags, "--ptxas-flag=-dlcm=cg");
    EXPECT_DOUBLE_EQ(vs[0].prediction.ratio, 1.0);
    BuildOptions cg;
    cg.extraPtxasFlags = {"-dlcm=cg"};
    EXPECT_TRUE(checkBuildOptions(cg).empty()) << checkBuildOptions(cg); // a flag the argv check lets through
    EXPECT_TRUE(proposeVariants(fs, e, {}, cg).empty());                 // already built so
}

TEST(AdviseRules, AMetricOutsideItsRangeIsNoEvidence) {
    AdviseEvidence e = base();
    e.resources->registers = 128;
    metric(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", 297); // not a fact
    const Finding* f = find(adviseFindings(e), "occupancy.registers");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->prediction.confidence, Confidence::Low); // the bound, not the issue-based estimate
}

// ------------------------------------------------------------------------------------ recorded

namespace {

json readJson(const std::string& relative) {
    std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/" + relative);
    return json::parse(in);
}

// A recorded runner profile (tests/data/profile/h200_*.runner.json): its kernel metrics and the
// per-instruction counts and samples, merged by offset; no opcodes (the recording has none).
AdviseEvidence fromRunnerRecording(const std::string& name) {
    const json d = readJson("tests/data/profile/" + name);
    AdviseEvidence e;
    e.arch = "sm_90";
    DeviceInfo dev;
    fromJson(d["device"], dev);
    e.device = dev;
    for (int k = 0; k < 3; ++k) {
        e.grid[k] = d["grid"][k].get<uint32_t>();
        e.block[k] = d["block"][k].get<uint32_t>();
    }
    std::map<uint64_t, AdviseRow> rows;
    for (const char* c : {"kernel", "instructions", "samples"}) {
        if (!d["collections"][c].contains("profile")) continue;
        ProfileData p;
        fromJson(d["collections"][c]["profile"], p);
        if (p.collection == ProfileCollection::Kernel) e.metrics = p.metrics;
        for (const auto& ip : p.instructions) {
            AdviseRow& r = rows[ip.pcOffset];
            r.address = static_cast<uint32_t>(ip.pcOffset);
            for (const auto& [k, v] : ip.counts) r.counts[k] = v;
            for (const auto& [k, v] : ip.samples) r.samples[k] = v;
        }
    }
    for (auto& [off, r] : rows) e.rows.push_back(r);
    return e;
}

} // namespace

TEST(AdviseRecorded, FfmaDependentChainOnOneWarpPerSmIsAnEmptyGpu) {
    // docs/examples/ffma_chain.ffma_dependent.profile.json: 132 blocks of 32 threads on an H200's
    // 132 SMs, one dependent FFMA chain per thread.
    AdviseEvidence e = evidenceFromProfileDocument(readJson("docs/examples/ffma_chain.ffma_dependent.profile.json"));
    EXPECT_EQ(e.block[0], 32u);
    EXPECT_EQ(e.grid[0], 132u);
    ASSERT_FALSE(e.rows.empty());
    EXPECT_FALSE(e.rows.front().opcode.empty());
    Resources r;
    r.registers = 16;
    r.sharedBytes = 0;
    e.resources = r;
    const auto fs = adviseFindings(e);
    // Blocks of 32 would cap occupancy at 50 %, but the 132 blocks are all resident at once: the
    // grid limits the warps, so the block-size finding stays silent (a bigger block halves the
    // grid and fills half the SMs). The tail and few-warps rules speak for it.
    EXPECT_EQ(find(fs, "occupancy.block_size"), nullptr) << join(ids(fs));
    EXPECT_NE(find(fs, "few_warps"), nullptr) << join(ids(fs));
    const Finding* tail = find(fs, "tail");
    ASSERT_NE(tail, nullptr) << join(ids(fs));
    EXPECT_LT(tail->values.at("waves"), 0.05); // 132 blocks of a 32 × 132-block wave
    // The recorded L2 hit rate of 297 % is not a fact and nothing reads it; its global stores are
    // coalesced, nothing diverges, nothing spills, and it waits on the FFMA latency, not on memory.
    for (const char* silent : {"uncoalesced", "divergence", "spills", "latency", "bank_conflicts", "launch_overhead"}) {
        EXPECT_EQ(find(fs, silent), nullptr) << silent;
    }
}

TEST(AdviseRecorded, SaxpyAndReductionOnTheH200HaveNoMetricFindings) {
    // Kernel metrics and per-instruction counts without resources: the rules that need the build
    // say nothing, and the others find nothing in these well-formed kernels (saxpy 2^24 floats,
    // ~40 µs; reduce_sum one wave of 1056 blocks).
    for (const char* name : {"h200_saxpy.runner.json", "h200_reduce_sum.runner.json"}) {
        const AdviseEvidence e = fromRunnerRecording(name);
        ASSERT_FALSE(e.metrics.empty()) << name;
        const auto fs = adviseFindings(e);
        EXPECT_TRUE(fs.empty()) << name << ": " << join(ids(fs));
    }
}

TEST(AdviseRecorded, SgemmTiledBankConflictsNeedTheirRowEvidence) {
    // The kernel metric counts 329 k bank conflicts, but the recording has no per-row wavefront
    // counts: the rule that names rows stays silent rather than guessing which.
    const AdviseEvidence e = fromRunnerRecording("h200_sgemm_tiled.runner.json");
    ASSERT_TRUE(e.metric("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum").has_value());
    EXPECT_EQ(find(adviseFindings(e), "bank_conflicts"), nullptr);
}

// ------------------------------------------------------------------------------------ tunables

TEST(AdviseTunables, ReadFromTheKernelsSidecarEntryAndChecked) {
    const json ok = json::parse(R"({"kernels": [{"name": "k", "tunables":
        {"UNROLL": {"values": [1, 2, 4], "default": 2, "role": "unroll"}}}, {"name": "other"}]})");
    const auto t = tunablesFromSidecar(ok, "k");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0], (Tunable{"UNROLL", {1, 2, 4}, 2, "unroll"}));
    EXPECT_TRUE(tunablesFromSidecar(ok, "other").empty());
    for (const char* bad : {R"({"kernels": [{"name": "k", "tunables": {"1X": {"values": [1], "default": 1, "role": "unroll"}}}]})",
                            R"({"kernels": [{"name": "k", "tunables": {"X": {"values": [1], "default": 2, "role": "unroll"}}}]})",
                            R"({"kernels": [{"name": "k", "tunables": {"X": {"values": [1], "default": 1, "role": "magic"}}}]})",
                            R"({"kernels": [{"name": "k", "tunables": {"X": {"values": ["a"], "default": 1, "role": "tile"}}}]})",
                            R"({"kernels": [{"name": "k", "tunables": [1]}]})"}) {
        EXPECT_THROW(tunablesFromSidecar(json::parse(bad), "k"), std::invalid_argument) << bad;
    }
}

TEST(AdviseTunables, TheShippedSidecarsParse) {
    for (const char* name : {"kernels/sgemm_tiled.json", "kernels/reduction.json", "docs/examples/ffma_chains.json",
                             "docs/examples/advisor_cases.json"}) {
        const json j = readJson(name);
        for (const auto& k : j["kernels"]) {
            EXPECT_NO_THROW(tunablesFromSidecar(j, k["name"].get<std::string>())) << name;
        }
    }
    // docs/examples/ffma_chains.cu reads CHAINS (independent FFMA chains per thread) as a tunable.
    const auto t = tunablesFromSidecar(readJson("docs/examples/ffma_chains.json"), "ffma_chains");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0], (Tunable{"CHAINS", {1, 2, 4, 8, 16}, 4, "unroll"}));
    // docs/examples/advisor_cases.cu: one tunable per kernel, each with its role.
    const json cases = readJson("docs/examples/advisor_cases.json");
    const std::map<std::string, std::string> roles = {
        {"regs_heavy", "min_blocks"}, {"smem_colsum", "tile"}, {"strided_sum", "unroll"}, {"transpose_pad", "pad"}};
    for (const auto& [kernel, role] : roles) {
        const auto tc = tunablesFromSidecar(cases, kernel);
        ASSERT_EQ(tc.size(), 1u) << kernel;
        EXPECT_EQ(tc[0].role, role) << kernel;
    }
}

// ------------------------------------------------------------------------------------ verdicts

namespace {

SuggestionTest measured(double ratio, double lo, double hi, bool significant) {
    SuggestionTest t;
    t.measured = true;
    t.ratio = ratio;
    t.ciLow = lo;
    t.ciHigh = hi;
    t.significant = significant;
    return t;
}

Prediction predicting(double ratio) {
    Prediction p;
    p.ratio = ratio;
    return p;
}

} // namespace

TEST(AdviseVerdict, HeldFailedInconclusiveAsDocumented) {
    const Judgement held = judgeSuggestion(predicting(0.8), measured(0.85, 0.84, 0.86, true));
    EXPECT_EQ(held.verdict, Verdict::Held);
    EXPECT_TRUE(*held.directionRight);
    EXPECT_NEAR(*held.error, 0.05, 1e-12);

    const Judgement other = judgeSuggestion(predicting(0.8), measured(1.10, 1.09, 1.11, true));
    EXPECT_EQ(other.verdict, Verdict::Failed);
    EXPECT_FALSE(*other.directionRight);

    // No significant difference, the predicted 0.8 far outside [0.998, 1.003]: it would have shown.
    const Judgement missed = judgeSuggestion(predicting(0.8), measured(1.0, 0.998, 1.003, false));
    EXPECT_EQ(missed.verdict, Verdict::Failed);
    EXPECT_FALSE(missed.directionRight.has_value());

    // No significant difference, and the predicted 0.997 inside the interval: noise could hide it.
    EXPECT_EQ(judgeSuggestion(predicting(0.997), measured(1.0, 0.99, 1.01, false)).verdict, Verdict::Inconclusive);

    SuggestionTest wrong = measured(0.5, 0.49, 0.51, true);
    wrong.outputsCompared = true;
    wrong.outputsAgree = false;
    wrong.outputNote = "y: 12 of 4096 elements beyond tolerance";
    const Judgement bad = judgeSuggestion(predicting(0.8), wrong);
    EXPECT_EQ(bad.verdict, Verdict::Failed);
    EXPECT_NE(bad.reason.find("outputs disagree"), std::string::npos);

    SuggestionTest notRun;
    notRun.error = "ptxas error";
    const Judgement nr = judgeSuggestion(predicting(0.8), notRun);
    EXPECT_EQ(nr.verdict, Verdict::Failed);
    EXPECT_FALSE(nr.error.has_value());
    EXPECT_NE(nr.reason.find("ptxas error"), std::string::npos);
}

TEST(AdviseVerdict, TheCardCarriesFindingPredictionAndResult) {
    AdviseEvidence e = base();
    e.resources->registers = 128;
    const auto fs = adviseFindings(e);
    const auto vs = proposeVariants(fs, e, {}, BuildOptions{});
    ASSERT_FALSE(vs.empty());
    const SuggestionTest t = measured(0.9, 0.89, 0.91, true);
    const Judgement j = judgeSuggestion(vs[0].prediction, t);
    const ExperimentCard c = suggestionCard(fs[0], vs[0], t, j);
    EXPECT_NE(c.hypothesis.find("occupancy.registers"), std::string::npos);
    EXPECT_NE(c.hypothesis.find(vs[0].prediction.formula), std::string::npos);
    EXPECT_NE(c.result.find("B/A = 0.9000 (95 % CI 0.8900–0.9100)"), std::string::npos) << c.result;
    EXPECT_NE(c.result.find("Verdict: held"), std::string::npos) << c.result;
    const json entry = suggestionTestJson(vs[0], t, j);
    EXPECT_EQ(entry["verdict"], "held");
    EXPECT_DOUBLE_EQ(entry["predicted"].get<double>(), vs[0].prediction.ratio);
}

// A variant whose build is the same machine code as A's is not measured: ptxas ignores
// --maxrregcount for regs_heavy (its __launch_bounds__ sets the budget), while MIN_BLOCKS=4 changes
// the code, and a launch change is always measured.
TEST(AdviseRecord, AVariantThatBuildsToTheSameCodeIsNotMeasured) {
    REQUIRE_BUILD_TOOLS();
    const std::string file = std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/advisor_cases.cu";
    BuildOptions o;
    o.arch = "sm_90";
    BuildOptions capped = o;
    capped.maxRegCount = 64;
    BuildOptions bounded = o;
    bounded.defines = {"MIN_BLOCKS=4"};
    auto side = [&](const BuildOptions& opts) {
        const BuildResult r = buildFile(test::realToolchain(), file, opts, test::uncached());
        EXPECT_TRUE(r.ok) << r.error;
        PreparedSide s;
        s.variant.kernel = "_Z10regs_heavyiPKfPf";
        s.variant.cubin = r.cubin;
        s.variant.grid = {16384, 1, 1};
        s.variant.block = {256, 1, 1};
        return s;
    };
    const PreparedSide a = side(o);
    PreparedSide b = side(capped);
    const auto same = unchangedVariant(a, b);
    ASSERT_TRUE(same.has_value());
    EXPECT_NE(same->find("same machine code"), std::string::npos) << *same;
    EXPECT_FALSE(unchangedVariant(a, side(bounded)).has_value());
    b.variant.block = {128, 1, 1}; // the same code launched otherwise is a real test
    b.variant.grid = {32768, 1, 1};
    EXPECT_FALSE(unchangedVariant(a, b).has_value());
    PreparedSide other = a;
    other.variant.kernel = "_Z11strided_sumiPKfPf"; // another kernel of the same cubin
    EXPECT_FALSE(unchangedVariant(a, other).has_value());
    // Unmeasured: judged failed, with the reason.
    SuggestionTest t;
    t.error = *same;
    Prediction p;
    p.ratio = 0.75;
    const Judgement j = judgeSuggestion(p, t);
    EXPECT_EQ(j.verdict, Verdict::Failed);
    EXPECT_NE(j.reason.find("same machine code"), std::string::npos) << j.reason;
}
