#pragma once
// The few CUDA driver API types and functions the runner uses, declared here and resolved from
// libcuda.so.1 with dlopen/dlsym at run time: the runner builds without CUDA headers or a driver,
// and starts on machines with neither. Names with a _v2 suffix are the ABI versions cuda.h maps
// the plain names to (cuMemAlloc → cuMemAlloc_v2, ...).

#include <cstddef>
#include <cstdint>
#include <string>

namespace lowerscope::runner {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUgraph = CUgraph_st*;
using CUgraphExec = CUgraphExec_st*;
using CUgraphNode = CUgraphNode_st*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr CUresult CUDA_ERROR_LAUNCH_TIMEOUT = 702;
constexpr CUresult CUDA_ERROR_ASSERT = 710;
constexpr CUresult CUDA_ERROR_HARDWARE_STACK_ERROR = 714;
constexpr CUresult CUDA_ERROR_ILLEGAL_INSTRUCTION = 715;
constexpr CUresult CUDA_ERROR_MISALIGNED_ADDRESS = 716;
constexpr CUresult CUDA_ERROR_INVALID_ADDRESS_SPACE = 717;
constexpr CUresult CUDA_ERROR_INVALID_PC = 718;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;

// Device attributes (CUdevice_attribute).
enum : int {
    ATTR_MAX_THREADS_PER_BLOCK = 1,
    ATTR_WARP_SIZE = 10,
    ATTR_CLOCK_RATE = 13,             // kHz
    ATTR_MULTIPROCESSOR_COUNT = 16,
    ATTR_CAN_MAP_HOST_MEMORY = 19,
    ATTR_MEMORY_CLOCK_RATE = 36,      // kHz
    ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
    ATTR_L2_CACHE_SIZE = 38,
    ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
    ATTR_COMPUTE_CAPABILITY_MINOR = 76,
    ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

// Function attributes (CUfunction_attribute).
enum : int {
    FUNC_MAX_THREADS_PER_BLOCK = 0,
    FUNC_SHARED_SIZE_BYTES = 1,
    FUNC_CONST_SIZE_BYTES = 2,
    FUNC_LOCAL_SIZE_BYTES = 3,
    FUNC_NUM_REGS = 4,
    FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
};

// Tensor maps (cuda.h's CUtensorMap: 128 opaque bytes, aligned to 64 bytes in CUDA 12.0, 128 later).
struct alignas(128) CUtensorMap {
    unsigned long long opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");

// Extensible launches (cuda.h's CUlaunchAttribute and CUlaunchConfig, same layout).
constexpr int LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
struct CUlaunchAttribute {
    int id = 0;
    char pad[4] = {};
    union Value {
        char bytes[64];
        struct {
            unsigned x, y, z;
        } clusterDim;
    } value{};
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute is 8 + 64 bytes");
struct CUlaunchConfig {
    unsigned gridDimX = 1, gridDimY = 1, gridDimZ = 1;
    unsigned blockDimX = 1, blockDimY = 1, blockDimZ = 1;
    unsigned sharedMemBytes = 0;
    CUstream hStream = nullptr;
    CUlaunchAttribute* attrs = nullptr;
    unsigned numAttrs = 0;
};

// Virtual memory management (cuda.h's CUmemAllocationProp, CUmemAccessDesc; same layout): replay
// maps captured memory back at its original device addresses (app/runner/restored_memory.h).
using CUmemGenericAllocationHandle = unsigned long long;
constexpr int MEM_ALLOCATION_TYPE_PINNED = 1;
constexpr int MEM_LOCATION_TYPE_DEVICE = 1;
constexpr int MEM_ACCESS_FLAGS_PROT_READWRITE = 3;
constexpr int MEM_ALLOC_GRANULARITY_MINIMUM = 0;
struct CUmemLocation {
    int type = 0;
    int id = 0;
};
struct CUmemAllocationProp {
    int type = 0;
    int requestedHandleTypes = 0;
    CUmemLocation location;
    void* win32HandleMetaData = nullptr;
    struct {
        unsigned char compressionType = 0;
        unsigned char gpuDirectRDMACapable = 0;
        unsigned short usage = 0;
        unsigned char reserved[4] = {};
    } allocFlags;
};
static_assert(sizeof(CUmemAllocationProp) == 32, "CUmemAllocationProp is 32 bytes");
struct CUmemAccessDesc {
    CUmemLocation location;
    int flags = 0;
};
static_assert(sizeof(CUmemAccessDesc) == 12, "CUmemAccessDesc is 12 bytes");

constexpr int JIT_ERROR_LOG_BUFFER = 5;
constexpr int JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr unsigned MEMHOSTALLOC_PORTABLE = 0x01;
constexpr unsigned MEMHOSTALLOC_DEVICEMAP = 0x02;
constexpr unsigned STREAM_NON_BLOCKING = 0x1;
constexpr int STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;

// Function pointer table. Optional entries (present only in newer drivers) may be null.
struct Driver {
    CUresult (*cuInit)(unsigned) = nullptr;
    CUresult (*cuDriverGetVersion)(int*) = nullptr;
    CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
    CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
    CUresult (*cuDeviceGetCount)(int*) = nullptr;
    CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
    CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;  // _v2
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
    CUresult (*cuCtxSynchronize)() = nullptr;
    CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) = nullptr;
    CUresult (*cuModuleUnload)(CUmodule) = nullptr;
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*cuModuleGetFunctionCount)(unsigned*, CUmodule) = nullptr;             // optional (12.4+)
    CUresult (*cuModuleEnumerateFunctions)(CUfunction*, unsigned, CUmodule) = nullptr; // optional (12.4+)
    CUresult (*cuFuncGetName)(const char**, CUfunction) = nullptr;                  // optional (12.3+)
    CUresult (*cuFuncGetAttribute)(int*, int, CUfunction) = nullptr;
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t) = nullptr;
    CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;        // _v2
    CUresult (*cuMemFree)(CUdeviceptr) = nullptr;                  // _v2
    CUresult (*cuMemGetInfo)(size_t*, size_t*) = nullptr;          // _v2
    CUresult (*cuMemHostAlloc)(void**, size_t, unsigned) = nullptr;
    CUresult (*cuMemFreeHost)(void*) = nullptr;
    CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr*, void*, unsigned) = nullptr; // _v2
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;           // _v2
    CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;                 // _v2
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr; // _v2
    CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) = nullptr;
    CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream) = nullptr;
    CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
    CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
    CUresult (*cuStreamQuery)(CUstream) = nullptr;
    CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
    CUresult (*cuEventDestroy)(CUevent) = nullptr;                  // _v2
    CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*cuEventQuery)(CUevent) = nullptr;
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void**, void**) = nullptr;
    CUresult (*cuLaunchKernelEx)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr; // optional (12.0+)
    // optional (12.0+): tensor map, data type, rank, global address, dims, strides, box, element
    // strides, interleave, swizzle, L2 promotion, OOB fill (the enums as ints, cuda.h's values)
    CUresult (*cuTensorMapEncodeTiled)(CUtensorMap*, int, unsigned, void*, const unsigned long long*,
                                       const unsigned long long*, const unsigned*, const unsigned*, int, int, int,
                                       int) = nullptr;
    // optional (12.0+): re-points an encoded tensor map at another global address (a replay whose
    // memory the driver gave other addresses)
    CUresult (*cuTensorMapReplaceAddress)(CUtensorMap*, void*) = nullptr;
    // optional (10.2+): virtual memory management
    CUresult (*cuMemAddressReserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
    CUresult (*cuMemAddressFree)(CUdeviceptr, size_t) = nullptr;
    CUresult (*cuMemCreate)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long) = nullptr;
    CUresult (*cuMemRelease)(CUmemGenericAllocationHandle) = nullptr;
    CUresult (*cuMemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
    CUresult (*cuMemUnmap)(CUdeviceptr, size_t) = nullptr;
    CUresult (*cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
    CUresult (*cuMemGetAllocationGranularity)(size_t*, const CUmemAllocationProp*, int) = nullptr;
    CUresult (*cuStreamBeginCapture)(CUstream, int) = nullptr;     // _v2
    CUresult (*cuStreamEndCapture)(CUstream, CUgraph*) = nullptr;
    CUresult (*cuGraphCreate)(CUgraph*, unsigned) = nullptr;
    CUresult (*cuGraphAddEmptyNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t) = nullptr;
    CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long) = nullptr;
    CUresult (*cuGraphUpload)(CUgraphExec, CUstream) = nullptr;
    CUresult (*cuGraphLaunch)(CUgraphExec, CUstream) = nullptr;
    CUresult (*cuGraphExecDestroy)(CUgraphExec) = nullptr;
    CUresult (*cuGraphDestroy)(CUgraph) = nullptr;
};

// Result of loading the driver library.
struct DriverLoad {
    bool ok = false;
    std::string error;  // dlerror() text or the missing symbol
};

// dlopens libcuda.so.1 (or $LOWERSCOPE_LIBCUDA) and resolves every required symbol into `d`.
DriverLoad loadDriver(Driver& d);

// "CUDA_ERROR_ILLEGAL_ADDRESS" (or "CUDA_ERROR_<code>" when the driver does not know it).
std::string errorName(const Driver& d, CUresult r);
// The driver's description of the error.
std::string errorString(const Driver& d, CUresult r);
// True for the errors that mean the kernel itself faulted and the context is unusable.
bool isKernelFault(CUresult r);

} // namespace lowerscope::runner
