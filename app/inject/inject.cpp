// liblowerscope_inject.so: loaded into the user's unmodified program by the CUDA driver through its
// documented injection mechanism (CUDA_INJECTION64_PATH; the driver calls InitializeInjection at
// cuInit), started so by `lowerscope-cli capture` (core/capture/capture_run.h). It records, through
// CUPTI loaded at run time like the runner does (app/runner/cupti_api.h):
//   * every kernel execution: CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL records (name, grid, block,
//     cluster, shared memory, stream, GPU start/end), written as they complete;
//   * every loaded module's cubin (the resource domain's MODULE_LOADED callback), saved as
//     HASH.cubin in $LOWERSCOPE_CAPTURE_CUBINS;
//   * each device a context is created on (name, compute capability);
//   * with $LOWERSCOPE_CAPTURE_SNAPSHOTS, the selected launches' parameters and the device memory
//     they reach, before and after the launch (launch_capture.h; driver-API callbacks of the
//     launch calls, enabled only then).
// Everything goes to $LOWERSCOPE_CAPTURE_EVENTS/events-PID.jsonl in the format of
// core/capture/capture_events.h; the bookkeeping (order, filter, statistics, document) is done by
// the CLI after the program ended. At exit the activity buffers are flushed and an `end` line is
// written. The library does nothing when LOWERSCOPE_CAPTURE_EVENTS is not set, and never makes the
// program fail: a CUPTI that cannot be loaded or subscribed to (another profiler holds it) is
// reported in the `process` line.
#include "app/inject/inject_cupti.h"
#include "app/inject/launch_capture.h"
#include "core/capture/capture_events.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace lowerscope;
using namespace lowerscope::runner;
using lowerscope::inject::CUpti_ActivityKernel10;
using lowerscope::inject::CUpti_ModuleResourceData;
using lowerscope::inject::CUpti_ResourceData;

namespace {

using DeviceGetFn = int (*)(int*, int);
using DeviceGetNameFn = int (*)(char*, int, int);
using DeviceGetAttributeFn = int (*)(int*, int, int);
using GetDeviceIdFn = CUptiResult (*)(CUcontext, uint32_t*);
using GetDroppedFn = CUptiResult (*)(CUcontext, uint32_t, size_t*);

// Never destroyed: CUPTI may complete buffers from its own thread after static destructors ran.
struct State {
    Cupti cupti;
    int fd = -1;
    uint32_t pid = 0;
    std::string cubinDir;
    std::mutex mutex; // one line at a time; the set of devices and saved hashes
    std::set<uint32_t> devices;
    std::set<std::string> savedHashes;
    CUpti_SubscriberHandle subscriber = nullptr;
    GetDeviceIdFn getDeviceId = nullptr;
    GetDroppedFn getDropped = nullptr;
    DeviceGetFn deviceGet = nullptr;
    DeviceGetNameFn deviceGetName = nullptr;
    DeviceGetAttributeFn deviceGetAttribute = nullptr;
    std::atomic<uint64_t> dropped{0};
    bool active = false;
    bool hwTrace = false; // kernel timestamps from the Hardware Event System (cuptiActivityEnableHWTrace)
};

State& state() {
    static State* s = new State;
    return *s;
}

void emit(const std::string& line) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    size_t done = 0;
    while (s.fd >= 0 && done < line.size()) {
        const ssize_t n = ::write(s.fd, line.data() + done, line.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
}

std::string hashHex(const void* data, size_t size) {
    const XXH128_hash_t h = XXH3_128bits(data, size);
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return buf;
}

// Writes the cubin as HASH.cubin unless a file of that name exists (another process of the
// program, or an earlier run into the same folder, wrote the same bytes).
void saveCubin(const std::string& hash, const char* bytes, size_t size) {
    State& s = state();
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (!s.savedHashes.insert(hash).second) return;
    }
    const std::string path = s.cubinDir + "/" + hash + ".cubin";
    struct stat st{};
    if (::stat(path.c_str(), &st) == 0 && static_cast<size_t>(st.st_size) == size) return;
    const std::string tmp = path + ".part" + std::to_string(s.pid);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, bytes + done, size - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    if (done == size) {
        ::rename(tmp.c_str(), path.c_str());
    } else {
        ::unlink(tmp.c_str());
    }
}

void recordDevice(CUcontext context) {
    State& s = state();
    uint32_t id = 0;
    if (!s.getDeviceId || s.getDeviceId(context, &id) != CUPTI_SUCCESS) return;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (!s.devices.insert(id).second) return;
    }
    capture::CapturedDevice d;
    d.pid = s.pid;
    d.id = id;
    int dev = 0;
    if (s.deviceGet && s.deviceGet(&dev, static_cast<int>(id)) == 0) {
        char name[256] = {};
        if (s.deviceGetName && s.deviceGetName(name, sizeof name - 1, dev) == 0) d.name = name;
        // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75, _MINOR 76
        if (s.deviceGetAttribute) {
            s.deviceGetAttribute(&d.ccMajor, 75, dev);
            s.deviceGetAttribute(&d.ccMinor, 76, dev);
        }
    }
    emit(capture::deviceEventLine(d));
}

void callback(void*, int domain, uint32_t cbid, const void* data) {
    if (domain == inject::CUPTI_CB_DOMAIN_DRIVER_API) {
        inject::launchCaptureCallback(cbid, static_cast<const inject::CUpti_CallbackData*>(data));
        return;
    }
    if (domain != inject::CUPTI_CB_DOMAIN_RESOURCE || !data) return;
    const auto* r = static_cast<const CUpti_ResourceData*>(data);
    if (cbid == inject::CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
        recordDevice(r->context);
    } else if (cbid == inject::CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        const auto* m = static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor);
        if (!m || !m->pCubin || m->cubinSize == 0) return;
        capture::CapturedModule mod;
        mod.pid = state().pid;
        mod.moduleId = m->moduleId;
        mod.hash = hashHex(m->pCubin, m->cubinSize);
        mod.bytes = m->cubinSize;
        saveCubin(mod.hash, m->pCubin, m->cubinSize);
        emit(capture::moduleEventLine(mod));
    }
}

// 1 MiB holds a few thousand kernel records: CUPTI hands full buffers back on its own thread
// while the program runs, so their conversion to event lines overlaps the program instead of
// piling up at exit (8 MiB buffers left all of a 10,000-launch program's records for the exit
// flush: 17 ms on an H100 host). 256 KiB buffers were tried (2026-12-06, H100): the exit flush
// fell from 3-6 ms to 0.7 ms, but the program's launch loop cost +1.84 us per launch against
// +0.9 us with 1 MiB, a net loss.
constexpr size_t kBufferBytes = size_t(1) << 20;

void bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

void bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize) {
    State& s = state();
    if (buffer) {
        std::string lines;
        CUpti_Activity* rec = nullptr;
        while (s.cupti.cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS && rec) {
            if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
            if (k->start == 0 || k->end < k->start || !k->name) continue; // untimed or torn
            capture::CapturedLaunch l;
            l.pid = s.pid;
            l.correlationId = k->correlationId;
            l.name = k->name;
            l.device = k->deviceId;
            l.context = k->contextId;
            l.stream = k->streamId;
            l.grid = {k->gridX, k->gridY, k->gridZ};
            l.block = {k->blockX, k->blockY, k->blockZ};
            l.cluster = {k->clusterX, k->clusterY, k->clusterZ};
            l.dynamicSmem = k->dynamicSharedMemory;
            l.staticSmem = k->staticSharedMemory;
            l.registers = k->registersPerThread;
            l.startNs = k->start;
            l.endNs = k->end;
            l.graphId = k->graphId;
            l.graphNodeId = k->graphNodeId;
            lines += capture::kernelEventLine(l);
            if (lines.size() > (size_t(1) << 20)) {
                emit(lines);
                lines.clear();
            }
        }
        if (!lines.empty()) emit(lines);
        size_t dropped = 0;
        if (s.getDropped && s.getDropped(context, streamId, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
    }
    std::free(buffer);
}

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// LOWERSCOPE_CAPTURE_TIMING=1 (bench/capture_bench.sh): what the injection's start and end cost.
bool timingWanted() {
    const char* t = std::getenv("LOWERSCOPE_CAPTURE_TIMING");
    return t && *t && *t != '0';
}

void finish() {
    State& s = state();
    if (!s.active) return;
    const auto t0 = std::chrono::steady_clock::now();
    s.cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    emit(capture::endEventLine(s.pid, s.dropped.load()));
    if (timingWanted()) std::fprintf(stderr, "lowerscope-inject: timing: end (activity flush) %.1f ms\n", msSince(t0));
}

void* symbolIn(const char* library, const char* name) {
    void* lib = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    void* p = lib ? dlsym(lib, name) : nullptr;
    return p ? p : dlsym(RTLD_DEFAULT, name);
}

int initialize() {
    const char* events = std::getenv("LOWERSCOPE_CAPTURE_EVENTS");
    const char* cubins = std::getenv("LOWERSCOPE_CAPTURE_CUBINS");
    if (!events || !*events) return 1; // not started by lowerscope-cli capture: stay out of the way
    const auto started = std::chrono::steady_clock::now();
    State& s = state();
    s.pid = static_cast<uint32_t>(::getpid());
    s.cubinDir = cubins && *cubins ? cubins : events;
    const std::string path = std::string(events) + "/events-" + std::to_string(s.pid) + ".jsonl";
    s.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (s.fd < 0) return 1;

    const CuptiLoad load = loadCupti(s.cupti);
    const double loadMs = msSince(started);
    if (!load.ok) {
        emit(capture::processEventLine(s.pid, "", load.error));
        return 1;
    }
    uint32_t version = 0;
    s.cupti.cuptiGetVersion(&version);
    const std::string versionText = std::to_string(version);
    s.getDeviceId = reinterpret_cast<GetDeviceIdFn>(symbolIn(load.path.c_str(), "cuptiGetDeviceId"));
    s.getDropped = reinterpret_cast<GetDroppedFn>(symbolIn(load.path.c_str(), "cuptiActivityGetNumDroppedRecords"));
    s.deviceGet = reinterpret_cast<DeviceGetFn>(symbolIn("libcuda.so.1", "cuDeviceGet"));
    s.deviceGetName = reinterpret_cast<DeviceGetNameFn>(symbolIn("libcuda.so.1", "cuDeviceGetName"));
    s.deviceGetAttribute = reinterpret_cast<DeviceGetAttributeFn>(symbolIn("libcuda.so.1", "cuDeviceGetAttribute"));

    auto failed = [&](const char* call, CUptiResult r) {
        std::string detail;
        const CuptiFailure f = cuptiCallFailure(s.cupti, r, call, detail);
        emit(capture::processEventLine(s.pid, versionText,
                                       f == CuptiFailure::Busy
                                           ? detail + " (another profiler, such as nsys or ncu, is attached)"
                                           : detail));
        return 1;
    };
    if (CUptiResult r = s.cupti.cuptiSubscribe(&s.subscriber, callback, nullptr); r != CUPTI_SUCCESS)
        return failed("cuptiSubscribe", r);
    for (uint32_t cbid : {inject::CUPTI_CBID_RESOURCE_CONTEXT_CREATED, inject::CUPTI_CBID_RESOURCE_MODULE_LOADED})
        if (CUptiResult r = s.cupti.cuptiEnableCallback(1, s.subscriber, inject::CUPTI_CB_DOMAIN_RESOURCE, cbid);
            r != CUPTI_SUCCESS)
            return failed("cuptiEnableCallback", r);
    // Kernel timestamps from the Hardware Event System where the GPU has it (Blackwell and later;
    // CUPTI 12.8+): more accurate and cheaper per launch than CUPTI's instrumented kernels, which
    // is all a Hopper GPU offers (there the call fails and nothing changes). It must come before
    // the first context, which this (cuInit) is. LOWERSCOPE_CAPTURE_HWTRACE=0 keeps it off.
    if (const char* hw = std::getenv("LOWERSCOPE_CAPTURE_HWTRACE"); !hw || std::strcmp(hw, "0") != 0) {
        using EnableHwTraceFn = CUptiResult (*)(uint8_t);
        if (auto enableHwTrace = reinterpret_cast<EnableHwTraceFn>(symbolIn(load.path.c_str(), "cuptiActivityEnableHWTrace")))
            s.hwTrace = enableHwTrace(1) == CUPTI_SUCCESS;
        // HES records are only delivered when flushed; its fixed 128 MB hardware buffer drops what
        // does not fit, so flush every 100 ms (CUPTI's documented advice).
        using FlushPeriodFn = CUptiResult (*)(uint32_t);
        if (s.hwTrace)
            if (auto period = reinterpret_cast<FlushPeriodFn>(symbolIn(load.path.c_str(), "cuptiActivityFlushPeriod")))
                period(100);
    }
    // LOWERSCOPE_CAPTURE_LEAN=1 (an experiment, bench/capture_bench.sh): CUPTI pre-allocates one
    // device buffer of 1 MiB for each context instead of three of ~3 MB (still room for ~30,000
    // kernels' timestamps in flight; full buffers are reused), to see what those allocations
    // cost the program's start.
    if (const char* lean = std::getenv("LOWERSCOPE_CAPTURE_LEAN"); lean && std::strcmp(lean, "1") == 0) {
        using SetAttributeFn = CUptiResult (*)(int, size_t*, void*);
        if (auto set = reinterpret_cast<SetAttributeFn>(symbolIn(load.path.c_str(), "cuptiActivitySetAttribute"))) {
            size_t size = sizeof(size_t), bytes = size_t(1) << 20, count = 1;
            set(0 /* CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE */, &size, &bytes);
            set(6 /* CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE */, &size, &count);
        }
    }
    if (CUptiResult r = s.cupti.cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted); r != CUPTI_SUCCESS)
        return failed("cuptiActivityRegisterCallbacks", r);
    // LOWERSCOPE_CAPTURE_SERIAL=1 (capture --serialize-kernels): CUPTI's serialising kernel records
    // (CUPTI_ACTIVITY_KIND_KERNEL, the same record layout) instead of the concurrent ones: every
    // kernel runs alone and its span includes the front end's work, as ncu's gpu__time_duration
    // does (+1.6 % against ncu on an H100 where the concurrent records read -3.9 %).
    const char* serialEnv = std::getenv("LOWERSCOPE_CAPTURE_SERIAL");
    const bool serial = serialEnv && std::strcmp(serialEnv, "1") == 0;
    if (CUptiResult r = s.cupti.cuptiActivityEnable(serial ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        r != CUPTI_SUCCESS)
        return failed(serial ? "cuptiActivityEnable(KERNEL)" : "cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    // Saving selected launches for replay: the launch calls' callbacks, only when asked for.
    std::string snapshotError;
    if (inject::launchCaptureInit(s.pid, emit, snapshotError)) {
        size_t count = 0;
        const uint32_t* ids = inject::launchCaptureCallbackIds(count);
        // (a call CUPTI cannot report is simply not saved; the kernel records go on)
        for (size_t i = 0; i < count; ++i)
            s.cupti.cuptiEnableCallback(1, s.subscriber, inject::CUPTI_CB_DOMAIN_DRIVER_API, ids[i]);
    }
    emit(capture::processEventLine(s.pid, versionText, ""));
    s.active = true;
    std::atexit(finish);
    if (timingWanted())
        std::fprintf(stderr, "lowerscope-inject: timing: start %.1f ms (loading CUPTI %.1f ms); kernel timestamps: %s\n",
                     msSince(started), loadMs,
                     s.hwTrace ? (serial ? "hardware event system, serialising records" : "hardware event system")
                               : (serial ? "CUPTI's instrumentation, serialising records" : "CUPTI's instrumentation"));
    return 1;
}

} // namespace

// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library. The
// driver ignores the result; 1 is what NVIDIA's injection samples return.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    static std::once_flag once;
    static int result = 1;
    std::call_once(once, [] { result = initialize(); });
    return result;
}
