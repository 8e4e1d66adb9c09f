// Aligned SASS diff: unit cases on small listings, and golden aligned outputs of REAL listing pairs
// (tests/data/diff, from scripts/gen-diff-data: sgemm_tiled default vs -maxrregcount=24,
// fast_math default vs --use_fast_math, sm_90). Expected files under tests/data/diff/expected/ were
// reviewed by reading; LOWERSCOPE_UPDATE_GOLDEN=1 rewrites them (review the git diff after).
#include "core/analysis/aggregate.h"
#include "core/analysis/diff.h"
#include "core/parse/sass_parser.h"
#include "golden_util.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

using namespace lowerscope;
using lowerscope::golden::dataDir;
using lowerscope::golden::readFile;

namespace {

// A small listing in nvdisasm's format: "line|text" per instruction, line 0 = no `//## File`.
SassFunction listing(const std::vector<std::pair<int, std::string>>& code) {
    std::string text = "\t.text.k:\n";
    text = "//--------------------- .text.k --------------------------\n.text.k:\n";
    unsigned addr = 0;
    for (const auto& [line, ins] : code) {
        if (line > 0) text += "\t//## File \"k.cu\", line " + std::to_string(line) + "\n";
        char buf[32];
        std::snprintf(buf, sizeof buf, "        /*%04x*/ ", addr);
        text += buf + ins + " ;\n";
        addr += 16;
    }
    SassListing l = parseSass(text);
    EXPECT_EQ(l.functions.size(), 1u);
    return l.functions.empty() ? SassFunction{} : l.functions[0];
}

std::string statuses(const SassDiff& d) {
    std::string s;
    for (const auto& r : d.rows) s += "=~+-"[int(r.status)];
    return s;
}

// Every instruction of A and B appears in exactly one row, in order (rows monotonic in both).
void checkRowsCover(const SassDiff& d, const SassFunction& a, const SassFunction& b) {
    int lastA = -1, lastB = -1;
    for (const auto& r : d.rows) {
        ASSERT_TRUE(r.a >= 0 || r.b >= 0);
        if (r.a >= 0) {
            EXPECT_EQ(r.a, lastA + 1);
            lastA = r.a;
        }
        if (r.b >= 0) {
            EXPECT_EQ(r.b, lastB + 1);
            lastB = r.b;
        }
        EXPECT_EQ(r.status == DiffStatus::Added, r.a < 0);
        EXPECT_EQ(r.status == DiffStatus::Removed, r.b < 0);
    }
    EXPECT_EQ(lastA + 1, int(a.instructions.size()));
    EXPECT_EQ(lastB + 1, int(b.instructions.size()));
    const auto& s = d.summary;
    EXPECT_EQ(s.equal + s.changed + s.removed, int(a.instructions.size()));
    EXPECT_EQ(s.equal + s.changed + s.added, int(b.instructions.size()));
    for (size_t i = 0; i < d.rowOfA.size(); ++i) EXPECT_EQ(d.rows[size_t(d.rowOfA[i])].a, int(i));
    for (size_t i = 0; i < d.rowOfB.size(); ++i) EXPECT_EQ(d.rows[size_t(d.rowOfB[i])].b, int(i));
}

struct Pair {
    SassListing a, b;
};

Pair loadPair(const std::string& name, const std::string& va, const std::string& vb) {
    const auto dir = dataDir() / "diff";
    Pair p;
    p.a = parseSassTexts(readFile(dir / (name + "." + va + ".sass")), "", readFile(dir / (name + "." + va + ".live.sass")));
    p.b = parseSassTexts(readFile(dir / (name + "." + vb + ".sass")), "", readFile(dir / (name + "." + vb + ".live.sass")));
    return p;
}

const char* namingName(RegisterNaming n) {
    return n == RegisterNaming::Exact ? "exact" : n == RegisterNaming::PerFunction ? "per-function" : "per-anchor";
}

std::string goldenDiffText(const std::string& title, const SassDiff& d, const SassFunction& a, const SassFunction& b,
                           const DiffOptions& o) {
    std::string out = "# " + title + "\n# mode " + (o.mode == DiffMode::Full ? "full" : "opcode") + ", registers " +
                      namingName(o.naming) + "\n";
    const auto& s = d.summary;
    out += "# A " + std::to_string(s.instructionsA) + " instructions, B " + std::to_string(s.instructionsB) +
           "; equal " + std::to_string(s.equal) + ", changed " + std::to_string(s.changed) + ", added " +
           std::to_string(s.added) + ", removed " + std::to_string(s.removed) + "; anchors " +
           std::to_string(s.anchors) + ", hunks " + std::to_string(d.hunks.size()) + "\n";
    out += formatDiffRows(d, a, b, 0, int(d.rows.size()) - 1);
    return out;
}

std::string goldenStatsText(const SassFunction& a, const SassFunction& b) {
    std::string out = "# per source line (call site): instructions A B, stall cycles A B, max live GPR A B\n";
    for (const LineDelta& l : lineDeltas(a, b)) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "%s:%d  instr %d %d  stall %d %d  live %d %d\n",
                      l.source.file.empty() ? "?" : l.source.file.c_str(), l.source.line, l.a.instructions,
                      l.b.instructions, l.a.stallCycles, l.b.stallCycles, l.a.maxLiveGpr, l.b.maxLiveGpr);
        out += buf;
    }
    out += "# mnemonic mix: A B\n";
    for (const MixRow& m : mnemonicMix(a, b)) out += m.name + " " + std::to_string(m.a) + " " + std::to_string(m.b) + "\n";
    return out;
}

} // namespace

// ------------------------------------------------------------------------------- unit cases

TEST(DiffUnit, IdenticalListingsAreAllEqual) {
    auto a = listing({{1, "S2R R0, SR_TID.X"}, {2, "IADD3 R1, R0, 0x1, RZ"}, {3, "EXIT"}});
    SassDiff d = diffSass(a, a);
    EXPECT_EQ(statuses(d), "===");
    EXPECT_TRUE(d.hunks.empty());
    EXPECT_EQ(d.nextDifference(-1), -1);
    EXPECT_EQ(d.summary.anchors, 3);
    checkRowsCover(d, a, a);
}

TEST(DiffUnit, InsertedInstructionIsAdded) {
    auto a = listing({{1, "S2R R0, SR_TID.X"}, {2, "IADD3 R1, R0, 0x1, RZ"}, {3, "EXIT"}});
    auto b = listing({{1, "S2R R0, SR_TID.X"}, {2, "IADD3 R1, R0, 0x1, RZ"}, {2, "FMUL R2, R1, R1"}, {3, "EXIT"}});
    SassDiff d = diffSass(a, b);
    EXPECT_EQ(statuses(d), "==+=");
    EXPECT_EQ(d.rows[2].b, 2);
    EXPECT_EQ(d.rows[2].source.line, 2);
    ASSERT_EQ(d.hunks.size(), 1u);
    EXPECT_EQ(d.nextDifference(-1), 2);
    EXPECT_EQ(d.nextDifference(2), -1);
    EXPECT_EQ(d.previousDifference(4), 2);
    EXPECT_EQ(d.previousDifference(2), -1);
    checkRowsCover(d, a, b);
}

TEST(DiffUnit, SameMnemonicOtherOperandsIsChangedOtherwiseRemovedAdded) {
    auto a = listing({{1, "FMUL R2, R1, R1"}, {1, "MUFU.EX2 R3, R2"}, {2, "EXIT"}});
    auto b = listing({{1, "FMUL.FTZ R2, R1, R1"}, {1, "FADD R3, R2, R2"}, {2, "EXIT"}});
    SassDiff full = diffSass(a, b);
    EXPECT_EQ(statuses(full), "~-+=");
    DiffOptions op;
    op.mode = DiffMode::Opcode;
    EXPECT_EQ(statuses(diffSass(a, b, op)), "~-+=");
    // Opcode mode ignores operands: only the opcode text counts.
    auto c = listing({{1, "FMUL R7, R9, R9"}, {1, "MUFU.EX2 R3, R7"}, {2, "EXIT"}});
    EXPECT_EQ(statuses(diffSass(a, c, op)), "===");
    EXPECT_EQ(statuses(diffSass(a, c)), "~~=");
}

TEST(DiffUnit, ReuseFlagsAreIgnored) {
    auto a = listing({{1, "FFMA R2, R1.reuse, R1, R3"}});
    auto b = listing({{1, "FFMA R2, R1, R1, R3"}});
    EXPECT_EQ(statuses(diffSass(a, b)), "=");
}

TEST(DiffUnit, RegisterRenamingInsensitive) {
    auto a = listing({{1, "S2R R0, SR_TID.X"}, {2, "ISETP.GE.AND P0, PT, R0, 0x4, PT"}, {2, "@P0 BRA `(.L_x_1)"},
                      {3, "IMAD.WIDE R2, R0, 0x4, R4"}, {3, "LDG.E R5, desc[UR4][R2.64]"}, {4, "EXIT"}});
    auto b = listing({{1, "S2R R7, SR_TID.X"}, {2, "ISETP.GE.AND P1, PT, R7, 0x4, PT"}, {2, "@P1 BRA `(.L_x_2)"},
                      {3, "IMAD.WIDE R8, R7, 0x4, R4"}, {3, "LDG.E R5, desc[UR4][R8.64]"}, {4, "EXIT"}});
    EXPECT_EQ(statuses(diffSass(a, b)), "~~~~~=");
    DiffOptions o;
    o.naming = RegisterNaming::PerFunction;
    // R4/R5 keep their numbers in both but are renumbered consistently (first use order matches).
    EXPECT_EQ(statuses(diffSass(a, b, o)), "======");
    o.naming = RegisterNaming::PerAnchor;
    EXPECT_EQ(statuses(diffSass(a, b, o)), "======");
    // An inconsistent renaming stays changed: R9 is a new register where A reads R0 again, so the
    // ISETP differs and every later use of the shifted numbering too; the branch (P1 → P0, label
    // renumbered) still compares equal.
    auto c = listing({{1, "S2R R7, SR_TID.X"}, {2, "ISETP.GE.AND P1, PT, R9, 0x4, PT"}, {2, "@P1 BRA `(.L_x_2)"},
                      {3, "IMAD.WIDE R8, R7, 0x4, R4"}, {3, "LDG.E R5, desc[UR4][R8.64]"}, {4, "EXIT"}});
    o.naming = RegisterNaming::PerFunction;
    EXPECT_EQ(statuses(diffSass(a, c, o)), "=~=~~=");
}

TEST(DiffUnit, RenamingTokenizer) {
    RegisterRenaming r;
    EXPECT_EQ(r.apply("R7, -|R9|, R7.64, RZ, SR_TID.X, UR12, UP3, P2, PT, URZ"),
              "R0, -|R1|, R0.64, RZ, SR_TID.X, UR0, UP0, P0, PT, URZ");
    EXPECT_EQ(r.apply("@!P2 desc[UR12][R9.64+0x10], `(.L_x_17)"), "@!P0 desc[UR0][R1.64+0x10], `(.L_0)");
    EXPECT_EQ(r.apply("c[0x0][0x210], 0x1f, R1x"), "c[0x0][0x210], 0x1f, R1x");
}

TEST(DiffUnit, AlignsBySourceLineFirst) {
    // B's FADD belongs to line 2: it is matched with A's line-2 FADD, not with the identical
    // instruction of line 1 that a plain sequence diff could just as well pick.
    auto a = listing({{1, "FADD R1, R0, R0"}, {2, "FADD R1, R0, R0"}, {3, "EXIT"}});
    auto b = listing({{2, "FADD R1, R0, R0"}, {3, "EXIT"}});
    SassDiff d = diffSass(a, b);
    checkRowsCover(d, a, b);
    EXPECT_EQ(statuses(d), "-==");
    EXPECT_EQ(d.rows[0].a, 0);
    EXPECT_EQ(d.rows[0].source.line, 1);
    EXPECT_EQ(d.rows[1].a, 1);
    EXPECT_EQ(d.rows[1].b, 0);
    EXPECT_EQ(d.summary.anchors, 2);
    // The reverse: line 1's code removed in B is reported at line 1 as well.
    auto c = listing({{1, "FADD R1, R0, R0"}, {3, "EXIT"}});
    SassDiff e = diffSass(a, c);
    EXPECT_EQ(statuses(e), "=-=");
    EXPECT_EQ(e.rows[1].source.line, 2);
}

TEST(DiffUnit, SameCodeOnANeighbouringLineStillMatches) {
    // Build B attributes the FMUL to line 3: source alignment alone leaves it removed at line 2 and
    // added at line 3; the cleanup pass re-aligns that run by sequence and finds it equal.
    auto a = listing({{1, "S2R R0, SR_TID.X"}, {2, "FMUL R1, R0, R0"}, {3, "FADD R2, R1, R1"}, {4, "EXIT"}});
    auto b = listing({{1, "S2R R0, SR_TID.X"}, {3, "FMUL R1, R0, R0"}, {3, "FADD R2, R1, R1"}, {4, "EXIT"}});
    SassDiff d = diffSass(a, b);
    checkRowsCover(d, a, b);
    EXPECT_EQ(statuses(d), "====");
    DiffOptions plain;
    plain.alignBySource = false;
    EXPECT_EQ(statuses(diffSass(a, b, plain)), "====");
}

TEST(DiffUnit, HeatStrip) {
    auto a = listing({{1, "NOP"}, {1, "NOP"}, {1, "NOP"}, {1, "NOP"}});
    auto b = listing({{1, "NOP"}, {1, "NOP"}, {1, "NOP"}, {1, "NOP"}, {1, "FADD R0, R1, R2"}, {1, "FADD R0, R1, R2"}});
    SassDiff d = diffSass(a, b);
    EXPECT_EQ(statuses(d), "====++");
    EXPECT_EQ(d.heat(3), (std::vector<double>{0.0, 0.0, 1.0}));
    EXPECT_EQ(d.heat(2), (std::vector<double>{0.0, 2.0 / 3.0}));
    EXPECT_EQ(d.heat(12).size(), 12u);
    EXPECT_EQ(d.heat(12).back(), 1.0);
    EXPECT_TRUE(d.heat(0).empty());
}

TEST(DiffUnit, EmptySides) {
    SassFunction none;
    auto a = listing({{1, "NOP"}, {2, "EXIT"}});
    EXPECT_EQ(statuses(diffSass(a, none)), "--");
    EXPECT_EQ(statuses(diffSass(none, a)), "++");
    EXPECT_EQ(statuses(diffSass(none, none)), "");
    EXPECT_EQ(formatDiffExcerpt(diffSass(a, a), a, a), "");
}

TEST(DiffUnit, ExcerptShowsLargestHunksWithContext) {
    std::vector<std::pair<int, std::string>> ca, cb;
    for (int i = 0; i < 30; ++i) ca.push_back({1, "IADD3 R" + std::to_string(i) + ", R0, 0x1, RZ"});
    cb = ca;
    cb[5].second = "FADD R5, R0, R0";                                         // 1-row hunk (removed+added)
    for (int i = 20; i < 24; ++i) cb[size_t(i)].second = "IADD3 R1, R0, 0x2, RZ"; // 4 changed rows
    auto a = listing(ca), b = listing(cb);
    SassDiff d = diffSass(a, b);
    ASSERT_EQ(d.hunks.size(), 2u);
    const std::string one = formatDiffExcerpt(d, a, b, 1, 1);
    EXPECT_NE(one.find("IADD3 R1, R0, 0x2"), std::string::npos);
    EXPECT_EQ(one.find("FADD"), std::string::npos);
    EXPECT_EQ(std::count(one.begin(), one.end(), '\n'), 4 + 2 + 2); // 4 rows + context + 2 "..."
    const std::string both = formatDiffExcerpt(d, a, b, 3, 0);
    EXPECT_NE(both.find("FADD"), std::string::npos);
    EXPECT_LT(both.find("FADD"), both.find("IADD3 R1, R0, 0x2"));
}

TEST(DiffUnit, OccupancyKnownCases) {
    // sm_90: 64 warps, 32 blocks, 64K registers, 228 KiB shared per SM, 1 KiB reserved per block.
    OccupancyEstimate o = estimateOccupancy("sm_90", 32, 2048, 256); // 8 warps/block, 1024 regs/warp
    EXPECT_EQ(o.blocksPerSm, 8);
    EXPECT_EQ(o.activeWarps, 64);
    EXPECT_DOUBLE_EQ(o.fraction, 1.0);
    EXPECT_EQ(o.limiter, "warps");
    o = estimateOccupancy("sm_90", 64, 0, 256); // 2048 regs/warp → 32 warps → 4 blocks
    EXPECT_EQ(o.blocksPerSm, 4);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiter, "registers");
    o = estimateOccupancy("sm_90", 33, 0, 256); // rounds to 40 regs/thread → 1280/warp → 51 warps → 6 blocks
    EXPECT_EQ(o.blocksPerSm, 6);
    EXPECT_EQ(o.activeWarps, 48);
    o = estimateOccupancy("sm_90a", 16, 100 * 1024, 128); // (102400 + 1024) per block → 2 blocks
    EXPECT_EQ(o.blocksPerSm, 2);
    EXPECT_EQ(o.limiter, "shared memory");
    EXPECT_DOUBLE_EQ(o.fraction, 8.0 / 64.0);
    o = estimateOccupancy("sm_90", 16, 0, 32); // 1 warp per block: the 32-block cap binds
    EXPECT_EQ(o.blocksPerSm, 32);
    EXPECT_EQ(o.limiter, "blocks");
    EXPECT_EQ(estimateOccupancy("sm_75", 32, 0, 1024).activeWarps, 32);
    EXPECT_EQ(estimateOccupancy("sm_90", 255, 0, 1024).limiter, "invalid");
    EXPECT_EQ(estimateOccupancy("sm_90", 32, 0, 2048).limiter, "invalid");
    EXPECT_EQ(estimateOccupancy("sm_90", 32, 300 * 1024, 64).limiter, "invalid");
}

// ------------------------------------------------------------------------ real listing pairs

struct GoldenCase {
    const char* name;
    const char* va;
    const char* vb;
    DiffMode mode;
    RegisterNaming naming;
    const char* expected;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.expected; }

class DiffGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(DiffGolden, AlignedOutputMatchesReviewedExpectation) {
    const GoldenCase& c = GetParam();
    Pair p = loadPair(c.name, c.va, c.vb);
    ASSERT_EQ(p.a.functions.size(), 1u);
    ASSERT_EQ(p.b.functions.size(), 1u);
    const SassFunction& a = p.a.functions[0];
    const SassFunction& b = p.b.functions[0];
    ASSERT_GT(a.instructions.size(), 30u);
    DiffOptions o;
    o.mode = c.mode;
    o.naming = c.naming;
    SassDiff d = diffSass(a, b, o);
    checkRowsCover(d, a, b);
    const std::string title = std::string(c.name) + " " + c.va + " vs " + c.vb;
    EXPECT_TRUE(golden::matchesGolden(goldenDiffText(title, d, a, b, o), dataDir() / "diff" / "expected" / c.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Real, DiffGolden,
    ::testing::Values(
        GoldenCase{"sgemm_tiled", "default", "maxrreg24", DiffMode::Full, RegisterNaming::Exact,
                   "sgemm_tiled.full.exact.txt"},
        GoldenCase{"sgemm_tiled", "default", "maxrreg24", DiffMode::Full, RegisterNaming::PerFunction,
                   "sgemm_tiled.full.per-function.txt"},
        GoldenCase{"fast_math", "default", "fastmath", DiffMode::Opcode, RegisterNaming::Exact,
                   "fast_math.opcode.txt"},
        GoldenCase{"fast_math", "default", "fastmath", DiffMode::Full, RegisterNaming::PerAnchor,
                   "fast_math.full.per-anchor.txt"}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
        std::string n = info.param.expected;
        n = n.substr(0, n.size() - 4);
        for (char& ch : n)
            if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return n;
    });

TEST(DiffReal, RenamingInsensitiveFindsMoreEqualRows) {
    Pair p = loadPair("sgemm_tiled", "default", "maxrreg24");
    const auto& a = p.a.functions.at(0);
    const auto& b = p.b.functions.at(0);
    DiffOptions exact, renamed;
    renamed.naming = RegisterNaming::PerFunction;
    EXPECT_GT(diffSass(a, b, renamed).summary.equal, diffSass(a, b, exact).summary.equal);
    // Both builds have the same instructions except the register-allocation changes: every
    // instruction is equal in opcode mode or at worst changed.
    DiffOptions op;
    op.mode = DiffMode::Opcode;
    EXPECT_EQ(a.instructions.size(), b.instructions.size());
}

TEST(DiffReal, PerLineStatsAndMixMatchReviewedExpectation) {
    for (const auto& [name, va, vb] : {std::tuple{"sgemm_tiled", "default", "maxrreg24"},
                                      std::tuple{"fast_math", "default", "fastmath"}}) {
        Pair p = loadPair(name, va, vb);
        const auto& a = p.a.functions.at(0);
        const auto& b = p.b.functions.at(0);
        const auto lines = lineDeltas(a, b);
        int na = 0, nb = 0;
        for (const auto& l : lines) na += l.a.instructions, nb += l.b.instructions;
        EXPECT_EQ(na, int(a.instructions.size()));
        EXPECT_EQ(nb, int(b.instructions.size()));
        EXPECT_TRUE(golden::matchesGolden(goldenStatsText(a, b),
                                          dataDir() / "diff" / "expected" / (std::string(name) + ".stats.txt")));
    }
}

TEST(DiffReal, FastMathRemovesTheSlowPaths) {
    Pair p = loadPair("fast_math", "default", "fastmath");
    const auto& a = p.a.functions.at(0);
    const auto& b = p.b.functions.at(0);
    auto count = [](const SassFunction& f, const std::string& opcode) {
        return std::count_if(f.instructions.begin(), f.instructions.end(),
                             [&](const SassInstruction& i) { return i.opcode == opcode; });
    };
    EXPECT_EQ(count(a, "CALL.REL.NOINC"), 1); // the IEEE division slow path
    EXPECT_EQ(count(b, "CALL.REL.NOINC"), 0);
    EXPECT_EQ(count(a, "MUFU.SIN"), 0);       // sinf with range reduction in software
    EXPECT_EQ(count(b, "MUFU.SIN"), 1);       // __sinf
    EXPECT_EQ(count(b, "MUFU.EX2"), 1);
    const auto mix = mnemonicMix(a, b);
    ASSERT_FALSE(mix.empty());
    EXPECT_LT(mix.front().delta(), 0); // the largest change is a drop
    // The sinf line shrinks most.
    const auto lines = lineDeltas(a, b);
    const auto most = std::min_element(lines.begin(), lines.end(), [](const LineDelta& x, const LineDelta& y) {
        return x.instructionDelta() < y.instructionDelta();
    });
    ASSERT_NE(most, lines.end());
    EXPECT_EQ(most->source.line, 16);
    EXPECT_EQ(most->source.file, "kernels/fast_math.cu");
}

TEST(DiffReal, ResourceDeltasFromTheRecordedReports) {
    // Resources as the build pipeline reports them, read here from the recorded cuobjdump output.
    auto read = [](const std::string& file) {
        const std::string text = readFile(dataDir() / "diff" / file);
        Resources r;
        std::smatch m;
        if (std::regex_search(text, m, std::regex("REG:(\\d+)"))) r.registers = std::stoi(m[1]);
        if (std::regex_search(text, m, std::regex("SHARED:(\\d+)"))) r.sharedBytes = std::stoi(m[1]);
        if (std::regex_search(text, m, std::regex("LOCAL:(\\d+)"))) r.localBytes = std::stoi(m[1]);
        if (std::regex_search(text, m, std::regex("STACK:(\\d+)"))) r.stackBytes = std::stoi(m[1]);
        return r;
    };
    const Resources a = read("sgemm_tiled.default.res.txt");
    const Resources b = read("sgemm_tiled.maxrreg24.res.txt");
    const auto rows = resourceDeltas(a, b, "sm_90", 256);
    ASSERT_EQ(rows.front().name, "registers");
    EXPECT_EQ(rows.front().a, 32);
    EXPECT_EQ(rows.front().b, 24);
    EXPECT_EQ(rows.front().delta(), -8);
    const auto occ = std::find_if(rows.begin(), rows.end(), [](const ResourceDelta& r) { return r.name == "occupancy (%)"; });
    ASSERT_NE(occ, rows.end());
    EXPECT_EQ(occ->a, 100.0); // 16x16 blocks: 8 warps, 32 regs → 8 blocks = 64 warps
    EXPECT_EQ(occ->b, 100.0);
    const auto spill = std::find_if(rows.begin(), rows.end(), [](const ResourceDelta& r) { return r.name == "spill stores (bytes)"; });
    EXPECT_FALSE(spill->known()); // not in cuobjdump's report
}

TEST(DiffUnit, ExcerptElidesTheMiddleOfLongHunks) {
    std::vector<std::pair<int, std::string>> ca, cb;
    for (int i = 0; i < 100; ++i) ca.push_back({1, "IADD3 R" + std::to_string(i) + ", R0, 0x1, RZ"});
    cb = {ca.front(), ca.back()};
    auto a = listing(ca), b = listing(cb);
    SassDiff d = diffSass(a, b);
    ASSERT_EQ(d.hunks.size(), 1u);
    EXPECT_EQ(d.hunks[0].size(), 98);
    const std::string text = formatDiffExcerpt(d, a, b, 1, 1, 48, 10);
    // 1 context + 5 rows + elision + 5 rows + 1 context.
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 13);
    EXPECT_NE(text.find("  ... 88 more removed rows"), std::string::npos) << text;
    EXPECT_NE(text.find("R5, R0"), std::string::npos);
    EXPECT_EQ(text.find("R6, R0"), std::string::npos);
    EXPECT_NE(text.find("R94, R0"), std::string::npos);
    EXPECT_EQ(text.find("R93, R0"), std::string::npos);
}

TEST(DiffReal, DeltasFromTheAnalysisAggregatesAgree) {
    // The two lineDeltas overloads (from the listings, from core/aggregate's per-line aggregates)
    // give the same per-line numbers; categoryMix sums to the instruction counts.
    Pair p = loadPair("fast_math", "default", "fastmath");
    const auto& a = p.a.functions.at(0);
    const auto& b = p.b.functions.at(0);
    // The per-line aggregates leave out rows without line info (here the padding after the last
    // EXIT, which carries no line); the listings' deltas give them one "?" entry.
    auto fromListings = lineDeltas(a, b);
    const auto noLine = std::find_if(fromListings.begin(), fromListings.end(), [](const auto& d) { return d.source.line == 0; });
    ASSERT_NE(noLine, fromListings.end());
    EXPECT_GT(noLine->a.instructions, 0);
    fromListings.erase(noLine);
    const auto fromAggregates = lineDeltas(aggregateByLine(a), aggregateByLine(b));
    ASSERT_EQ(fromListings.size(), fromAggregates.size());
    for (size_t i = 0; i < fromListings.size(); ++i) {
        EXPECT_EQ(fromListings[i].source, fromAggregates[i].source);
        EXPECT_EQ(fromListings[i].a, fromAggregates[i].a) << fromListings[i].source.line;
        EXPECT_EQ(fromListings[i].b, fromAggregates[i].b) << fromListings[i].source.line;
    }
    const auto mix = categoryMix(aggregateFunction(a), aggregateFunction(b));
    int na = 0, nb = 0;
    for (const auto& m : mix) na += m.a, nb += m.b;
    EXPECT_EQ(na, int(a.instructions.size()));
    EXPECT_EQ(nb, int(b.instructions.size()));
    const auto sfu = std::find_if(mix.begin(), mix.end(), [](const MixRow& m) { return m.name == "Special function"; });
    ASSERT_NE(sfu, mix.end());
    EXPECT_EQ(sfu->b, 3); // MUFU.SIN, MUFU.EX2, MUFU.RCP
}
