// The theoretical occupancy calculator (core/analysis/occupancy.h): reference values worked by
// hand with the CUDA occupancy calculator's rules.
#include "core/analysis/occupancy.h"

#include <gtest/gtest.h>

using namespace lowerscope;

namespace {

struct Case {
    const char* name;
    const char* arch;
    int regs, shared, block;
    int warps;
    OccupancyLimiter limiter;
};

const Case kCases[] = {
    {"sm_90 32 regs 256", "sm_90", 32, 0, 256, 64, OccupancyLimiter::Warps},
    {"sm_90 64 regs 256", "sm_90", 64, 0, 256, 32, OccupancyLimiter::Registers},
    // 72 regs: 2304/warp → 28 warps (floor to 4) → 3 blocks of 8 warps.
    {"sm_90 72 regs 256", "sm_90", 72, 0, 256, 24, OccupancyLimiter::Registers},
    // 48 KiB + 1 KiB reserved per block → 4 blocks in 228 KiB.
    {"sm_90 48K shared", "sm_90", 32, 49152, 256, 32, OccupancyLimiter::SharedMemory},
    // 32 threads per block: 32 block slots → 32 warps.
    {"sm_90 tiny blocks", "sm_90", 16, 0, 32, 32, OccupancyLimiter::Blocks},
    // sm_86: 48 warps per SM, 16 blocks.
    {"sm_86 32 regs 128", "sm_86", 32, 0, 128, 48, OccupancyLimiter::Warps},
    {"sm_75 32 regs 256", "sm_75", 32, 0, 256, 32, OccupancyLimiter::Warps},
};

} // namespace

TEST(Occupancy, ReferenceValues) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.name);
        const ArchLimits l = archLimits(c.arch);
        EXPECT_TRUE(l.known);
        const TheoreticalOccupancy o = computeOccupancy(l, c.regs, c.shared, c.block);
        EXPECT_EQ(o.warpsPerSm, c.warps);
        EXPECT_EQ(o.limiter, c.limiter);
        EXPECT_DOUBLE_EQ(o.occupancy, double(c.warps) / l.maxWarpsPerSm);
    }
}

TEST(Occupancy, UnknownArchAndInvalidConfigurations) {
    EXPECT_FALSE(archLimits("sm_999").known);
    EXPECT_EQ(computeOccupancy(archLimits("sm_90"), 300, 0, 128).limiter, OccupancyLimiter::Invalid);
    EXPECT_EQ(computeOccupancy(archLimits("sm_90"), 32, 0, 2048).limiter, OccupancyLimiter::Invalid);
    EXPECT_FALSE(computeOccupancy(archLimits("sm_90"), 32, 0, 2048).problem.empty());
}
