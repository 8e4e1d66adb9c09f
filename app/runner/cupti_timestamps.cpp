// Kernel activity records and launch correlation ids from CUPTI.
#include "app/runner/cupti_timestamps.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace lowerscope::runner {

namespace {

// CUPTI's buffer callbacks carry no user pointer, so the records of the (single) enabled
// instance are collected here. Buffers complete on CUPTI's threads: guarded by the mutex.
struct Shared {
    std::mutex mutex;
    const Cupti* cupti = nullptr;
    std::unordered_map<uint32_t, KernelSpan> spans;
    std::vector<KernelSpan> graphNodes;
    std::atomic<uint32_t> lastCorrelation{0};
    std::atomic<uint64_t> launches{0};
    bool active = false;
};

Shared& shared() {
    static Shared s;
    return s;
}

constexpr size_t kBufferBytes = size_t(4) << 20;

void bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    // 8-byte alignment is what CUPTI requires of activity buffers.
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

void bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    Shared& s = shared();
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.cupti && buffer) {
            CUpti_Activity* rec = nullptr;
            while (s.cupti->cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS && rec) {
                if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
                    rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
                    continue;
                }
                const auto* k = reinterpret_cast<const CUpti_ActivityKernelPrefix*>(rec);
                KernelSpan span{k->start, k->end, k->graphNodeId, k->graphId};
                if (k->end < k->start || k->start == 0) {
                    continue; // CUPTI could not time this one (both 0) or the record is torn
                }
                if (k->graphId != 0) {
                    s.graphNodes.push_back(span);
                } else {
                    s.spans[k->correlationId] = span;
                }
            }
        }
    }
    std::free(buffer);
}

void launchCallback(void*, int, uint32_t, const void* data) {
    const auto* d = static_cast<const CUpti_CallbackData*>(data);
    if (d && d->callbackSite == CUPTI_API_ENTER) {
        shared().lastCorrelation.store(d->correlationId, std::memory_order_relaxed);
        shared().launches.fetch_add(1, std::memory_order_relaxed);
    }
}

} // namespace

KernelTimestamps::~KernelTimestamps() {
    disable();
}

CuptiFailure KernelTimestamps::enable(std::string& detail, bool records) {
    if (m_enabled) {
        return CuptiFailure::None;
    }
    Shared& s = shared();
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.active) {
            detail = "kernel timestamps are already enabled in this process";
            return CuptiFailure::Busy;
        }
        s.cupti = &m_cupti;
        s.spans.clear();
        s.graphNodes.clear();
    }
    auto fail = [&](CUptiResult r, const char* call) {
        detail = std::string(call) + ": " + cuptiErrorName(m_cupti, r);
        if (m_subscriber) {
            m_cupti.cuptiUnsubscribe(m_subscriber);
            m_subscriber = nullptr;
        }
        return classifyCuptiError(r);
    };
    CUptiResult r = m_cupti.cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
    if (r != CUPTI_SUCCESS) {
        return fail(r, "cuptiActivityRegisterCallbacks");
    }
    r = m_cupti.cuptiSubscribe(&m_subscriber, launchCallback, nullptr);
    if (r != CUPTI_SUCCESS) {
        m_subscriber = nullptr;
        return fail(r, "cuptiSubscribe");
    }
    for (uint32_t cbid :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz}) {
        r = m_cupti.cuptiEnableCallback(1, m_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
        if (r != CUPTI_SUCCESS) {
            return fail(r, "cuptiEnableCallback");
        }
    }
    if (records) {
        r = m_cupti.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        if (r != CUPTI_SUCCESS) {
            return fail(r, "cuptiActivityEnable(CONCURRENT_KERNEL)");
        }
    }
    m_records = records;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.active = true;
    }
    m_enabled = true;
    return CuptiFailure::None;
}

void KernelTimestamps::disable() {
    if (!m_enabled) {
        return;
    }
    if (m_records) {
        m_cupti.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        m_cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
    if (m_subscriber) {
        m_cupti.cuptiUnsubscribe(m_subscriber);
        m_subscriber = nullptr;
    }
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.spans.clear();
    s.graphNodes.clear();
    s.active = false;
    m_enabled = false;
}

uint32_t KernelTimestamps::lastLaunch() const {
    return shared().lastCorrelation.load(std::memory_order_relaxed);
}

uint64_t KernelTimestamps::launchCount() const {
    return shared().launches.load(std::memory_order_relaxed);
}

void KernelTimestamps::collect(std::unordered_map<uint32_t, KernelSpan>& out,
                               std::vector<KernelSpan>* graphNodes) {
    if (!m_enabled || !m_records) {
        return;
    }
    // A forced flush hands over partially filled buffers too (bufferCompleted runs before it
    // returns), so every kernel that has finished is in `spans` afterwards.
    m_cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    for (auto& [id, span] : s.spans) {
        out[id] = span;
    }
    s.spans.clear();
    if (graphNodes) {
        graphNodes->insert(graphNodes->end(), s.graphNodes.begin(), s.graphNodes.end());
    }
    s.graphNodes.clear();
}

} // namespace lowerscope::runner
