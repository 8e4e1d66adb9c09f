// The injection library's CUPTI declarations (app/inject/inject_cupti.h) against NVIDIA's headers:
// the whole kernel activity record, the resource callback data and the ids, where the toolkit's
// CUPTI headers are installed (tests/core/CMakeLists.txt); the library itself never includes them.
#include "app/inject/inject_cupti.h"

#include <cstddef>
#include <cuda.h>
#include <cupti.h>
#include <gtest/gtest.h>

namespace inject = lowerscope::inject;

#define LS_SAME_OFFSET(ours, theirs, field)                                                                  \
    EXPECT_EQ(offsetof(inject::ours, field), offsetof(::theirs, field)) << #theirs "." #field
#define LS_SAME_SIZE(ours, theirs) EXPECT_EQ(sizeof(inject::ours), sizeof(::theirs)) << #theirs

TEST(CaptureCuptiLayout, TheKernelRecordMatchesCuptiActivityKernel10) {
    LS_SAME_SIZE(CUpti_ActivityKernel10, CUpti_ActivityKernel10);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, start);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, end);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, deviceId);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, contextId);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, streamId);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, gridX);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, blockZ);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, staticSharedMemory);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, dynamicSharedMemory);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, registersPerThread);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, correlationId);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, name);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, graphNodeId);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, shmemLimitConfig);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, graphId);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, pAccessPolicyWindow);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, channelID);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, channelType);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, clusterX);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, clusterY);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, clusterZ);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, clusterSchedulingPolicy);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, localMemoryTotal_v2);
    LS_SAME_OFFSET(CUpti_ActivityKernel10, CUpti_ActivityKernel10, isDeviceLaunched);
}

TEST(CaptureCuptiLayout, TheResourceCallbackDataMatches) {
    LS_SAME_SIZE(CUpti_ResourceData, CUpti_ResourceData);
    LS_SAME_OFFSET(CUpti_ResourceData, CUpti_ResourceData, context);
    LS_SAME_OFFSET(CUpti_ResourceData, CUpti_ResourceData, resourceDescriptor);
    LS_SAME_SIZE(CUpti_ModuleResourceData, CUpti_ModuleResourceData);
    LS_SAME_OFFSET(CUpti_ModuleResourceData, CUpti_ModuleResourceData, moduleId);
    LS_SAME_OFFSET(CUpti_ModuleResourceData, CUpti_ModuleResourceData, cubinSize);
    LS_SAME_OFFSET(CUpti_ModuleResourceData, CUpti_ModuleResourceData, pCubin);
    EXPECT_EQ(inject::CUPTI_CB_DOMAIN_RESOURCE, static_cast<int>(::CUPTI_CB_DOMAIN_RESOURCE));
    EXPECT_EQ(inject::CUPTI_CBID_RESOURCE_MODULE_LOADED, static_cast<uint32_t>(::CUPTI_CBID_RESOURCE_MODULE_LOADED));
    EXPECT_EQ(inject::CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
              static_cast<uint32_t>(::CUPTI_CBID_RESOURCE_CONTEXT_CREATED));
}

TEST(CaptureCuptiLayout, TheDriverApiCallbackDataMatches) {
    LS_SAME_SIZE(CUpti_CallbackData, CUpti_CallbackData);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, callbackSite);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, functionParams);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, functionReturnValue);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, symbolName);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, context);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, correlationData);
    LS_SAME_OFFSET(CUpti_CallbackData, CUpti_CallbackData, correlationId);
    EXPECT_EQ(sizeof(::CUpti_ApiCallbackSite), sizeof(int32_t));
    EXPECT_EQ(inject::CUPTI_CB_DOMAIN_DRIVER_API, static_cast<int>(::CUPTI_CB_DOMAIN_DRIVER_API));
    EXPECT_EQ(inject::CUPTI_API_ENTER, static_cast<int>(::CUPTI_API_ENTER));
    EXPECT_EQ(inject::CUPTI_API_EXIT, static_cast<int>(::CUPTI_API_EXIT));
    EXPECT_EQ(inject::CBID_cuLaunchKernel, static_cast<uint32_t>(::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    EXPECT_EQ(inject::CBID_cuLaunchKernel_ptsz, static_cast<uint32_t>(::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz));
    EXPECT_EQ(inject::CBID_cuLaunchCooperativeKernel,
              static_cast<uint32_t>(::CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel));
    EXPECT_EQ(inject::CBID_cuLaunchCooperativeKernel_ptsz,
              static_cast<uint32_t>(::CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz));
    EXPECT_EQ(inject::CBID_cuLaunchKernelEx, static_cast<uint32_t>(::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
    EXPECT_EQ(inject::CBID_cuLaunchKernelEx_ptsz, static_cast<uint32_t>(::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz));
}

#define LS_LAUNCH_FIELDS(ours, theirs)                                                                       \
    LS_SAME_SIZE(ours, theirs);                                                                              \
    LS_SAME_OFFSET(ours, theirs, f);                                                                         \
    LS_SAME_OFFSET(ours, theirs, gridDimX);                                                                  \
    LS_SAME_OFFSET(ours, theirs, gridDimZ);                                                                  \
    LS_SAME_OFFSET(ours, theirs, blockDimX);                                                                 \
    LS_SAME_OFFSET(ours, theirs, blockDimZ);                                                                 \
    LS_SAME_OFFSET(ours, theirs, sharedMemBytes);                                                            \
    LS_SAME_OFFSET(ours, theirs, hStream);                                                                   \
    LS_SAME_OFFSET(ours, theirs, kernelParams)

TEST(CaptureCuptiLayout, TheLaunchCallsParameterStructsMatch) {
    LS_LAUNCH_FIELDS(cuLaunchKernel_params, cuLaunchKernel_params);
    LS_SAME_OFFSET(cuLaunchKernel_params, cuLaunchKernel_params, extra);
    LS_LAUNCH_FIELDS(cuLaunchKernel_params, cuLaunchKernel_ptsz_params);
    LS_SAME_OFFSET(cuLaunchKernel_params, cuLaunchKernel_ptsz_params, extra);
    LS_LAUNCH_FIELDS(cuLaunchCooperativeKernel_params, cuLaunchCooperativeKernel_params);
    LS_LAUNCH_FIELDS(cuLaunchCooperativeKernel_params, cuLaunchCooperativeKernel_ptsz_params);
    LS_SAME_SIZE(cuLaunchKernelEx_params, cuLaunchKernelEx_params);
    LS_SAME_SIZE(cuLaunchKernelEx_params, cuLaunchKernelEx_ptsz_params);
    LS_SAME_OFFSET(cuLaunchKernelEx_params, cuLaunchKernelEx_params, config);
    LS_SAME_OFFSET(cuLaunchKernelEx_params, cuLaunchKernelEx_params, f);
    LS_SAME_OFFSET(cuLaunchKernelEx_params, cuLaunchKernelEx_params, kernelParams);
    LS_SAME_OFFSET(cuLaunchKernelEx_params, cuLaunchKernelEx_params, extra);
    LS_SAME_OFFSET(cuLaunchKernelEx_params, cuLaunchKernelEx_ptsz_params, extra);
}

TEST(CaptureCuptiLayout, TheLaunchConfigurationMatchesCudaH) {
    LS_SAME_SIZE(CUlaunchConfig, CUlaunchConfig);
    LS_SAME_OFFSET(CUlaunchConfig, CUlaunchConfig, gridDimX);
    LS_SAME_OFFSET(CUlaunchConfig, CUlaunchConfig, blockDimZ);
    LS_SAME_OFFSET(CUlaunchConfig, CUlaunchConfig, sharedMemBytes);
    LS_SAME_OFFSET(CUlaunchConfig, CUlaunchConfig, hStream);
    LS_SAME_OFFSET(CUlaunchConfig, CUlaunchConfig, attrs);
    LS_SAME_OFFSET(CUlaunchConfig, CUlaunchConfig, numAttrs);
    LS_SAME_SIZE(CUlaunchAttribute, CUlaunchAttribute);
    LS_SAME_OFFSET(CUlaunchAttribute, CUlaunchAttribute, id);
    LS_SAME_OFFSET(CUlaunchAttribute, CUlaunchAttribute, value);
    EXPECT_EQ(sizeof(inject::CUlaunchAttributeValue), sizeof(::CUlaunchAttributeValue));
    EXPECT_EQ(offsetof(inject::CUlaunchAttributeValue, clusterDim.z), offsetof(::CUlaunchAttributeValue, clusterDim.z));
    EXPECT_EQ(inject::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, static_cast<int32_t>(::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION));
    EXPECT_EQ(inject::kLaunchParamBufferPointer, CU_LAUNCH_PARAM_BUFFER_POINTER);
    EXPECT_EQ(inject::kLaunchParamBufferSize, CU_LAUNCH_PARAM_BUFFER_SIZE);
    EXPECT_EQ(inject::kLaunchParamEnd, CU_LAUNCH_PARAM_END);
    EXPECT_EQ(sizeof(inject::CUdeviceptr), sizeof(::CUdeviceptr));
}
