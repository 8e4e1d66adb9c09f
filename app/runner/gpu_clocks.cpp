// GPU clocks for cold samples: CUPTI kernel timestamps and the Range Profiler's gpu__time_duration.
#include "app/runner/gpu_clocks.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_map>

namespace lowerscope::runner {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Launches in one batch: the gate, then per sample the flush, the kernel and the clock probe.
constexpr size_t kMaxRangesPerBatch = 64;

} // namespace

DurationClocks::~DurationClocks() {
    disable();
}

void DurationClocks::enable(bool gpuDuration) {
    if (!m_cupti) {
        m_note = "CUPTI is not loaded";
        return;
    }
    const char* env = std::getenv("LOWERSCOPE_GPU_CLOCKS");
    const std::string only = env ? env : "";
    gpuDuration = gpuDuration && only != "timestamps";
    // Kernel activity records are not free: on an H200 they made a writing kernel (saxpy, 16M
    // floats) run 6 % longer (60.9 vs 56.7 us; with the Range Profiler alone the runner reads
    // 56.74 us against ncu's 56.7, docs/PERFORMANCE.md "Duration clocks"). So they are taken only
    // where the Range Profiler cannot give gpu__time_duration, or when an experiment asks
    // ("timestamps": records only; "both": records beside the profiler; "duration": never).
    const bool forced = only == "timestamps" || only == "both";
    bool records = forced || (!gpuDuration && only != "duration");
    m_timestamps = std::make_unique<KernelTimestamps>(*m_cupti);
    std::string detail;
    // The launch callback numbers the Range Profiler's ranges even when no records are wanted.
    CuptiFailure f = m_timestamps->enable(detail, records);
    if (f != CuptiFailure::None) {
        m_note = cuptiFailureMessage(f, "GPU kernel timestamps", detail);
        m_timestamps.reset();
        return;
    }
    if (only == "duration") {
        m_note = "kernel timestamps not taken (LOWERSCOPE_GPU_CLOCKS=duration)";
    }
    if (!gpuDuration) {
        return;
    }
    m_profiler = std::make_unique<RangeProfiler>(*m_cupti, m_ctx, m_device);
    f = m_profiler->open(detail);
    if (f == CuptiFailure::None) {
        f = m_profiler->configure({"gpu__time_duration.sum"}, kMaxRangesPerBatch, detail);
    }
    if (f == CuptiFailure::None) {
        return;
    }
    dropProfiler(cuptiFailureMessage(f, "gpu__time_duration per sample", detail));
    if (!records && only != "duration") {
        // No counters (e.g. not permitted): the activity records become the GPU clock.
        m_timestamps->disable();
        std::string why;
        if (m_timestamps->enable(why, true) != CuptiFailure::None) {
            m_timestamps.reset();
        }
    }
}

void DurationClocks::dropProfiler(const std::string& why) {
    m_profiler.reset();
    m_inPass = false;
    m_note = why;
}

void DurationClocks::disable() {
    m_profiler.reset();
    m_inPass = false;
    if (m_timestamps) {
        m_timestamps->disable();
        m_timestamps.reset();
    }
}

void DurationClocks::beginBatch() {
    m_correlation.clear();
    m_rangeIndex.clear();
    if (!m_timestamps) {
        return;
    }
    m_batchFirstLaunch = m_timestamps->launchCount();
    if (m_profiler) {
        std::string detail;
        CuptiFailure f = m_profiler->beginPass(detail);
        if (f != CuptiFailure::None) {
            dropProfiler(cuptiFailureMessage(f, "gpu__time_duration per sample", detail));
        } else {
            m_inPass = true;
        }
    }
}

void DurationClocks::markTimed(int slot) {
    if (!m_timestamps || slot < 0) {
        return;
    }
    const size_t s = static_cast<size_t>(slot);
    if (m_correlation.size() <= s) {
        m_correlation.resize(s + 1, 0);
        m_rangeIndex.resize(s + 1, -1);
    }
    m_correlation[s] = m_timestamps->lastLaunch();
    // The launch just made is number launchCount()-1; its automatic range is numbered from the
    // pass's first launch.
    m_rangeIndex[s] = static_cast<int64_t>(m_timestamps->launchCount() - 1 - m_batchFirstLaunch);
}

void DurationClocks::endBatch(int slots, std::vector<double>& timestampMs,
                              std::vector<double>& gpuDurationMs) {
    timestampMs.assign(static_cast<size_t>(std::max(slots, 0)), kNaN);
    gpuDurationMs.assign(static_cast<size_t>(std::max(slots, 0)), kNaN);
    if (!m_timestamps) {
        return;
    }
    std::unordered_map<uint32_t, KernelSpan> spans;
    m_timestamps->collect(spans);
    for (size_t s = 0; s < m_correlation.size() && s < timestampMs.size(); ++s) {
        auto it = spans.find(m_correlation[s]);
        if (m_correlation[s] != 0 && it != spans.end()) {
            timestampMs[s] = it->second.ms();
        }
    }
    if (m_profiler && m_inPass) {
        m_inPass = false;
        std::string detail;
        bool allDone = false;
        CuptiFailure f = m_profiler->endPass(allDone, detail);
        std::vector<std::vector<double>> values;
        if (f == CuptiFailure::None) {
            f = m_profiler->decode(values, detail);
        }
        if (f != CuptiFailure::None) {
            dropProfiler(cuptiFailureMessage(f, "gpu__time_duration per sample", detail));
            return;
        }
        for (size_t s = 0; s < m_rangeIndex.size() && s < gpuDurationMs.size(); ++s) {
            const int64_t r = m_rangeIndex[s];
            if (r >= 0 && static_cast<size_t>(r) < values.size() && !values[static_cast<size_t>(r)].empty()) {
                gpuDurationMs[s] = values[static_cast<size_t>(r)][0] * 1e-6; // ns → ms
            }
        }
    }
}

double DurationClocks::graphNodeMedianMs() {
    if (!timestamps()) {
        return kNaN;
    }
    std::unordered_map<uint32_t, KernelSpan> ignored;
    std::vector<KernelSpan> nodes;
    m_timestamps->collect(ignored, &nodes);
    if (nodes.empty()) {
        return kNaN;
    }
    std::vector<double> ms;
    for (const auto& n : nodes) {
        ms.push_back(n.ms());
    }
    std::nth_element(ms.begin(), ms.begin() + static_cast<long>(ms.size() / 2), ms.end());
    return ms[ms.size() / 2];
}

void DurationClocks::discard() {
    if (!timestamps()) {
        return;
    }
    std::unordered_map<uint32_t, KernelSpan> ignored;
    std::vector<KernelSpan> nodes;
    m_timestamps->collect(ignored, &nodes);
}

} // namespace lowerscope::runner
