// A stand-in for a user's CUDA program and for the CUDA driver, for CPU-only tests of
// `lowerscope-cli capture`: it does what libcuda does at cuInit when CUDA_INJECTION64_PATH is set
// (dlopen that library, call its InitializeInjection), then, as the driver and CUPTI would, creates
// a context, loads a module (the cubin file given) and runs kernels (activity records through the
// fake CUPTI, fake_cupti.cpp, which the injection loaded through LOWERSCOPE_LIBCUPTI). The
// device's name and compute capability come from the cuDevice* functions exported here.
//   fake_cuda_program CUBIN [--exit N] [--crash] [--hang]
// Launches, in launch order (correlation ids), delivered out of order:
//   corr 10 add_kernel 30 us (grid 4, block 128, cluster 2, dynamic smem 1024, stream 7)
//   corr 11 _Z6helperv  5 us      corr 12 add_kernel 10 us      corr 13 _Z6helperv 7 us
//   corr 14 add_kernel 20 us
// --crash ends with _exit(3) before anything is flushed; --hang sleeps for a minute (a
// child does too; its pid goes to $FAKE_CHILD_PID_FILE) before launching anything.
#include "app/inject/inject_cupti.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

using lowerscope::inject::CUpti_ActivityKernel10;

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
    if (crash) _exit(3);
    return exitCode;
}
