// Hints for build failures a new user cannot read (issue 30 item 4): a wgmma kernel built for
// plain sm_90 ends in hundreds of ptxas errors that never name sm_90a.
#include "core/build/stages.h"

#include <gtest/gtest.h>

using namespace lowerscope;

TEST(BuildHints, ArchSpecificInstructionsNameTheArchSpecificTarget) {
    const std::string ptxas =
        "ptxas /tmp/tmpxft_00000cc4_00000000-6_wg.ptx, line 26; error   : Instruction 'wgmma.fence' not supported on "
        ".target 'sm_90'\nptxas fatal   : Ptx assembly aborted due to errors\n";
    const std::string hint = archSpecificHint(ptxas);
    EXPECT_NE(hint.find("sm_90a"), std::string::npos) << hint;
    EXPECT_NE(hint.find("wgmma.fence"), std::string::npos) << hint;
    EXPECT_NE(archSpecificHint("error   : Instruction 'tcgen05.alloc' not supported on .target 'sm_100'").find("sm_100a"),
              std::string::npos);
    // Other errors get no hint.
    EXPECT_EQ(archSpecificHint("ptxas error   : Entry function 'k' uses too much shared data"), "");
    EXPECT_EQ(archSpecificHint(""), "");
}
