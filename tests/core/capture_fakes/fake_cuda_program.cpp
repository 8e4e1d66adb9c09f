// A stand-in for a user's CUDA program and for the CUDA driver, for CPU-only tests of
// `lowerscope-cli capture`: it does what libcuda does at cuInit when CUDA_INJECTION64_PATH is set
// (dlopen that library, call its InitializeInjection), then, as the driver and CUPTI would, creates
// a context, loads a module (the cubin file given) and runs kernels (activity records through the
// fake CUPTI, fake_cupti.cpp, which the injection loaded through LOWERSCOPE_LIBCUPTI). The
// device's name and compute capability come from the cuDevice* functions exported here.
//   fake_cuda_program CUBIN [--exit N] [--crash] [--hang]   (FAKE_EXTRA_LAUNCHES=N: N more records)
// Launches, in launch order (correlation ids), delivered out of order:
//   corr 10 add_kernel 30 us (grid 4, block 128, cluster 2, dynamic smem 1024, stream 7)
//   corr 11 _Z6helperv  5 us      corr 12 add_kernel 10 us      corr 13 _Z6helperv 7 us
//   corr 14 add_kernel 20 us
// --crash ends with _exit(3) before anything is flushed; --hang sleeps for a minute (a
// child does too; its pid goes to $FAKE_CHILD_PID_FILE) before launching anything.
// The same five launches are made as launch calls first, in call order, through the driver-API
// callbacks (delivered only when the injection enabled them, i.e. when it saves launches):
//   corr 10 add_kernel  cuLaunchKernel              kernelParams (x, y, table, n = 64)
//   corr 11 _Z6helperv  cuLaunchKernel_ptsz         no parameters
//   corr 12 add_kernel  cuLaunchKernel              kernelParams (x, y, table, n = 64)
//   corr 13 _Z6helperv  cuLaunchCooperativeKernel   no parameters
//   corr 14 add_kernel  cuLaunchKernelEx            `extra` buffer, cluster 2x1x1, no symbol name
// "Device memory" is four arrays of this program that the cu* functions exported below treat as
// device allocations (cuMemGetAddressRange_v2, cuMemcpyDtoH_v2): x (1024 floats i), y (64 floats,
// 0), table (64 bytes: pointers to d, x and `pinned`) and d (128 bytes, d[0] counts add_kernel
// runs); `pinned` (64 bytes) is host memory mapped for the device (cuPointerGetAttribute says
// HOST); FAKE_DEVICE_AT=HEX places x, y, table and d at that address. add_kernel, between the
// call's entry and exit callbacks, does y[i] += x[i] + 1 for i < n and d[0] += 1 (through
// table[0]). It prints "address randomisation off" when started without it.
#include "app/inject/inject_cupti.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <sys/mman.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/personality.h>
#include <unistd.h>
#include <vector>

using lowerscope::inject::CUpti_ActivityKernel10;
namespace inj = lowerscope::inject;

namespace {

// The "device memory": static arrays, or (FAKE_DEVICE_AT=ADDRESS, hex) the same layout in pages
// mapped at that address, where a replaying runner can map it back (the static arrays lie where
// the runner's own binary is).
struct DeviceMemory {
    alignas(256) float x[1024];
    alignas(256) float y[64];
    alignas(256) uint64_t table[8];
    alignas(256) uint32_t d[32];
};
DeviceMemory staticMemory;
DeviceMemory* memory = &staticMemory;
alignas(256) uint8_t pinned[64];

struct FakeAlloc {
    void* base;
    size_t bytes;
};
FakeAlloc kAllocs[5];

void placeMemory() {
    if (const char* at = std::getenv("FAKE_DEVICE_AT")) {
        void* want = reinterpret_cast<void*>(std::strtoull(at, nullptr, 16));
        void* got = mmap(want, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (got == want) memory = new (got) DeviceMemory{};
    }
    kAllocs[0] = {memory->x, sizeof memory->x};
    kAllocs[1] = {memory->y, sizeof memory->y};
    kAllocs[2] = {memory->table, sizeof memory->table};
    kAllocs[3] = {memory->d, sizeof memory->d};
    kAllocs[4] = {pinned, sizeof pinned};
}

const FakeAlloc* allocOf(unsigned long long p) {
    for (const FakeAlloc& a : kAllocs) {
        const auto base = reinterpret_cast<unsigned long long>(a.base);
        if (p >= base && p - base < a.bytes) return &a;
    }
    return nullptr;
}

// A CUfunction: its name and parameter layout (cuFuncGetName, cuFuncGetParamInfo).
struct FakeFunction {
    const char* name;
    std::vector<std::pair<size_t, size_t>> params;
};
FakeFunction addKernel{"add_kernel", {{0, 8}, {8, 8}, {16, 8}, {24, 4}}};
FakeFunction helper{"_Z6helperv", {}};
int syncs = 0;

} // namespace

extern "C" {
int cuDeviceGet(int* dev, int ordinal) {
    *dev = ordinal;
    return 0;
}
int cuDeviceGetName(char* name, int len, int) {
    std::snprintf(name, static_cast<size_t>(len), "Fake GPU 9000");
    return 0;
}
int cuDeviceGetAttribute(int* v, int attr, int) {
    *v = attr == 75 ? 9 : 0;
    return 0;
}
int cuCtxSynchronize() {
    ++syncs;
    return 0;
}
int cuFuncGetName(const char** name, void* f) {
    *name = static_cast<FakeFunction*>(f)->name;
    return 0;
}
int cuFuncGetParamInfo(void* f, size_t index, size_t* offset, size_t* size) {
    const auto& params = static_cast<FakeFunction*>(f)->params;
    if (index >= params.size()) return 1; // CUDA_ERROR_INVALID_VALUE
    *offset = params[index].first;
    *size = params[index].second;
    return 0;
}
int cuMemGetAddressRange_v2(unsigned long long* base, size_t* size, unsigned long long p) {
    const FakeAlloc* a = allocOf(p);
    if (!a) return 1;
    *base = reinterpret_cast<unsigned long long>(a->base);
    *size = a->bytes;
    return 0;
}
int cuMemcpyDtoH_v2(void* dst, unsigned long long src, size_t n) {
    const FakeAlloc* a = allocOf(src);
    if (!a || src + n > reinterpret_cast<unsigned long long>(a->base) + a->bytes) return 1;
    std::memcpy(dst, reinterpret_cast<const void*>(src), n);
    return 0;
}
int cuPointerGetAttribute(void* data, int attribute, unsigned long long p) {
    const FakeAlloc* a = allocOf(p);
    if (!a || attribute != 2) return 1;
    *static_cast<unsigned*>(data) = a->base == pinned ? 1u : 2u; // CU_MEMORYTYPE_HOST : _DEVICE
    return 0;
}
}

namespace {

template <typename F> F need(void* lib, const char* name) {
    void* p = lib ? dlsym(lib, name) : nullptr;
    if (!p) {
        std::fprintf(stderr, "fake_cuda_program: %s missing\n", name);
        std::exit(90);
    }
    return reinterpret_cast<F>(p);
}

CUpti_ActivityKernel10 record(uint32_t corr, const char* name, uint64_t start, uint64_t durationNs) {
    CUpti_ActivityKernel10 k{};
    k.kind = lowerscope::runner::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.correlationId = corr;
    k.name = name;
    k.start = start;
    k.end = start + durationNs;
    k.gridX = 4;
    k.gridY = k.gridZ = 1;
    k.blockX = 128;
    k.blockY = k.blockZ = 1;
    k.streamId = 7;
    k.registersPerThread = 16;
    return k;
}

} // namespace

int main(int argc, char** argv) {
    placeMemory();
    if (argc < 2) {
        std::fprintf(stderr, "usage: fake_cuda_program CUBIN [--exit N] [--crash] [--hang]\n");
        return 2;
    }
    int exitCode = 0;
    bool crash = false, hang = false;
    for (int i = 2; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--exit") && i + 1 < argc) exitCode = std::atoi(argv[++i]);
        if (!std::strcmp(argv[i], "--crash")) crash = true;
        if (!std::strcmp(argv[i], "--hang")) hang = true;
    }
    std::ifstream in(argv[1], std::ios::binary);
    const std::string cubin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("fake program: %zu bytes of cubin\n", cubin.size());
    if (personality(0xffffffff) & ADDR_NO_RANDOMIZE) std::printf("fake program: address randomisation off\n");
    std::fflush(stdout);

    // cuInit: the driver's injection.
    if (const char* inject = std::getenv("CUDA_INJECTION64_PATH")) {
        void* lib = dlopen(inject, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            std::fprintf(stderr, "fake_cuda_program: %s\n", dlerror());
            return 91;
        }
        need<int (*)()>(lib, "InitializeInjection")();
    }
    const char* cuptiPath = std::getenv("LOWERSCOPE_LIBCUPTI");
    void* cupti = cuptiPath ? dlopen(cuptiPath, RTLD_NOW | RTLD_LOCAL) : nullptr;
    auto contextCreated = need<void (*)()>(cupti, "fake_cupti_context_created");
    auto moduleLoaded = need<void (*)(uint32_t, const char*, size_t)>(cupti, "fake_cupti_module_loaded");
    auto kernel = need<void (*)(const CUpti_ActivityKernel10*)>(cupti, "fake_cupti_kernel");
    auto driverApi = need<int (*)(uint32_t, int, const void*, const char*, uint32_t, int*)>(cupti, "fake_cupti_driver_api");

    if (hang) {
        if (const pid_t child = fork(); child == 0) {
            sleep(60); // a worker of the program: in its process group
            _exit(0);
        } else if (const char* f = std::getenv("FAKE_CHILD_PID_FILE")) {
            if (FILE* out = std::fopen(f, "w")) {
                std::fprintf(out, "%d\n", static_cast<int>(child));
                std::fclose(out);
            }
        }
        sleep(60);
    }
    contextCreated();
    moduleLoaded(1, cubin.data(), cubin.size());
    moduleLoaded(2, cubin.data(), cubin.size()); // the same cubin loaded again: one file
    // The launch calls, in call order.
    float* x = memory->x;
    float* y = memory->y;
    uint64_t* table = memory->table;
    uint32_t* d = memory->d;
    for (int i = 0; i < 1024; ++i) x[i] = static_cast<float>(i);
    table[0] = reinterpret_cast<uint64_t>(d);
    table[1] = reinterpret_cast<uint64_t>(x);
    table[2] = reinterpret_cast<uint64_t>(pinned);
    float* xp = x;
    float* yp = y;
    uint64_t* tp = table;
    int n = 64;
    void* kernelParams[] = {&xp, &yp, &tp, &n};
    auto addKernelRuns = [&] {
        for (int i = 0; i < n; ++i) y[i] += x[i] + 1;
        reinterpret_cast<uint32_t*>(table[0])[0] += 1; // d, through the pointer stored in the table
    };
    auto call = [&](uint32_t cbid, const void* params, const char* symbol, uint32_t corr, bool isAdd) {
        int result = 0;
        driverApi(cbid, inj::CUPTI_API_ENTER, params, symbol, corr, &result);
        if (isAdd) addKernelRuns();
        driverApi(cbid, inj::CUPTI_API_EXIT, params, symbol, corr, &result);
    };
    inj::cuLaunchKernel_params add{&addKernel, 4, 1, 1, 128, 1, 1, 1024, nullptr, kernelParams, nullptr};
    inj::cuLaunchKernel_params help{&helper, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr};
    inj::cuLaunchCooperativeKernel_params helpCoop{&helper, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr};
    call(inj::CBID_cuLaunchKernel, &add, "add_kernel", 10, true);
    call(inj::CBID_cuLaunchKernel_ptsz, &help, "_Z6helperv", 11, false);
    call(inj::CBID_cuLaunchKernel, &add, "add_kernel", 12, true);
    call(inj::CBID_cuLaunchCooperativeKernel, &helpCoop, "_Z6helperv", 13, false);
    {
        alignas(8) uint8_t buffer[32] = {};
        std::memcpy(buffer, &xp, 8);
        std::memcpy(buffer + 8, &yp, 8);
        std::memcpy(buffer + 16, &tp, 8);
        std::memcpy(buffer + 24, &n, 4);
        size_t bufferSize = 28;
        void* extra[] = {inj::kLaunchParamBufferPointer, buffer, inj::kLaunchParamBufferSize, &bufferSize,
                         inj::kLaunchParamEnd};
        inj::CUlaunchAttribute cluster{};
        cluster.id = inj::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        cluster.value.clusterDim = {2, 1, 1};
        inj::CUlaunchConfig config{4, 1, 1, 128, 1, 1, 1024, nullptr, &cluster, 1};
        inj::cuLaunchKernelEx_params ex{&config, &addKernel, nullptr, extra};
        call(inj::CBID_cuLaunchKernelEx, &ex, nullptr, 14, true);
    }
    std::printf("fake program: %d synchronisations\n", syncs);
    std::fflush(stdout);

    const uint64_t t0 = 1'000'000'000;
    CUpti_ActivityKernel10 first = record(10, "add_kernel", t0, 30'000);
    first.clusterX = 2;
    first.clusterY = first.clusterZ = 1;
    first.dynamicSharedMemory = 1024;
    auto push = [&](CUpti_ActivityKernel10 k) { kernel(&k); };
    push(record(14, "add_kernel", t0 + 200'000, 20'000));
    push(first);
    push(record(12, "add_kernel", t0 + 100'000, 10'000));
    push(record(11, "_Z6helperv", t0 + 50'000, 5'000));
    push(record(13, "_Z6helperv", t0 + 150'000, 7'000));
    // FAKE_EXTRA_LAUNCHES=N: N more helper records (corr 1000 on), for timing the capture's
    // bookkeeping of many launches without a GPU (bench/capture_bookkeeping.sh).
    if (const char* extra = std::getenv("FAKE_EXTRA_LAUNCHES"))
        for (long i = 0, n = std::atol(extra); i < n; ++i)
            push(record(static_cast<uint32_t>(1000 + i), "_Z6helperv", t0 + 300'000 + uint64_t(i) * 3'000, 2'000 + uint64_t(i % 7)));
    if (crash) _exit(3);
    return exitCode;
}
