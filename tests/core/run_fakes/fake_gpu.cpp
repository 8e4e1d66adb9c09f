// A fake GPU for CPU-only tests of the real lowerscope-runner: one shared library that stands in
// for both libcuda.so.1 and libcupti.so.13 (point LOWERSCOPE_LIBCUDA and LOWERSCOPE_LIBCUPTI at it),
// so that a launch can produce CUPTI's records.
//
// The "GPU" runs nothing. Device memory is host memory; a virtual GPU clock (ns) advances with
// every launch by the kernel's fake duration and with every event record by a fixed event cost:
//   user kernels      kFakeKernelNs (10 µs); "slow" in the name: 3× that
//   ls_* helpers      1 µs; ls_clock writes (ns, cycles) at 1980 MHz into its slot
//   event record      +kFakeEventNs (1.3 µs), as a real event pair adds ~1.3 µs
// CUPTI: launch callbacks carry increasing correlation ids; kernel activity records carry the
// kernel's span; the Range Profiler's gpu__time_duration of a launch is its span + 1.1 µs (what
// Nsight Compute adds on an H200); SASS metrics give 4 instructions; PC sampling 3 stall reasons.
//
// Host costs (experiment 4's graph path, whose numbers are host wall times): FAKE_HOST_LAUNCH_US
// busy-waits that long in every cuLaunchKernel of a user kernel outside a capture,
// FAKE_HOST_INSTANTIATE_US in every cuGraphInstantiate. FAKE_GRAPH_LOG names a file that gets
// "graphs created C destroyed D execs created E destroyed F" when the process exits.
// FAKE_KERNEL_NS_BLOCK=B:NS makes a user kernel launched with blocks of B threads (x) take NS ns
// instead (the advisor's block-size variants, measured against the original).
// FAKE_KERNEL_SLEEP_US sleeps that long in every cuLaunchKernel of a user kernel outside a capture
// (wall time only; the virtual clock is unchanged).
// FAKE_GRAPH_FAIL=instantiate:N or launch:N makes cuGraphInstantiate or cuGraphLaunch fail
// (CUDA error 1, not sticky) for graphs of exactly N kernel nodes.
//
// Launch specs for Hopper kernels (issue 29 item 3): cuTensorMapEncodeTiled writes a text
// description of its arguments into the map ("t9 r2 d512,128 s1024 b64,64 e1,1 i0 w3 l0 o0
// a=<first 4 bytes at the global address, hex>", the global address as an 8-byte word at byte
// 120), which cuTensorMapReplaceAddress re-points (that word); cuLaunchKernelEx launches like cuLaunchKernel;
// FAKE_LAUNCH_LOG names a file that gets one line per cuFuncSetAttribute ("attr A V"),
// cuTensorMapEncodeTiled ("encode ...", the text above) and cuLaunchKernelEx of a user kernel
// ("launch_ex NAME shared=N cluster=X,Y,Z"). The kernel "fake_tensormap_probe" copies the 128
// bytes of its first parameter (a tensor map by value) and the 128 bytes its second parameter
// points to (a tensor map by pointer) into the buffer its third parameter points to.
//
// Replays (issue 29 item 2): the virtual memory calls map host memory at the address asked for
// (mmap with MAP_FIXED_NOREPLACE, 64 KiB granularity), so that "device" pointers stay host
// pointers; FAKE_VMM_RELOCATE=1 refuses every address asked for (the driver gives another one).
// The user kernel named by FAKE_REPLAY_KERNEL (or "fake_replay_axpy") computes x[i] += a * y[i]
// over parameters (float* x, const float* y, int n, float a); the same name with "_fast" appended
// computes with 3a (a rebuilt variant whose results differ). FAKE_LAUNCH_LOG gets "replay_params
// X Y" (the addresses it was given) at each such launch.
//
// FAKE_ADD_KERNEL=1: a user kernel named add_kernel does what the capture tests' fake program
// (capture_fakes/fake_cuda_program.cpp) does for it: parameters (float* x, float* y,
// uint64_t* table, int n), y[i] += x[i] + 1 for i < n, and ((uint32_t*)table[0])[0] += 1 — so a
// replay of its saved launch must reproduce the program's memory.
//
// FAKE_CUPTI_FAIL selects failures: a comma list of area=code, area one of activity, range,
// sass, pcsampling, support (code ignored: the device is reported unsupported), e.g.
// "range=35" (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from cuptiRangeProfilerEnable).
#include "app/runner/cuda_api.h"
#include "app/runner/cupti_api.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/mman.h>
#include <string>
#include <thread>
#include <vector>

using namespace lowerscope::runner;

namespace {

constexpr uint64_t kFakeKernelNs = 10000;
constexpr uint64_t kFakeHelperNs = 1000;
constexpr uint64_t kFakeEventNs = 1300;
constexpr uint64_t kNcuExtraNs = 1100;
constexpr uint32_t kFakeCrc = 0x5eed1234;

struct Func {
    std::string name;
    unsigned blockX = 0; // of the latest launch (FAKE_KERNEL_NS_BLOCK)
};
struct Event {
    uint64_t t = 0;
};

struct State {
    uint64_t clock = 1000000;
    uint32_t correlation = 0;
    // CUPTI
    CUpti_CallbackFunc callback = nullptr;
    void* callbackUser = nullptr;
    bool launchCallback = false;
    bool activity = false;
    CUpti_BuffersCallbackRequestFunc requested = nullptr;
    CUpti_BuffersCallbackCompleteFunc completed = nullptr;
    std::vector<CUpti_ActivityKernelPrefix> pending;
    // Range profiler: ranges of the current pass set, and metrics of the host object.
    bool rangeEnabled = false;
    bool rangeActive = false;
    std::vector<std::string> metrics;
    std::vector<uint64_t> rangeNs; // span of each launch within Start/Stop
    std::vector<uint64_t> decoded;
    size_t passesWanted = 1;
    size_t passesDone = 0;
    // SASS metrics
    bool sassEnabled = false;
    std::map<uint64_t, std::string> sassIds;
    std::vector<uint64_t> sassConfig;
    std::string sassFunction;
    uint64_t sassLaunches = 0;
    // PC sampling
    bool pcEnabled = false;
    bool pcRunning = false;
    bool pcStartStop = false;
    CUpti_PCSamplingData* pcBuffer = nullptr;
    std::string pcFunction;
    uint64_t pcLaunches = 0;
    uint32_t pcPeriodLog2 = 11; // CUPTI's default on an H200
    // Graph capture
    bool capturing = false;
    std::vector<Func*> captured;
};

State& st() {
    static State s;
    return s;
}

// Graph bookkeeping, written to $FAKE_GRAPH_LOG at exit (a leak shows as created != destroyed).
struct GraphLog {
    long graphsCreated = 0, graphsDestroyed = 0, execsCreated = 0, execsDestroyed = 0;
    ~GraphLog() {
        const char* path = std::getenv("FAKE_GRAPH_LOG");
        if (!path) {
            return;
        }
        if (FILE* f = std::fopen(path, "w")) {
            std::fprintf(f, "graphs created %ld destroyed %ld execs created %ld destroyed %ld\n",
                         graphsCreated, graphsDestroyed, execsCreated, execsDestroyed);
            std::fclose(f);
        }
    }
};
GraphLog& graphLog() {
    static GraphLog g;
    return g;
}

// Whether FAKE_GRAPH_FAIL names `call` for a graph of `nodes` kernel nodes.
bool graphFails(const char* call, size_t nodes) {
    const char* env = std::getenv("FAKE_GRAPH_FAIL");
    const std::string key = std::string(call) + ":";
    return env && std::string(env).rfind(key, 0) == 0 && std::strtoul(env + key.size(), nullptr, 10) == nodes;
}

// Busy-waits the microseconds in environment variable `name` (0 when unset).
void hostCost(const char* name) {
    const char* env = std::getenv(name);
    const long us = env ? std::atol(env) : 0;
    if (us <= 0) {
        return;
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (std::chrono::steady_clock::now() < end) {
    }
}

// Appends one line to $FAKE_LAUNCH_LOG (nothing when unset).
void launchLog(const std::string& line) {
    const char* path = std::getenv("FAKE_LAUNCH_LOG");
    if (!path) {
        return;
    }
    if (FILE* f = std::fopen(path, "a")) {
        std::fprintf(f, "%s\n", line.c_str());
        std::fclose(f);
    }
}

// FAKE_KERNEL_SLEEP_US: a user kernel also takes that long in wall time, sleeping (the host waits
// for a GPU without using a CPU), so several fake GPUs on one host run side by side as real ones do
// (the cluster benchmark's fixed kernel time).
void gpuWallTime() {
    static const long us = [] {
        const char* env = std::getenv("FAKE_KERNEL_SLEEP_US");
        return env ? std::atol(env) : 0L;
    }();
    if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
}

int failCode(const char* area) {
    const char* env = std::getenv("FAKE_CUPTI_FAIL");
    if (!env) {
        return 0;
    }
    std::string s = env;
    std::string key = std::string(area) + "=";
    auto p = s.find(key);
    if (p == std::string::npos) {
        return 0;
    }
    return std::atoi(s.c_str() + p + key.size());
}

bool isHelper(const std::string& name) {
    return name.rfind("ls_", 0) == 0;
}

uint64_t spanOf(const Func* f) {
    if (isHelper(f->name)) {
        return kFakeHelperNs;
    }
    // FAKE_KERNEL_NS_BLOCK=B:NS: a user kernel launched with blocks of B threads (x) takes NS ns.
    static const std::pair<unsigned long, unsigned long> byBlock = [] {
        const char* env = std::getenv("FAKE_KERNEL_NS_BLOCK");
        unsigned long b = 0, ns = 0;
        if (env && std::sscanf(env, "%lu:%lu", &b, &ns) != 2) b = 0;
        return std::make_pair(b, ns);
    }();
    if (byBlock.first != 0 && f->blockX == byBlock.first) {
        return byBlock.second;
    }
    return f->name.find("slow") != std::string::npos ? 3 * kFakeKernelNs : kFakeKernelNs;
}

void recordKernel(uint64_t start, uint64_t end, uint32_t corr, uint32_t graphId, uint64_t node) {
    if (!st().activity) {
        return;
    }
    CUpti_ActivityKernelPrefix r{};
    r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    r.start = start;
    r.end = end;
    r.correlationId = corr;
    r.graphId = graphId;
    r.graphNodeId = node;
    st().pending.push_back(r);
}

// Runs one kernel on the virtual GPU: advances the clock, feeds CUPTI.
void execute(Func* f, void** params, uint32_t corr, uint32_t graphId, uint64_t node) {
    State& s = st();
    const uint64_t start = s.clock;
    const uint64_t span = spanOf(f);
    s.clock += span;
    if (f->name == "fake_tensormap_probe" && params) {
        const auto* byValue = static_cast<const uint8_t*>(params[0]);
        const auto* byPointer = reinterpret_cast<const uint8_t*>(*static_cast<const uint64_t*>(params[1]));
        auto* out = reinterpret_cast<uint8_t*>(*static_cast<const uint64_t*>(params[2]));
        std::memcpy(out, byValue, 128);
        std::memcpy(out + 128, byPointer, 128);
    }
    if (params && f->name == "add_kernel" && std::getenv("FAKE_ADD_KERNEL")) {
        const auto* x = reinterpret_cast<const float*>(*static_cast<const uint64_t*>(params[0]));
        auto* y = reinterpret_cast<float*>(*static_cast<const uint64_t*>(params[1]));
        const auto* table = reinterpret_cast<const uint64_t*>(*static_cast<const uint64_t*>(params[2]));
        const int n = *static_cast<const int*>(params[3]);
        for (int i = 0; i < n; ++i) y[i] += x[i] + 1;
        reinterpret_cast<uint32_t*>(table[0])[0] += 1;
    }
    const char* replayName = std::getenv("FAKE_REPLAY_KERNEL");
    const std::string replay = replayName && *replayName ? replayName : "fake_replay_axpy";
    if (params && (f->name == replay || f->name == replay + "_fast")) {
        auto* x = reinterpret_cast<float*>(*static_cast<const uint64_t*>(params[0]));
        const auto* y = reinterpret_cast<const float*>(*static_cast<const uint64_t*>(params[1]));
        const int n = *static_cast<const int*>(params[2]);
        float a = *static_cast<const float*>(params[3]);
        if (f->name != replay) a *= 3;
        for (int i = 0; i < n; ++i) x[i] += a * y[i];
        launchLog("replay_params " + std::to_string(reinterpret_cast<uintptr_t>(x)) + " " +
                  std::to_string(reinterpret_cast<uintptr_t>(y)));
    }
    if (f->name == "ls_clock" && params) {
        auto* slot = *static_cast<uint64_t**>(params[0]);
        uint64_t dur = *static_cast<uint64_t*>(params[1]);
        slot[0] = dur;
        slot[1] = dur * 198 / 100;
    }
    recordKernel(start, s.clock, corr, graphId, node);
    if (s.rangeActive) {
        s.rangeNs.push_back(span);
    }
    if (s.sassEnabled && !isHelper(f->name)) {
        s.sassFunction = f->name;
        ++s.sassLaunches;
    }
    if (s.pcEnabled && (s.pcRunning || !s.pcStartStop) && !isHelper(f->name)) {
        s.pcFunction = f->name;
        ++s.pcLaunches;
    }
}

} // namespace

extern "C" {

// ------------------------------------------------------------------------------- driver

int cuInit(unsigned) {
    // FAKE_DRIVER_POOL_AT=HEX: the driver's own pool (4 MiB) goes there if that is free, as an
    // mmap with a hint does; a runner that holds the range (--hold-addresses) keeps it out.
    if (const char* at = std::getenv("FAKE_DRIVER_POOL_AT")) {
        void* hint = reinterpret_cast<void*>(std::strtoull(at, nullptr, 16));
        mmap(hint, size_t(4) << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    return 0;
}
int cuDriverGetVersion(int* v) {
    *v = 13000;
    return 0;
}
int cuGetErrorName(int r, const char** s) {
    *s = r == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
    return 0;
}
int cuGetErrorString(int r, const char** s) {
    *s = r == 0 ? "no error" : "fake error";
    return 0;
}
int cuDeviceGetCount(int* n) {
    *n = 1;
    return 0;
}
int cuDeviceGet(int* d, int) {
    *d = 0;
    return 0;
}
int cuDeviceGetName(char* name, int len, int) {
    std::strncpy(name, "Fake GPU", static_cast<size_t>(len));
    return 0;
}
int cuDeviceGetAttribute(int* v, int attr, int) {
    switch (attr) {
    case 1:
        *v = 1024;
        break; // max threads per block
    case 10:
        *v = 32;
        break; // warp size
    case 13:
        *v = 1980000;
        break; // clock, kHz
    case 16:
        *v = 132;
        break; // SMs
    case 19:
        *v = 1;
        break; // can map host memory
    case 36:
        *v = 2619000;
        break; // memory clock, kHz
    case 37:
        *v = 5120;
        break; // bus width
    case 38:
        *v = 1 << 20;
        break; // L2 bytes (small: the runner allocates 2× for its flush)
    case 39:
        *v = 2048;
        break; // threads per SM
    case 75:
        *v = 9;
        break; // CC major
    case 76:
        *v = 0;
        break; // CC minor
    case 97:
        *v = 232448;
        break; // shared per block opt-in
    default:
        *v = 0;
    }
    return 0;
}
int cuDeviceTotalMem_v2(size_t* b, int) {
    *b = size_t(1) << 30;
    return 0;
}
int cuDevicePrimaryCtxRetain(void** ctx, int) {
    static int c;
    *ctx = &c;
    return 0;
}
int cuCtxSetCurrent(void*) {
    return 0;
}
int cuCtxSynchronize() {
    return 0;
}
int cuModuleLoadDataEx(void** m, const void*, unsigned, int*, void**) {
    *m = new int(0);
    return 0;
}
int cuModuleUnload(void* m) {
    delete static_cast<int*>(m);
    return 0;
}
int cuModuleGetFunction(Func** f, void*, const char* name) {
    *f = new Func{name}; // one per lookup; the runner looks each function up once
    return 0;
}
int cuModuleGetFunctionCount(unsigned* n, void*) {
    *n = 0;
    return 0;
}
int cuModuleEnumerateFunctions(void**, unsigned, void*) {
    return 0;
}
int cuFuncGetName(const char** name, Func* f) {
    *name = f->name.c_str();
    return 0;
}
int cuFuncGetAttribute(int* v, int attr, void*) {
    *v = attr == 0 ? 1024 : attr == 4 ? 32 : 0;
    return 0;
}
int cuFuncSetAttribute(void*, int attr, int value) {
    launchLog("attr " + std::to_string(attr) + " " + std::to_string(value));
    return 0;
}
int cuTensorMapEncodeTiled(CUtensorMap* map, int type, unsigned rank, void* address, const unsigned long long* dims,
                           const unsigned long long* strides, const unsigned* box, const unsigned* elementStrides,
                           int interleave, int swizzle, int l2, int oob) {
    if (rank < 1 || rank > 5 || !address || reinterpret_cast<uintptr_t>(address) % 16 != 0) {
        return 1; // CUDA_ERROR_INVALID_VALUE
    }
    auto list = [&](auto* v, unsigned n) {
        std::string s;
        for (unsigned i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
        return s;
    };
    char first[16];
    const auto* a = static_cast<const uint8_t*>(address);
    std::snprintf(first, sizeof first, "%02x%02x%02x%02x", a[0], a[1], a[2], a[3]);
    const std::string text = "t" + std::to_string(type) + " r" + std::to_string(rank) + " d" + list(dims, rank) +
                             " s" + (rank > 1 ? list(strides, rank - 1) : std::string()) + " b" + list(box, rank) +
                             " e" + list(elementStrides, rank) + " i" + std::to_string(interleave) + " w" +
                             std::to_string(swizzle) + " l" + std::to_string(l2) + " o" + std::to_string(oob) +
                             " a=" + first;
    std::memset(map, 0, sizeof(CUtensorMap));
    std::memcpy(map, text.data(), std::min(text.size(), size_t(119)));
    const uint64_t at = reinterpret_cast<uintptr_t>(address);
    std::memcpy(reinterpret_cast<uint8_t*>(map) + 120, &at, 8); // the global address, as a word
    launchLog("encode " + text);
    return 0;
}
// Re-points a map this fake encoded (its text starts with 't'): the address word at byte 120.
int cuTensorMapReplaceAddress(CUtensorMap* map, void* address) {
    auto* bytes = reinterpret_cast<uint8_t*>(map);
    if (bytes[0] != 't' || !address || reinterpret_cast<uintptr_t>(address) % 16 != 0) return 1;
    const uint64_t at = reinterpret_cast<uintptr_t>(address);
    std::memcpy(bytes + 120, &at, 8);
    launchLog("replace_address");
    return 0;
}
int cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void*, int, size_t) {
    *n = 8;
    return 0;
}
int cuMemAlloc_v2(unsigned long long* p, size_t bytes) {
    *p = reinterpret_cast<unsigned long long>(std::calloc(1, bytes ? bytes : 1));
    return *p ? 0 : 2;
}
int cuMemFree_v2(unsigned long long p) {
    std::free(reinterpret_cast<void*>(p));
    return 0;
}
int cuMemGetAllocationGranularity(size_t* g, const void*, int) {
    *g = size_t(64) << 10;
    return 0;
}
int cuMemAddressReserve(unsigned long long* p, size_t size, size_t, unsigned long long addr, unsigned long long) {
    void* want = reinterpret_cast<void*>(addr);
    const bool refuse = std::getenv("FAKE_VMM_RELOCATE") && std::atoi(std::getenv("FAKE_VMM_RELOCATE"));
    void* got = MAP_FAILED;
    if (addr && !refuse) {
        got = mmap(want, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (got != MAP_FAILED && got != want) { // an old kernel that takes the flag as a hint
            munmap(got, size);
            got = MAP_FAILED;
        }
    }
    if (got == MAP_FAILED) got = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (got == MAP_FAILED) return 2;
    *p = reinterpret_cast<unsigned long long>(got);
    return 0;
}
int cuMemAddressFree(unsigned long long p, size_t size) {
    return munmap(reinterpret_cast<void*>(p), size) == 0 ? 0 : 1;
}
int cuMemCreate(unsigned long long* handle, size_t size, const void*, unsigned long long) {
    *handle = size;
    return 0;
}
int cuMemRelease(unsigned long long) {
    return 0;
}
int cuMemMap(unsigned long long, size_t, size_t, unsigned long long, unsigned long long) {
    return 0;
}
int cuMemUnmap(unsigned long long, size_t) {
    return 0;
}
int cuMemSetAccess(unsigned long long, size_t, const void*, size_t) {
    return 0;
}
int cuMemGetInfo_v2(size_t* freeBytes, size_t* total) {
    *freeBytes = size_t(256) << 20;
    *total = size_t(1) << 30;
    return 0;
}
int cuMemHostAlloc(void** p, size_t bytes, unsigned) {
    *p = std::calloc(1, bytes);
    return 0;
}
int cuMemFreeHost(void* p) {
    std::free(p);
    return 0;
}
int cuMemHostGetDevicePointer_v2(unsigned long long* d, void* h, unsigned) {
    *d = reinterpret_cast<unsigned long long>(h);
    return 0;
}
int cuMemcpyHtoD_v2(unsigned long long d, const void* h, size_t n) {
    std::memcpy(reinterpret_cast<void*>(d), h, n);
    return 0;
}
int cuMemcpyDtoH_v2(void* h, unsigned long long d, size_t n) {
    std::memcpy(h, reinterpret_cast<void*>(d), n);
    return 0;
}
int cuMemcpyDtoDAsync_v2(unsigned long long d, unsigned long long s, size_t n, void*) {
    std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
    st().clock += n / 2000; // ~4 TB/s read + written
    return 0;
}
int cuMemsetD8Async(unsigned long long d, unsigned char v, size_t n, void*) {
    std::memset(reinterpret_cast<void*>(d), v, n);
    return 0;
}
int cuMemsetD32Async(unsigned long long d, unsigned v, size_t n, void*) {
    auto* p = reinterpret_cast<uint32_t*>(d);
    for (size_t i = 0; i < n; ++i) {
        p[i] = v;
    }
    return 0;
}
int cuStreamCreate(void** s, unsigned) {
    static int stream;
    *s = &stream;
    return 0;
}
int cuStreamSynchronize(void*) {
    return 0;
}
int cuStreamQuery(void*) {
    return 0;
}
int cuEventCreate(Event** e, unsigned) {
    *e = new Event;
    return 0;
}
int cuEventDestroy_v2(Event* e) {
    delete e;
    return 0;
}
int cuEventRecord(Event* e, void*) {
    if (st().capturing) {
        return 0;
    }
    st().clock += kFakeEventNs / 2;
    e->t = st().clock;
    st().clock += kFakeEventNs / 2;
    return 0;
}
int cuEventQuery(Event*) {
    return 0;
}
int cuEventElapsedTime_v2(float* ms, Event* a, Event* b) {
    *ms = static_cast<float>(static_cast<double>(b->t - a->t) * 1e-6);
    return 0;
}
int cuLaunchKernel(Func* f, unsigned, unsigned, unsigned, unsigned blockX, unsigned, unsigned, unsigned, void*,
                   void** params, void**) {
    State& s = st();
    f->blockX = blockX;
    if (s.capturing) {
        s.captured.push_back(f);
        return 0;
    }
    if (!isHelper(f->name)) {
        hostCost("FAKE_HOST_LAUNCH_US");
        gpuWallTime();
    }
    const uint32_t corr = ++s.correlation;
    if (s.launchCallback && s.callback) {
        CUpti_CallbackData d{};
        d.callbackSite = CUPTI_API_ENTER;
        d.functionName = "cuLaunchKernel";
        d.symbolName = f->name.c_str();
        d.correlationId = corr;
        s.callback(s.callbackUser, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &d);
    }
    execute(f, params, corr, 0, 0);
    return 0;
}
int cuLaunchKernelEx(const CUlaunchConfig* c, Func* f, void** params, void**) {
    State& s = st();
    f->blockX = c->blockDimX;
    std::string cluster = "none";
    for (unsigned i = 0; i < c->numAttrs; ++i) {
        if (c->attrs[i].id == LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            const auto& d = c->attrs[i].value.clusterDim;
            cluster = std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
            if (d.x == 0 || c->gridDimX % d.x || c->gridDimY % d.y || c->gridDimZ % d.z) {
                return 1; // CUDA_ERROR_INVALID_VALUE, as the driver answers
            }
        }
    }
    if (!isHelper(f->name)) {
        launchLog("launch_ex " + f->name + " shared=" + std::to_string(c->sharedMemBytes) + " cluster=" + cluster +
                  (s.capturing ? " captured" : ""));
    }
    if (s.capturing) {
        s.captured.push_back(f);
        return 0;
    }
    const uint32_t corr = ++s.correlation;
    if (s.launchCallback && s.callback) {
        CUpti_CallbackData d{};
        d.callbackSite = CUPTI_API_ENTER;
        d.functionName = "cuLaunchKernelEx";
        d.symbolName = f->name.c_str();
        d.correlationId = corr;
        s.callback(s.callbackUser, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &d);
    }
    execute(f, params, corr, 0, 0);
    return 0;
}
struct Graph {
    std::vector<Func*> kernels;
    int empty = 0;
    uint32_t id;
};
int cuStreamBeginCapture_v2(void*, int) {
    st().capturing = true;
    st().captured.clear();
    return 0;
}
int cuStreamEndCapture(void*, Graph** g) {
    static uint32_t ids = 0;
    st().capturing = false;
    *g = new Graph{st().captured, 0, ++ids};
    ++graphLog().graphsCreated;
    return 0;
}
int cuGraphCreate(Graph** g, unsigned) {
    static uint32_t ids = 1000;
    *g = new Graph{{}, 0, ++ids};
    ++graphLog().graphsCreated;
    return 0;
}
int cuGraphAddEmptyNode(void** n, Graph* g, const void*, size_t) {
    ++g->empty;
    *n = g;
    return 0;
}
int cuGraphInstantiateWithFlags(Graph** exec, Graph* g, unsigned long long) {
    hostCost("FAKE_HOST_INSTANTIATE_US");
    if (graphFails("instantiate", g->kernels.size())) {
        return 1;
    }
    *exec = new Graph(*g);
    ++graphLog().execsCreated;
    return 0;
}
int cuGraphUpload(Graph*, void*) {
    return 0;
}
int cuGraphLaunch(Graph* exec, void*) {
    if (graphFails("launch", exec->kernels.size())) {
        return 1;
    }
    State& s = st();
    const uint32_t corr = ++s.correlation;
    uint64_t node = 0;
    for (Func* f : exec->kernels) {
        execute(f, nullptr, corr, exec->id, ++node);
        s.clock += 200; // the gap between nodes
    }
    s.clock += 500 * static_cast<uint64_t>(exec->empty);
    return 0;
}
int cuGraphExecDestroy(Graph* g) {
    ++graphLog().execsDestroyed;
    delete g;
    return 0;
}
int cuGraphDestroy(Graph* g) {
    ++graphLog().graphsDestroyed;
    delete g;
    return 0;
}

// -------------------------------------------------------------------------------- CUPTI

int cuptiGetResultString(int r, const char** s) {
    *s = r == 0    ? "CUPTI_SUCCESS"
         : r == 35 ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
         : r == 27 ? "CUPTI_ERROR_NOT_SUPPORTED"
         : r == 8  ? "CUPTI_ERROR_OUT_OF_MEMORY"
                   : "CUPTI_ERROR_UNKNOWN";
    return 0;
}
int cuptiGetVersion(uint32_t* v) {
    *v = 130001;
    return 0;
}
int cuptiActivityEnable(int kind) {
    if (int f = failCode("activity")) {
        return f;
    }
    if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        st().activity = true;
    }
    return 0;
}
int cuptiActivityDisable(int) {
    st().activity = false;
    return 0;
}
int cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                   CUpti_BuffersCallbackCompleteFunc done) {
    st().requested = req;
    st().completed = done;
    return 0;
}
int cuptiActivityFlushAll(uint32_t) {
    State& s = st();
    if (s.pending.empty() || !s.requested || !s.completed) {
        return 0;
    }
    uint8_t* buf = nullptr;
    size_t size = 0, maxRecords = 0;
    s.requested(&buf, &size, &maxRecords);
    const size_t n = std::min(s.pending.size(), size / sizeof(CUpti_ActivityKernelPrefix));
    std::memcpy(buf, s.pending.data(), n * sizeof(CUpti_ActivityKernelPrefix));
    s.pending.erase(s.pending.begin(), s.pending.begin() + static_cast<long>(n));
    s.completed(nullptr, 0, buf, size, n * sizeof(CUpti_ActivityKernelPrefix));
    return 0;
}
int cuptiActivityGetNextRecord(uint8_t* buf, size_t valid, CUpti_Activity** rec) {
    uint8_t* next = *rec ? reinterpret_cast<uint8_t*>(*rec) + sizeof(CUpti_ActivityKernelPrefix) : buf;
    if (next + sizeof(CUpti_ActivityKernelPrefix) > buf + valid) {
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    }
    *rec = reinterpret_cast<CUpti_Activity*>(next);
    return 0;
}
int cuptiSubscribe(CUpti_SubscriberHandle* h, CUpti_CallbackFunc cb, void* user) {
    static int sub;
    st().callback = cb;
    st().callbackUser = user;
    *h = reinterpret_cast<CUpti_SubscriberHandle>(&sub);
    return 0;
}
int cuptiUnsubscribe(CUpti_SubscriberHandle) {
    st().callback = nullptr;
    st().launchCallback = false;
    return 0;
}
int cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, int domain, uint32_t cbid) {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) {
        st().launchCallback = enable != 0;
    }
    return 0;
}

int cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) {
    return 0;
}
int cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params* p) {
    p->isSupported = failCode("support") ? 1 : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    p->architecture = p->isSupported;
    return 0;
}
int cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
    p->pChipName = "FAKE100";
    return 0;
}
int cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* p) {
    if (p->pCounterAvailabilityImage) {
        std::memset(p->pCounterAvailabilityImage, 7, p->counterAvailabilityImageSize);
    }
    p->counterAvailabilityImageSize = 16;
    return 0;
}
int cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
    static int host;
    st().metrics.clear();
    p->pHostObject = reinterpret_cast<CUpti_Profiler_Host_Object*>(&host);
    return 0;
}
int cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params*) {
    return 0;
}
int cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params* p) {
    std::string n = p->pMetricName;
    if (n.find("bogus") != std::string::npos) {
        return CUPTI_ERROR_INVALID_METRIC_NAME;
    }
    p->pDescription = "fake metric";
    p->pHwUnit = "fake";
    p->pDimUnit = n.find("bytes") != std::string::npos           ? "byte"
                  : n.find("time_duration") != std::string::npos ? "nanosecond"
                  : n.find("pct") != std::string::npos           ? "percent"
                                                                 : "";
    return 0;
}
int cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
    for (size_t i = 0; i < p->numMetrics; ++i) {
        st().metrics.push_back(p->ppMetricNames[i]);
    }
    return 0;
}
int cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
    p->configImageSize = 64;
    return 0;
}
int cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params*) {
    return 0;
}
int cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
    // One pass per five metrics, as a stand-in for CUPTI's scheduling.
    p->numOfPasses = (st().metrics.size() + 4) / 5;
    st().passesWanted = p->numOfPasses;
    return 0;
}
int cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
    const State& s = st();
    if (p->rangeIndex >= s.decoded.size()) {
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    for (size_t i = 0; i < p->numMetrics; ++i) {
        std::string n = p->ppMetricNames[i];
        p->pMetricValues[i] = n == "gpu__time_duration.sum"
                                  ? static_cast<double>(s.decoded[p->rangeIndex] + kNcuExtraNs)
                              : n == "dram__bytes_read.sum" ? 8388608.0
                                                            : 42.0;
    }
    return 0;
}
int cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* p) {
    if (int f = failCode("range")) {
        return f;
    }
    static int obj;
    st().rangeEnabled = true;
    st().rangeNs.clear();
    p->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object*>(&obj);
    return 0;
}
int cuptiRangeProfilerDisable(CUpti_RangeProfiler_Object_Params*) {
    st().rangeEnabled = false;
    st().rangeActive = false;
    return 0;
}
int cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* p) {
    if (p->range != CUPTI_AutoRange || p->replayMode != CUPTI_UserReplay) {
        return CUPTI_ERROR_NOT_SUPPORTED; // the runner only ever asks for automatic ranges, user replay
    }
    st().passesDone = 0;
    st().rangeNs.clear();
    return 0;
}
int cuptiRangeProfilerStart(CUpti_RangeProfiler_Object_Params*) {
    st().rangeActive = true;
    return 0;
}
int cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* p) {
    State& s = st();
    s.rangeActive = false;
    ++s.passesDone;
    p->isAllPassSubmitted = s.passesDone >= s.passesWanted;
    return 0;
}
int cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params*) {
    return 0;
}
int cuptiRangeProfilerPopRange(CUpti_RangeProfiler_Object_Params*) {
    return 0;
}
int cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* p) {
    State& s = st();
    // Every pass replays the same launches: the ranges of one pass are the result.
    const size_t perPass = s.passesDone ? s.rangeNs.size() / s.passesDone : 0;
    s.decoded.assign(s.rangeNs.begin(), s.rangeNs.begin() + static_cast<long>(perPass));
    s.rangeNs.clear();
    p->numOfRangeDropped = 0;
    return 0;
}
int cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p) {
    p->counterDataSize = 256;
    return 0;
}
int cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params*) {
    return 0;
}
int cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) {
    p->numTotalRanges = st().decoded.size();
    return 0;
}

int cuptiSassMetricsGetProperties(CUpti_SassMetrics_GetProperties_Params* p) {
    std::string n = p->pMetricName;
    if (n.find("bogus") != std::string::npos) {
        return CUPTI_ERROR_INVALID_METRIC_NAME;
    }
    uint64_t id = std::hash<std::string>{}(n);
    st().sassIds[id] = n;
    p->metric.metricId = id;
    p->metric.pMetricName = p->pMetricName;
    return 0;
}
int cuptiSassMetricsSetConfig(CUpti_SassMetricsSetConfig_Params* p) {
    st().sassConfig.clear();
    for (size_t i = 0; i < p->numOfMetricConfig; ++i) {
        st().sassConfig.push_back(p->pConfigs[i].metricId);
    }
    return 0;
}
int cuptiSassMetricsUnsetConfig(CUpti_SassMetricsUnsetConfig_Params*) {
    return 0;
}
int cuptiSassMetricsEnable(CUpti_SassMetricsEnable_Params*) {
    if (int f = failCode("sass")) {
        return f;
    }
    st().sassEnabled = true;
    st().sassLaunches = 0;
    return 0;
}
int cuptiSassMetricsDisable(CUpti_SassMetricsDisable_Params*) {
    st().sassEnabled = false;
    return 0;
}
int cuptiSassMetricsGetDataProperties(CUpti_SassMetricsGetDataProperties_Params* p) {
    p->numOfPatchedInstructionRecords = st().sassLaunches ? 4 * st().sassConfig.size() : 0;
    p->numOfInstances = 1;
    return 0;
}
int cuptiSassMetricsFlushData(CUpti_SassMetricsFlushData_Params* p) {
    // As CUPTI does with GPU granularity: one record per instruction and metric.
    const State& s = st();
    size_t r = 0;
    for (uint64_t id : s.sassConfig) {
        for (uint32_t i = 0; i < 4 && r < p->numOfPatchedInstructionRecords; ++i, ++r) {
            CUpti_SassMetrics_Data& d = p->pMetricsData[r];
            d.cubinCrc = kFakeCrc;
            d.functionIndex = 0;
            d.functionName = s.sassFunction.c_str();
            d.pcOffset = 16 * i;
            d.pInstanceValues[0].metricId = id;
            d.pInstanceValues[0].value = 1000 * s.sassLaunches * (i + 1);
        }
    }
    return 0;
}

int cuptiPCSamplingEnable(CUpti_PCSamplingContextParams*) {
    if (int f = failCode("pcsampling")) {
        return f;
    }
    st().pcEnabled = true;
    st().pcLaunches = 0;
    return 0;
}
int cuptiPCSamplingDisable(CUpti_PCSamplingContextParams*) {
    st().pcEnabled = false;
    return 0;
}
int cuptiPCSamplingStart(CUpti_PCSamplingContextParams*) {
    st().pcRunning = true;
    return 0;
}
int cuptiPCSamplingStop(CUpti_PCSamplingContextParams*) {
    st().pcRunning = false;
    return 0;
}
int cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams* p) {
    *p->numStallReasons = 3;
    return 0;
}
int cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams* p) {
    const char* names[] = {"smsp__pcsamp_warps_issue_stalled_long_scoreboard",
                           "smsp__pcsamp_warps_issue_stalled_selected",
                           "smsp__pcsamp_warps_issue_stalled_math_pipe_throttle"};
    for (size_t i = 0; i < 3 && i < p->numStallReasons; ++i) {
        p->stallReasonIndex[i] = static_cast<uint32_t>(5 + 2 * i);
        std::strncpy(p->stallReasons[i], names[i], kStallReasonStringSize - 1);
    }
    return 0;
}
int cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams* p) {
    for (size_t i = 0; i < p->numAttributes; ++i) {
        auto& a = p->pPCSamplingConfigurationInfo[i];
        if (a.attributeType == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER) {
            st().pcBuffer = static_cast<CUpti_PCSamplingData*>(a.attributeData.buffer);
        } else if (a.attributeType == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL) {
            st().pcStartStop = a.attributeData.u32 != 0;
        } else if (a.attributeType == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD) {
            st().pcPeriodLog2 = a.attributeData.u32;
        }
        a.attributeStatus = 0;
    }
    return 0;
}
int cuptiPCSamplingGetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams* p) {
    p->pPCSamplingConfigurationInfo[0].attributeData.u32 = st().pcPeriodLog2;
    return 0;
}
int cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams* p) {
    State& s = st();
    auto* buf = static_cast<CUpti_PCSamplingData*>(p->pcSamplingData);
    buf->totalNumPcs = 0;
    buf->remainingNumPcs = 0;
    buf->totalSamples = 0;
    buf->droppedSamples = 0;
    if (s.pcLaunches == 0) {
        return 0;
    }
    // FAKE_PCSAMPLING_OOM_BELOW=N: a launch overflows the hardware buffer at periods below 2^N, as a
    // 17 ms GEMM does on an H200 at CUPTI's default 2^11.
    if (const char* oom = std::getenv("FAKE_PCSAMPLING_OOM_BELOW");
        oom && s.pcPeriodLog2 < uint32_t(std::atoi(oom))) {
        return 8; // CUPTI_ERROR_OUT_OF_MEMORY
    }
    // Three instructions, each with samples of two reasons, per launch since the last read.
    for (uint32_t i = 0; i < 3 && i < buf->collectNumPcs; ++i) {
        CUpti_PCSamplingPCData& pc = buf->pPcData[i];
        pc.cubinCrc = kFakeCrc;
        pc.pcOffset = 16 * i;
        pc.functionName = const_cast<char*>(s.pcFunction.c_str());
        pc.stallReasonCount = 2;
        pc.stallReason[0] = {5, static_cast<uint32_t>(100 * (i + 1) * s.pcLaunches)};
        pc.stallReason[1] = {7, static_cast<uint32_t>(10 * s.pcLaunches)};
        buf->totalSamples += 100 * (i + 1) * s.pcLaunches + 10 * s.pcLaunches;
        ++buf->totalNumPcs;
    }
    s.pcLaunches = 0;
    return 0;
}
int cuptiGetCubinCrc(CUpti_GetCubinCrcParams* p) {
    p->cubinCrc = kFakeCrc;
    return 0;
}

} // extern "C"
