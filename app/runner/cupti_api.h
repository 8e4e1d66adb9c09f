#pragma once
// The part of CUPTI (the CUDA Profiling Tools Interface, libcupti.so.13 of CUDA 13) that the runner
// uses, declared here and resolved with dlopen/dlsym at run time, like the driver in cuda_api.h:
// the runner builds without the toolkit's headers and starts where CUPTI is missing.
// Over 600 lines because it transcribes CUPTI's structs and enums (activity, Range Profiler, SASS
// metrics, PC sampling) field by field, with their sizes; splitting it would only scatter them.
//
// Every struct below mirrors the one of the same name in NVIDIA's headers (cupti_activity.h,
// cupti_callbacks.h, cupti_profiler_target.h, cupti_profiler_host.h, cupti_range_profiler.h,
// cupti_sass_metrics.h, cupti_pcsampling.h, cupti_target.h) field for field; CUPTI checks the
// `structSize` of each parameter block, so a block may end early but must never differ in layout.
// tests/core/test_cupti_layout.cpp compares every offset and size with the toolkit's headers when
// they are installed. The kernel activity record is declared only up to the fields read here.
//
// This file is over the usual length because it is a flat list of mirrored declarations.

#include "app/runner/cuda_api.h"
#include "core/run/protocol.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace lowerscope::runner {

using CUptiResult = int;
constexpr CUptiResult CUPTI_SUCCESS = 0;
constexpr CUptiResult CUPTI_ERROR_INVALID_PARAMETER = 1;
constexpr CUptiResult CUPTI_ERROR_INVALID_DEVICE = 2;
constexpr CUptiResult CUPTI_ERROR_INVALID_CONTEXT = 3;
constexpr CUptiResult CUPTI_ERROR_INVALID_OPERATION = 7;
constexpr CUptiResult CUPTI_ERROR_OUT_OF_MEMORY = 8;
constexpr CUptiResult CUPTI_ERROR_MAX_LIMIT_REACHED = 12;
constexpr CUptiResult CUPTI_ERROR_NOT_COMPATIBLE = 14;
constexpr CUptiResult CUPTI_ERROR_NOT_INITIALIZED = 15;
constexpr CUptiResult CUPTI_ERROR_INVALID_METRIC_NAME = 17;
constexpr CUptiResult CUPTI_ERROR_QUEUE_EMPTY = 18;
constexpr CUptiResult CUPTI_ERROR_HARDWARE_BUSY = 26;
constexpr CUptiResult CUPTI_ERROR_NOT_SUPPORTED = 27;
constexpr CUptiResult CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED = 33;
constexpr CUptiResult CUPTI_ERROR_INSUFFICIENT_PRIVILEGES = 35;
constexpr CUptiResult CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED = 38;
constexpr CUptiResult CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39;
constexpr CUptiResult CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES = 40;
constexpr CUptiResult CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED = 41;
constexpr CUptiResult CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED = 42;
constexpr CUptiResult CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED = 43;
constexpr CUptiResult CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED = 44;
constexpr CUptiResult CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED = 45;
constexpr CUptiResult CUPTI_ERROR_INVALID_CHIP_NAME = 46;
constexpr CUptiResult CUPTI_ERROR_UNKNOWN = 999;

// ------------------------------------------------------------------ activity and callbacks

constexpr int CUPTI_ACTIVITY_KIND_KERNEL = 3;
constexpr int CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10;
constexpr uint32_t CUPTI_ACTIVITY_FLAG_FLUSH_FORCED = 1;
constexpr int CUPTI_API_ENTER = 0;
constexpr int CUPTI_CB_DOMAIN_DRIVER_API = 1;
constexpr uint32_t CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel = 307;
constexpr uint32_t CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz = 442;
constexpr uint32_t CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx = 652;
constexpr uint32_t CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz = 653;

// Activity records are packed and 8-byte aligned (PACKED_ALIGNMENT in cupti_common.h).
#define LS_CUPTI_PACKED __attribute__((__packed__)) __attribute__((aligned(8)))

struct LS_CUPTI_PACKED CUpti_Activity {
    int32_t kind;
};

// The leading fields of CUpti_ActivityKernel10 (CUPTI_ACTIVITY_KIND_(CONCURRENT_)KERNEL records).
// Only read through a pointer into CUPTI's buffer: the record itself is longer.
struct LS_CUPTI_PACKED CUpti_ActivityKernelPrefix {
    int32_t kind;
    uint8_t cacheConfig;
    uint8_t sharedMemoryConfig;
    uint16_t registersPerThread;
    int32_t partitionedGlobalCacheRequested;
    int32_t partitionedGlobalCacheExecuted;
    uint64_t start; // ns, GPU timestamp of the kernel's start
    uint64_t end;   // ns
    uint64_t completed;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    int32_t gridX, gridY, gridZ;
    int32_t blockX, blockY, blockZ;
    int32_t staticSharedMemory;
    int32_t dynamicSharedMemory;
    uint32_t localMemoryPerThread;
    uint32_t localMemoryTotal;
    uint32_t correlationId; // equals the correlation id of the cuLaunchKernel call
    int64_t gridId;
    const char* name;
    void* reserved0;
    uint64_t queued;
    uint64_t submitted;
    uint8_t launchType;
    uint8_t isSharedMemoryCarveoutRequested;
    uint8_t sharedMemoryCarveoutRequested;
    uint8_t padding;
    uint32_t sharedMemoryExecuted;
    uint64_t graphNodeId; // 0 unless launched by a graph
    int32_t shmemLimitConfig;
    uint32_t graphId; // 0 unless launched by a graph
};

// CUpti_CallbackData (cupti_callbacks.h): what a driver-API callback receives.
struct CUpti_CallbackData {
    int callbackSite;
    const char* functionName;
    const void* functionParams;
    void* functionReturnValue;
    const char* symbolName;
    CUcontext context;
    uint32_t contextUid;
    uint64_t* correlationData;
    uint32_t correlationId;
};

struct CUpti_Subscriber_st;
using CUpti_SubscriberHandle = CUpti_Subscriber_st*;
using CUpti_CallbackFunc = void (*)(void* userdata, int domain, uint32_t cbid, const void* cbdata);
using CUpti_BuffersCallbackRequestFunc = void (*)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
using CUpti_BuffersCallbackCompleteFunc = void (*)(CUcontext context, uint32_t streamId, uint8_t* buffer,
                                                   size_t size, size_t validSize);

// -------------------------------------------------------- profiler target (device, counters)

constexpr int CUPTI_AutoRange = 1;
constexpr int CUPTI_UserRange = 2;
constexpr int CUPTI_KernelReplay = 2;
constexpr int CUPTI_UserReplay = 3;
constexpr int CUPTI_PROFILER_CONFIGURATION_SUPPORTED = 3;
constexpr int CUPTI_PROFILER_RANGE_PROFILING = 0;
constexpr int CUPTI_PROFILER_PC_SAMPLING = 1;
constexpr int CUPTI_PROFILER_SASS_METRICS = 2;

struct CUpti_Profiler_Initialize_Params {
    size_t structSize;
    void* pPriv;
};

struct CUpti_Profiler_DeviceSupported_Params {
    size_t structSize;
    void* pPriv;
    CUdevice cuDevice;
    int isSupported; // CUpti_Profiler_Support_Level
    int architecture;
    int sli;
    int vGpu;
    int confidentialCompute;
    int cmp;
    int wsl;
    int api; // CUpti_Profiler_API
};

struct CUpti_Device_GetChipName_Params {
    size_t structSize;
    void* pPriv;
    size_t deviceIndex;
    const char* pChipName;
};

struct CUpti_Profiler_GetCounterAvailability_Params {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    size_t counterAvailabilityImageSize;
    uint8_t* pCounterAvailabilityImage;
};

// --------------------------------------------------------------- profiler host (evaluation)

constexpr int CUPTI_PROFILER_TYPE_RANGE_PROFILER = 0;
struct CUpti_Profiler_Host_Object;

struct CUpti_Profiler_Host_Initialize_Params {
    size_t structSize;
    void* pPriv;
    int profilerType;
    const char* pChipName;
    const uint8_t* pCounterAvailabilityImage;
    CUpti_Profiler_Host_Object* pHostObject;
};

struct CUpti_Profiler_Host_Deinitialize_Params {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
};

struct CUpti_Profiler_Host_GetMetricProperties_Params {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const char* pMetricName;
    const char* pDescription;
    const char* pHwUnit;
    const char* pDimUnit;
    int metricType;
};

struct CUpti_Profiler_Host_ConfigAddMetrics_Params {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const char** ppMetricNames;
    size_t numMetrics;
};

struct CUpti_Profiler_Host_GetConfigImageSize_Params {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    size_t configImageSize;
};

struct CUpti_Profiler_Host_GetConfigImage_Params {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    size_t configImageSize;
    uint8_t* pConfigImage;
};

struct CUpti_Profiler_Host_GetNumOfPasses_Params {
    size_t structSize;
    void* pPriv;
    size_t configImageSize;
    uint8_t* pConfigImage;
    size_t numOfPasses;
};

struct CUpti_Profiler_Host_EvaluateToGpuValues_Params {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const uint8_t* pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char** ppMetricNames;
    size_t numMetrics;
    double* pMetricValues;
};

// ------------------------------------------------------------------------- range profiler

struct CUpti_RangeProfiler_Object;

struct CUpti_RangeProfiler_Enable_Params {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
};

// Disable, Start, PopRange share this shape.
struct CUpti_RangeProfiler_Object_Params {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
};
using CUpti_RangeProfiler_Disable_Params = CUpti_RangeProfiler_Object_Params;
using CUpti_RangeProfiler_Start_Params = CUpti_RangeProfiler_Object_Params;
using CUpti_RangeProfiler_PopRange_Params = CUpti_RangeProfiler_Object_Params;

struct CUpti_RangeProfiler_Stop_Params {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t passIndex;
    size_t targetNestingLevel;
    uint8_t isAllPassSubmitted;
};

struct CUpti_RangeProfiler_PushRange_Params {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    const char* pRangeName;
};

struct CUpti_RangeProfiler_SetConfig_Params {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t configSize;
    const uint8_t* pConfig;
    size_t counterDataImageSize;
    uint8_t* pCounterDataImage;
    int range;      // CUpti_ProfilerRange
    int replayMode; // CUpti_ProfilerReplayMode
    size_t maxRangesPerPass;
    uint16_t numNestingLevels;
    uint16_t minNestingLevel;
    size_t passIndex;
    uint16_t targetNestingLevel;
};

struct CUpti_RangeProfiler_DecodeData_Params {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t numOfRangeDropped;
};

struct CUpti_RangeProfiler_GetCounterDataSize_Params {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    const char** pMetricNames;
    size_t numMetrics;
    size_t maxNumOfRanges;
    uint32_t maxNumRangeTreeNodes;
    size_t counterDataSize;
};

struct CUpti_RangeProfiler_CounterDataImage_Initialize_Params {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t counterDataSize;
    uint8_t* pCounterData;
};

struct CUpti_RangeProfiler_GetCounterDataInfo_Params {
    size_t structSize;
    void* pPriv;
    const uint8_t* pCounterDataImage;
    size_t counterDataImageSize;
    size_t numTotalRanges;
};

// --------------------------------------------------------------------------- SASS metrics

constexpr uint8_t CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU = 0;

struct CUpti_SassMetrics_MetricDetails {
    uint64_t metricId;
    const char* pMetricName;
    const char* pMetricDescription;
};

struct CUpti_SassMetrics_GetProperties_Params {
    size_t structSize;
    void* pPriv;
    const char* pChipName;
    const char* pMetricName;
    CUpti_SassMetrics_MetricDetails metric;
};

struct CUpti_SassMetrics_Config {
    uint64_t metricId;
    uint8_t outputGranularity;
};

struct CUpti_SassMetricsSetConfig_Params {
    size_t structSize;
    void* pPriv;
    size_t numOfMetricConfig;
    CUpti_SassMetrics_Config* pConfigs;
    uint32_t deviceIndex;
};

struct CUpti_SassMetricsUnsetConfig_Params {
    size_t structSize;
    void* pPriv;
    uint32_t deviceIndex;
};

struct CUpti_SassMetricsEnable_Params {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    uint8_t enableLazyPatching;
};

struct CUpti_SassMetricsDisable_Params {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    size_t numOfDroppedRecords;
};

struct CUpti_SassMetricsGetDataProperties_Params {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    size_t numOfPatchedInstructionRecords;
    size_t numOfInstances;
};

struct CUpti_SassMetrics_InstanceValue {
    uint64_t metricId;
    uint64_t value;
};

struct CUpti_SassMetrics_Data {
    size_t structSize;
    void* pPriv;
    uint32_t cubinCrc;
    uint32_t functionIndex;
    const char* functionName;
    uint32_t pcOffset;
    CUpti_SassMetrics_InstanceValue* pInstanceValues;
};

struct CUpti_SassMetricsFlushData_Params {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    size_t numOfPatchedInstructionRecords;
    size_t numOfInstances;
    CUpti_SassMetrics_Data* pMetricsData;
};

// ---------------------------------------------------------------------------- PC sampling

constexpr int CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS = 1;
constexpr int CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED = 2;
constexpr int CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED = 1;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD = 1;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE = 3;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE = 4;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE = 5;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL = 6;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT = 7;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER = 8;
constexpr int CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN = 9; // CUPTI 12.4+
constexpr size_t kStallReasonStringSize = 128; // CUPTI_STALL_REASON_STRING_SIZE

struct LS_CUPTI_PACKED CUpti_PCSamplingStallReason {
    uint32_t pcSamplingStallReasonIndex;
    uint32_t samples;
};

struct LS_CUPTI_PACKED CUpti_PCSamplingPCData {
    size_t size;
    uint64_t cubinCrc;
    uint64_t pcOffset;
    uint32_t functionIndex;
    uint32_t pad;
    char* functionName;
    size_t stallReasonCount;
    CUpti_PCSamplingStallReason* stallReason;
    uint32_t correlationId;
};

struct LS_CUPTI_PACKED CUpti_PCSamplingData {
    size_t size;
    size_t collectNumPcs;
    uint64_t totalSamples;
    uint64_t droppedSamples;
    size_t totalNumPcs;
    size_t remainingNumPcs;
    uint64_t rangeId;
    CUpti_PCSamplingPCData* pPcData;
    uint64_t nonUsrKernelsTotalSamples;
    uint8_t hardwareBufferFull;
};

// The union of attribute values is three 64-bit words wide (invalidData in the header).
struct CUpti_PCSamplingConfigurationInfo {
    int attributeType;
    CUptiResult attributeStatus;
    union {
        uint64_t data[3];
        uint32_t u32; // sampling period, start/stop control
        int mode;     // collection mode, output format
        size_t size;  // scratch / hardware buffer size
        void* buffer; // sampling data buffer (CUpti_PCSamplingData*)
    } attributeData;
};

struct CUpti_PCSamplingConfigurationInfoParams {
    size_t size;
    void* pPriv;
    CUcontext ctx;
    size_t numAttributes;
    CUpti_PCSamplingConfigurationInfo* pPCSamplingConfigurationInfo;
};

// Enable, Disable, Start, Stop share this shape.
struct CUpti_PCSamplingContextParams {
    size_t size;
    void* pPriv;
    CUcontext ctx;
};

struct CUpti_PCSamplingGetDataParams {
    size_t size;
    void* pPriv;
    CUcontext ctx;
    void* pcSamplingData;
};

struct CUpti_PCSamplingGetNumStallReasonsParams {
    size_t size;
    void* pPriv;
    CUcontext ctx;
    size_t* numStallReasons;
};

struct CUpti_PCSamplingGetStallReasonsParams {
    size_t size;
    void* pPriv;
    CUcontext ctx;
    size_t numStallReasons;
    uint32_t* stallReasonIndex;
    char** stallReasons;
};

struct CUpti_GetCubinCrcParams {
    size_t size;
    size_t cubinSize;
    const void* cubin;
    uint64_t cubinCrc;
};

#undef LS_CUPTI_PACKED

// The `structSize`/`size` CUPTI expects of a parameter block: up to the end of its last field
// (NVIDIA's *_STRUCT_SIZE macros), which is not sizeof() where the block ends in padding.
template <typename T> struct CuptiStructSize;
#define LS_CUPTI_SIZE(T, last)                                                                               \
    template <> struct CuptiStructSize<T> {                                                                  \
        static constexpr size_t value = offsetof(T, last) + sizeof(T::last);                                 \
    };
LS_CUPTI_SIZE(CUpti_Profiler_Initialize_Params, pPriv)
LS_CUPTI_SIZE(CUpti_Profiler_DeviceSupported_Params, api)
LS_CUPTI_SIZE(CUpti_Device_GetChipName_Params, pChipName)
LS_CUPTI_SIZE(CUpti_Profiler_GetCounterAvailability_Params, pCounterAvailabilityImage)
LS_CUPTI_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject)
LS_CUPTI_SIZE(CUpti_Profiler_Host_Deinitialize_Params, pHostObject)
LS_CUPTI_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metricType)
LS_CUPTI_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics)
LS_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize)
LS_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage)
LS_CUPTI_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses)
LS_CUPTI_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues)
LS_CUPTI_SIZE(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject)
LS_CUPTI_SIZE(CUpti_RangeProfiler_Object_Params, pRangeProfilerObject)
LS_CUPTI_SIZE(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted)
LS_CUPTI_SIZE(CUpti_RangeProfiler_PushRange_Params, pRangeName)
LS_CUPTI_SIZE(CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel)
LS_CUPTI_SIZE(CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped)
LS_CUPTI_SIZE(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize)
LS_CUPTI_SIZE(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pCounterData)
LS_CUPTI_SIZE(CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges)
LS_CUPTI_SIZE(CUpti_SassMetrics_GetProperties_Params, metric)
LS_CUPTI_SIZE(CUpti_SassMetricsSetConfig_Params, deviceIndex)
LS_CUPTI_SIZE(CUpti_SassMetricsUnsetConfig_Params, deviceIndex)
LS_CUPTI_SIZE(CUpti_SassMetricsEnable_Params, enableLazyPatching)
LS_CUPTI_SIZE(CUpti_SassMetricsDisable_Params, numOfDroppedRecords)
LS_CUPTI_SIZE(CUpti_SassMetricsGetDataProperties_Params, numOfInstances)
LS_CUPTI_SIZE(CUpti_SassMetricsFlushData_Params, numOfInstances)
LS_CUPTI_SIZE(CUpti_PCSamplingConfigurationInfoParams, pPCSamplingConfigurationInfo)
LS_CUPTI_SIZE(CUpti_PCSamplingContextParams, ctx)
LS_CUPTI_SIZE(CUpti_PCSamplingGetDataParams, pcSamplingData)
LS_CUPTI_SIZE(CUpti_PCSamplingGetNumStallReasonsParams, numStallReasons)
LS_CUPTI_SIZE(CUpti_PCSamplingGetStallReasonsParams, stallReasons)
LS_CUPTI_SIZE(CUpti_GetCubinCrcParams, cubinCrc)
#undef LS_CUPTI_SIZE

// A zeroed parameter block with its size field set.
template <typename P> P cuptiParams() {
    P p{};
    if constexpr (requires { p.structSize; }) {
        p.structSize = CuptiStructSize<P>::value;
    } else {
        p.size = CuptiStructSize<P>::value;
    }
    return p;
}

// ----------------------------------------------------------------------- function table

struct Cupti {
    CUptiResult (*cuptiGetResultString)(CUptiResult, const char**) = nullptr;
    CUptiResult (*cuptiGetVersion)(uint32_t*) = nullptr;
    // Activity and callbacks (kernel timestamps).
    CUptiResult (*cuptiActivityEnable)(int) = nullptr;
    CUptiResult (*cuptiActivityDisable)(int) = nullptr;
    CUptiResult (*cuptiActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                                  CUpti_BuffersCallbackCompleteFunc) = nullptr;
    CUptiResult (*cuptiActivityFlushAll)(uint32_t) = nullptr;
    CUptiResult (*cuptiActivityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
    CUptiResult (*cuptiSubscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
    CUptiResult (*cuptiUnsubscribe)(CUpti_SubscriberHandle) = nullptr;
    CUptiResult (*cuptiEnableCallback)(uint32_t, CUpti_SubscriberHandle, int, uint32_t) = nullptr;
    // Profiler target and host.
    CUptiResult (*cuptiProfilerInitialize)(CUpti_Profiler_Initialize_Params*) = nullptr;
    CUptiResult (*cuptiProfilerDeviceSupported)(CUpti_Profiler_DeviceSupported_Params*) = nullptr;
    CUptiResult (*cuptiDeviceGetChipName)(CUpti_Device_GetChipName_Params*) = nullptr;
    CUptiResult (*cuptiProfilerGetCounterAvailability)(CUpti_Profiler_GetCounterAvailability_Params*) =
        nullptr;
    CUptiResult (*cuptiProfilerHostInitialize)(CUpti_Profiler_Host_Initialize_Params*) = nullptr;
    CUptiResult (*cuptiProfilerHostDeinitialize)(CUpti_Profiler_Host_Deinitialize_Params*) = nullptr;
    CUptiResult (*cuptiProfilerHostGetMetricProperties)(CUpti_Profiler_Host_GetMetricProperties_Params*) =
        nullptr;
    CUptiResult (*cuptiProfilerHostConfigAddMetrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params*) = nullptr;
    CUptiResult (*cuptiProfilerHostGetConfigImageSize)(CUpti_Profiler_Host_GetConfigImageSize_Params*) =
        nullptr;
    CUptiResult (*cuptiProfilerHostGetConfigImage)(CUpti_Profiler_Host_GetConfigImage_Params*) = nullptr;
    CUptiResult (*cuptiProfilerHostGetNumOfPasses)(CUpti_Profiler_Host_GetNumOfPasses_Params*) = nullptr;
    CUptiResult (*cuptiProfilerHostEvaluateToGpuValues)(CUpti_Profiler_Host_EvaluateToGpuValues_Params*) =
        nullptr;
    // Range profiler.
    CUptiResult (*cuptiRangeProfilerEnable)(CUpti_RangeProfiler_Enable_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerDisable)(CUpti_RangeProfiler_Disable_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerSetConfig)(CUpti_RangeProfiler_SetConfig_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerStart)(CUpti_RangeProfiler_Start_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerStop)(CUpti_RangeProfiler_Stop_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerPushRange)(CUpti_RangeProfiler_PushRange_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerPopRange)(CUpti_RangeProfiler_PopRange_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerDecodeData)(CUpti_RangeProfiler_DecodeData_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerGetCounterDataSize)(CUpti_RangeProfiler_GetCounterDataSize_Params*) =
        nullptr;
    CUptiResult (*cuptiRangeProfilerCounterDataImageInitialize)(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params*) = nullptr;
    CUptiResult (*cuptiRangeProfilerGetCounterDataInfo)(CUpti_RangeProfiler_GetCounterDataInfo_Params*) =
        nullptr;
    // SASS metrics.
    CUptiResult (*cuptiSassMetricsGetProperties)(CUpti_SassMetrics_GetProperties_Params*) = nullptr;
    CUptiResult (*cuptiSassMetricsSetConfig)(CUpti_SassMetricsSetConfig_Params*) = nullptr;
    CUptiResult (*cuptiSassMetricsUnsetConfig)(CUpti_SassMetricsUnsetConfig_Params*) = nullptr;
    CUptiResult (*cuptiSassMetricsEnable)(CUpti_SassMetricsEnable_Params*) = nullptr;
    CUptiResult (*cuptiSassMetricsDisable)(CUpti_SassMetricsDisable_Params*) = nullptr;
    CUptiResult (*cuptiSassMetricsGetDataProperties)(CUpti_SassMetricsGetDataProperties_Params*) = nullptr;
    CUptiResult (*cuptiSassMetricsFlushData)(CUpti_SassMetricsFlushData_Params*) = nullptr;
    // PC sampling.
    CUptiResult (*cuptiPCSamplingEnable)(CUpti_PCSamplingContextParams*) = nullptr;
    CUptiResult (*cuptiPCSamplingDisable)(CUpti_PCSamplingContextParams*) = nullptr;
    CUptiResult (*cuptiPCSamplingStart)(CUpti_PCSamplingContextParams*) = nullptr;
    CUptiResult (*cuptiPCSamplingStop)(CUpti_PCSamplingContextParams*) = nullptr;
    CUptiResult (*cuptiPCSamplingGetData)(CUpti_PCSamplingGetDataParams*) = nullptr;
    CUptiResult (*cuptiPCSamplingGetNumStallReasons)(CUpti_PCSamplingGetNumStallReasonsParams*) = nullptr;
    CUptiResult (*cuptiPCSamplingGetStallReasons)(CUpti_PCSamplingGetStallReasonsParams*) = nullptr;
    CUptiResult (*cuptiPCSamplingSetConfigurationAttribute)(CUpti_PCSamplingConfigurationInfoParams*) =
        nullptr;
    CUptiResult (*cuptiPCSamplingGetConfigurationAttribute)(CUpti_PCSamplingConfigurationInfoParams*) =
        nullptr;
    CUptiResult (*cuptiGetCubinCrc)(CUpti_GetCubinCrcParams*) = nullptr;
};

// Why CUPTI cannot do something. The runner turns these into error kinds of the protocol.
enum class CuptiFailure {
    None,
    Missing,        // libcupti.so.13 not found, or lacks an entry point
    UnsupportedGpu, // the device (or its configuration: vGPU, MIG, confidential computing) cannot be profiled
    InsufficientPrivileges, // counters are restricted to administrators (NVreg_RestrictProfilingToAdminUsers)
    Busy,                   // another profiler holds the counters or the subscriber slot
    Other,
};

// Result of loading CUPTI.
struct CuptiLoad {
    bool ok = false;
    std::string path;  // what was loaded
    std::string error; // dlerror() text or the missing symbols
};

// dlopens $LOWERSCOPE_LIBCUPTI, else libcupti.so.13 by the loader's search, else in
// $CUDA_HOME/$CUDA_PATH (lib64, extras/CUPTI/lib64) and /usr/local/cuda; resolves every entry
// point into `c`. CUPTI itself loads libnvperf_host/libnvperf_target from its own directory.
CuptiLoad loadCupti(Cupti& c);

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" or "CUPTI error N" when CUPTI cannot name it.
std::string cuptiErrorName(const Cupti& c, CUptiResult r);
// The class of a CUPTI error code.
CuptiFailure classifyCuptiError(CUptiResult r);
// A failed CUPTI call as the profilers report it: `detail` becomes "<call>: <CUPTI's name for r>";
// returns the class of `r`, Other where it has none.
CuptiFailure cuptiCallFailure(const Cupti& c, CUptiResult r, const char* call, std::string& detail);

// The first step of every profiler (range profiler, SASS metrics, PC sampling):
// cuptiProfilerInitialize, then cuptiProfilerDeviceSupported for `api` (CUPTI_PROFILER_*) on `device`.
struct ProfilerSupport {
    CUptiResult result = CUPTI_SUCCESS; // of the call that failed, else CUPTI_SUCCESS
    const char* failedCall = "";        // its name ("cuptiProfilerInitialize", ...)
    CUpti_Profiler_DeviceSupported_Params params{}; // when both passed: what the device says
                                                    // (isSupported, and why not)
};
ProfilerSupport initializeProfiler(const Cupti& c, CUdevice device, int api);
// A message for the user: what failed (`what`, e.g. "kernel metrics"), why, and what to do.
// For InsufficientPrivileges it names the driver setting NVreg_RestrictProfilingToAdminUsers and
// says that timing still works.
std::string cuptiFailureMessage(CuptiFailure f, const std::string& what, const std::string& detail);
// The protocol error kind of a failure: NoCupti, ProfilingUnsupported, ProfilingNotPermitted,
// ProfilerBusy, else CuptiError.
RunErrorKind cuptiFailureKind(CuptiFailure f);

} // namespace lowerscope::runner
