// SASS parser unit tests on excerpts of real nvdisasm 13.2 output (sm_90) and on bad input.

#include "core/parse/sass_parser.h"
#include "core/parse/listing_json.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <random>

using namespace lowerscope;

namespace {

// From `nvdisasm -c -hex -gi` of kernels/reduction.cu (sm_90), trimmed; one label line, an
// inline chain block and a backtick branch.
const char* kListing = R"(	.target	sm_90

//--------------------- .text._Z10reduce_sumPKfPfi --------------------------
	.section	.text._Z10reduce_sumPKfPfi,"ax",@progbits
_Z10reduce_sumPKfPfi:
.text._Z10reduce_sumPKfPfi:
	//## File "kernels/reduction.cu", line 30
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                   /* 0x00000a00ff017b82 */
                                                                                            /* 0x000fe20000000800 */
	//## File "kernels/reduction.cu", line 33
        /*0010*/               @P0 BRA `(.L_x_1) ;                                          /* 0x00000000002c0947 */
                                                                                            /* 0x000fea0003800000 */
        /*0020*/                   LDG.E.CONSTANT R3, desc[UR6][R2.64+0x10] ;                /* 0x0000000602037981 */
                                                                                            /* 0x000ea2000c1e9900 */
.L_x_1:
	//## File "/usr/include/sm_30_intrinsics.hpp", line 440 inlined at "kernels/reduction.cu", line 7
	//## File "kernels/reduction.cu", line 7 inlined at "kernels/reduction.cu", line 17
	//## File "kernels/reduction.cu", line 17 inlined at "kernels/reduction.cu", line 36
	//## File "kernels/reduction.cu", line 36
        /*0030*/                   SHFL.DOWN PT, R3, R6, 0x10, 0x1f ;                       /* 0x0a001f0006037f89 */
                                                                                            /* 0x000e2200000e0000 */
        /*0040*/              @!P1 FFMA R4, -|R12|.reuse, R7, -0.0013887860113754868507 ;    /* 0x0000000000000000 */
                                                                                            /* 0x000fe20000000000 */
        /*0050*/                   RET.REL.NODEC R4 `(_Z10reduce_sumPKfPfi) ;               /* 0x0000000000000000 */
                                                                                            /* 0x000fe20000000000 */
.L_x_2:
)";

} // namespace

TEST(SassParser, ParsesInstructionsLabelsAndEncodings) {
    const auto l = parseSass(kListing);
    EXPECT_EQ(l.arch, "sm_90");
    ASSERT_EQ(l.functions.size(), 1u);
    const auto& f = l.functions[0];
    EXPECT_EQ(f.name, "_Z10reduce_sumPKfPfi");
    ASSERT_EQ(f.instructions.size(), 6u);
    EXPECT_EQ(f.labels.at(".L_x_1"), 0x30u);
    EXPECT_EQ(f.labels.at(".L_x_2"), 0x60u); // after the last instruction: the function end

    const auto& ldc = f.instructions[0];
    EXPECT_EQ(ldc.opcode, "LDC");
    EXPECT_TRUE(ldc.hasEncoding);
    EXPECT_EQ(ldc.encodingLo, 0x00000a00ff017b82ull);
    EXPECT_EQ(ldc.encodingHi, 0x000fe20000000800ull);
    EXPECT_EQ(ldc.control.stall, 1);
    EXPECT_EQ(ldc.operands[1].kind, OperandKind::Constant);
    EXPECT_EQ(ldc.source.line, 30);

    const auto& bra = f.instructions[1];
    EXPECT_EQ(bra.predicate, "@P0");
    EXPECT_EQ(bra.text, "@P0 BRA `(.L_x_1)");
    ASSERT_EQ(bra.operands.size(), 1u);
    EXPECT_EQ(bra.operands[0].kind, OperandKind::Label);
    EXPECT_EQ(bra.operands[0].target, 0x30u);
    EXPECT_EQ(bra.branchTarget, 0x30u);
    EXPECT_EQ(bra.source.line, 33);

    const auto& ldg = f.instructions[2];
    EXPECT_EQ(ldg.mnemonic, "LDG");
    EXPECT_EQ(ldg.modifiers, (std::vector<std::string>{"E", "CONSTANT"}));
    EXPECT_EQ(ldg.source.line, 33); // location persists until the next //## File block
    ASSERT_EQ(ldg.operands.size(), 2u);
    EXPECT_EQ(ldg.operands[1].kind, OperandKind::Memory);
    // A memory descriptor is a 64-bit pair although printed as `desc[UR6]`.
    EXPECT_EQ(ldg.operands[1].regs, (std::vector<RegRange>{{RegClass::UR, 6, 2}, {RegClass::R, 2, 2}}));

    const auto& shfl = f.instructions[3];
    EXPECT_EQ(shfl.source.file, "/usr/include/sm_30_intrinsics.hpp");
    EXPECT_EQ(shfl.source.line, 440);
    ASSERT_EQ(shfl.source.inlinedAt.size(), 3u);
    EXPECT_EQ(shfl.source.inlinedAt[0], (SourceFrame{"kernels/reduction.cu", 7, 0}));
    EXPECT_EQ(shfl.source.inlinedAt[1], (SourceFrame{"kernels/reduction.cu", 17, 0}));
    EXPECT_EQ(shfl.source.inlinedAt[2], (SourceFrame{"kernels/reduction.cu", 36, 0}));
    EXPECT_EQ(shfl.operands[0].kind, OperandKind::Predicate);
    EXPECT_TRUE(shfl.operands[0].regs.empty()); // PT is never a dependency

    const auto& ffma = f.instructions[4];
    EXPECT_EQ(ffma.predicate, "@!P1");
    ASSERT_EQ(ffma.operands.size(), 4u);
    EXPECT_TRUE(ffma.operands[1].negated);
    EXPECT_TRUE(ffma.operands[1].absolute);
    EXPECT_TRUE(ffma.operands[1].reuse);
    EXPECT_EQ(ffma.operands[1].regs, (std::vector<RegRange>{{RegClass::R, 12, 1}}));
    EXPECT_EQ(ffma.operands[3].kind, OperandKind::Immediate);

    const auto& ret = f.instructions[5];
    ASSERT_EQ(ret.operands.size(), 2u);
    EXPECT_EQ(ret.operands[0].kind, OperandKind::Register);
    EXPECT_EQ(ret.operands[1].kind, OperandKind::Label);
    EXPECT_FALSE(ret.branchTarget.has_value()); // RET names its own function, not a target
}

TEST(SassParser, OperandForms) {
    struct C {
        const char* text;
        OperandKind kind;
        std::vector<RegRange> regs;
    };
    const std::vector<C> cases = {
        {"R2.64", OperandKind::Register, {{RegClass::R, 2, 2}}},
        {"RZ", OperandKind::Register, {}},
        {"-RZ", OperandKind::Register, {}},
        {"URZ", OperandKind::UniformRegister, {}},
        {"UR4", OperandKind::UniformRegister, {{RegClass::UR, 4, 1}}},
        {"!UP1", OperandKind::UniformPredicate, {{RegClass::UP, 1, 1}}},
        {"UPT", OperandKind::UniformPredicate, {}},
        {"!PT", OperandKind::Predicate, {}},
        {"P6", OperandKind::Predicate, {{RegClass::P, 6, 1}}},
        {"~R5", OperandKind::Register, {{RegClass::R, 5, 1}}},
        {"R2.H0_H0", OperandKind::Register, {{RegClass::R, 2, 1}}},
        {"c[0x0][0x210]", OperandKind::Constant, {}},
        {"cx[UR4][R2+0x8]", OperandKind::Constant, {{RegClass::UR, 4, 1}, {RegClass::R, 2, 1}}},
        {"[R2.64]", OperandKind::Memory, {{RegClass::R, 2, 2}}},
        {"[R3+UR4+0x10]", OperandKind::Memory, {{RegClass::R, 3, 1}, {RegClass::UR, 4, 1}}},
        {"[UR8.64]", OperandKind::Memory, {{RegClass::UR, 8, 2}}},
        {"desc[UR4][R2.128]", OperandKind::Memory, {{RegClass::UR, 4, 2}, {RegClass::R, 2, 4}}},
        {"0x1f", OperandKind::Immediate, {}},
        {"-1", OperandKind::Immediate, {}},
        {"1.847743988037109375e-06", OperandKind::Immediate, {}},
        {"+INF", OperandKind::Immediate, {}},
        {"-QNAN", OperandKind::Immediate, {}},
        {"`(.L_x_5)", OperandKind::Label, {}},
        {"(.L_x_3)", OperandKind::Label, {}},
        {"SR_TID.X", OperandKind::Special, {}},
        {"SR_CgaCtaId", OperandKind::Special, {}},
        {"B0", OperandKind::Other, {}},
        {"RZERO", OperandKind::Other, {}},
    };
    for (const auto& c : cases) {
        const Operand o = parseOperand(c.text);
        EXPECT_EQ(o.kind, c.kind) << c.text;
        EXPECT_EQ(o.regs, c.regs) << c.text;
        EXPECT_EQ(o.text, c.text);
    }
}

TEST(SassParser, GpAndLiveColumnsMerge) {
    const char* gp = R"(	.section	.text.k,"ax",@progbits
	//## File "kernels/saxpy.cu", line 3
	//## File ".nv_debug_ptx_txt", line 21
        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */
                                                            /* 0x000fe20000000800 */
	//## File ".nv_debug_ptx_txt", line 35
        /*0010*/                   S2R R3, SR_CTAID.X ;     /* 0x0000000000037919 */
                                                            /* 0x000e220000002500 */
        /*0020*/                   EXIT ;                   /* 0x000000000000794d */
                                                            /* 0x000fea0003800000 */
)";
    const char* live = R"(	.section	.text.k,"ax",@progbits
                                 // +-------+--------+---------+
                                 // | GPR   | UGPR   | UPRED   |
                                 // |   #   |    #   |    #    |
        /*0000*/                   LDC R1, c[0x0][0x28] ;   // |   4   |        |         |
        /*0010*/                   S2R R3, SR_CTAID.X ;     // |   5   |   2    |    1    |
        /*0020*/                   EXIT ;                   // |   1   |        |         |
)";
    const auto l = parseSassTexts("", gp, live);
    ASSERT_EQ(l.functions.size(), 1u);
    const auto& ins = l.functions[0].instructions;
    ASSERT_EQ(ins.size(), 3u);
    EXPECT_EQ(ins[0].ptxLine, 21);
    EXPECT_EQ(ins[1].ptxLine, 35);
    EXPECT_EQ(ins[2].ptxLine, 35);
    EXPECT_EQ(ins[2].source.line, 3);
    EXPECT_EQ(ins[0].live, (LiveCounts{4, 0, 0, 0}));
    EXPECT_EQ(ins[1].live, (LiveCounts{5, 0, 2, 1})); // no PRED column: none live
    EXPECT_EQ(ins[2].live, (LiveCounts{1, 0, 0, 0}));
    EXPECT_TRUE(ins[1].hasEncoding);
}

TEST(SassParser, MultipleFunctions) {
    const char* two = R"(	.section	.text.a,"ax",@progbits
        /*0000*/                   EXIT ;
.L_x_0:
        /*0010*/                   BRA `(.L_x_0);
	.section	.text.b,"ax",@progbits
.L_x_0:
        /*0000*/                   BRA `(.L_x_0);
	.section	.nv.constant0.b,"a",@progbits
)";
    const auto l = parseSass(two);
    ASSERT_EQ(l.functions.size(), 2u);
    EXPECT_EQ(l.functions[0].name, "a");
    EXPECT_EQ(l.functions[1].name, "b");
    EXPECT_EQ(l.functions[0].instructions[1].branchTarget, 0x10u);
    EXPECT_EQ(l.functions[1].instructions[0].branchTarget, 0x0u);
    EXPECT_FALSE(l.functions[0].instructions[0].hasEncoding);
}

TEST(SassParser, SurvivesGarbage) {
    // Deterministic noise built from listing fragments: must not crash or hang.
    const std::vector<std::string> parts = {"/*", "*/", "0x", "ffff", " ", "\n", "//## File \"", "\", line ",
                                            "inlined at", "@!P", "R2.64", "[", "]", "`(", ")", ";", ",", ":",
                                            ".L_x_1", ".section .text.", "// |", "|", "12", "desc[UR4]", "\t"};
    std::mt19937 rng(42);
    for (int round = 0; round < 300; ++round) {
        std::string s;
        const int n = static_cast<int>(rng() % 400);
        for (int i = 0; i < n; ++i) s += parts[rng() % parts.size()];
        const auto l = parseSass(s);
        for (const auto& f : l.functions)
            for (const auto& ins : f.instructions) EXPECT_LE(ins.operands.size(), s.size());
    }
    EXPECT_TRUE(parseSass("").functions.empty());
    EXPECT_TRUE(parseSass("\n\n\n").functions.empty());
}

// parseSassTexts parses the -gi -gp text alone when it is given; it must yield exactly what parsing
// the -gi text and merging the -gp and -lrm variants into it yields, for every golden kernel/arch.
TEST(SassParser, EveryGoldenKernelGpAloneEqualsMergedTexts) {
    namespace fs = std::filesystem;
    auto slurp = [](const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    };
    int compared = 0;
    for (const auto& archDir : fs::directory_iterator(fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/data")) {
        if (!archDir.is_directory() || archDir.path().filename().string().rfind("sm_", 0) != 0) continue;
        for (const auto& f : fs::directory_iterator(archDir.path())) {
            const std::string name = f.path().filename().string();
            if (name.size() < 6 || name.substr(name.size() - 5) != ".sass" || name.find('.') != name.size() - 5)
                continue;
            const std::string stem = name.substr(0, name.size() - 5);
            const std::string gi = slurp(f.path());
            const std::string gp = slurp(archDir.path() / (stem + ".gp.sass"));
            const std::string lrm = slurp(archDir.path() / (stem + ".lrm.sass"));
            ASSERT_FALSE(gp.empty()) << f.path();
            SassListing reference = parseSass(gi);
            mergeSass(reference, parseSass(gp));
            mergeSass(reference, parseSass(lrm));
            const SassListing fast = parseSassTexts(gi, gp, lrm);
            ASSERT_EQ(reference.functions.size(), fast.functions.size()) << f.path();
            for (size_t i = 0; i < fast.functions.size(); ++i) {
                ASSERT_EQ(reference.functions[i].instructions.size(), fast.functions[i].instructions.size());
                for (size_t k = 0; k < fast.functions[i].instructions.size(); ++k) {
                    nlohmann::json a = reference.functions[i].instructions[k];
                    nlohmann::json b = fast.functions[i].instructions[k];
                    ASSERT_EQ(a.dump(), b.dump()) << f.path() << " function " << i << " instruction " << k;
                }
                EXPECT_EQ(reference.functions[i].labels, fast.functions[i].labels);
            }
            ++compared;
        }
    }
    EXPECT_GE(compared, 18);
}

// applyLiveCounts matches by function name and address, whatever the order of functions in the
// -lrm text; a function or address only there is ignored; a class without a column counts 0.
TEST(SassParser, ApplyLiveCountsMatchesFunctionsAndAddresses) {
    const char* base = R"(	.target	sm_90
//--------------------- .text.f --------------------------
	.section	.text.f,"ax",@progbits
        /*0000*/                   MOV R1, R2 ;
        /*0010*/                   MOV R3, R4 ;
        /*0020*/                   EXIT ;
//--------------------- .text.g --------------------------
	.section	.text.g,"ax",@progbits
        /*0000*/                   MOV R5, R6 ;
        /*0010*/                   EXIT ;
)";
    const char* live = R"(//--------------------- .text.h --------------------------
	.section	.text.h,"ax",@progbits
                                                       // | GPR   | PRED   | UGPR   |
        /*0000*/                   MOV R9, R9 ;        // |   9   |   9    |   9    |
//--------------------- .text.g --------------------------
	.section	.text.g,"ax",@progbits
                                                       // | GPR   | UGPR   |
        /*0000*/                   MOV R5, R6 ;        // |   7   |   2    |
        /*0010*/                   EXIT ;              // |       |        |
//--------------------- .text.f --------------------------
	.section	.text.f,"ax",@progbits
                                                       // | GPR   | PRED   | UGPR   |
        /*0000*/                   MOV R1, R2 ;        // |   3   |   1    |        |
        /*0020*/                   EXIT ;              // |   1   |        |   4    |
        /*0030*/                   NOP ;               // |  11   |   1    |   1    |
)";
    SassListing l = parseSass(base);
    ASSERT_EQ(l.functions.size(), 2u);
    l.functions[0].instructions[0].live.gpr = 42; // present counts are kept
    applyLiveCounts(l, live);
    const auto& f = l.functions[0].instructions;
    EXPECT_EQ(f[0].live, (LiveCounts{42, 1, 0, 0}));
    EXPECT_EQ(f[1].live, LiveCounts{}); // no row for 0x10
    EXPECT_EQ(f[2].live, (LiveCounts{1, 0, 4, 0}));
    const auto& g = l.functions[1].instructions;
    EXPECT_EQ(g[0].live, (LiveCounts{7, 0, 2, 0})); // no PRED column: 0
    EXPECT_EQ(g[1].live, (LiveCounts{0, 0, 0, 0}));
    // The same as parsing the live text and merging it.
    SassListing merged = parseSass(base);
    merged.functions[0].instructions[0].live.gpr = 42;
    mergeSass(merged, parseSass(live));
    for (size_t fi = 0; fi < 2; ++fi)
        for (size_t k = 0; k < merged.functions[fi].instructions.size(); ++k)
            EXPECT_EQ(merged.functions[fi].instructions[k].live, l.functions[fi].instructions[k].live) << fi << ":" << k;
}

// The final self-branch and the NOPs after it pad the function: nvdisasm prints no line for them,
// and they inherited the last one (header_family's is its header's line 22, a toolkit header's in
// others). Over every recorded listing: padding has no source and no PTX line, the EXIT before it
// keeps its own (issue 35 item 11).
TEST(SassParser, TrailingPaddingHasNoLine) {
    namespace fs = std::filesystem;
    auto slurp = [](const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    };
    int functions = 0, padded = 0;
    for (const auto& archDir : fs::directory_iterator(fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/data")) {
        if (!archDir.is_directory() || archDir.path().filename().string().rfind("sm_", 0) != 0) continue;
        for (const auto& f : fs::directory_iterator(archDir.path())) {
            const std::string name = f.path().filename().string();
            if (name.size() < 9 || name.substr(name.size() - 8) != ".gp.sass") continue;
            const SassListing listing = parseSass(slurp(f.path()));
            for (const SassFunction& fn : listing.functions) {
                SCOPED_TRACE(f.path().string() + " " + fn.name);
                const auto& ins = fn.instructions;
                size_t first = ins.size(); // the first padding instruction
                while (first > 0 && ins[first - 1].mnemonic == "NOP") --first;
                ASSERT_GT(first, 0u);
                const SassInstruction& loop = ins[first - 1];
                ASSERT_EQ(loop.mnemonic, "BRA");
                ASSERT_EQ(loop.branchTarget, std::optional<uint32_t>(loop.address));
                --first;
                ++functions;
                for (size_t i = first; i < ins.size(); ++i) {
                    EXPECT_FALSE(ins[i].source.valid()) << ins[i].text << " @" << ins[i].address << " "
                                                        << ins[i].source.file << ":" << ins[i].source.line;
                    EXPECT_EQ(ins[i].ptxLine, 0) << ins[i].text << " @" << ins[i].address;
                }
                padded += int(ins.size() - first);
                // The code before the padding keeps its lines (an EXIT, a RET, a branch to the
                // exit).
                ASSERT_GT(first, 0u);
                const SassInstruction& exit = ins[first - 1];
                EXPECT_TRUE(exit.source.valid()) << exit.text;
                EXPECT_GT(exit.ptxLine, 0) << exit.text;
            }
        }
    }
    EXPECT_GE(functions, 27);
    EXPECT_GT(padded, functions);
}
