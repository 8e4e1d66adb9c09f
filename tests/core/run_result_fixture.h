#pragma once
// Synthetic runner results for the tests of measurement documents and reports (test_measurement.cpp,
// report_test.cpp): built with the runner protocol types, no GPU.

#include "core/run/protocol.h"

#include <string>
#include <utility>
#include <vector>

namespace lowerscope::test {

inline VariantResult variant(const std::string& label, const std::string& kernel, std::vector<double> samples) {
    VariantResult v;
    v.label = label;
    v.kernel = kernel;
    v.mode = "cold";
    v.samplesMs = std::move(samples);
    v.resources.registers = label == "A" ? 24 : 14;
    v.resources.localBytes = 0;
    return v;
}

// A result where B's i-th sample is A's divided by `speedup`, with a deterministic wobble on A.
inline RunResult pairedResult(double speedup, double maxAbsError, bool agree = true) {
    RunResult r;
    r.id = "r1";
    r.device.name = "NVIDIA H200";
    r.device.ccMajor = 9;
    r.device.smCount = 132;
    std::vector<double> a, b;
    for (int i = 0; i < 101; ++i) {
        const double t = 0.150 + 0.0005 * ((i * 37) % 11); // ms
        a.push_back(t);
        b.push_back(t / speedup);
    }
    r.variants = {variant("A", "damped_wave", a), variant("B", "damped_wave", b)};
    OutputAgreement ag;
    ag.name = "y";
    ag.labelA = "A";
    ag.labelB = "B";
    ag.agree = agree;
    ag.count = 1 << 24;
    ag.mismatches = agree ? 0 : 1234;
    ag.maxAbsError = maxAbsError;
    ag.maxRelError = maxAbsError * 4;
    r.agreement = {ag};
    return r;
}

} // namespace lowerscope::test
