// A stand-in libcuda.so.1 for CPU-only tests: every entry point exists (so the runner's loader
// succeeds) and cuInit answers $FAKE_CUINIT_RESULT (default 100, CUDA_ERROR_NO_DEVICE), so the
// runner's "no CUDA device" path can be tested on a machine without a GPU. Nothing else is
// ever called.
#include <cstdlib>

extern "C" {

int cuInit(unsigned) {
    const char* r = std::getenv("FAKE_CUINIT_RESULT");
    return r ? std::atoi(r) : 100;
}

int cuGetErrorName(int r, const char** s) {
    *s = r == 100 ? "CUDA_ERROR_NO_DEVICE" : r == 999 ? "CUDA_ERROR_UNKNOWN" : "CUDA_ERROR_OTHER";
    return 0;
}

int cuGetErrorString(int r, const char** s) {
    *s = r == 100 ? "no CUDA-capable device is detected" : "unknown error";
    return 0;
}

int cuDriverGetVersion() { return 999; }
int cuDeviceGetCount() { return 999; }
int cuDeviceGet() { return 999; }
int cuDeviceGetName() { return 999; }
int cuDeviceGetAttribute() { return 999; }
int cuDeviceTotalMem_v2() { return 999; }
int cuDevicePrimaryCtxRetain() { return 999; }
int cuCtxSetCurrent() { return 999; }
int cuCtxSynchronize() { return 999; }
int cuModuleLoadDataEx() { return 999; }
int cuModuleUnload() { return 999; }
int cuModuleGetFunction() { return 999; }
int cuModuleGetFunctionCount() { return 999; }
int cuModuleEnumerateFunctions() { return 999; }
int cuFuncGetName() { return 999; }
int cuFuncGetAttribute() { return 999; }
int cuFuncSetAttribute() { return 999; }
int cuOccupancyMaxActiveBlocksPerMultiprocessor() { return 999; }
int cuMemAlloc_v2() { return 999; }
int cuMemFree_v2() { return 999; }
int cuMemGetInfo_v2() { return 999; }
int cuMemHostAlloc() { return 999; }
int cuMemFreeHost() { return 999; }
int cuMemHostGetDevicePointer_v2() { return 999; }
int cuMemcpyHtoD_v2() { return 999; }
int cuMemcpyDtoH_v2() { return 999; }
int cuMemcpyDtoDAsync_v2() { return 999; }
int cuMemsetD8Async() { return 999; }
int cuMemsetD32Async() { return 999; }
int cuStreamCreate() { return 999; }
int cuStreamSynchronize() { return 999; }
int cuStreamQuery() { return 999; }
int cuEventCreate() { return 999; }
int cuEventDestroy_v2() { return 999; }
int cuEventRecord() { return 999; }
int cuEventQuery() { return 999; }
int cuEventElapsedTime_v2() { return 999; }
int cuLaunchKernel() { return 999; }
int cuStreamBeginCapture_v2() { return 999; }
int cuStreamEndCapture() { return 999; }
int cuGraphCreate() { return 999; }
int cuGraphAddEmptyNode() { return 999; }
int cuGraphInstantiateWithFlags() { return 999; }
int cuGraphUpload() { return 999; }
int cuGraphLaunch() { return 999; }
int cuGraphExecDestroy() { return 999; }
int cuGraphDestroy() { return 999; }

} // extern "C"
