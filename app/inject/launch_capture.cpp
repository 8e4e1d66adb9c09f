// Saving selected launches for replay (launch_capture.h): at the launch call's entry (CUPTI
// driver-API callback, before the driver queues the kernel) the context is synchronised, the
// parameter bytes are packed from kernelParams (cuFuncGetParamInfo's layout) or taken from
// `extra`, every 8-byte-aligned word of them that falls into a device allocation
// (cuMemGetAddressRange) names that allocation, allocations of at most 64 KiB are scanned once
// more the same way, and each allocation is copied to PID-CORR/before-ADDRESS.bin up to the
// memory limit; at the call's exit the context is synchronised again (the kernel ran) and the
// same allocations are copied to after-ADDRESS.bin, and the snapshot line is written.
#include "app/inject/launch_capture.h"

#include "core/capture/launch_filter.h"
#include "core/capture/launch_snapshot.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace lowerscope::inject {

namespace {

using capture::LaunchSnapshot;
using capture::SnapshotOmitted;
using capture::SnapshotRegion;

using CtxSynchronizeFn = int (*)();
using FuncGetParamInfoFn = int (*)(CUfunction, size_t, size_t*, size_t*);
using FuncGetNameFn = int (*)(const char**, CUfunction);
using MemGetAddressRangeFn = int (*)(CUdeviceptr*, size_t*, CUdeviceptr);
using MemcpyDtoHFn = int (*)(void*, CUdeviceptr, size_t);
using PointerGetAttributeFn = int (*)(void*, int, CUdeviceptr);
using StreamIsCapturingFn = int (*)(CUstream, int*);
using ThreadExchangeStreamCaptureModeFn = int (*)(int*);
constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;

constexpr uint32_t kCallbackIds[] = {CBID_cuLaunchKernel,        CBID_cuLaunchKernel_ptsz,
                                     CBID_cuLaunchCooperativeKernel, CBID_cuLaunchCooperativeKernel_ptsz,
                                     CBID_cuLaunchKernelEx,      CBID_cuLaunchKernelEx_ptsz};
constexpr uint64_t kScanBytes = 64 * 1024;       // allocations scanned for pointers, at most
constexpr size_t kCopyChunk = size_t(64) << 20;  // staging buffer of a large copy
constexpr int CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
constexpr unsigned CU_MEMORYTYPE_HOST = 1;

// What one selected launch keeps from its entry to its exit.
struct Pending {
    LaunchSnapshot snap;
    std::string dir; // the launch's folder
};

// Never destroyed (callbacks may come while static destructors run).
struct State {
    uint32_t pid = 0;
    EmitFn emit = nullptr;
    std::string folder;
    uint64_t memoryLimit = uint64_t(1) << 30;
    std::mutex mutex; // the filter and the pending launches
    std::optional<capture::LaunchFilter> filter;
    std::atomic<bool> done{false};
    std::map<uint32_t, std::unique_ptr<Pending>> pending; // by correlation id
    CtxSynchronizeFn ctxSynchronize = nullptr;
    FuncGetParamInfoFn funcGetParamInfo = nullptr;
    FuncGetParamInfoFn kernelGetParamInfo = nullptr; // cuKernelGetParamInfo: the same shape, for a CUkernel
    FuncGetNameFn funcGetName = nullptr;
    MemGetAddressRangeFn memGetAddressRange = nullptr;
    MemcpyDtoHFn memcpyDtoH = nullptr;
    PointerGetAttributeFn pointerGetAttribute = nullptr;
    StreamIsCapturingFn streamIsCapturing = nullptr;
    ThreadExchangeStreamCaptureModeFn exchangeCaptureMode = nullptr;
};

// Our synchronisations and copies in relaxed stream-capture mode while in scope: another thread
// capturing a CUDA graph in global mode would otherwise see them as unsafe calls.
struct RelaxedCapture {
    const State& s;
    int mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    bool swapped = false;
    explicit RelaxedCapture(const State& state) : s(state) {
        swapped = s.exchangeCaptureMode && s.exchangeCaptureMode(&mode) == 0;
    }
    ~RelaxedCapture() {
        if (swapped) s.exchangeCaptureMode(&mode);
    }
};

State& state() {
    static State* s = new State;
    return *s;
}

void* driverSymbol(const char* name) {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void* p = lib ? dlsym(lib, name) : nullptr;
    return p ? p : dlsym(RTLD_DEFAULT, name);
}

std::string cudaError(const char* call, int r) { return std::string(call) + " returned CUDA error " + std::to_string(r); }

std::string demangled(const std::string& mangled) {
    int status = 0;
    char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    std::string out = status == 0 && d ? d : mangled;
    std::free(d);
    return out;
}

// The launch call's arguments, whichever call it was.
struct LaunchCall {
    CUfunction f = nullptr;
    CUstream stream = nullptr;
    std::array<int64_t, 3> grid{}, block{}, cluster{};
    int64_t smem = 0;
    void** kernelParams = nullptr;
    void** extra = nullptr;
};

bool decodeCall(uint32_t cbid, const void* params, LaunchCall& out) {
    switch (cbid) {
    case CBID_cuLaunchKernel:
    case CBID_cuLaunchKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchKernel_params*>(params);
        out.f = p->f;
        out.stream = p->hStream;
        out.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
        out.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
        out.smem = p->sharedMemBytes;
        out.kernelParams = p->kernelParams;
        out.extra = p->extra;
        return true;
    }
    case CBID_cuLaunchCooperativeKernel:
    case CBID_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
        out.f = p->f;
        out.stream = p->hStream;
        out.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
        out.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
        out.smem = p->sharedMemBytes;
        out.kernelParams = p->kernelParams;
        return true;
    }
    case CBID_cuLaunchKernelEx:
    case CBID_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        if (!p->config) return false;
        const CUlaunchConfig& c = *p->config;
        out.f = p->f;
        out.stream = c.hStream;
        out.grid = {c.gridDimX, c.gridDimY, c.gridDimZ};
        out.block = {c.blockDimX, c.blockDimY, c.blockDimZ};
        out.smem = c.sharedMemBytes;
        out.kernelParams = p->kernelParams;
        out.extra = p->extra;
        for (unsigned i = 0; c.attrs && i < c.numAttrs && i < 64; ++i)
            if (c.attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
                out.cluster = {c.attrs[i].value.clusterDim.x, c.attrs[i].value.clusterDim.y,
                               c.attrs[i].value.clusterDim.z};
        return true;
    }
    default:
        return false;
    }
}

bool decode(uint32_t cbid, const void* params, LaunchCall& out) {
    if (!params || !decodeCall(cbid, params, out)) return false;
    // The _ptsz calls' stream 0 is the per-thread default stream (CU_STREAM_PER_THREAD).
    const bool perThread = cbid == CBID_cuLaunchKernel_ptsz || cbid == CBID_cuLaunchCooperativeKernel_ptsz ||
                           cbid == CBID_cuLaunchKernelEx_ptsz;
    if (perThread && !out.stream) out.stream = reinterpret_cast<CUstream>(0x2);
    return true;
}

bool writeAll(int fd, const uint8_t* data, size_t size) {
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

// Copies [address, address + bytes) of device memory into `path`; `keep` receives the bytes too
// when given (the small allocations scanned for pointers). "" on success, else why not.
std::string copyToFile(const State& s, CUdeviceptr address, uint64_t bytes, const std::string& path,
                       std::vector<uint8_t>* keep) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return "cannot write " + path + ": " + std::strerror(errno);
    std::vector<uint8_t> buffer;
    std::string why;
    try {
        buffer.resize(static_cast<size_t>(std::min<uint64_t>(bytes, kCopyChunk)));
    } catch (const std::bad_alloc&) {
        why = "not enough host memory to copy it";
    }
    if (keep) keep->clear();
    for (uint64_t done = 0; why.empty() && done < bytes;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes - done, buffer.size()));
        if (const int r = s.memcpyDtoH(buffer.data(), address + done, n); r != 0) {
            why = cudaError("cuMemcpyDtoH", r);
            break;
        }
        if (!writeAll(fd, buffer.data(), n)) {
            why = "cannot write " + path + ": " + std::strerror(errno);
            break;
        }
        if (keep) keep->insert(keep->end(), buffer.begin(), buffer.begin() + static_cast<long>(n));
        done += n;
    }
    ::close(fd);
    if (!why.empty()) ::unlink(path.c_str());
    return why;
}

// An allocation the parameters reach.
struct Allocation {
    CUdeviceptr base = 0;
    uint64_t bytes = 0;
    bool scan = false;                 // found in the parameters: scanned once more when small
    std::vector<size_t> pointsTo;      // allocations its words point into
};

// The allocation holding `word`, added to `list` when new; its index, or -1 when the word is not
// a device address.
long findAllocation(const State& s, uint64_t word, bool scan, std::vector<Allocation>& list) {
    if (word < 4096) return -1;
    for (size_t i = 0; i < list.size(); ++i)
        if (word >= list[i].base && word - list[i].base < list[i].bytes) return static_cast<long>(i);
    if (list.size() >= capture::kMaxSnapshotRegions + capture::kMaxSnapshotOmitted) return -1;
    CUdeviceptr base = 0;
    size_t size = 0;
    if (s.memGetAddressRange(&base, &size, word) != 0 || size == 0) return -1;
    for (size_t i = 0; i < list.size(); ++i)
        if (list[i].base == base) return static_cast<long>(i);
    list.push_back(Allocation{base, size, scan, {}});
    return static_cast<long>(list.size() - 1);
}

void scanWords(const State& s, const uint8_t* data, size_t size, bool scan, std::vector<Allocation>& list,
               std::vector<size_t>* targets) {
    for (size_t off = 0; off + 8 <= size; off += 8) {
        uint64_t word = 0;
        std::memcpy(&word, data + off, 8);
        const long i = findAllocation(s, word, scan, list);
        if (i >= 0 && targets && std::find(targets->begin(), targets->end(), static_cast<size_t>(i)) == targets->end())
            targets->push_back(static_cast<size_t>(i));
    }
}

// The parameter layout and bytes of the launch into p.snap; "" or why they cannot be had.
std::string readParameters(const State& s, const LaunchCall& call, LaunchSnapshot& snap) {
    bool layoutKnown = false;
    // The runtime API launches through a CUkernel handle (context-independent loading, CUDA 12+)
    // passed where a CUfunction goes: cuFuncGetParamInfo refuses it as an invalid handle, and
    // cuKernelGetParamInfo (12.4+) answers. CUDA_ERROR_INVALID_VALUE (1) at index 0 is a kernel
    // without parameters.
    FuncGetParamInfoFn info = s.funcGetParamInfo;
    if (info && call.f) {
        size_t offset = 0, size = 0;
        const int r = info(call.f, 0, &offset, &size);
        if (r != 0 && r != 1 && s.kernelGetParamInfo) info = s.kernelGetParamInfo;
        if (info(call.f, 0, &offset, &size) > 1) info = nullptr; // neither handle kind: the layout is unknown
    }
    if (info && call.f) {
        layoutKnown = true;
        for (size_t i = 0; i <= capture::kMaxSnapshotParams; ++i) {
            size_t offset = 0, size = 0;
            if (info(call.f, i, &offset, &size) != 0) break;
            if (i == capture::kMaxSnapshotParams) return "the kernel has more than 1024 parameters";
            if (size == 0 || offset + size > capture::kMaxParamBytes)
                return "the driver describes a parameter outside 32 KiB of parameters";
            snap.params.emplace_back(static_cast<uint32_t>(offset), static_cast<uint32_t>(size));
        }
    }
    if (call.extra) {
        const uint8_t* buffer = nullptr;
        size_t bufferSize = 0;
        bool sized = false;
        for (size_t i = 0; i < 64 && call.extra[i] != kLaunchParamEnd; i += 2) {
            if (call.extra[i] == kLaunchParamBufferPointer) buffer = static_cast<const uint8_t*>(call.extra[i + 1]);
            else if (call.extra[i] == kLaunchParamBufferSize && call.extra[i + 1]) {
                bufferSize = *static_cast<const size_t*>(call.extra[i + 1]);
                sized = true;
            }
        }
        if (buffer && sized) {
            if (bufferSize > capture::kMaxParamBytes) return "the parameter buffer is larger than 32 KiB";
            snap.paramBytes.assign(buffer, buffer + bufferSize);
            return "";
        }
        if (!call.kernelParams) return "the launch passes its parameters in `extra` without a buffer and its size";
    }
    if (!call.kernelParams) return ""; // a kernel without parameters
    if (!layoutKnown)
        return "the driver cannot list the kernel's parameters (cuFuncGetParamInfo needs CUDA 12.4 or newer)";
    size_t total = 0;
    for (const auto& p : snap.params) total = std::max<size_t>(total, p.first + p.second);
    snap.paramBytes.assign(total, 0);
    for (size_t i = 0; i < snap.params.size(); ++i) {
        if (!call.kernelParams[i]) return "parameter " + std::to_string(i) + " is a null pointer in kernelParams";
        std::memcpy(snap.paramBytes.data() + snap.params[i].first, call.kernelParams[i], snap.params[i].second);
    }
    return "";
}

void saveBefore(const State& s, const LaunchCall& call, Pending& p) {
    LaunchSnapshot& snap = p.snap;
    if (!s.ctxSynchronize || !s.memGetAddressRange || !s.memcpyDtoH) {
        snap.error = "the CUDA driver's cuCtxSynchronize, cuMemGetAddressRange_v2 or cuMemcpyDtoH_v2 was not found";
        return;
    }
    if (const int r = s.ctxSynchronize(); r != 0) {
        snap.error = cudaError("cuCtxSynchronize before the launch", r);
        return;
    }
    if (std::string why = readParameters(s, call, snap); !why.empty()) {
        snap.error = why;
        return;
    }
    std::vector<Allocation> list;
    scanWords(s, snap.paramBytes.data(), snap.paramBytes.size(), true, list, nullptr);
    if (::mkdir(p.dir.c_str(), 0755) != 0 && errno != EEXIST) {
        snap.error = "cannot create " + p.dir + ": " + std::strerror(errno);
        return;
    }
    uint64_t saved = 0;
    std::vector<long> regionOf; // allocation → region index (-1 not saved)
    for (size_t i = 0; i < list.size(); ++i) { // the list grows while small allocations are scanned
        const Allocation a = list[i];
        regionOf.push_back(-1);
        auto omit = [&](const std::string& why) {
            if (snap.omitted.size() < capture::kMaxSnapshotOmitted) snap.omitted.push_back({a.base, a.bytes, why});
        };
        unsigned memoryType = 0;
        if (s.pointerGetAttribute && s.pointerGetAttribute(&memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a.base) == 0 &&
            memoryType == CU_MEMORYTYPE_HOST) {
            omit("host memory (pinned and mapped for the device): the runner cannot map it back");
            continue;
        }
        if (snap.regions.size() >= capture::kMaxSnapshotRegions) {
            omit("more than 64 allocations");
            continue;
        }
        if (saved + a.bytes > s.memoryLimit) {
            omit("over the memory limit (" + std::to_string(s.memoryLimit) + " bytes a launch)");
            continue;
        }
        const std::string name = capture::snapshotFileName(snap.pid, snap.correlationId, "before", a.base);
        std::vector<uint8_t> content;
        const bool scan = a.scan && a.bytes <= kScanBytes;
        if (std::string why = copyToFile(s, a.base, a.bytes, s.folder + "/" + name, scan ? &content : nullptr);
            !why.empty()) {
            omit(why);
            continue;
        }
        saved += a.bytes;
        regionOf[i] = static_cast<long>(snap.regions.size());
        snap.regions.push_back(SnapshotRegion{a.base, a.bytes, name, "", false});
        if (scan) {
            std::vector<size_t> targets;
            scanWords(s, content.data(), content.size(), false, list, &targets);
            list[i].pointsTo = targets;
        }
    }
    regionOf.resize(list.size(), -1);
    for (size_t i = 0; i < list.size(); ++i) {
        if (regionOf[i] < 0) continue;
        for (size_t t : list[i].pointsTo)
            if (t < regionOf.size() && regionOf[t] >= 0) snap.regions[static_cast<size_t>(regionOf[i])].pointers = true;
    }
}

void saveAfter(const State& s, const CUpti_CallbackData* data, Pending& p) {
    LaunchSnapshot& snap = p.snap;
    if (!snap.error.empty()) return;
    if (data->functionReturnValue) {
        int r = 0;
        std::memcpy(&r, data->functionReturnValue, sizeof r);
        if (r != 0) {
            snap.error = cudaError("the launch call", r);
            return;
        }
    }
    if (const int r = s.ctxSynchronize(); r != 0) {
        snap.error = cudaError("cuCtxSynchronize after the launch (the kernel failed)", r);
        return;
    }
    for (SnapshotRegion& r : snap.regions) {
        const std::string name = capture::snapshotFileName(snap.pid, snap.correlationId, "after", r.address);
        if (copyToFile(s, r.address, r.bytes, s.folder + "/" + name, nullptr).empty()) r.after = name;
    }
}

} // namespace

bool launchCaptureInit(uint32_t pid, EmitFn emit, std::string& error) {
    const char* folder = std::getenv("LOWERSCOPE_CAPTURE_SNAPSHOTS");
    if (!folder || !*folder) return false;
    State& s = state();
    s.pid = pid;
    s.emit = emit;
    s.folder = folder;
    capture::LaunchFilterOptions options;
    if (const char* k = std::getenv("LOWERSCOPE_CAPTURE_KERNEL")) options.kernelRegex = k;
    if (const char* v = std::getenv("LOWERSCOPE_CAPTURE_SKIP"); v && *v) options.skip = std::strtoull(v, nullptr, 10);
    if (const char* v = std::getenv("LOWERSCOPE_CAPTURE_COUNT"); v && *v) options.count = std::strtoull(v, nullptr, 10);
    if (const char* v = std::getenv("LOWERSCOPE_CAPTURE_MEMORY_LIMIT"); v && *v)
        s.memoryLimit = std::strtoull(v, nullptr, 10);
    try {
        s.filter.emplace(options);
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    s.ctxSynchronize = reinterpret_cast<CtxSynchronizeFn>(driverSymbol("cuCtxSynchronize"));
    s.funcGetParamInfo = reinterpret_cast<FuncGetParamInfoFn>(driverSymbol("cuFuncGetParamInfo"));
    s.kernelGetParamInfo = reinterpret_cast<FuncGetParamInfoFn>(driverSymbol("cuKernelGetParamInfo"));
    s.funcGetName = reinterpret_cast<FuncGetNameFn>(driverSymbol("cuFuncGetName"));
    s.memGetAddressRange = reinterpret_cast<MemGetAddressRangeFn>(driverSymbol("cuMemGetAddressRange_v2"));
    s.memcpyDtoH = reinterpret_cast<MemcpyDtoHFn>(driverSymbol("cuMemcpyDtoH_v2"));
    s.pointerGetAttribute = reinterpret_cast<PointerGetAttributeFn>(driverSymbol("cuPointerGetAttribute"));
    s.streamIsCapturing = reinterpret_cast<StreamIsCapturingFn>(driverSymbol("cuStreamIsCapturing"));
    s.exchangeCaptureMode =
        reinterpret_cast<ThreadExchangeStreamCaptureModeFn>(driverSymbol("cuThreadExchangeStreamCaptureMode"));
    return true;
}

const uint32_t* launchCaptureCallbackIds(size_t& count) {
    count = sizeof kCallbackIds / sizeof kCallbackIds[0];
    return kCallbackIds;
}

void launchCaptureCallback(uint32_t cbid, const CUpti_CallbackData* data) {
    State& s = state();
    if (!data || !s.filter) return;
    if (data->callbackSite == CUPTI_API_ENTER) {
        if (s.done.load(std::memory_order_relaxed)) return;
        LaunchCall call;
        if (!decode(cbid, data->functionParams, call)) return;
        // A launch into a stream that captures a CUDA graph runs nothing now (and has no kernel
        // record of its own): not counted, and never synchronised (that would end the capture).
        int capturing = 0;
        if (s.streamIsCapturing && s.streamIsCapturing(call.stream, &capturing) == 0 && capturing != 0) return;
        std::string name = data->symbolName ? data->symbolName : "";
        if (name.empty() && s.funcGetName && call.f) {
            const char* n = nullptr;
            if (s.funcGetName(&n, call.f) == 0 && n) name = n;
        }
        if (name.empty()) name = "(unnamed kernel)";
        const std::string pretty = demangled(name);
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            const bool selected = s.filter->next(name, pretty);
            if (s.filter->done()) s.done = true;
            if (!selected) return;
        }
        auto p = std::make_unique<Pending>();
        p->snap.pid = s.pid;
        p->snap.correlationId = data->correlationId;
        p->snap.name = name;
        p->snap.grid = call.grid;
        p->snap.block = call.block;
        p->snap.cluster = call.cluster;
        p->snap.dynamicSmem = call.smem;
        p->dir = s.folder + "/" + std::to_string(s.pid) + "-" + std::to_string(data->correlationId);
        try {
            RelaxedCapture relaxed(s);
            saveBefore(s, call, *p);
        } catch (const std::exception& e) {
            p->snap.error = std::string("saving the memory failed: ") + e.what();
        }
        std::lock_guard<std::mutex> lock(s.mutex);
        s.pending[data->correlationId] = std::move(p);
        return;
    }
    if (data->callbackSite != CUPTI_API_EXIT) return;
    std::unique_ptr<Pending> p;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        const auto it = s.pending.find(data->correlationId);
        if (it == s.pending.end()) return;
        p = std::move(it->second);
        s.pending.erase(it);
    }
    try {
        RelaxedCapture relaxed(s);
        saveAfter(s, data, *p);
    } catch (const std::exception& e) {
        p->snap.error = std::string("saving the memory after the launch failed: ") + e.what();
    }
    if (s.emit) s.emit(capture::snapshotEventLine(p->snap));
}

} // namespace lowerscope::inject
