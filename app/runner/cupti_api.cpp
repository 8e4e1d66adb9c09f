// Run-time loading of CUPTI and the wording of its failures.
#include "app/runner/cupti_api.h"

#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace lowerscope::runner {

namespace {

template <typename F> void resolve(void* lib, F& fn, const char* name, std::string& missing) {
    void* p = dlsym(lib, name);
    if (!p) {
        missing += (missing.empty() ? "" : ", ") + std::string(name);
        return;
    }
    fn = reinterpret_cast<F>(p);
}

std::vector<std::string> candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("LOWERSCOPE_LIBCUPTI"); env && *env) {
        // An explicit choice is the only candidate: a test (or a user) pointing at a library
        // must not silently get another one.
        out.emplace_back(env);
        return out;
    }
    out.emplace_back("libcupti.so.13");
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        if (const char* root = std::getenv(var); root && *root) {
            out.push_back(std::string(root) + "/lib64/libcupti.so.13");
            out.push_back(std::string(root) + "/extras/CUPTI/lib64/libcupti.so.13");
        }
    }
    out.emplace_back("/usr/local/cuda/lib64/libcupti.so.13");
    out.emplace_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
    return out;
}

} // namespace

CuptiLoad loadCupti(Cupti& c) {
    CuptiLoad result;
    void* lib = nullptr;
    std::string tried;
    for (const std::string& path : candidates()) {
        // Never closed: CUPTI installs hooks in the driver that live as long as the process.
        lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            result.path = path;
            break;
        }
        const char* e = dlerror();
        tried += (tried.empty() ? "" : "; ") + (e ? std::string(e) : path);
    }
    if (!lib) {
        result.error = "cannot load libcupti.so.13 (" + tried + ")";
        return result;
    }
    std::string missing;
#define LS_RESOLVE(name) resolve(lib, c.name, #name, missing)
    LS_RESOLVE(cuptiGetResultString);
    LS_RESOLVE(cuptiGetVersion);
    LS_RESOLVE(cuptiActivityEnable);
    LS_RESOLVE(cuptiActivityDisable);
    LS_RESOLVE(cuptiActivityRegisterCallbacks);
    LS_RESOLVE(cuptiActivityFlushAll);
    LS_RESOLVE(cuptiActivityGetNextRecord);
    LS_RESOLVE(cuptiSubscribe);
    LS_RESOLVE(cuptiUnsubscribe);
    LS_RESOLVE(cuptiEnableCallback);
    LS_RESOLVE(cuptiProfilerInitialize);
    LS_RESOLVE(cuptiProfilerDeviceSupported);
    LS_RESOLVE(cuptiDeviceGetChipName);
    LS_RESOLVE(cuptiProfilerGetCounterAvailability);
    LS_RESOLVE(cuptiProfilerHostInitialize);
    LS_RESOLVE(cuptiProfilerHostDeinitialize);
    LS_RESOLVE(cuptiProfilerHostGetMetricProperties);
    LS_RESOLVE(cuptiProfilerHostConfigAddMetrics);
    LS_RESOLVE(cuptiProfilerHostGetConfigImageSize);
    LS_RESOLVE(cuptiProfilerHostGetConfigImage);
    LS_RESOLVE(cuptiProfilerHostGetNumOfPasses);
    LS_RESOLVE(cuptiProfilerHostEvaluateToGpuValues);
    LS_RESOLVE(cuptiRangeProfilerEnable);
    LS_RESOLVE(cuptiRangeProfilerDisable);
    LS_RESOLVE(cuptiRangeProfilerSetConfig);
    LS_RESOLVE(cuptiRangeProfilerStart);
    LS_RESOLVE(cuptiRangeProfilerStop);
    LS_RESOLVE(cuptiRangeProfilerPushRange);
    LS_RESOLVE(cuptiRangeProfilerPopRange);
    LS_RESOLVE(cuptiRangeProfilerDecodeData);
    LS_RESOLVE(cuptiRangeProfilerGetCounterDataSize);
    LS_RESOLVE(cuptiRangeProfilerCounterDataImageInitialize);
    LS_RESOLVE(cuptiRangeProfilerGetCounterDataInfo);
    LS_RESOLVE(cuptiSassMetricsGetProperties);
    LS_RESOLVE(cuptiSassMetricsSetConfig);
    LS_RESOLVE(cuptiSassMetricsUnsetConfig);
    LS_RESOLVE(cuptiSassMetricsEnable);
    LS_RESOLVE(cuptiSassMetricsDisable);
    LS_RESOLVE(cuptiSassMetricsGetDataProperties);
    LS_RESOLVE(cuptiSassMetricsFlushData);
    LS_RESOLVE(cuptiPCSamplingEnable);
    LS_RESOLVE(cuptiPCSamplingDisable);
    LS_RESOLVE(cuptiPCSamplingStart);
    LS_RESOLVE(cuptiPCSamplingStop);
    LS_RESOLVE(cuptiPCSamplingGetData);
    LS_RESOLVE(cuptiPCSamplingGetNumStallReasons);
    LS_RESOLVE(cuptiPCSamplingGetStallReasons);
    LS_RESOLVE(cuptiPCSamplingSetConfigurationAttribute);
    LS_RESOLVE(cuptiPCSamplingGetConfigurationAttribute);
    LS_RESOLVE(cuptiGetCubinCrc);
#undef LS_RESOLVE
    if (!missing.empty()) {
        result.error = result.path + " lacks " + missing + " (CUPTI older than CUDA 13?)";
        c = Cupti{};
        return result;
    }
    result.ok = true;
    return result;
}

std::string cuptiErrorName(const Cupti& c, CUptiResult r) {
    const char* s = nullptr;
    if (c.cuptiGetResultString && c.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s && *s) {
        return s;
    }
    return "CUPTI error " + std::to_string(r);
}

CuptiFailure classifyCuptiError(CUptiResult r) {
    switch (r) {
    case CUPTI_SUCCESS:
        return CuptiFailure::None;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return CuptiFailure::InsufficientPrivileges;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
        return CuptiFailure::UnsupportedGpu;
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return CuptiFailure::Busy;
    default:
        return CuptiFailure::Other;
    }
}

CuptiFailure cuptiCallFailure(const Cupti& c, CUptiResult r, const char* call, std::string& detail) {
    detail = std::string(call) + ": " + cuptiErrorName(c, r);
    const CuptiFailure f = classifyCuptiError(r);
    return f == CuptiFailure::None ? CuptiFailure::Other : f;
}

ProfilerSupport initializeProfiler(const Cupti& c, CUdevice device, int api) {
    ProfilerSupport s;
    auto init = cuptiParams<CUpti_Profiler_Initialize_Params>();
    if (CUptiResult r = c.cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
        s.result = r;
        s.failedCall = "cuptiProfilerInitialize";
        return s;
    }
    s.params = cuptiParams<CUpti_Profiler_DeviceSupported_Params>();
    s.params.cuDevice = device;
    s.params.api = api;
    if (CUptiResult r = c.cuptiProfilerDeviceSupported(&s.params); r != CUPTI_SUCCESS) {
        s.result = r;
        s.failedCall = "cuptiProfilerDeviceSupported";
    }
    return s;
}

RunErrorKind cuptiFailureKind(CuptiFailure f) {
    switch (f) {
    case CuptiFailure::Missing:
        return RunErrorKind::NoCupti;
    case CuptiFailure::UnsupportedGpu:
        return RunErrorKind::ProfilingUnsupported;
    case CuptiFailure::InsufficientPrivileges:
        return RunErrorKind::ProfilingNotPermitted;
    case CuptiFailure::Busy:
        return RunErrorKind::ProfilerBusy;
    case CuptiFailure::None:
    case CuptiFailure::Other:
        break;
    }
    return RunErrorKind::CuptiError;
}

std::string cuptiFailureMessage(CuptiFailure f, const std::string& what, const std::string& detail) {
    const std::string tail = detail.empty() ? "" : " (" + detail + ")";
    switch (f) {
    case CuptiFailure::Missing:
        return what + " needs CUPTI (libcupti.so.13 of the CUDA 13 toolkit), which was not found" + tail +
               ". Install the toolkit's CUPTI or point LOWERSCOPE_LIBCUPTI at it; timing still works, with "
               "CUDA events as its clock.";
    case CuptiFailure::UnsupportedGpu:
        return what + " is not available on this GPU or configuration" + tail +
               " (CUPTI supports profiling on compute capability 7.5 and newer, not under vGPU without "
               "profiling, MIG, or confidential computing); timing still works.";
    case CuptiFailure::InsufficientPrivileges:
        return what +
               " needs access to the GPU performance counters, which the driver restricts to "
               "administrators" +
               tail +
               ". Run as root, or set the NVIDIA driver option "
               "NVreg_RestrictProfilingToAdminUsers=0 (e.g. 'options nvidia "
               "NVreg_RestrictProfilingToAdminUsers=0' "
               "in /etc/modprobe.d, then reload the driver); timing still works.";
    case CuptiFailure::Busy:
        return what +
               " could not start: another profiler (ncu, nsys or a CUPTI tool) holds the GPU's "
               "counters" +
               tail + "; timing still works.";
    case CuptiFailure::None:
    case CuptiFailure::Other:
        break;
    }
    return what + " failed" + tail + "; timing still works.";
}

} // namespace lowerscope::runner
