#pragma once
// Durations of cold samples on the GPU's own clocks, next to the CUDA events the procedure takes
// anyway: where the performance counters are open to this user, the Range Profiler's
// gpu__time_duration, which is the number Nsight Compute reports; else CUPTI's kernel timestamps
// (activity records, no special rights needed, but they slow writing kernels by a few %). Independent of the procedure that launches: it marks the
// launches to time and asks for their durations after the batch has finished.
//
//   clocks.beginBatch();  ... launch, clocks.markTimed(slot) ... (other launches unmarked)
//   wait for the batch;  clocks.endBatch(slots, timestampMs, gpuDurationMs);
//
// A clock that fails mid-run is switched off for the rest of the run (note() says why); the
// caller then falls back to the next clock for every variant alike.

#include "app/runner/cupti_api.h"
#include "app/runner/cupti_range.h"
#include "app/runner/cupti_timestamps.h"

#include <memory>
#include <string>
#include <vector>

namespace lowerscope::runner {

class DurationClocks {
public:
    // `cupti` null: CUPTI is not loaded; only `note()` says so.
    DurationClocks(const Cupti* cupti, CUcontext ctx, int deviceIndex)
        : m_cupti(cupti), m_ctx(ctx), m_device(deviceIndex) {}
    ~DurationClocks();
    DurationClocks(const DurationClocks&) = delete;
    DurationClocks& operator=(const DurationClocks&) = delete;

    // Enables the Range Profiler with gpu__time_duration.sum when `gpuDuration`, and kernel
    // activity records only where the profiler cannot run (the records slow writing kernels by a
    // few %; see gpu_clocks.cpp). What cannot be enabled is noted, not thrown.
    // $LOWERSCOPE_GPU_CLOCKS changes it for experiments: "duration" (Range Profiler only, never
    // records), "timestamps" (records only), "both" (records beside the profiler).
    void enable(bool gpuDuration);
    void disable();
    // Releases the Range Profiler (hot mode: graph replays are timed by events and node records;
    // or it got in the way of the procedure: `why` goes to note()).
    void stopGpuDuration(const std::string& why = "") {
        m_profiler.reset();
        m_inPass = false;
        if (!why.empty()) {
            m_note = why;
        }
    }
    bool timestamps() const { return m_timestamps && m_timestamps->enabled() && m_timestamps->records(); }
    bool gpuDuration() const { return m_profiler != nullptr; }
    // Why a GPU clock is missing ("" when both run).
    const std::string& note() const { return m_note; }

    void beginBatch();
    // Right after the cuLaunchKernel of the timed launch of `slot` (0-based within the batch).
    void markTimed(int slot);
    // After the batch's last launch completed: per slot, ms on each clock (NaN when missing).
    void endBatch(int slots, std::vector<double>& timestampMs, std::vector<double>& gpuDurationMs);
    // Hot mode: the median span (ms) of the graph nodes recorded since the last call; NaN if none.
    double graphNodeMedianMs();
    // Drops records of launches nobody asked about (warm-up, copies, helper kernels).
    void discard();

private:
    void dropProfiler(const std::string& why);

    const Cupti* m_cupti;
    CUcontext m_ctx;
    int m_device;
    std::unique_ptr<KernelTimestamps> m_timestamps;
    std::unique_ptr<RangeProfiler> m_profiler;
    std::string m_note;
    uint64_t m_batchFirstLaunch = 0;
    bool m_inPass = false;
    std::vector<uint32_t> m_correlation; // per slot
    std::vector<int64_t> m_rangeIndex;   // per slot: launches before it in the pass
};

} // namespace lowerscope::runner
