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
