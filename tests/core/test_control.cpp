// Control-code decoding and its text form, checked against real sm_90 words (tests/data).

#include "golden_util.h"

#include "core/parse/control.h"
#include "core/parse/sass_parser.h"

#include <gtest/gtest.h>

using namespace lowerscope;

TEST(Control, DecodesRealWords) {
    // sm_90 reduction: `S2R R3, SR_CTAID.X` high word 0x000e220000002500: sets scoreboard 0.
    Control s2r = decodeControl(0x000e220000002500ull);
    EXPECT_EQ(s2r.writeBarrier, 0);
    EXPECT_EQ(s2r.readBarrier, -1);
    EXPECT_EQ(s2r.waitMask, 0);
    EXPECT_EQ(s2r.stall, 1);
    EXPECT_EQ((0x000e220000002500ull >> 45) & 1, 1u); // the yield bit is set ...
    EXPECT_FALSE(s2r.yieldHint);                       // ... so no hint, and the text shows '-'
    EXPECT_EQ(controlText(s2r), "B------:R-:W0:-:S01");
    // The IMAD reading R0/R3 (0x001fca000f8e0200) waits on scoreboard 0, stalls 5.
    Control imad = decodeControl(0x001fca000f8e0200ull);
    EXPECT_EQ(imad.waitMask, 1);
    EXPECT_EQ(imad.writeBarrier, -1);
    EXPECT_EQ(imad.stall, 5);
    EXPECT_EQ((0x001fca000f8e0200ull >> 45) & 1, 0u); // the bit is clear ...
    EXPECT_TRUE(imad.yieldHint);                        // ... the hint, the text's Y
    EXPECT_EQ(controlText(imad), "B0-----:R-:W-:Y:S05");
    // FADD after the LDG (0x004fd80000000000) waits on scoreboard 2.
    EXPECT_EQ(decodeControl(0x004fd80000000000ull).waitMask, 4);
    EXPECT_EQ(controlText(decodeControl(0x004fd80000000000ull)), "B--2---:R-:W-:Y:S12");
}

TEST(Control, RoundTripAllFields) {
    for (int stall = 0; stall < 16; stall += 5)
        for (int wb = -1; wb < 6; ++wb)
            for (int rb = -1; rb < 6; rb += 2)
                for (int mask = 0; mask < 64; mask += 21)
                    for (int y = 0; y < 2; ++y) {
                        Control c;
                        c.stall = stall;
                        c.writeBarrier = wb;
                        c.readBarrier = rb;
                        c.waitMask = static_cast<uint8_t>(mask);
                        c.yieldHint = y != 0;
                        c.reuse = static_cast<uint8_t>(mask & 0xf);
                        EXPECT_EQ(decodeControl(encodeControl(c)), c);
                        auto parsed = parseControlText(controlText(c));
                        ASSERT_TRUE(parsed.has_value()) << controlText(c);
                        Control noReuse = c;
                        noReuse.reuse = 0;
                        EXPECT_EQ(*parsed, noReuse);
                    }
}

TEST(Control, ParseTextRejectsMalformed) {
    EXPECT_TRUE(parseControlText("[B0-2---:R1:W3:Y:S04]").has_value());
    EXPECT_FALSE(parseControlText("").has_value());
    EXPECT_FALSE(parseControlText("B1-----:R-:W-:Y:S04").has_value()); // digit in wrong column
    EXPECT_FALSE(parseControlText("B------:R-:W-:Y:S16").has_value()); // stall > 15
    EXPECT_FALSE(parseControlText("B------:R-:W-:X:S04").has_value());
}

// ARCHITECTURE.md's claim on a real listing: each S2R producing a register sets a write barrier,
// and the first later instruction reading that register waits on it.
TEST(Control, ScoreboardProducerConsumerOnRealSm90) {
    const auto path = golden::dataDir() / "sm_90" / "reduction.sass";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no golden data";
    const auto listing = parseSass(golden::readFile(path));
    ASSERT_FALSE(listing.functions.empty());
    const auto& ins = listing.functions[0].instructions;
    int checked = 0;
    for (size_t i = 0; i < ins.size(); ++i) {
        if (ins[i].mnemonic != "S2R" || !ins[i].predicate.empty()) continue;
        const int sb = ins[i].control.writeBarrier;
        ASSERT_GE(sb, 0) << ins[i].text;
        const std::string reg = ins[i].operands[0].text;
        for (size_t j = i + 1; j < ins.size(); ++j) {
            bool reads = false;
            for (size_t k = 1; k < ins[j].operands.size(); ++k)
                if (ins[j].operands[k].text == reg || ins[j].operands[k].text == reg + ".reuse") reads = true;
            if (!reads) continue;
            EXPECT_TRUE(ins[j].control.waitMask & (1u << sb)) << ins[j].text;
            ++checked;
            break;
        }
    }
    EXPECT_GE(checked, 2);
}
