// The theoretical occupancy calculator (core/analysis/occupancy.h): reference values worked by
// hand with the CUDA occupancy calculator's rules.
#include "core/analysis/occupancy.h"
#include "core/parse/ptx_parser.h"
#include "core/run/measure_job.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

// Launch bounds change occupancy: the header-resident golden kernels were compiled with
// __launch_bounds__(TILE*TILE, 2); their block size comes from .maxntid, a larger block is
// refused, and the default launch uses it instead of 256.
TEST(Occupancy, LaunchBoundsGiveTheBlockSize) {
    const auto path = std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "tests" / "data" / "sm_90" / "header_family.ptx";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no golden data (scripts/gen-golden)";
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    const PtxListing ptx = parsePtx(text.str());
    const PtxFunction* small = nullptr;
    for (const auto& fn : ptx.functions)
        if (fn.isEntry && fn.launchBounds.maxThreads() == 64) small = &fn;
    ASSERT_NE(small, nullptr);
    std::string origin;
    EXPECT_EQ(launchBoundsBlockSize(small->launchBounds, &origin), 64);
    EXPECT_EQ(origin, "__launch_bounds__ (.maxntid 64)");
    const ArchLimits limits = archLimits("sm_90");
    // 32 registers: at 256 threads the warps limit (8 blocks × 8 warps); at the bounds' 64
    // threads the block slots do (32 blocks × 2 warps).
    const TheoreticalOccupancy unbounded = computeOccupancy(limits, 32, 0, 256);
    const TheoreticalOccupancy bounded = computeOccupancy(limits, 32, 0, launchBoundsBlockSize(small->launchBounds), &small->launchBounds);
    // (Both fill the SM's 64 warps: the occupancy figure is the same, the blocks are not.)
    EXPECT_EQ(unbounded.blocksPerSm, 8);
    EXPECT_EQ(bounded.blocksPerSm, 32);
    EXPECT_EQ(bounded.warpsPerSm, 64);
    // The launch the default would have made cannot work.
    const TheoreticalOccupancy refused = computeOccupancy(limits, 32, 0, 256, &small->launchBounds);
    EXPECT_EQ(refused.limiter, OccupancyLimiter::Invalid);
    EXPECT_NE(refused.problem.find("__launch_bounds__"), std::string::npos) << refused.problem;
    // The measure pane's default launch follows the bounds.
    std::string launchOrigin;
    const LaunchText l = defaultLaunch("", small->name, small->params, &launchOrigin, &small->launchBounds);
    EXPECT_EQ(l.block, std::vector<std::string>{"64"});
    EXPECT_EQ(l.grid, std::vector<std::string>{"16384"}); // still covers the 1 Mi-element buffers
    EXPECT_NE(launchOrigin.find("__launch_bounds__"), std::string::npos) << launchOrigin;
    EXPECT_EQ(defaultLaunch("", small->name, small->params).block, std::vector<std::string>{"256"});
}

TEST(Occupancy, RequiredBlockSize) {
    PtxLaunchBounds b;
    b.reqntid[0] = 32;
    b.reqntid[1] = 4;
    b.reqntid[2] = 1;
    std::string origin;
    EXPECT_EQ(launchBoundsBlockSize(b, &origin), 128);
    EXPECT_EQ(origin, "the kernel's required block size (.reqntid 32, 4)");
    EXPECT_EQ(checkBlockSize(b, 128), "");
    EXPECT_NE(checkBlockSize(b, 64), "");
    EXPECT_EQ(computeOccupancy(archLimits("sm_80"), 16, 0, 96, &b).limiter, OccupancyLimiter::Invalid);
    const LaunchText l = defaultLaunch("", "k", {}, nullptr, &b);
    EXPECT_EQ(l.block, (std::vector<std::string>{"32", "4"}));
    EXPECT_EQ(launchBoundsBlockSize(PtxLaunchBounds{}), 0);
}
