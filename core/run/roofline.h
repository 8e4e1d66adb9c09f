#pragma once
// A roofline point from hardware evidence (issue 14, item 3): the floating-point operations a
// launch did, counted from the per-instruction thread counts (SASS Metrics) and each opcode's
// operations per thread (FFMA = 2, FADD = FMUL = 1, HFMA2 = 4, DFMA = 2, ...) rather than from a
// declared expression; DRAM bytes and duration from the kernel metrics; ceilings from the device.
//
// Counting rule: predicated-on thread instructions (smsp__sass_thread_inst_executed_pred_on; the
// plain thread count when that metric is absent), so lanes switched off by a guard or divergence do
// not count. Not counted, and reported as such: tensor-core instructions (HMMA, IMMA, HGMMA, ...:
// their work depends on the shape) and the register-zeroing idiom `HFMA2.MMA Rd, -RZ, RZ, ...`.
// Nsight Compute's SOL roofline counts the same FP32/FP64/FP16 opcodes the same way.

#include "core/model.h"
#include "core/run/profile_data.h"
#include "core/run/profile_join.h"

#include <cstdint>
#include <string>

namespace lowerscope {

struct FlopCount {
    double fp32 = 0, fp16 = 0, fp64 = 0; // operations
    uint64_t tensorInstructions = 0;      // warp-level tensor instructions executed (not counted)
    bool haveThreadCounts = false;        // some row carried a thread count
    double total() const { return fp32 + fp16 + fp64; }
};

// Floating-point operations per thread of one instruction (0 for everything else).
double flopsPerThread(const SassInstruction& instruction);
// Sums flopsPerThread × predicated-on thread count over `function`'s rows of `join`.
FlopCount countFlops(const SassFunction& function, const ProfileJoin& join);

struct RooflinePoint {
    bool valid = false;          // flops, bytes and time all known and positive
    std::string why;             // when !valid: what is missing
    double flops = 0;            // operations per launch
    double dramBytes = 0;        // read + written
    double seconds = 0;          // gpu__time_duration
    double intensity = 0;        // flops / byte
    double gflops = 0;           // achieved, GFLOP/s
    double peakGflops = 0;       // compute ceiling (FP32 unless the kernel is mostly FP64/FP16: see below)
    double peakGBs = 0;          // memory ceiling, GB/s
    double ridge = 0;            // flops/byte where the ceilings meet
    double roofGflops = 0;       // min(peakGflops, intensity × peakGBs)
    double fractionOfRoof = 0;   // gflops / roofGflops
    std::string bound;           // "memory" (left of the ridge) or "compute"
};

// The point of a launch. `metrics` are the kernel collection's (dram__bytes_read.sum,
// dram__bytes_write.sum, gpu__time_duration.sum); the FP32 ceiling is used (FP64 on a GPU with full
// FP64 rate is half of it; the point is labelled with the mix by the caller).
RooflinePoint rooflinePoint(const FlopCount& flops, const std::vector<ProfileMetric>& metrics, double peakGflops,
                            double peakGBs);

} // namespace lowerscope
