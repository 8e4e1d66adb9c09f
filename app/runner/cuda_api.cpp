// Run-time loading of the CUDA driver library.
#include "app/runner/cuda_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace lowerscope::runner {

namespace {

template <typename F>
bool resolve(void* lib, F& fn, const char* name, const char* fallback, std::string& missing) {
    void* p = dlsym(lib, name);
    if (!p && fallback) {
        p = dlsym(lib, fallback);
    }
    if (!p) {
        if (!missing.empty()) {
            missing += ", ";
        }
        missing += name;
        return false;
    }
    fn = reinterpret_cast<F>(p);
    return true;
}

template <typename F>
void resolveOptional(void* lib, F& fn, const char* name) {
    void* p = dlsym(lib, name);
    fn = p ? reinterpret_cast<F>(p) : nullptr;
}

} // namespace

DriverLoad loadDriver(Driver& d) {
    DriverLoad result;
    const char* env = std::getenv("LOWERSCOPE_LIBCUDA");
    const char* path = env && *env ? env : "libcuda.so.1";
    // The handle is never closed: the driver stays loaded for the life of the process.
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* e = dlerror();
        result.error = std::string("cannot load ") + path + (e ? std::string(": ") + e : std::string());
        return result;
    }
    std::string missing;
    resolve(lib, d.cuInit, "cuInit", nullptr, missing);
    resolve(lib, d.cuDriverGetVersion, "cuDriverGetVersion", nullptr, missing);
    resolve(lib, d.cuGetErrorName, "cuGetErrorName", nullptr, missing);
    resolve(lib, d.cuGetErrorString, "cuGetErrorString", nullptr, missing);
    resolve(lib, d.cuDeviceGetCount, "cuDeviceGetCount", nullptr, missing);
    resolve(lib, d.cuDeviceGet, "cuDeviceGet", nullptr, missing);
    resolve(lib, d.cuDeviceGetName, "cuDeviceGetName", nullptr, missing);
    resolve(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr, missing);
    resolve(lib, d.cuDeviceTotalMem, "cuDeviceTotalMem_v2", nullptr, missing);
    resolve(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr, missing);
    resolve(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent", nullptr, missing);
    resolve(lib, d.cuCtxSynchronize, "cuCtxSynchronize", nullptr, missing);
    resolve(lib, d.cuModuleLoadDataEx, "cuModuleLoadDataEx", nullptr, missing);
    resolve(lib, d.cuModuleUnload, "cuModuleUnload", nullptr, missing);
    resolve(lib, d.cuModuleGetFunction, "cuModuleGetFunction", nullptr, missing);
    resolveOptional(lib, d.cuModuleGetFunctionCount, "cuModuleGetFunctionCount");
    resolveOptional(lib, d.cuModuleEnumerateFunctions, "cuModuleEnumerateFunctions");
    resolveOptional(lib, d.cuFuncGetName, "cuFuncGetName");
    resolve(lib, d.cuFuncGetAttribute, "cuFuncGetAttribute", nullptr, missing);
    resolve(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute", nullptr, missing);
    resolve(lib, d.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            nullptr, missing);
    resolve(lib, d.cuMemAlloc, "cuMemAlloc_v2", nullptr, missing);
    resolve(lib, d.cuMemFree, "cuMemFree_v2", nullptr, missing);
    resolve(lib, d.cuMemGetInfo, "cuMemGetInfo_v2", nullptr, missing);
    resolve(lib, d.cuMemHostAlloc, "cuMemHostAlloc", nullptr, missing);
    resolve(lib, d.cuMemFreeHost, "cuMemFreeHost", nullptr, missing);
    resolve(lib, d.cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", nullptr, missing);
    resolve(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", nullptr, missing);
    resolve(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2", nullptr, missing);
    resolve(lib, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", nullptr, missing);
    resolve(lib, d.cuMemsetD8Async, "cuMemsetD8Async", nullptr, missing);
    resolve(lib, d.cuMemsetD32Async, "cuMemsetD32Async", nullptr, missing);
    resolve(lib, d.cuStreamCreate, "cuStreamCreate", nullptr, missing);
    resolve(lib, d.cuStreamSynchronize, "cuStreamSynchronize", nullptr, missing);
    resolve(lib, d.cuStreamQuery, "cuStreamQuery", nullptr, missing);
    resolve(lib, d.cuEventCreate, "cuEventCreate", nullptr, missing);
    resolve(lib, d.cuEventDestroy, "cuEventDestroy_v2", nullptr, missing);
    resolve(lib, d.cuEventRecord, "cuEventRecord", nullptr, missing);
    resolve(lib, d.cuEventQuery, "cuEventQuery", nullptr, missing);
    resolve(lib, d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime", missing);
    resolve(lib, d.cuLaunchKernel, "cuLaunchKernel", nullptr, missing);
    resolveOptional(lib, d.cuLaunchKernelEx, "cuLaunchKernelEx");
    resolveOptional(lib, d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    resolveOptional(lib, d.cuTensorMapReplaceAddress, "cuTensorMapReplaceAddress");
    resolveOptional(lib, d.cuMemAddressReserve, "cuMemAddressReserve");
    resolveOptional(lib, d.cuMemAddressFree, "cuMemAddressFree");
    resolveOptional(lib, d.cuMemCreate, "cuMemCreate");
    resolveOptional(lib, d.cuMemRelease, "cuMemRelease");
    resolveOptional(lib, d.cuMemMap, "cuMemMap");
    resolveOptional(lib, d.cuMemUnmap, "cuMemUnmap");
    resolveOptional(lib, d.cuMemSetAccess, "cuMemSetAccess");
    resolveOptional(lib, d.cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity");
    resolve(lib, d.cuStreamBeginCapture, "cuStreamBeginCapture_v2", nullptr, missing);
    resolve(lib, d.cuStreamEndCapture, "cuStreamEndCapture", nullptr, missing);
    resolve(lib, d.cuGraphCreate, "cuGraphCreate", nullptr, missing);
    resolve(lib, d.cuGraphAddEmptyNode, "cuGraphAddEmptyNode", nullptr, missing);
    resolve(lib, d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", nullptr, missing);
    resolve(lib, d.cuGraphUpload, "cuGraphUpload", nullptr, missing);
    resolve(lib, d.cuGraphLaunch, "cuGraphLaunch", nullptr, missing);
    resolve(lib, d.cuGraphExecDestroy, "cuGraphExecDestroy", nullptr, missing);
    resolve(lib, d.cuGraphDestroy, "cuGraphDestroy", nullptr, missing);
    if (!missing.empty()) {
        result.error = std::string(path) + " lacks " + missing + " (driver too old?)";
        return result;
    }
    result.ok = true;
    return result;
}

std::string errorName(const Driver& d, CUresult r) {
    const char* s = nullptr;
    if (d.cuGetErrorName && d.cuGetErrorName(r, &s) == CUDA_SUCCESS && s) {
        return s;
    }
    return "CUDA_ERROR_" + std::to_string(r);
}

std::string errorString(const Driver& d, CUresult r) {
    const char* s = nullptr;
    if (d.cuGetErrorString && d.cuGetErrorString(r, &s) == CUDA_SUCCESS && s) {
        return s;
    }
    return "CUDA error " + std::to_string(r);
}

bool isKernelFault(CUresult r) {
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
        return true;
    default:
        return false;
    }
}

} // namespace lowerscope::runner
