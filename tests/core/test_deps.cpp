// Def/use and dependency edges. Golden property tests (every kernel, every arch):
//  * the dependency edges equal those found by an independent brute-force search backwards over
//    the instruction-level CFG (so every RAW edge goes from a writer to a reader with no
//    intervening unguarded redefinition on some path, and no such pair is missing);
//  * every scoreboard wait has a producer.
// Live counts recomputed from the defs/uses (a check of their widths against nvdisasm's own
// -lrm column) are in test_liveness.cpp.
#include "analysis_util.h"

#include "core/analysis/cfg.h"
#include "core/analysis/deps.h"

#include <gtest/gtest.h>

#include <bitset>
#include <map>
#include <set>
#include <iostream>
#include <tuple>

using namespace lowerscope;
using namespace lowerscope::testutil;

namespace {

std::vector<std::string> names(const std::vector<RegRange>& v) {
    std::vector<std::string> out;
    for (const auto& r : v)
        for (int k = 0; k < r.count; ++k) out.push_back(registerName(r.cls, r.first + k));
    return out;
}

SassInstruction one(const std::string& line) {
    SassListing l = parseSass("        /*0000*/                   " + line + " ;\n");
    EXPECT_EQ(l.functions.size(), 1u);
    SassInstruction ins = l.functions.at(0).instructions.at(0);
    analyseDefUse(ins);
    return ins;
}

using V = std::vector<std::string>;

// Instruction-level successors over the CFG.
std::vector<std::vector<int>> instrSuccessors(const SassFunction& fn, const Cfg& cfg) {
    std::vector<std::vector<int>> succ(fn.instructions.size());
    for (const auto& b : cfg.blocks) {
        for (int i = b.firstIndex; i < b.lastIndex; ++i) succ[static_cast<size_t>(i)].push_back(i + 1);
    }
    const auto bs = interproceduralSuccessors(fn, cfg);
    for (const auto& b : cfg.blocks)
        for (int s : bs[static_cast<size_t>(b.id)]) succ[static_cast<size_t>(b.lastIndex)].push_back(cfg.blocks[static_cast<size_t>(s)].firstIndex);
    return succ;
}

bool definesUnguarded(const SassInstruction& ins, const std::string& res) {
    if (!ins.predicate.empty() && ins.predicate != "@PT") return false;
    for (const auto& n : names(ins.defs))
        if (n == res) return true;
    return false;
}
bool defines(const SassInstruction& ins, const std::string& res) {
    for (const auto& n : names(ins.defs))
        if (n == res) return true;
    return false;
}

} // namespace

TEST(DefUse, RealInstructionForms) {
    // Lines as printed by nvdisasm 13 (sm_80/sm_90/sm_100 builds of kernels/ and CUDA samples).
    auto i = one("IADD3 R14, P3, R14, 0x10, RZ");
    EXPECT_EQ(names(i.defs), (V{"R14", "P3"}));
    EXPECT_EQ(names(i.uses), (V{"R14"}));
    i = one("IADD3.X R15, RZ, R15, RZ, P3, !PT");
    EXPECT_EQ(names(i.defs), (V{"R15"}));
    EXPECT_EQ(names(i.uses), (V{"R15", "P3"}));
    i = one("LEA.HI.X R3, R4, UR19, R3, 0x2, P0");
    EXPECT_EQ(names(i.defs), (V{"R3"}));
    EXPECT_EQ(names(i.uses), (V{"R4", "UR19", "R3", "P0"}));
    i = one("IMAD.WIDE R4, R7, 0x4, R4");
    EXPECT_EQ(names(i.defs), (V{"R4", "R5"}));
    EXPECT_EQ(names(i.uses), (V{"R7", "R4", "R5"}));
    i = one("@P3 LDG.E.CONSTANT R18, desc[UR8][R18.64]");
    EXPECT_EQ(names(i.defs), (V{"R18"}));
    EXPECT_EQ(names(i.uses), (V{"P3", "UR8", "UR9", "R18", "R19"})); // a descriptor is 64-bit
    i = one("LDS.U.128 R4, [R27+0x10]");
    EXPECT_EQ(names(i.defs), (V{"R4", "R5", "R6", "R7"}));
    i = one("ST.E.128 desc[UR4][R2.64], R4");
    EXPECT_TRUE(i.defs.empty());
    EXPECT_EQ(names(i.uses), (V{"UR4", "UR5", "R2", "R3", "R4", "R5", "R6", "R7"}));
    i = one("STG.E desc[UR8][R4.64], R3");
    EXPECT_TRUE(i.defs.empty());
    i = one("ISETP.GE.AND P0, PT, R2, R19, PT");
    EXPECT_EQ(names(i.defs), (V{"P0"}));
    EXPECT_EQ(names(i.uses), (V{"R2", "R19"}));
    i = one("@P1 PLOP3.LUT P0, PT, P1, PT, PT, 0x8, 0x80");
    EXPECT_EQ(names(i.defs), (V{"P0"}));
    EXPECT_EQ(names(i.uses), (V{"P1"}));
    i = one("LOP3.LUT P0, RZ, R9, 0x7fffffff, R6, 0xc8, !PT");
    EXPECT_EQ(names(i.defs), (V{"P0"}));
    EXPECT_EQ(names(i.uses), (V{"R9", "R6"}));
    i = one("DADD R18, R18, R22");
    EXPECT_EQ(names(i.defs), (V{"R18", "R19"}));
    EXPECT_EQ(names(i.uses), (V{"R18", "R19", "R22", "R23"}));
    i = one("F2F.F64.F32 R2, R0");
    EXPECT_EQ(names(i.defs), (V{"R2", "R3"}));
    EXPECT_EQ(names(i.uses), (V{"R0"}));
    i = one("F2I.S64.F64.TRUNC R20, R20");
    EXPECT_EQ(names(i.defs), (V{"R20", "R21"}));
    EXPECT_EQ(names(i.uses), (V{"R20", "R21"}));
    i = one("MUFU.RCP64H R3, R9");
    EXPECT_EQ(names(i.defs), (V{"R3"}));
    EXPECT_EQ(names(i.uses), (V{"R9"}));
    i = one("HMMA.16816.F32 R16, R4.reuse, R12, RZ");
    EXPECT_EQ(names(i.defs), (V{"R16", "R17", "R18", "R19"}));
    EXPECT_EQ(names(i.uses), (V{"R4", "R5", "R6", "R7", "R12", "R13"}));
    i = one("HGMMA.64x16x16.F32 R24, gdesc[UR4], RZ, !UPT, gsb0");
    EXPECT_EQ(i.defs, (std::vector<RegRange>{{RegClass::R, 24, 8}}));
    i = one("SHFL.DOWN PT, R3, R6, 0x10, 0x1f");
    EXPECT_EQ(names(i.defs), (V{"R3"}));
    EXPECT_EQ(names(i.uses), (V{"R6"}));
    i = one("VOTE.ANY R0, PT, !P1");
    EXPECT_EQ(names(i.defs), (V{"R0"}));
    EXPECT_EQ(names(i.uses), (V{"P1"}));
    i = one("LDSM.16.M88.4 R4, [R12+UR4]");
    EXPECT_EQ(names(i.defs), (V{"R4", "R5", "R6", "R7"}));
    i = one("ATOMG.E.ADD.F64.RN.STRONG.GPU PT, R2, desc[UR14][R8.64], R16");
    EXPECT_EQ(names(i.defs), (V{"R2", "R3"}));
    EXPECT_EQ(names(i.uses), (V{"UR14", "UR15", "R8", "R9", "R16", "R17"}));
    i = one("MOV.64 R12, UR4");
    EXPECT_EQ(names(i.defs), (V{"R12", "R13"}));
    EXPECT_EQ(names(i.uses), (V{"UR4", "UR5"}));
    i = one("RET.REL.NODEC R2 `(_Z10reduce_sumPKfPfi)");
    EXPECT_EQ(names(i.uses), (V{"R2", "R3"}));
    i = one("@!UP0 UIADD3 UR4, UPT, UPT, -UR4, 0x100000, URZ");
    EXPECT_EQ(names(i.defs), (V{"UR4"}));
    EXPECT_EQ(names(i.uses), (V{"UP0", "UR4"}));
    i = one("@!PT LDS RZ, [RZ]");
    EXPECT_TRUE(i.defs.empty());
    EXPECT_TRUE(i.uses.empty());
}

TEST(Deps, LoopCarriedUseHasTwoProducers) {
    const char* text = R"(
        /*0000*/                   MOV R3, RZ ;
        /*0010*/                   S2R R0, SR_TID.X ;
.L_x_0:
        /*0020*/                   FADD R3, R3, 1 ;
        /*0030*/                   ISETP.NE.AND P0, PT, R3, R0, PT ;
        /*0040*/               @P0 BRA `(.L_x_0) ;
        /*0050*/                   EXIT ;
)";
    SassListing l = parseSass(text);
    analyseDefUse(l.functions[0]);
    const Cfg cfg = buildCfg(l.functions[0]);
    const auto deps = computeDependencies(l.functions[0], cfg);
    std::set<std::tuple<uint32_t, uint32_t, std::string>> got;
    for (const auto& e : deps) got.insert({e.from, e.to, e.resource});
    EXPECT_TRUE(got.count({0x00, 0x20, "R3"}));  // first iteration
    EXPECT_TRUE(got.count({0x20, 0x20, "R3"}));  // around the back edge
    EXPECT_TRUE(got.count({0x20, 0x30, "R3"}));
    EXPECT_TRUE(got.count({0x10, 0x30, "R0"}));
    EXPECT_TRUE(got.count({0x30, 0x40, "P0"}));
    EXPECT_FALSE(got.count({0x00, 0x30, "R3"})); // killed by the FADD
    for (const auto& e : deps)
        if (e.from == 0x20 && e.to == 0x20) EXPECT_EQ(e.distance, 0);
    for (const auto& e : deps)
        if (e.resource == "P0") EXPECT_EQ(e.kind, DepKind::Predicate);
}

TEST(Deps, GuardedDefinitionDoesNotHideEarlierOne) {
    const char* text = R"(
        /*0000*/                   MOV R2, 0x1 ;
        /*0010*/               @P0 MOV R2, 0x2 ;
        /*0020*/                   STG.E desc[UR4][R4.64], R2 ;
)";
    SassListing l = parseSass(text);
    analyseDefUse(l.functions[0]);
    const auto deps = computeDependencies(l.functions[0], buildCfg(l.functions[0]));
    int toStore = 0;
    for (const auto& e : deps)
        if (e.to == 0x20 && e.resource == "R2") ++toStore;
    EXPECT_EQ(toStore, 2);
}

TEST(Deps, ScoreboardEdgesFromControlBits) {
    // sm_90 saxpy: the S2R sets SB0 and the IMAD waits on it (ARCHITECTURE.md).
    LOWERSCOPE_REQUIRE_GOLDEN();
    SassListing l = loadGolden("sm_90", "saxpy");
    ASSERT_FALSE(l.functions.empty());
    const auto& fn = l.functions[0];
    const auto deps = computeDependencies(fn, buildCfg(fn));
    int sb = 0;
    for (const auto& e : deps) {
        if (e.kind != DepKind::Scoreboard) continue;
        ++sb;
        const auto& from = fn.instructions[static_cast<size_t>(fn.indexOf(e.from))];
        const auto& to = fn.instructions[static_cast<size_t>(fn.indexOf(e.to))];
        const int n = e.resource[2] - '0';
        EXPECT_TRUE(from.control.writeBarrier == n || from.control.readBarrier == n) << from.text;
        EXPECT_TRUE(to.control.waitMask & (1u << n)) << to.text;
    }
    EXPECT_GT(sb, 3);
}

TEST(Deps, GoldenEdgesEqualBruteForceAndWaitsHaveProducers) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    int functions = 0, redundantWaits = 0;
    size_t totalEdges = 0;
    for (const auto& arch : goldenArchs())
        for (const auto& k : goldenKernels(arch))
            for (const auto& fn : loadGolden(arch, k).functions) {
                SCOPED_TRACE(arch + "/" + k + "/" + fn.name);
                const Cfg cfg = buildCfg(fn);
                const auto deps = computeDependencies(fn, cfg);
                totalEdges += deps.size();
                ++functions;
                const auto succ = instrSuccessors(fn, cfg);
                const size_t n = fn.instructions.size();
                std::vector<std::vector<int>> pred(n);
                for (size_t i = 0; i < n; ++i)
                    for (int s : succ[i]) pred[static_cast<size_t>(s)].push_back(static_cast<int>(i));

                std::set<std::tuple<uint32_t, uint32_t, std::string>> got, want;
                for (const auto& e : deps) {
                    if (e.kind == DepKind::Scoreboard) continue;
                    if (!e.callee.empty()) continue; // a CALL's summary (CallsAreArrowsNamingTheCallee)
                    got.insert({e.from, e.to, e.resource});
                    const int fi = fn.indexOf(e.from), ti = fn.indexOf(e.to);
                    ASSERT_GE(fi, 0);
                    ASSERT_GE(ti, 0);
                    EXPECT_EQ(e.distance, ti - fi);
                    EXPECT_TRUE(defines(fn.instructions[static_cast<size_t>(fi)], e.resource)) << "producer does not write " << e.resource;
                    bool reads = false;
                    for (const auto& u : names(fn.instructions[static_cast<size_t>(ti)].uses)) reads |= u == e.resource;
                    EXPECT_TRUE(reads) << "consumer does not read " << e.resource;
                }
                // Brute force: from each use walk backwards; a writer ends the walk when unguarded.
                for (size_t u = 0; u < n; ++u) {
                    for (const auto& res : names(fn.instructions[u].uses)) {
                        std::vector<char> seen(n, 0);
                        std::vector<int> work(pred[u].begin(), pred[u].end());
                        while (!work.empty()) {
                            const int p = work.back();
                            work.pop_back();
                            if (seen[static_cast<size_t>(p)]) continue;
                            seen[static_cast<size_t>(p)] = 1;
                            const auto& pi = fn.instructions[static_cast<size_t>(p)];
                            if (defines(pi, res)) want.insert({pi.address, fn.instructions[u].address, res});
                            if (definesUnguarded(pi, res)) continue;
                            for (int q : pred[static_cast<size_t>(p)]) work.push_back(q);
                        }
                    }
                }
                EXPECT_EQ(got, want);
                // Every scoreboard wait has a producer — or is redundant: every path to it passes
                // an earlier wait on the same scoreboard with no producer in between (ptxas emits
                // such waits, e.g. SHFL after a WARPSYNC.COLLECTIVE that already waited).
                for (size_t w = 0; w < n; ++w) {
                    const auto& ins = fn.instructions[w];
                    for (int b = 0; b < 6; ++b) {
                        if (!(ins.control.waitMask & (1u << b))) continue;
                        bool found = false;
                        for (const auto& e : deps)
                            if (e.to == ins.address && e.kind == DepKind::Scoreboard && e.resource == "SB" + std::to_string(b)) found = true;
                        if (found) continue;
                        std::vector<char> seen(n, 0);
                        std::vector<int> work(pred[w].begin(), pred[w].end());
                        bool reachesEntry = pred[w].empty(), reachesProducer = false;
                        while (!work.empty()) {
                            const int p = work.back();
                            work.pop_back();
                            if (seen[static_cast<size_t>(p)]) continue;
                            seen[static_cast<size_t>(p)] = 1;
                            const auto& pi = fn.instructions[static_cast<size_t>(p)];
                            if (pi.control.writeBarrier == b || pi.control.readBarrier == b) reachesProducer = true;
                            if (pi.control.waitMask & (1u << b)) continue;
                            if (pred[static_cast<size_t>(p)].empty()) reachesEntry = true;
                            for (int q : pred[static_cast<size_t>(p)]) work.push_back(q);
                        }
                        EXPECT_FALSE(reachesProducer) << "missed producer of SB" << b << " at " << ins.address << ": " << ins.text;
                        EXPECT_FALSE(reachesEntry) << "wait on SB" << b << " with no producer on a path from the entry at " << ins.address << ": " << ins.text;
                        ++redundantWaits;
                    }
                }
            }
    EXPECT_GT(functions, 10);
    EXPECT_GT(totalEdges, 1000u);
    std::cout << "redundant scoreboard waits: " << redundantWaits << "\n";
}

// A CALL to a local subroutine reads what the callee reads before writing (its arguments and
// return address) and writes what the callee writes (its result): arrows lead from the definitions
// before the call to the CALL row and from the CALL row to the uses of the result, each naming the
// callee. Checked on the calls corpus (tests/data/regmodel/src/calls.cu) for every architecture.
TEST(Deps, CallsAreArrowsNamingTheCallee) {
    for (const std::string arch : {"sm_80", "sm_90a", "sm_100a", "sm_120a"}) {
        SCOPED_TRACE(arch);
        SassListing l = parseSass(readFile(dataDir() / "regmodel" / arch / "calls.sass"));
        const SassFunction* fn = nullptr;
        for (auto& f : l.functions) {
            analyseDefUse(f);
            if (f.name.find("div_sqrt_calls") != std::string::npos) fn = &f;
        }
        ASSERT_NE(fn, nullptr);
        const Cfg cfg = buildCfg(*fn);
        const auto deps = computeDependencies(*fn, cfg);
        std::map<std::string, int> resultsOf, argumentsOf;
        for (const auto& e : deps) {
            if (e.callee.empty()) continue;
            const auto& from = fn->instructions[static_cast<size_t>(fn->indexOf(e.from))];
            const auto& to = fn->instructions[static_cast<size_t>(fn->indexOf(e.to))];
            ASSERT_TRUE(from.mnemonic == "CALL" || to.mnemonic == "CALL") << e.resource;
            if (from.mnemonic == "CALL") {
                ++resultsOf[e.callee];
                EXPECT_NE(from.text.find(e.callee.substr(0, e.callee.find('('))), std::string::npos) << from.text;
                // The consumer reads the register (a real use, not the callee's own code), or is
                // itself a call whose callee reads it.
                bool reads = to.mnemonic == "CALL";
                for (const auto& u : names(to.uses)) reads |= u == e.resource;
                EXPECT_TRUE(reads) << to.text << " " << e.resource;
                EXPECT_GT(e.to, e.from) << "a result is used after the call returns";
            } else {
                ++argumentsOf[e.callee];
                bool writes = false;
                for (const auto& d : names(from.defs)) writes |= d == e.resource;
                EXPECT_TRUE(writes) << from.text << " " << e.resource;
            }
        }
        // The quotient of `a / b` and the square root come back from their slow paths, and the
        // __noinline__ blend(q, r, b) takes three arguments and returns one value.
        auto count = [](const std::map<std::string, int>& m, const std::string& part) {
            int n = 0;
            for (const auto& [k, v] : m)
                if (k.find(part) != std::string::npos) n += v;
            return n;
        };
        EXPECT_GE(count(resultsOf, "div_rn"), 1);
        EXPECT_GE(count(resultsOf, "sqrt_rn"), 1);
        EXPECT_GE(count(resultsOf, "blend(float, float, float)"), 1);
        EXPECT_GE(count(argumentsOf, "blend(float, float, float)"), 3);
    }
}
