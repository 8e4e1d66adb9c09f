#pragma once
// The CUPTI declarations the injection library needs beyond app/runner/cupti_api.h (which the
// runner shares with it): the whole kernel activity record (cluster dimensions sit past the
// prefix the runner reads), the resource domain's callback data (module loaded, context created)
// and their ids, and for saving selected launches (launch_snapshot.h) the driver-API domain's
// callback data, the kernel launch calls' ids and parameter structs (generated_cuda_meta.h) and
// the driver's launch configuration (cuda.h). Mirrored from NVIDIA's cupti_activity.h,
// cupti_callbacks.h, cupti_driver_cbid.h, generated_cuda_meta.h and cuda.h (CUDA 13) field by
// field; tests/core/test_capture_cupti_layout.cpp compares them with those headers where the
// toolkit has them.

#include "app/runner/cupti_api.h"

#include <cstddef>
#include <cstdint>

namespace lowerscope::inject {

using runner::CUcontext;
using runner::CUptiResult;

constexpr int CUPTI_CB_DOMAIN_RESOURCE = 3;
constexpr uint32_t CUPTI_CBID_RESOURCE_CONTEXT_CREATED = 1;
constexpr uint32_t CUPTI_CBID_RESOURCE_MODULE_LOADED = 6;

#define LS_CUPTI_PACKED __attribute__((__packed__)) __attribute__((aligned(8)))

// CUpti_ActivityKernel10 (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL records of CUDA 13).
struct LS_CUPTI_PACKED CUpti_ActivityKernel10 {
    int32_t kind;
    uint8_t cacheConfig;
    uint8_t sharedMemoryConfig;
    uint16_t registersPerThread;
    int32_t partitionedGlobalCacheRequested;
    int32_t partitionedGlobalCacheExecuted;
    uint64_t start;
    uint64_t end;
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
    uint32_t correlationId;
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
    uint64_t graphNodeId;
    int32_t shmemLimitConfig;
    uint32_t graphId;
    void* pAccessPolicyWindow;
    uint32_t channelID;
    int32_t channelType;
    uint32_t clusterX;
    uint32_t clusterY;
    uint32_t clusterZ;
    uint32_t clusterSchedulingPolicy;
    uint64_t localMemoryTotal_v2;
    uint32_t maxPotentialClusterSize;
    uint32_t maxActiveClusters;
    uint8_t isDeviceLaunched;
    uint8_t padding3[7];
};

#undef LS_CUPTI_PACKED

// ------------------------------------------------------------------ driver-API launch callbacks

constexpr int CUPTI_CB_DOMAIN_DRIVER_API = 1;
constexpr int CUPTI_API_ENTER = 0;
constexpr int CUPTI_API_EXIT = 1;
// CUPTI_DRIVER_TRACE_CBID_* of the kernel launch calls (cupti_driver_cbid.h)
constexpr uint32_t CBID_cuLaunchKernel = 307;
constexpr uint32_t CBID_cuLaunchKernel_ptsz = 442;
constexpr uint32_t CBID_cuLaunchCooperativeKernel = 477;
constexpr uint32_t CBID_cuLaunchCooperativeKernel_ptsz = 478;
constexpr uint32_t CBID_cuLaunchKernelEx = 652;
constexpr uint32_t CBID_cuLaunchKernelEx_ptsz = 653;

using CUfunction = void*;
using CUstream = void*;
using CUdeviceptr = unsigned long long;

// CUpti_CallbackData: what a driver- or runtime-API callback receives.
struct CUpti_CallbackData {
    int32_t callbackSite; // CUPTI_API_ENTER or CUPTI_API_EXIT
    const char* functionName;
    const void* functionParams; // the call's *_params struct
    void* functionReturnValue;  // CUresult* (valid at exit)
    const char* symbolName;     // the kernel's (mangled) name for launch calls
    CUcontext context;
    uint32_t contextUid;
    uint64_t* correlationData;
    uint32_t correlationId;
};

// cuLaunchKernel_params and cuLaunchKernel_ptsz_params (the same fields).
struct cuLaunchKernel_params {
    CUfunction f;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    void** kernelParams;
    void** extra;
};

// cuLaunchCooperativeKernel_params and _ptsz_params: no `extra`.
struct cuLaunchCooperativeKernel_params {
    CUfunction f;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    void** kernelParams;
};

// CUlaunchAttributeValue (64 bytes) with the one member read: clusterDim.
union CUlaunchAttributeValue {
    char pad[64];
    struct {
        unsigned int x, y, z;
    } clusterDim;
};

constexpr int32_t CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

struct CUlaunchAttribute {
    int32_t id; // CUlaunchAttributeID
    char pad[4];
    CUlaunchAttributeValue value;
};

struct CUlaunchConfig {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute* attrs;
    unsigned int numAttrs;
};

// cuLaunchKernelEx_params and cuLaunchKernelEx_ptsz_params.
struct cuLaunchKernelEx_params {
    const CUlaunchConfig* config;
    CUfunction f;
    void** kernelParams;
    void** extra;
};

// The `extra` array's keys (cuda.h's CU_LAUNCH_PARAM_END, _BUFFER_POINTER, _BUFFER_SIZE): pairs of key
// and value, ended by END.
inline void* const kLaunchParamEnd = nullptr;
inline void* const kLaunchParamBufferPointer = reinterpret_cast<void*>(1);
inline void* const kLaunchParamBufferSize = reinterpret_cast<void*>(2);

// CUpti_ResourceData: what a resource-domain callback receives.
struct CUpti_ResourceData {
    CUcontext context;
    void* resourceHandle; // a union of one CUstream
    void* resourceDescriptor; // CUpti_ModuleResourceData* for MODULE_LOADED
};

// CUpti_ModuleResourceData: the module that was loaded, with its cubin.
struct CUpti_ModuleResourceData {
    uint32_t moduleId;
    size_t cubinSize;
    const char* pCubin;
};

} // namespace lowerscope::inject
