// l2_state_probe: why does a *writing* kernel (saxpy) read 6-8 % longer in the runner's cold mode
// than under Nsight Compute, when compute kernels agree within 1-2 %? (issue 19)
//
// The same saxpy launch is timed after different things happened to the GPU just before it, so the
// only difference between variants is the state the launch finds (L2 contents, idle time):
//   none        nothing: the previous sample's lines of x and y are still in L2 (y's dirty)
//   read        the runner's flush: a read pass (ld.global.cg) over 2x L2 of a zeroed buffer
//   write       a memset of 2x L2 (L2 then holds dirty lines of the flush buffer)
//   write_read  memset, then the read pass (dirty lines written back before the launch)
//   read_idle   the read pass, then the host sleeps 2 ms (the GPU idles as under ncu's replay)
//   idle        no flush, 2 ms idle
// Each sample: [prep] -> event -> saxpy -> event, then a synchronize. Events include the event
// pair's own ~1.4 us, equally for every variant. Variants are interleaved round-robin so drift
// hits all alike. Prints the median per variant and, under ncu, the launch order lets the CSV be
// split by variant (every variant's saxpy launches come in the order printed at start-up).
//
//   nvcc -O3 -arch=sm_90 -o l2_state_probe bench/l2_state_probe.cu
//   ./l2_state_probe [log2_n=24] [rounds=200]
//   ncu --cache-control none --clock-control none -k saxpy --metrics gpu__time_duration.sum --csv \
//       ./l2_state_probe 24 20
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <string>
#include <unistd.h>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                          \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

// The runner's flush (app/runner/device_context.cpp, ls_flush): read every 16 bytes once,
// bypassing L1, store nothing unless the impossible happens.
__global__ void readFlush(const int4* __restrict__ p, size_t n16, int4* sink) {
    int4 acc = make_int4(0, 0, 0, 0);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        int4 v = __ldcg(p + i);
        acc.x ^= v.x;
        acc.y ^= v.y;
        acc.z ^= v.z;
        acc.w ^= v.w;
    }
    if (acc.x == 0x12345678 && acc.y == 0x9abcdef0) {
        sink[0] = acc;
    }
}

__global__ void fill(float* p, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i] = v + (i & 7);
    }
}

int main(int argc, char** argv) {
    const int lg = argc > 1 ? std::atoi(argv[1]) : 24;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
    const int n = 1 << lg;
    int dev = 0, l2 = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const size_t flushBytes = std::max<size_t>(size_t(l2) * 2, 8u << 20) / 4096 * 4096;
    float *x, *y;
    int4* fl;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMalloc(&fl, flushBytes));
    CK(cudaMemset(fl, 0, flushBytes));
    fill<<<(n + 255) / 256, 256>>>(x, n, 1.0f);
    fill<<<(n + 255) / 256, 256>>>(y, n, 2.0f);
    CK(cudaDeviceSynchronize());

    const std::vector<std::string> names = {"none", "read", "write", "write_read", "read_idle", "idle"};
    std::vector<std::vector<float>> ms(names.size());
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    auto readPass = [&] {
        readFlush<<<sms * 4, 512>>>(fl, flushBytes / 16, fl);
    };
    std::printf("# n=2^%d (%.1f MiB per array), L2 %d KiB, flush %zu MiB, %d rounds; launch order per "
                "round:",
                lg, n * 4.0 / (1 << 20), l2 / 1024, flushBytes >> 20, rounds);
    for (const auto& s : names) {
        std::printf(" %s", s.c_str());
    }
    std::printf("\n");
    for (int r = 0; r < rounds + 2; ++r) { // two warm-up rounds, dropped
        for (size_t v = 0; v < names.size(); ++v) {
            const std::string& s = names[v];
            if (s == "read" || s == "read_idle") {
                readPass();
            } else if (s == "write" || s == "write_read") {
                CK(cudaMemsetAsync(fl, 0, flushBytes));
                if (s == "write_read") {
                    readPass();
                }
            }
            CK(cudaDeviceSynchronize());
            if (s == "read_idle" || s == "idle") {
                usleep(2000);
            }
            CK(cudaEventRecord(a));
            saxpy<<<(n + 255) / 256, 256>>>(n, 1.0001f, x, y);
            CK(cudaEventRecord(b));
            CK(cudaEventSynchronize(b));
            float t = 0;
            CK(cudaEventElapsedTime(&t, a, b));
            if (r >= 2) {
                ms[v].push_back(t);
            }
        }
    }
    CK(cudaGetLastError());
    for (size_t v = 0; v < names.size(); ++v) {
        auto& s = ms[v];
        std::sort(s.begin(), s.end());
        const double med = s[s.size() / 2] * 1e3;
        std::printf("%-11s median %8.2f us  p10 %8.2f  p90 %8.2f  (events, %zu samples)\n", names[v].c_str(),
                    med, s[s.size() / 10] * 1e3, s[s.size() * 9 / 10] * 1e3, s.size());
    }
    return 0;
}
