#pragma once
// The GPU's own start and end timestamps of kernel launches, from CUPTI's activity records
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), matched to the launch by the correlation id that a
// driver-API callback on cuLaunchKernel reports. Timestamps are in ns on CUPTI's GPU clock; a
// kernel's span is end - start, the time from its first block starting to its last block ending
// (Nsight Systems shows the same span; Nsight Compute's gpu__time_duration adds ~1.1 µs of launch
// and teardown on an H200, see docs/PERFORMANCE.md).
//
// CUPTI allows one callback subscriber and one set of activity buffers per process, so at most one
// KernelTimestamps may be enabled at a time. Records arrive on CUPTI's threads; every member
// function may be called from the launching thread only.

#include "app/runner/cupti_api.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace lowerscope::runner {

// One kernel execution as CUPTI recorded it.
struct KernelSpan {
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    uint64_t graphNodeId = 0; // non-zero for a kernel launched by a graph node
    uint32_t graphId = 0;
    double ms() const { return static_cast<double>(endNs - startNs) * 1e-6; }
};

class KernelTimestamps {
public:
    explicit KernelTimestamps(const Cupti& cupti) : m_cupti(cupti) {}
    ~KernelTimestamps();
    KernelTimestamps(const KernelTimestamps&) = delete;
    KernelTimestamps& operator=(const KernelTimestamps&) = delete;

    // Subscribes to cuLaunchKernel and, with `records`, enables kernel activity records (without
    // them only lastLaunch()/launchCount() work). On failure nothing stays enabled and `detail`
    // holds CUPTI's error name.
    CuptiFailure enable(std::string& detail, bool records = true);
    // Flushes and drops pending records, disables the activity kind and unsubscribes.
    void disable();
    bool enabled() const { return m_enabled; }
    bool records() const { return m_records; }

    // Correlation id of the latest cuLaunchKernel of this process (0 before any): read it right
    // after a launch to know which record belongs to it.
    uint32_t lastLaunch() const;
    // cuLaunchKernel calls of this process since enable(): the Range Profiler's automatic ranges
    // are numbered in this order.
    uint64_t launchCount() const;
    // Flushes CUPTI's buffers and moves every kernel record received so far into `out`, keyed by
    // correlation id (graph replays: all nodes of one replay share the graph launch's id, so
    // those records are appended to `graphNodes` instead, in arrival order; dropped otherwise).
    // A launch whose record is missing (CUPTI dropped it) simply has no entry.
    void collect(std::unordered_map<uint32_t, KernelSpan>& out,
                 std::vector<KernelSpan>* graphNodes = nullptr);

private:
    const Cupti& m_cupti;
    bool m_enabled = false;
    bool m_records = false;
    CUpti_SubscriberHandle m_subscriber = nullptr;
};

} // namespace lowerscope::runner
