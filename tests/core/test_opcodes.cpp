// The opcode table: every opcode and PTX instruction in the golden listings has an entry, the JSON
// is well formed, and the lookups behave.
#include "analysis_util.h"

#include "core/parse/opcodes.h"
#include "core/parse/ptx_parser.h"

#include <gtest/gtest.h>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include <set>

using namespace lowerscope;
using namespace lowerscope::testutil;

TEST(Opcodes, JsonIsWellFormedAndComplete) {
    const auto doc = nlohmann::json::parse(kOpcodesJson, nullptr, false);
    ASSERT_TRUE(doc.is_object());
    ASSERT_TRUE(doc["sass"].is_object());
    ASSERT_TRUE(doc["ptx"].is_object());
    const std::set<std::string> known = {"first", "none", "predicates", "allButLast", "tex"};
    for (auto& [k, v] : doc["sass"].items()) {
        SCOPED_TRACE(k);
        ASSERT_TRUE(v.is_object());
        const std::string cat = v.value("category", "");
        EXPECT_STREQ(categoryName(categoryFromName(cat)), cat.c_str()) << "unknown category";
        EXPECT_FALSE(v.value("description", "").empty());
        if (v.contains("defs")) EXPECT_TRUE(known.count(v["defs"].get<std::string>()));
        if (v.value("category", "") == "Memory") EXPECT_TRUE(v.contains("space")) << "memory op without space";
        const OpcodeInfo* info = lookupSassOpcode(k);
        ASSERT_NE(info, nullptr);
        EXPECT_EQ(info->description, v["description"].get<std::string>());
    }
    for (auto& [k, v] : doc["ptx"].items()) EXPECT_TRUE(v.is_string() && !v.get<std::string>().empty()) << k;
    EXPECT_GT(sassMnemonics().size(), 150u);
}

TEST(Opcodes, LookupsAndModifiers) {
    const OpcodeInfo* ldg = lookupSassOpcode("LDG");
    ASSERT_NE(ldg, nullptr);
    EXPECT_EQ(ldg->category, InstrCategory::Memory);
    EXPECT_EQ(ldg->space, "global");
    EXPECT_EQ(lookupSassOpcode("LDG.E"), nullptr); // base mnemonics only
    EXPECT_EQ(lookupSassOpcode("NOT_AN_OPCODE"), nullptr);
    EXPECT_EQ(lookupSassOpcode("FFMA")->category, InstrCategory::FP32);
    EXPECT_EQ(lookupSassOpcode("DFMA")->category, InstrCategory::FP64);
    EXPECT_EQ(lookupSassOpcode("HMMA")->category, InstrCategory::Tensor);
    EXPECT_EQ(lookupSassOpcode("BRA")->flow, FlowKind::Branch);
    EXPECT_EQ(lookupSassOpcode("EXIT")->flow, FlowKind::Exit);
    EXPECT_EQ(lookupSassOpcode("ISETP")->defs, DefRule::Predicates);
    EXPECT_EQ(lookupSassOpcode("STG")->defs, DefRule::None);

    EXPECT_FALSE(explainModifier("LDG", "E").empty());
    EXPECT_NE(explainModifier("LDG", "CONSTANT").find("Read-only"), std::string::npos);
    EXPECT_FALSE(explainModifier("FADD", "FTZ").empty());
    EXPECT_FALSE(explainModifier("STG", "STRONG").empty());
    EXPECT_FALSE(explainModifier("IMAD", "WIDE").empty());
    EXPECT_FALSE(explainModifier("LDG", "EF").empty());
    EXPECT_NE(explainModifier("HGMMA", "64x128x16").find("128"), std::string::npos);
    EXPECT_FALSE(explainModifier("LDTM", "x4").empty());
    EXPECT_EQ(explainModifier("FFMA", "NO_SUCH_MODIFIER"), "");
    // Opcode-specific text wins over the common one.
    EXPECT_NE(explainModifier("BAR", "RED"), explainModifier("FFMA", "RED"));

    ASSERT_NE(lookupPtxInstruction("ld.global.nc.f32"), nullptr);
    EXPECT_EQ(*lookupPtxInstruction("ld.global.nc.f32"), *lookupPtxInstruction("ld"));
    ASSERT_NE(lookupPtxInstruction("cp.async.bulk.tensor.2d.shared::cluster.global"), nullptr);
    EXPECT_NE(*lookupPtxInstruction("cp.async.bulk.tensor.2d.shared::cluster.global"), *lookupPtxInstruction("cp.async"));
    EXPECT_EQ(lookupPtxInstruction("frobnicate.u32"), nullptr);
}

// The PTX opcode of an instruction line: the first token after an optional `@%p` guard.
static std::string ptxOpcode(const std::string& text) {
    size_t i = text.find_first_not_of(" \t");
    if (i == std::string::npos) return {};
    if (text[i] == '@') {
        i = text.find_first_of(" \t", i);
        if (i == std::string::npos) return {};
        i = text.find_first_not_of(" \t", i);
        if (i == std::string::npos) return {};
    }
    size_t e = text.find_first_of(" \t;", i);
    return text.substr(i, e == std::string::npos ? std::string::npos : e - i);
}

TEST(Opcodes, EveryGoldenOpcodeHasAnEntry) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    std::set<std::string> missingSass, missingPtx;
    size_t seen = 0;
    for (const auto& arch : goldenArchs()) {
        for (const auto& k : goldenKernels(arch)) {
            for (const auto& f : loadGolden(arch, k).functions)
                for (const auto& ins : f.instructions) {
                    ++seen;
                    if (!lookupSassOpcode(ins.mnemonic)) missingSass.insert(ins.mnemonic + " (" + arch + "/" + k + ")");
                }
            const PtxListing ptx = parsePtx(readFile(dataDir() / arch / (k + ".ptx")));
            for (const auto& l : ptx.lines) {
                if (!l.isInstruction) continue;
                const std::string op = ptxOpcode(l.text);
                if (!op.empty() && !lookupPtxInstruction(op)) missingPtx.insert(op + " (" + arch + "/" + k + ")");
            }
        }
    }
    EXPECT_GT(seen, 100u);
    std::string ms, mp;
    for (const auto& m : missingSass) ms += " " + m;
    for (const auto& m : missingPtx) mp += " " + m;
    EXPECT_TRUE(missingSass.empty()) << "SASS opcodes without a table entry:" << ms;
    EXPECT_TRUE(missingPtx.empty()) << "PTX instructions without a table entry:" << mp;
}

// Issue 30 item 4: the modifiers of Hopper kernels that had no text.
TEST(Opcodes, HopperModifiersHaveText) {
    for (const auto& [op, mod] : std::vector<std::pair<const char*, const char*>>{
             {"LDSM", "16"}, {"STSM", "16"}, {"USETMAXREG", "TRY_ALLOC"}, {"USETMAXREG", "DEALLOC"},
             {"USETMAXREG", "CTAPOOL"}, {"UTMALDG", "MULTICAST"}})
        EXPECT_FALSE(explainModifier(op, mod).empty()) << op << "." << mod;
}
