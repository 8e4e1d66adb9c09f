// Roofline point from counts (roofline.h).
#include "core/run/roofline.h"

#include <algorithm>

namespace lowerscope {

namespace {

bool isTensor(const std::string& m) {
    return m == "HMMA" || m == "IMMA" || m == "DMMA" || m == "BMMA" || m == "HGMMA" || m == "IGMMA" || m == "QGMMA" ||
           m == "BGMMA" || m == "UTCHMMA" || m == "UTCIMMA" || m == "UTCQMMA" || m == "OMMA" || m == "QMMA";
}

} // namespace

double flopsPerThread(const SassInstruction& ins) {
    const std::string& m = ins.mnemonic;
    if (m == "FFMA" || m == "DFMA") return 2;
    if (m == "FADD" || m == "FMUL" || m == "DADD" || m == "DMUL") return 1;
    if (m == "FFMA2") return 4; // two lanes of FFMA (sm_100)
    if (m == "FADD2" || m == "FMUL2") return 2;
    if (m == "HADD2" || m == "HMUL2") return 2;
    if (m == "HFMA2") {
        // `HFMA2.MMA R, -RZ, RZ, imm, imm` is how ptxas writes a register move; nothing is computed.
        if (ins.operands.size() >= 3 && (ins.operands[1].text == "-RZ" || ins.operands[1].text == "RZ") &&
            ins.operands[2].text == "RZ")
            return 0;
        return 4;
    }
    return 0;
}

FlopCount countFlops(const SassFunction& f, const ProfileJoin& join) {
    FlopCount c;
    const size_t n = std::min(f.instructions.size(), join.rows.size());
    for (size_t i = 0; i < n; ++i) {
        const SassInstruction& ins = f.instructions[i];
        const ProfileTotals& t = join.rows[i].totals;
        const bool havePredOn = t.counts.count("smsp__sass_thread_inst_executed_pred_on") > 0;
        const bool haveThreads = havePredOn || t.counts.count("smsp__sass_thread_inst_executed") > 0;
        c.haveThreadCounts = c.haveThreadCounts || haveThreads;
        if (isTensor(ins.mnemonic)) {
            c.tensorInstructions += t.count("smsp__sass_inst_executed");
            continue;
        }
        const double per = flopsPerThread(ins);
        if (per == 0) continue;
        const double threads = double(havePredOn ? t.count("smsp__sass_thread_inst_executed_pred_on")
                                                 : t.count("smsp__sass_thread_inst_executed"));
        const std::string& m = ins.mnemonic;
        double& bucket = m[0] == 'D' ? c.fp64 : m[0] == 'H' ? c.fp16 : c.fp32;
        bucket += per * threads;
    }
    return c;
}

RooflinePoint rooflinePoint(const FlopCount& flops, const std::vector<ProfileMetric>& metrics, double peakGflops,
                            double peakGBs) {
    RooflinePoint p;
    p.flops = flops.total();
    const ProfileMetric* rd = findMetric(metrics, "dram__bytes_read.sum");
    const ProfileMetric* wr = findMetric(metrics, "dram__bytes_write.sum");
    const ProfileMetric* ns = findMetric(metrics, "gpu__time_duration.sum");
    p.dramBytes = (rd ? rd->value : 0) + (wr ? wr->value : 0);
    p.seconds = (ns ? ns->value : 0) * 1e-9;
    p.peakGflops = peakGflops;
    p.peakGBs = peakGBs;
    if (!flops.haveThreadCounts) p.why = "no per-instruction thread counts (collect instructions)";
    else if (p.flops <= 0) p.why = "no floating-point instructions executed";
    else if (!rd || !wr || !ns) p.why = "no DRAM bytes or duration (collect kernel metrics)";
    else if (p.dramBytes <= 0 || p.seconds <= 0) p.why = "zero DRAM bytes or duration";
    else if (peakGflops <= 0 || peakGBs <= 0) p.why = "the device's peaks are unknown";
    if (!p.why.empty()) return p;
    p.valid = true;
    p.intensity = p.flops / p.dramBytes;
    p.gflops = p.flops / p.seconds * 1e-9;
    p.ridge = peakGflops / peakGBs;
    p.roofGflops = std::min(peakGflops, p.intensity * peakGBs);
    p.fractionOfRoof = p.roofGflops > 0 ? p.gflops / p.roofGflops : 0;
    p.bound = p.intensity < p.ridge ? "memory" : "compute";
    return p;
}

} // namespace lowerscope
