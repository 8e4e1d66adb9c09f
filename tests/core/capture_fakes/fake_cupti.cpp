// A fake libcupti.so.13 for CPU-only tests of the injection library (app/inject): the entry
// points the runner's loader resolves (app/runner/cupti_api.cpp), of which the injection uses the
// callback and activity ones; the rest answer CUPTI_ERROR_NOT_SUPPORTED. A test program
// (fake_cuda_program.cpp) plays the driver: it calls the fake_cupti_* functions below to deliver a
// context creation, a module load with its cubin and kernel activity records, which reach the
// injection's callbacks as CUPTI would deliver them; and the driver-API callbacks of kernel launch
// calls (fake_cupti_driver_api), for the launch calls whose callback the injection enabled.
#include "app/inject/inject_cupti.h"

#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

using namespace lowerscope::runner;
using lowerscope::inject::CUpti_ActivityKernel10;

namespace {

struct State {
    CUpti_CallbackFunc callback = nullptr;
    void* user = nullptr;
    bool resourceModule = false, resourceContext = false;
    bool activity = false;
    int activityKind = 0; // the kernel record kind enabled (CONCURRENT_KERNEL or the serialising KERNEL)
    CUpti_BuffersCallbackRequestFunc requested = nullptr;
    CUpti_BuffersCallbackCompleteFunc completed = nullptr;
    std::vector<CUpti_ActivityKernel10> pending;
    std::set<uint32_t> driverCallbacks; // enabled driver-API callback ids
};

State& st() {
    static State s;
    return s;
}

} // namespace

extern "C" {

// ---------------------------------------------------------------- the test program's controls

void fake_cupti_context_created() {
    State& s = st();
    if (!s.callback || !s.resourceContext) return;
    lowerscope::inject::CUpti_ResourceData r{};
    r.context = reinterpret_cast<CUcontext>(0x1000);
    s.callback(s.user, lowerscope::inject::CUPTI_CB_DOMAIN_RESOURCE,
               lowerscope::inject::CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &r);
}

void fake_cupti_module_loaded(uint32_t id, const char* cubin, size_t size) {
    State& s = st();
    if (!s.callback || !s.resourceModule) return;
    lowerscope::inject::CUpti_ModuleResourceData m{id, size, cubin};
    lowerscope::inject::CUpti_ResourceData r{};
    r.context = reinterpret_cast<CUcontext>(0x1000);
    r.resourceDescriptor = &m;
    s.callback(s.user, lowerscope::inject::CUPTI_CB_DOMAIN_RESOURCE,
               lowerscope::inject::CUPTI_CBID_RESOURCE_MODULE_LOADED, &r);
}

// A driver-API launch call's callback at its entry (site 0) or exit (site 1), as CUPTI delivers
// it, when the injection enabled that id. Returns whether it was delivered.
int fake_cupti_driver_api(uint32_t cbid, int site, const void* params, const char* symbol, uint32_t corr,
                          int* result) {
    State& s = st();
    if (!s.callback || s.driverCallbacks.count(cbid) == 0) return 0;
    static uint64_t correlationData = 0;
    lowerscope::inject::CUpti_CallbackData d{};
    d.callbackSite = site;
    d.functionName = "cuLaunchKernel";
    d.functionParams = params;
    d.functionReturnValue = result;
    d.symbolName = symbol;
    d.context = reinterpret_cast<CUcontext>(0x1000);
    d.correlationData = &correlationData;
    d.correlationId = corr;
    s.callback(s.user, lowerscope::inject::CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
    return 1;
}

// Queues one kernel record (delivered at the next flush) when kernel activity is enabled.
void fake_cupti_kernel(const CUpti_ActivityKernel10* k) {
    if (!st().activity) return;
    st().pending.push_back(*k);
    st().pending.back().kind = st().activityKind;
}

// --------------------------------------------------------------------------- CUPTI entry points

int cuptiGetResultString(int r, const char** s) {
    *s = r == CUPTI_ERROR_NOT_SUPPORTED ? "CUPTI_ERROR_NOT_SUPPORTED" : "CUPTI_ERROR_UNKNOWN";
    return 0;
}
int cuptiGetVersion(uint32_t* v) {
    *v = 130001;
    return 0;
}
int cuptiGetDeviceId(CUcontext, uint32_t* id) {
    *id = 0;
    return 0;
}
int cuptiActivityEnable(int kind) {
    if (std::getenv("FAKE_CUPTI_BUSY")) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        st().activity = true;
        st().activityKind = kind;
    }
    return 0;
}
int cuptiActivityDisable(int) {
    st().activity = false;
    return 0;
}
int cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done) {
    st().requested = req;
    st().completed = done;
    return 0;
}
int cuptiActivityFlushAll(uint32_t) {
    State& s = st();
    while (!s.pending.empty() && s.requested && s.completed) {
        uint8_t* buf = nullptr;
        size_t size = 0, maxRecords = 0;
        s.requested(&buf, &size, &maxRecords);
        const size_t n = std::min(s.pending.size(), size / sizeof(CUpti_ActivityKernel10));
        if (n == 0) return CUPTI_ERROR_OUT_OF_MEMORY;
        std::memcpy(buf, s.pending.data(), n * sizeof(CUpti_ActivityKernel10));
        s.pending.erase(s.pending.begin(), s.pending.begin() + static_cast<long>(n));
        s.completed(nullptr, 0, buf, size, n * sizeof(CUpti_ActivityKernel10));
    }
    return 0;
}
int cuptiActivityGetNextRecord(uint8_t* buf, size_t valid, CUpti_Activity** rec) {
    uint8_t* next = *rec ? reinterpret_cast<uint8_t*>(*rec) + sizeof(CUpti_ActivityKernel10) : buf;
    if (next + sizeof(CUpti_ActivityKernel10) > buf + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = reinterpret_cast<CUpti_Activity*>(next);
    return 0;
}
int cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
    *dropped = 0;
    return 0;
}
int cuptiSubscribe(CUpti_SubscriberHandle* h, CUpti_CallbackFunc cb, void* user) {
    static int sub;
    if (std::getenv("FAKE_CUPTI_BUSY")) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    st().callback = cb;
    st().user = user;
    *h = reinterpret_cast<CUpti_SubscriberHandle>(&sub);
    return 0;
}
int cuptiUnsubscribe(CUpti_SubscriberHandle) {
    st().callback = nullptr;
    return 0;
}
int cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, int domain, uint32_t cbid) {
    if (domain == lowerscope::inject::CUPTI_CB_DOMAIN_DRIVER_API) {
        if (enable) st().driverCallbacks.insert(cbid);
        else st().driverCallbacks.erase(cbid);
    }
    if (domain == lowerscope::inject::CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == lowerscope::inject::CUPTI_CBID_RESOURCE_MODULE_LOADED) st().resourceModule = enable != 0;
        if (cbid == lowerscope::inject::CUPTI_CBID_RESOURCE_CONTEXT_CREATED) st().resourceContext = enable != 0;
    }
    return 0;
}

// The profiler entry points the loader also resolves; the injection does not call them.
#define LS_UNSUPPORTED(name)                                                                                 \
    int name(void*) { return CUPTI_ERROR_NOT_SUPPORTED; }
LS_UNSUPPORTED(cuptiProfilerInitialize)
LS_UNSUPPORTED(cuptiProfilerDeviceSupported)
LS_UNSUPPORTED(cuptiDeviceGetChipName)
LS_UNSUPPORTED(cuptiProfilerGetCounterAvailability)
LS_UNSUPPORTED(cuptiProfilerHostInitialize)
LS_UNSUPPORTED(cuptiProfilerHostDeinitialize)
LS_UNSUPPORTED(cuptiProfilerHostGetMetricProperties)
LS_UNSUPPORTED(cuptiProfilerHostConfigAddMetrics)
LS_UNSUPPORTED(cuptiProfilerHostGetConfigImageSize)
LS_UNSUPPORTED(cuptiProfilerHostGetConfigImage)
LS_UNSUPPORTED(cuptiProfilerHostGetNumOfPasses)
LS_UNSUPPORTED(cuptiProfilerHostEvaluateToGpuValues)
LS_UNSUPPORTED(cuptiRangeProfilerEnable)
LS_UNSUPPORTED(cuptiRangeProfilerDisable)
LS_UNSUPPORTED(cuptiRangeProfilerSetConfig)
LS_UNSUPPORTED(cuptiRangeProfilerStart)
LS_UNSUPPORTED(cuptiRangeProfilerStop)
LS_UNSUPPORTED(cuptiRangeProfilerPushRange)
LS_UNSUPPORTED(cuptiRangeProfilerPopRange)
LS_UNSUPPORTED(cuptiRangeProfilerDecodeData)
LS_UNSUPPORTED(cuptiRangeProfilerGetCounterDataSize)
LS_UNSUPPORTED(cuptiRangeProfilerCounterDataImageInitialize)
LS_UNSUPPORTED(cuptiRangeProfilerGetCounterDataInfo)
LS_UNSUPPORTED(cuptiSassMetricsGetProperties)
LS_UNSUPPORTED(cuptiSassMetricsSetConfig)
LS_UNSUPPORTED(cuptiSassMetricsUnsetConfig)
LS_UNSUPPORTED(cuptiSassMetricsEnable)
LS_UNSUPPORTED(cuptiSassMetricsDisable)
LS_UNSUPPORTED(cuptiSassMetricsGetDataProperties)
LS_UNSUPPORTED(cuptiSassMetricsFlushData)
LS_UNSUPPORTED(cuptiPCSamplingEnable)
LS_UNSUPPORTED(cuptiPCSamplingDisable)
LS_UNSUPPORTED(cuptiPCSamplingStart)
LS_UNSUPPORTED(cuptiPCSamplingStop)
LS_UNSUPPORTED(cuptiPCSamplingGetData)
LS_UNSUPPORTED(cuptiPCSamplingGetNumStallReasons)
LS_UNSUPPORTED(cuptiPCSamplingGetStallReasons)
LS_UNSUPPORTED(cuptiPCSamplingSetConfigurationAttribute)
LS_UNSUPPORTED(cuptiPCSamplingGetConfigurationAttribute)
LS_UNSUPPORTED(cuptiGetCubinCrc)
#undef LS_UNSUPPORTED

} // extern "C"
