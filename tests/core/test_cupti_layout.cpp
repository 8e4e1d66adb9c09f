// The CUPTI declarations of app/runner/cupti_api.h against NVIDIA's headers: every mirrored
// field at the same offset, every parameter block of the same size and the same *_STRUCT_SIZE.
// Built only where the toolkit's CUPTI headers are installed (tests/core/CMakeLists.txt); the
// runner itself never includes them.
#include "app/runner/cupti_api.h"

#include <cstddef>
#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <gtest/gtest.h>

namespace runner = lowerscope::runner;

#define LS_SAME_OFFSET(ours, theirs, field)                                                                  \
    EXPECT_EQ(offsetof(runner::ours, field), offsetof(::theirs, field)) << #theirs "." #field
#define LS_SAME_SIZE(ours, theirs) EXPECT_EQ(sizeof(runner::ours), sizeof(::theirs)) << #theirs

TEST(CuptiLayout, EveryMirroredFieldSitsWhereNvidiasHeaderPutsIt) {
    // CUpti_Activity
    LS_SAME_OFFSET(CUpti_Activity, CUpti_Activity, kind);
    LS_SAME_SIZE(CUpti_Activity, CUpti_Activity);
    // CUpti_ActivityKernel10
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, kind);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, cacheConfig);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, sharedMemoryConfig);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, registersPerThread);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, partitionedGlobalCacheRequested);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, partitionedGlobalCacheExecuted);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, start);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, end);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, completed);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, deviceId);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, contextId);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, streamId);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, gridX);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, gridY);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, gridZ);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, blockX);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, blockY);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, blockZ);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, staticSharedMemory);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, dynamicSharedMemory);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, localMemoryPerThread);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, localMemoryTotal);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, correlationId);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, gridId);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, name);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, reserved0);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, queued);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, submitted);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, launchType);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, isSharedMemoryCarveoutRequested);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, sharedMemoryCarveoutRequested);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, padding);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, sharedMemoryExecuted);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, graphNodeId);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, shmemLimitConfig);
    LS_SAME_OFFSET(CUpti_ActivityKernelPrefix, CUpti_ActivityKernel10, graphId);
    // CUpti_CallbackData
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, callbackSite);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, functionName);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, functionParams);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, functionReturnValue);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, symbolName);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, context);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, contextUid);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, correlationData);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, correlationId);
    LS_SAME_SIZE(CUpti_CallbackData, CUpti_CallbackData);
    // CUpti_Profiler_Initialize_Params
    LS_SAME_OFFSET(CUpti_Profiler_Initialize_Params, CUpti_Profiler_Initialize_Params, structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Initialize_Params, CUpti_Profiler_Initialize_Params, pPriv);
    LS_SAME_SIZE(CUpti_Profiler_Initialize_Params, CUpti_Profiler_Initialize_Params);
    // CUpti_Profiler_DeviceSupported_Params
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, structSize);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, cuDevice);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, isSupported);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params,
                   architecture);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, sli);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, vGpu);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params,
                   confidentialCompute);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, cmp);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, wsl);
    LS_SAME_OFFSET(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params, api);
    LS_SAME_SIZE(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params);
    // CUpti_Device_GetChipName_Params
    LS_SAME_OFFSET(CUpti_Device_GetChipName_Params, CUpti_Device_GetChipName_Params, structSize);
    LS_SAME_OFFSET(CUpti_Device_GetChipName_Params, CUpti_Device_GetChipName_Params, pPriv);
    LS_SAME_OFFSET(CUpti_Device_GetChipName_Params, CUpti_Device_GetChipName_Params, deviceIndex);
    LS_SAME_OFFSET(CUpti_Device_GetChipName_Params, CUpti_Device_GetChipName_Params, pChipName);
    LS_SAME_SIZE(CUpti_Device_GetChipName_Params, CUpti_Device_GetChipName_Params);
    // CUpti_Profiler_GetCounterAvailability_Params
    LS_SAME_OFFSET(CUpti_Profiler_GetCounterAvailability_Params, CUpti_Profiler_GetCounterAvailability_Params,
                   structSize);
    LS_SAME_OFFSET(CUpti_Profiler_GetCounterAvailability_Params, CUpti_Profiler_GetCounterAvailability_Params,
                   pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_GetCounterAvailability_Params, CUpti_Profiler_GetCounterAvailability_Params,
                   ctx);
    LS_SAME_OFFSET(CUpti_Profiler_GetCounterAvailability_Params, CUpti_Profiler_GetCounterAvailability_Params,
                   counterAvailabilityImageSize);
    LS_SAME_OFFSET(CUpti_Profiler_GetCounterAvailability_Params, CUpti_Profiler_GetCounterAvailability_Params,
                   pCounterAvailabilityImage);
    LS_SAME_SIZE(CUpti_Profiler_GetCounterAvailability_Params, CUpti_Profiler_GetCounterAvailability_Params);
    // CUpti_Profiler_Host_Initialize_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params, structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params, pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params,
                   profilerType);
    LS_SAME_OFFSET(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params, pChipName);
    LS_SAME_OFFSET(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params,
                   pCounterAvailabilityImage);
    LS_SAME_OFFSET(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params, pHostObject);
    LS_SAME_SIZE(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params);
    // CUpti_Profiler_Host_Deinitialize_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_Deinitialize_Params, CUpti_Profiler_Host_Deinitialize_Params,
                   structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_Deinitialize_Params, CUpti_Profiler_Host_Deinitialize_Params, pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_Deinitialize_Params, CUpti_Profiler_Host_Deinitialize_Params,
                   pHostObject);
    LS_SAME_SIZE(CUpti_Profiler_Host_Deinitialize_Params, CUpti_Profiler_Host_Deinitialize_Params);
    // CUpti_Profiler_Host_GetMetricProperties_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, pHostObject);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, pMetricName);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, pDescription);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, pHwUnit);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, pDimUnit);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetMetricProperties_Params,
                   CUpti_Profiler_Host_GetMetricProperties_Params, metricType);
    LS_SAME_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params,
                 CUpti_Profiler_Host_GetMetricProperties_Params);
    // CUpti_Profiler_Host_ConfigAddMetrics_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_ConfigAddMetrics_Params, CUpti_Profiler_Host_ConfigAddMetrics_Params,
                   structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_ConfigAddMetrics_Params, CUpti_Profiler_Host_ConfigAddMetrics_Params,
                   pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_ConfigAddMetrics_Params, CUpti_Profiler_Host_ConfigAddMetrics_Params,
                   pHostObject);
    LS_SAME_OFFSET(CUpti_Profiler_Host_ConfigAddMetrics_Params, CUpti_Profiler_Host_ConfigAddMetrics_Params,
                   ppMetricNames);
    LS_SAME_OFFSET(CUpti_Profiler_Host_ConfigAddMetrics_Params, CUpti_Profiler_Host_ConfigAddMetrics_Params,
                   numMetrics);
    LS_SAME_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, CUpti_Profiler_Host_ConfigAddMetrics_Params);
    // CUpti_Profiler_Host_GetConfigImageSize_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImageSize_Params,
                   CUpti_Profiler_Host_GetConfigImageSize_Params, structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImageSize_Params,
                   CUpti_Profiler_Host_GetConfigImageSize_Params, pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImageSize_Params,
                   CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImageSize_Params,
                   CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);
    LS_SAME_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params,
                 CUpti_Profiler_Host_GetConfigImageSize_Params);
    // CUpti_Profiler_Host_GetConfigImage_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImage_Params, CUpti_Profiler_Host_GetConfigImage_Params,
                   structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImage_Params, CUpti_Profiler_Host_GetConfigImage_Params,
                   pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImage_Params, CUpti_Profiler_Host_GetConfigImage_Params,
                   pHostObject);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImage_Params, CUpti_Profiler_Host_GetConfigImage_Params,
                   configImageSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetConfigImage_Params, CUpti_Profiler_Host_GetConfigImage_Params,
                   pConfigImage);
    LS_SAME_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, CUpti_Profiler_Host_GetConfigImage_Params);
    // CUpti_Profiler_Host_GetNumOfPasses_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetNumOfPasses_Params, CUpti_Profiler_Host_GetNumOfPasses_Params,
                   structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetNumOfPasses_Params, CUpti_Profiler_Host_GetNumOfPasses_Params,
                   pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetNumOfPasses_Params, CUpti_Profiler_Host_GetNumOfPasses_Params,
                   configImageSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetNumOfPasses_Params, CUpti_Profiler_Host_GetNumOfPasses_Params,
                   pConfigImage);
    LS_SAME_OFFSET(CUpti_Profiler_Host_GetNumOfPasses_Params, CUpti_Profiler_Host_GetNumOfPasses_Params,
                   numOfPasses);
    LS_SAME_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, CUpti_Profiler_Host_GetNumOfPasses_Params);
    // CUpti_Profiler_Host_EvaluateToGpuValues_Params
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, structSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, pPriv);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);
    LS_SAME_OFFSET(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                   CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);
    LS_SAME_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                 CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    // CUpti_RangeProfiler_Enable_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_Enable_Params, CUpti_RangeProfiler_Enable_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Enable_Params, CUpti_RangeProfiler_Enable_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Enable_Params, CUpti_RangeProfiler_Enable_Params, ctx);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Enable_Params, CUpti_RangeProfiler_Enable_Params,
                   pRangeProfilerObject);
    LS_SAME_SIZE(CUpti_RangeProfiler_Enable_Params, CUpti_RangeProfiler_Enable_Params);
    // CUpti_RangeProfiler_Disable_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_Object_Params, CUpti_RangeProfiler_Disable_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Object_Params, CUpti_RangeProfiler_Disable_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Object_Params, CUpti_RangeProfiler_Disable_Params,
                   pRangeProfilerObject);
    LS_SAME_SIZE(CUpti_RangeProfiler_Object_Params, CUpti_RangeProfiler_Disable_Params);
    // CUpti_RangeProfiler_Stop_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params, pRangeProfilerObject);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params, passIndex);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params, targetNestingLevel);
    LS_SAME_OFFSET(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted);
    LS_SAME_SIZE(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params);
    // CUpti_RangeProfiler_PushRange_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_PushRange_Params, CUpti_RangeProfiler_PushRange_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_PushRange_Params, CUpti_RangeProfiler_PushRange_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_PushRange_Params, CUpti_RangeProfiler_PushRange_Params,
                   pRangeProfilerObject);
    LS_SAME_OFFSET(CUpti_RangeProfiler_PushRange_Params, CUpti_RangeProfiler_PushRange_Params, pRangeName);
    LS_SAME_SIZE(CUpti_RangeProfiler_PushRange_Params, CUpti_RangeProfiler_PushRange_Params);
    // CUpti_RangeProfiler_SetConfig_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params,
                   pRangeProfilerObject);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params, configSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params, pConfig);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params,
                   counterDataImageSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params,
                   pCounterDataImage);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params, range);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params, replayMode);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params,
                   maxRangesPerPass);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params,
                   numNestingLevels);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params,
                   minNestingLevel);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params, passIndex);
    LS_SAME_OFFSET(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params,
                   targetNestingLevel);
    LS_SAME_SIZE(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params);
    // CUpti_RangeProfiler_DecodeData_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_DecodeData_Params, CUpti_RangeProfiler_DecodeData_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_DecodeData_Params, CUpti_RangeProfiler_DecodeData_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_DecodeData_Params, CUpti_RangeProfiler_DecodeData_Params,
                   pRangeProfilerObject);
    LS_SAME_OFFSET(CUpti_RangeProfiler_DecodeData_Params, CUpti_RangeProfiler_DecodeData_Params,
                   numOfRangeDropped);
    LS_SAME_SIZE(CUpti_RangeProfiler_DecodeData_Params, CUpti_RangeProfiler_DecodeData_Params);
    // CUpti_RangeProfiler_GetCounterDataSize_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, pRangeProfilerObject);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, pMetricNames);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, numMetrics);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumOfRanges);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumRangeTreeNodes);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataSize_Params,
                   CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize);
    LS_SAME_SIZE(CUpti_RangeProfiler_GetCounterDataSize_Params,
                 CUpti_RangeProfiler_GetCounterDataSize_Params);
    // CUpti_RangeProfiler_CounterDataImage_Initialize_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                   CUpti_RangeProfiler_CounterDataImage_Initialize_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                   CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                   CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pRangeProfilerObject);
    LS_SAME_OFFSET(CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                   CUpti_RangeProfiler_CounterDataImage_Initialize_Params, counterDataSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                   CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pCounterData);
    LS_SAME_SIZE(CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                 CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    // CUpti_RangeProfiler_GetCounterDataInfo_Params
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataInfo_Params,
                   CUpti_RangeProfiler_GetCounterDataInfo_Params, structSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataInfo_Params,
                   CUpti_RangeProfiler_GetCounterDataInfo_Params, pPriv);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataInfo_Params,
                   CUpti_RangeProfiler_GetCounterDataInfo_Params, pCounterDataImage);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataInfo_Params,
                   CUpti_RangeProfiler_GetCounterDataInfo_Params, counterDataImageSize);
    LS_SAME_OFFSET(CUpti_RangeProfiler_GetCounterDataInfo_Params,
                   CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges);
    LS_SAME_SIZE(CUpti_RangeProfiler_GetCounterDataInfo_Params,
                 CUpti_RangeProfiler_GetCounterDataInfo_Params);
    // CUpti_SassMetrics_MetricDetails
    LS_SAME_OFFSET(CUpti_SassMetrics_MetricDetails, CUpti_SassMetrics_MetricDetails, metricId);
    LS_SAME_OFFSET(CUpti_SassMetrics_MetricDetails, CUpti_SassMetrics_MetricDetails, pMetricName);
    LS_SAME_OFFSET(CUpti_SassMetrics_MetricDetails, CUpti_SassMetrics_MetricDetails, pMetricDescription);
    LS_SAME_SIZE(CUpti_SassMetrics_MetricDetails, CUpti_SassMetrics_MetricDetails);
    // CUpti_SassMetrics_GetProperties_Params
    LS_SAME_OFFSET(CUpti_SassMetrics_GetProperties_Params, CUpti_SassMetrics_GetProperties_Params,
                   structSize);
    LS_SAME_OFFSET(CUpti_SassMetrics_GetProperties_Params, CUpti_SassMetrics_GetProperties_Params, pPriv);
    LS_SAME_OFFSET(CUpti_SassMetrics_GetProperties_Params, CUpti_SassMetrics_GetProperties_Params, pChipName);
    LS_SAME_OFFSET(CUpti_SassMetrics_GetProperties_Params, CUpti_SassMetrics_GetProperties_Params,
                   pMetricName);
    LS_SAME_OFFSET(CUpti_SassMetrics_GetProperties_Params, CUpti_SassMetrics_GetProperties_Params, metric);
    LS_SAME_SIZE(CUpti_SassMetrics_GetProperties_Params, CUpti_SassMetrics_GetProperties_Params);
    // CUpti_SassMetrics_Config
    LS_SAME_OFFSET(CUpti_SassMetrics_Config, CUpti_SassMetrics_Config, metricId);
    LS_SAME_OFFSET(CUpti_SassMetrics_Config, CUpti_SassMetrics_Config, outputGranularity);
    LS_SAME_SIZE(CUpti_SassMetrics_Config, CUpti_SassMetrics_Config);
    // CUpti_SassMetricsSetConfig_Params
    LS_SAME_OFFSET(CUpti_SassMetricsSetConfig_Params, CUpti_SassMetricsSetConfig_Params, structSize);
    LS_SAME_OFFSET(CUpti_SassMetricsSetConfig_Params, CUpti_SassMetricsSetConfig_Params, pPriv);
    LS_SAME_OFFSET(CUpti_SassMetricsSetConfig_Params, CUpti_SassMetricsSetConfig_Params, numOfMetricConfig);
    LS_SAME_OFFSET(CUpti_SassMetricsSetConfig_Params, CUpti_SassMetricsSetConfig_Params, pConfigs);
    LS_SAME_OFFSET(CUpti_SassMetricsSetConfig_Params, CUpti_SassMetricsSetConfig_Params, deviceIndex);
    LS_SAME_SIZE(CUpti_SassMetricsSetConfig_Params, CUpti_SassMetricsSetConfig_Params);
    // CUpti_SassMetricsUnsetConfig_Params
    LS_SAME_OFFSET(CUpti_SassMetricsUnsetConfig_Params, CUpti_SassMetricsUnsetConfig_Params, structSize);
    LS_SAME_OFFSET(CUpti_SassMetricsUnsetConfig_Params, CUpti_SassMetricsUnsetConfig_Params, pPriv);
    LS_SAME_OFFSET(CUpti_SassMetricsUnsetConfig_Params, CUpti_SassMetricsUnsetConfig_Params, deviceIndex);
    LS_SAME_SIZE(CUpti_SassMetricsUnsetConfig_Params, CUpti_SassMetricsUnsetConfig_Params);
    // CUpti_SassMetricsEnable_Params
    LS_SAME_OFFSET(CUpti_SassMetricsEnable_Params, CUpti_SassMetricsEnable_Params, structSize);
    LS_SAME_OFFSET(CUpti_SassMetricsEnable_Params, CUpti_SassMetricsEnable_Params, pPriv);
    LS_SAME_OFFSET(CUpti_SassMetricsEnable_Params, CUpti_SassMetricsEnable_Params, ctx);
    LS_SAME_OFFSET(CUpti_SassMetricsEnable_Params, CUpti_SassMetricsEnable_Params, enableLazyPatching);
    LS_SAME_SIZE(CUpti_SassMetricsEnable_Params, CUpti_SassMetricsEnable_Params);
    // CUpti_SassMetricsDisable_Params
    LS_SAME_OFFSET(CUpti_SassMetricsDisable_Params, CUpti_SassMetricsDisable_Params, structSize);
    LS_SAME_OFFSET(CUpti_SassMetricsDisable_Params, CUpti_SassMetricsDisable_Params, pPriv);
    LS_SAME_OFFSET(CUpti_SassMetricsDisable_Params, CUpti_SassMetricsDisable_Params, ctx);
    LS_SAME_OFFSET(CUpti_SassMetricsDisable_Params, CUpti_SassMetricsDisable_Params, numOfDroppedRecords);
    LS_SAME_SIZE(CUpti_SassMetricsDisable_Params, CUpti_SassMetricsDisable_Params);
    // CUpti_SassMetricsGetDataProperties_Params
    LS_SAME_OFFSET(CUpti_SassMetricsGetDataProperties_Params, CUpti_SassMetricsGetDataProperties_Params,
                   structSize);
    LS_SAME_OFFSET(CUpti_SassMetricsGetDataProperties_Params, CUpti_SassMetricsGetDataProperties_Params,
                   pPriv);
    LS_SAME_OFFSET(CUpti_SassMetricsGetDataProperties_Params, CUpti_SassMetricsGetDataProperties_Params, ctx);
    LS_SAME_OFFSET(CUpti_SassMetricsGetDataProperties_Params, CUpti_SassMetricsGetDataProperties_Params,
                   numOfPatchedInstructionRecords);
    LS_SAME_OFFSET(CUpti_SassMetricsGetDataProperties_Params, CUpti_SassMetricsGetDataProperties_Params,
                   numOfInstances);
    LS_SAME_SIZE(CUpti_SassMetricsGetDataProperties_Params, CUpti_SassMetricsGetDataProperties_Params);
    // CUpti_SassMetrics_InstanceValue
    LS_SAME_OFFSET(CUpti_SassMetrics_InstanceValue, CUpti_SassMetrics_InstanceValue, metricId);
    LS_SAME_OFFSET(CUpti_SassMetrics_InstanceValue, CUpti_SassMetrics_InstanceValue, value);
    LS_SAME_SIZE(CUpti_SassMetrics_InstanceValue, CUpti_SassMetrics_InstanceValue);
    // CUpti_SassMetrics_Data
    LS_SAME_OFFSET(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data, structSize);
    LS_SAME_OFFSET(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data, pPriv);
    LS_SAME_OFFSET(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data, cubinCrc);
    LS_SAME_OFFSET(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data, functionIndex);
    LS_SAME_OFFSET(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data, functionName);
    LS_SAME_OFFSET(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data, pcOffset);
    LS_SAME_OFFSET(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data, pInstanceValues);
    LS_SAME_SIZE(CUpti_SassMetrics_Data, CUpti_SassMetrics_Data);
    // CUpti_SassMetricsFlushData_Params
    LS_SAME_OFFSET(CUpti_SassMetricsFlushData_Params, CUpti_SassMetricsFlushData_Params, structSize);
    LS_SAME_OFFSET(CUpti_SassMetricsFlushData_Params, CUpti_SassMetricsFlushData_Params, pPriv);
    LS_SAME_OFFSET(CUpti_SassMetricsFlushData_Params, CUpti_SassMetricsFlushData_Params, ctx);
    LS_SAME_OFFSET(CUpti_SassMetricsFlushData_Params, CUpti_SassMetricsFlushData_Params,
                   numOfPatchedInstructionRecords);
    LS_SAME_OFFSET(CUpti_SassMetricsFlushData_Params, CUpti_SassMetricsFlushData_Params, numOfInstances);
    LS_SAME_OFFSET(CUpti_SassMetricsFlushData_Params, CUpti_SassMetricsFlushData_Params, pMetricsData);
    LS_SAME_SIZE(CUpti_SassMetricsFlushData_Params, CUpti_SassMetricsFlushData_Params);
    // CUpti_PCSamplingStallReason
    LS_SAME_OFFSET(CUpti_PCSamplingStallReason, CUpti_PCSamplingStallReason, pcSamplingStallReasonIndex);
    LS_SAME_OFFSET(CUpti_PCSamplingStallReason, CUpti_PCSamplingStallReason, samples);
    LS_SAME_SIZE(CUpti_PCSamplingStallReason, CUpti_PCSamplingStallReason);
    // CUpti_PCSamplingPCData
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, size);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, cubinCrc);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, pcOffset);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, functionIndex);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, pad);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, functionName);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, stallReasonCount);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, stallReason);
    LS_SAME_OFFSET(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData, correlationId);
    LS_SAME_SIZE(CUpti_PCSamplingPCData, CUpti_PCSamplingPCData);
    // CUpti_PCSamplingData
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, size);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, collectNumPcs);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, totalSamples);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, droppedSamples);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, totalNumPcs);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, remainingNumPcs);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, rangeId);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, pPcData);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, nonUsrKernelsTotalSamples);
    LS_SAME_OFFSET(CUpti_PCSamplingData, CUpti_PCSamplingData, hardwareBufferFull);
    LS_SAME_SIZE(CUpti_PCSamplingData, CUpti_PCSamplingData);
    // CUpti_PCSamplingConfigurationInfo
    LS_SAME_OFFSET(CUpti_PCSamplingConfigurationInfo, CUpti_PCSamplingConfigurationInfo, attributeType);
    LS_SAME_OFFSET(CUpti_PCSamplingConfigurationInfo, CUpti_PCSamplingConfigurationInfo, attributeStatus);
    LS_SAME_SIZE(CUpti_PCSamplingConfigurationInfo, CUpti_PCSamplingConfigurationInfo);
    // CUpti_PCSamplingConfigurationInfoParams
    LS_SAME_OFFSET(CUpti_PCSamplingConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams, size);
    LS_SAME_OFFSET(CUpti_PCSamplingConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams, pPriv);
    LS_SAME_OFFSET(CUpti_PCSamplingConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams, ctx);
    LS_SAME_OFFSET(CUpti_PCSamplingConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams,
                   numAttributes);
    LS_SAME_OFFSET(CUpti_PCSamplingConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams,
                   pPCSamplingConfigurationInfo);
    LS_SAME_SIZE(CUpti_PCSamplingConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams);
    // CUpti_PCSamplingEnableParams
    LS_SAME_OFFSET(CUpti_PCSamplingContextParams, CUpti_PCSamplingEnableParams, size);
    LS_SAME_OFFSET(CUpti_PCSamplingContextParams, CUpti_PCSamplingEnableParams, pPriv);
    LS_SAME_OFFSET(CUpti_PCSamplingContextParams, CUpti_PCSamplingEnableParams, ctx);
    LS_SAME_SIZE(CUpti_PCSamplingContextParams, CUpti_PCSamplingEnableParams);
    // CUpti_PCSamplingGetDataParams
    LS_SAME_OFFSET(CUpti_PCSamplingGetDataParams, CUpti_PCSamplingGetDataParams, size);
    LS_SAME_OFFSET(CUpti_PCSamplingGetDataParams, CUpti_PCSamplingGetDataParams, pPriv);
    LS_SAME_OFFSET(CUpti_PCSamplingGetDataParams, CUpti_PCSamplingGetDataParams, ctx);
    LS_SAME_OFFSET(CUpti_PCSamplingGetDataParams, CUpti_PCSamplingGetDataParams, pcSamplingData);
    LS_SAME_SIZE(CUpti_PCSamplingGetDataParams, CUpti_PCSamplingGetDataParams);
    // CUpti_PCSamplingGetNumStallReasonsParams
    LS_SAME_OFFSET(CUpti_PCSamplingGetNumStallReasonsParams, CUpti_PCSamplingGetNumStallReasonsParams, size);
    LS_SAME_OFFSET(CUpti_PCSamplingGetNumStallReasonsParams, CUpti_PCSamplingGetNumStallReasonsParams, pPriv);
    LS_SAME_OFFSET(CUpti_PCSamplingGetNumStallReasonsParams, CUpti_PCSamplingGetNumStallReasonsParams, ctx);
    LS_SAME_OFFSET(CUpti_PCSamplingGetNumStallReasonsParams, CUpti_PCSamplingGetNumStallReasonsParams,
                   numStallReasons);
    LS_SAME_SIZE(CUpti_PCSamplingGetNumStallReasonsParams, CUpti_PCSamplingGetNumStallReasonsParams);
    // CUpti_PCSamplingGetStallReasonsParams
    LS_SAME_OFFSET(CUpti_PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams, size);
    LS_SAME_OFFSET(CUpti_PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams, pPriv);
    LS_SAME_OFFSET(CUpti_PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams, ctx);
    LS_SAME_OFFSET(CUpti_PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams,
                   numStallReasons);
    LS_SAME_OFFSET(CUpti_PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams,
                   stallReasonIndex);
    LS_SAME_OFFSET(CUpti_PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams,
                   stallReasons);
    LS_SAME_SIZE(CUpti_PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams);
    // CUpti_GetCubinCrcParams
    LS_SAME_OFFSET(CUpti_GetCubinCrcParams, CUpti_GetCubinCrcParams, size);
    LS_SAME_OFFSET(CUpti_GetCubinCrcParams, CUpti_GetCubinCrcParams, cubinSize);
    LS_SAME_OFFSET(CUpti_GetCubinCrcParams, CUpti_GetCubinCrcParams, cubin);
    LS_SAME_OFFSET(CUpti_GetCubinCrcParams, CUpti_GetCubinCrcParams, cubinCrc);
    LS_SAME_SIZE(CUpti_GetCubinCrcParams, CUpti_GetCubinCrcParams);
}

TEST(CuptiLayout, ParameterBlockSizesMatchTheStructSizeMacros) {
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Initialize_Params>::value,
              size_t(CUpti_Profiler_Initialize_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Initialize_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_DeviceSupported_Params>::value,
              size_t(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE))
        << "CUpti_Profiler_DeviceSupported_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Device_GetChipName_Params>::value,
              size_t(CUpti_Device_GetChipName_Params_STRUCT_SIZE))
        << "CUpti_Device_GetChipName_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_GetCounterAvailability_Params>::value,
              size_t(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE))
        << "CUpti_Profiler_GetCounterAvailability_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_Initialize_Params>::value,
              size_t(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_Initialize_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_Deinitialize_Params>::value,
              size_t(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_Deinitialize_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_GetMetricProperties_Params>::value,
              size_t(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_GetMetricProperties_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_ConfigAddMetrics_Params>::value,
              size_t(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_ConfigAddMetrics_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_GetConfigImageSize_Params>::value,
              size_t(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_GetConfigImageSize_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_GetConfigImage_Params>::value,
              size_t(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_GetConfigImage_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_GetNumOfPasses_Params>::value,
              size_t(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_GetNumOfPasses_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_Profiler_Host_EvaluateToGpuValues_Params>::value,
              size_t(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE))
        << "CUpti_Profiler_Host_EvaluateToGpuValues_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_Enable_Params>::value,
              size_t(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_Enable_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_Object_Params>::value,
              size_t(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_Disable_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_Object_Params>::value,
              size_t(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_Start_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_Object_Params>::value,
              size_t(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_PopRange_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_Stop_Params>::value,
              size_t(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_Stop_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_PushRange_Params>::value,
              size_t(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_PushRange_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_SetConfig_Params>::value,
              size_t(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_SetConfig_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_DecodeData_Params>::value,
              size_t(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_DecodeData_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_GetCounterDataSize_Params>::value,
              size_t(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_GetCounterDataSize_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_CounterDataImage_Initialize_Params>::value,
              size_t(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_CounterDataImage_Initialize_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_RangeProfiler_GetCounterDataInfo_Params>::value,
              size_t(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE))
        << "CUpti_RangeProfiler_GetCounterDataInfo_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_SassMetrics_GetProperties_Params>::value,
              size_t(CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE))
        << "CUpti_SassMetrics_GetProperties_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_SassMetricsSetConfig_Params>::value,
              size_t(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE))
        << "CUpti_SassMetricsSetConfig_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_SassMetricsUnsetConfig_Params>::value,
              size_t(CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE))
        << "CUpti_SassMetricsUnsetConfig_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_SassMetricsEnable_Params>::value,
              size_t(CUpti_SassMetricsEnable_Params_STRUCT_SIZE))
        << "CUpti_SassMetricsEnable_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_SassMetricsDisable_Params>::value,
              size_t(CUpti_SassMetricsDisable_Params_STRUCT_SIZE))
        << "CUpti_SassMetricsDisable_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_SassMetricsGetDataProperties_Params>::value,
              size_t(CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE))
        << "CUpti_SassMetricsGetDataProperties_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_SassMetricsFlushData_Params>::value,
              size_t(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE))
        << "CUpti_SassMetricsFlushData_Params";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingConfigurationInfoParams>::value,
              size_t(CUpti_PCSamplingConfigurationInfoParamsSize))
        << "CUpti_PCSamplingConfigurationInfoParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingContextParams>::value,
              size_t(CUpti_PCSamplingEnableParamsSize))
        << "CUpti_PCSamplingEnableParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingContextParams>::value,
              size_t(CUpti_PCSamplingDisableParamsSize))
        << "CUpti_PCSamplingDisableParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingContextParams>::value,
              size_t(CUpti_PCSamplingStartParamsSize))
        << "CUpti_PCSamplingStartParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingContextParams>::value,
              size_t(CUpti_PCSamplingStopParamsSize))
        << "CUpti_PCSamplingStopParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingGetDataParams>::value,
              size_t(CUpti_PCSamplingGetDataParamsSize))
        << "CUpti_PCSamplingGetDataParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingGetNumStallReasonsParams>::value,
              size_t(CUpti_PCSamplingGetNumStallReasonsParamsSize))
        << "CUpti_PCSamplingGetNumStallReasonsParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_PCSamplingGetStallReasonsParams>::value,
              size_t(CUpti_PCSamplingGetStallReasonsParamsSize))
        << "CUpti_PCSamplingGetStallReasonsParams";
    EXPECT_EQ(runner::CuptiStructSize<runner::CUpti_GetCubinCrcParams>::value,
              size_t(CUpti_GetCubinCrcParamsSize))
        << "CUpti_GetCubinCrcParams";
}

TEST(CuptiLayout, ConstantsMatch) {
    EXPECT_EQ(runner::CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, int(::CUPTI_ERROR_INSUFFICIENT_PRIVILEGES));
    EXPECT_EQ(runner::CUPTI_ERROR_NOT_SUPPORTED, int(::CUPTI_ERROR_NOT_SUPPORTED));
    EXPECT_EQ(runner::CUPTI_ERROR_INVALID_METRIC_NAME, int(::CUPTI_ERROR_INVALID_METRIC_NAME));
    EXPECT_EQ(runner::CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES,
              int(::CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES));
    EXPECT_EQ(runner::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, int(::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    EXPECT_EQ(runner::CUPTI_ACTIVITY_KIND_KERNEL, int(::CUPTI_ACTIVITY_KIND_KERNEL));
    EXPECT_EQ(runner::CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, uint32_t(::CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    EXPECT_EQ(runner::CUPTI_CB_DOMAIN_DRIVER_API, int(::CUPTI_CB_DOMAIN_DRIVER_API));
    EXPECT_EQ(runner::CUPTI_API_ENTER, int(::CUPTI_API_ENTER));
    EXPECT_EQ(runner::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
              uint32_t(::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    EXPECT_EQ(runner::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
              uint32_t(::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz));
    EXPECT_EQ(runner::CUPTI_AutoRange, int(::CUPTI_AutoRange));
    EXPECT_EQ(runner::CUPTI_UserRange, int(::CUPTI_UserRange));
    EXPECT_EQ(runner::CUPTI_KernelReplay, int(::CUPTI_KernelReplay));
    EXPECT_EQ(runner::CUPTI_UserReplay, int(::CUPTI_UserReplay));
    EXPECT_EQ(runner::CUPTI_PROFILER_CONFIGURATION_SUPPORTED, int(::CUPTI_PROFILER_CONFIGURATION_SUPPORTED));
    EXPECT_EQ(runner::CUPTI_PROFILER_RANGE_PROFILING, int(::CUPTI_PROFILER_RANGE_PROFILING));
    EXPECT_EQ(runner::CUPTI_PROFILER_PC_SAMPLING, int(::CUPTI_PROFILER_PC_SAMPLING));
    EXPECT_EQ(runner::CUPTI_PROFILER_SASS_METRICS, int(::CUPTI_PROFILER_SASS_METRICS));
    EXPECT_EQ(runner::CUPTI_PROFILER_TYPE_RANGE_PROFILER, int(::CUPTI_PROFILER_TYPE_RANGE_PROFILER));
    EXPECT_EQ(runner::CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU,
              uint8_t(::CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS,
              int(::CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED,
              int(::CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED,
              int(::CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD,
              int(::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE,
              int(::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE,
              int(::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE,
              int(::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL,
              int(::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT,
              int(::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT));
    EXPECT_EQ(runner::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER,
              int(::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER));
    EXPECT_EQ(runner::kStallReasonStringSize, size_t(CUPTI_STALL_REASON_STRING_SIZE));
}
