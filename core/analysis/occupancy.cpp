#include "core/analysis/occupancy.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace lowerscope {

namespace {

int roundUp(int value, int unit) { return unit <= 0 ? value : (value + unit - 1) / unit * unit; }
int roundDown(int value, int unit) { return unit <= 0 ? value : value / unit * unit; }

struct Row {
    int cc; // compute capability ×10
    int threadsPerBlock, warpsPerSm, blocksPerSm, sharedPerSmKiB, sharedPerBlockKiB, reservedPerBlock,
        sharedUnit;
};

// CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" (CUDA 12/13).
constexpr std::array<Row, 14> kRows{{
    {60, 1024, 64, 32, 64, 48, 0, 256},
    {61, 1024, 64, 32, 96, 48, 0, 256},
    {62, 1024, 64, 32, 64, 48, 0, 256},
    {70, 1024, 64, 32, 96, 96, 0, 256},
    {72, 1024, 64, 32, 96, 96, 0, 256},
    {75, 1024, 32, 16, 64, 64, 0, 256},
    {80, 1024, 64, 32, 164, 163, 1024, 128},
    {86, 1024, 48, 16, 100, 99, 1024, 128},
    {87, 1024, 48, 16, 164, 163, 1024, 128},
    {89, 1024, 48, 24, 100, 99, 1024, 128},
    {90, 1024, 64, 32, 228, 227, 1024, 128},
    {100, 1024, 64, 32, 228, 227, 1024, 128},
    {103, 1024, 64, 32, 228, 227, 1024, 128},
    {120, 1024, 48, 32, 128, 99, 1024, 128},
}};

int parseCc(const std::string& arch) {
    std::string digits;
    for (char c : arch)
        if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    if (digits.empty() || digits.size() > 4) return 0;
    return std::stoi(digits);
}

} // namespace

ArchLimits archLimits(const std::string& arch) {
    ArchLimits limits;
    limits.arch = arch;
    const int cc = parseCc(arch);
    const Row* row = nullptr;
    for (const Row& r : kRows)
        if (r.cc == cc) row = &r;
    if (!row) {
        limits.known = false;
        for (const Row& r : kRows)
            if (r.cc == 90) row = &r;
    }
    limits.maxThreadsPerBlock = row->threadsPerBlock;
    limits.maxWarpsPerSm = row->warpsPerSm;
    limits.maxBlocksPerSm = row->blocksPerSm;
    limits.sharedPerSm = row->sharedPerSmKiB * 1024;
    limits.maxSharedPerBlock = row->sharedPerBlockKiB * 1024;
    limits.reservedSharedPerBlock = row->reservedPerBlock;
    limits.sharedAllocUnit = row->sharedUnit;
    return limits;
}

int launchBoundsBlockSize(const PtxLaunchBounds& b, std::string* origin) {
    auto dims = [](const int (&d)[3]) {
        std::string s = std::to_string(d[0]);
        if (d[1] > 1 || d[2] > 1) s += ", " + std::to_string(d[1]);
        if (d[2] > 1) s += ", " + std::to_string(d[2]);
        return s;
    };
    if (b.requiredThreads() > 0) {
        if (origin) *origin = "the kernel's required block size (.reqntid " + dims(b.reqntid) + ")";
        return b.requiredThreads();
    }
    if (b.maxThreads() > 0) {
        if (origin) *origin = "__launch_bounds__ (.maxntid " + dims(b.maxntid) + ")";
        return b.maxThreads();
    }
    return 0;
}

std::string checkBlockSize(const PtxLaunchBounds& b, int blockSize) {
    if (b.requiredThreads() > 0 && blockSize != b.requiredThreads())
        return "the kernel requires blocks of " + std::to_string(b.requiredThreads()) + " threads (.reqntid)";
    if (b.maxThreads() > 0 && blockSize > b.maxThreads())
        return "more threads than the kernel's __launch_bounds__ allow (" + std::to_string(b.maxThreads()) + ")";
    return {};
}

TheoreticalOccupancy computeOccupancy(const ArchLimits& limits, int registers, int sharedBytes, int blockSize,
                                      const PtxLaunchBounds* bounds) {
    TheoreticalOccupancy o;
    if (bounds) {
        if (std::string why = checkBlockSize(*bounds, blockSize); !why.empty()) {
            o.limiter = OccupancyLimiter::Invalid;
            o.problem = std::move(why);
            return o;
        }
    }
    registers = std::max(registers, 0);
    sharedBytes = std::max(sharedBytes, 0);
    if (blockSize <= 0 || blockSize > limits.maxThreadsPerBlock) {
        o.limiter = OccupancyLimiter::Invalid;
        o.problem = "block size must be 1.." + std::to_string(limits.maxThreadsPerBlock);
        return o;
    }
    if (registers > limits.maxRegistersPerThread) {
        o.limiter = OccupancyLimiter::Invalid;
        o.problem = "more than " + std::to_string(limits.maxRegistersPerThread) + " registers per thread";
        return o;
    }
    if (sharedBytes > limits.maxSharedPerBlock) {
        o.limiter = OccupancyLimiter::Invalid;
        o.problem = "shared memory per block exceeds " + std::to_string(limits.maxSharedPerBlock) + " bytes";
        return o;
    }
    const int warpsPerBlock = (blockSize + 31) / 32;
    o.blocksByWarps = limits.maxWarpsPerSm / warpsPerBlock;
    o.blocksByBlockSlots = limits.maxBlocksPerSm;
    if (registers == 0) {
        o.blocksByRegisters = limits.maxBlocksPerSm;
    } else {
        // Registers are given out per warp (rounded to the allocation unit), and warps to the
        // register file in groups of warpAllocGranularity.
        const int perWarp = roundUp(registers * 32, limits.registerAllocUnit);
        const int warps = roundDown(limits.registersPerSm / perWarp, limits.warpAllocGranularity);
        o.blocksByRegisters = warps / warpsPerBlock;
    }
    const int perBlock = roundUp(sharedBytes + limits.reservedSharedPerBlock, limits.sharedAllocUnit);
    o.blocksByShared = perBlock == 0 ? limits.maxBlocksPerSm : limits.sharedPerSm / perBlock;

    o.blocksPerSm = std::min({o.blocksByWarps, o.blocksByRegisters, o.blocksByShared, o.blocksByBlockSlots});
    // Name the first limit that binds, in the calculator's order of precedence.
    if (o.blocksPerSm == o.blocksByRegisters && o.blocksByRegisters < o.blocksByWarps)
        o.limiter = OccupancyLimiter::Registers;
    else if (o.blocksPerSm == o.blocksByShared && o.blocksByShared < o.blocksByWarps)
        o.limiter = OccupancyLimiter::SharedMemory;
    else if (o.blocksPerSm == o.blocksByBlockSlots && o.blocksByBlockSlots < o.blocksByWarps)
        o.limiter = OccupancyLimiter::Blocks;
    else
        o.limiter = OccupancyLimiter::Warps;
    o.warpsPerSm = o.blocksPerSm * warpsPerBlock;
    o.occupancy = double(o.warpsPerSm) / limits.maxWarpsPerSm;
    return o;
}

const char* limiterName(OccupancyLimiter limiter) {
    switch (limiter) {
    case OccupancyLimiter::None: return "none";
    case OccupancyLimiter::Warps: return "warps per SM";
    case OccupancyLimiter::Registers: return "registers";
    case OccupancyLimiter::SharedMemory: return "shared memory";
    case OccupancyLimiter::Blocks: return "blocks per SM";
    case OccupancyLimiter::Invalid: return "invalid configuration";
    }
    return "?";
}

} // namespace lowerscope
