#pragma once
// Theoretical occupancy of one kernel on one architecture, computed the way NVIDIA's occupancy
// calculator does: blocks per SM are limited by warps, registers, shared memory and the block
// slot count; the smallest limit wins. Pure functions, no Qt.
//
// Per-architecture limits come from the CUDA C++ Programming Guide, "Compute Capabilities"
// (technical specifications table) and the occupancy calculator's allocation granularities:
//   registers: 64 K 32-bit registers per SM, allocated per warp in units of 256, at most 255 per
//              thread; warps are allocated to register banks in groups of 4 (warp granularity);
//   shared:    the largest configurable carveout per SM (e.g. 228 KiB on sm_90) is assumed, with
//              1 KiB reserved per block by the system on sm_80 and later, allocation unit 128 B.

#include "core/model.h"

#include <string>

namespace lowerscope {

struct ArchLimits {
    std::string arch;            // "sm_90"
    int maxThreadsPerBlock = 1024;
    int maxWarpsPerSm = 64;
    int maxBlocksPerSm = 32;
    int registersPerSm = 65536;
    int maxRegistersPerThread = 255;
    int registerAllocUnit = 256; // registers per warp are rounded up to this
    int warpAllocGranularity = 4;
    int sharedPerSm = 0;         // bytes, largest carveout
    int maxSharedPerBlock = 0;   // bytes (opt-in maximum)
    int sharedAllocUnit = 128;   // bytes
    int reservedSharedPerBlock = 0; // bytes the system reserves per block
    bool known = true;           // false: `arch` was not in the table, sm_90 limits are used
};

// Limits for "sm_90", "sm_90a", "compute_90", "90"... Unknown archs get sm_90's limits, known=false.
ArchLimits archLimits(const std::string& arch);

enum class OccupancyLimiter { None, Warps, Registers, SharedMemory, Blocks, Invalid };

// The calculator's answer (core/run/protocol.h's Occupancy is the figure the driver gave the runner).
struct TheoreticalOccupancy {
    int blocksPerSm = 0;
    int warpsPerSm = 0;          // active warps per SM
    double occupancy = 0;        // warpsPerSm / maxWarpsPerSm, 0..1
    int blocksByWarps = 0, blocksByRegisters = 0, blocksByShared = 0, blocksByBlockSlots = 0;
    OccupancyLimiter limiter = OccupancyLimiter::None;
    std::string problem;         // set with limiter Invalid (e.g. block larger than 1024 threads)
};

// registers: per thread (as reported by ptxas; <= 0 treated as 0; ptxas already honoured
// `.maxnreg` and `__launch_bounds__` when it chose them); sharedBytes: static + dynamic per block;
// blockSize: threads per block. With `bounds`, a block the kernel's launch bounds forbid is Invalid
// (checkBlockSize), as the launch would fail.
TheoreticalOccupancy computeOccupancy(const ArchLimits& limits, int registers, int sharedBytes, int blockSize,
                                      const PtxLaunchBounds* bounds = nullptr);

// The block size a kernel's launch bounds call for: `.reqntid` (the size it must be launched with),
// else `.maxntid` (the largest block it was compiled for, __launch_bounds__'s first argument);
// 0 when it has neither. `origin` (optional) says which, e.g. "__launch_bounds__ (.maxntid 128)".
int launchBoundsBlockSize(const PtxLaunchBounds& bounds, std::string* origin = nullptr);

// "" when a block of `blockSize` threads may launch the kernel; else why not (more threads than
// `.maxntid`, or not the `.reqntid` size).
std::string checkBlockSize(const PtxLaunchBounds& bounds, int blockSize);

const char* limiterName(OccupancyLimiter limiter);

} // namespace lowerscope
