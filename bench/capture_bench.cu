// The program bench/capture_bench.sh runs (issue 29's measurements), plain and under capture:
//   capture_bench short N    N launches of a ~2 µs kernel, one stream, synchronised at the end
//                            (the capture overhead: wall time with and without the injection)
//   capture_bench long N     N launches of a ~35 µs memory-bound kernel back to back (the program's
//                            own conditions: each launch starts while the last one's writes drain)
//   capture_bench isolated N the same N launches, each after an L2 flush (a 2 × L2 read) and a
//                            synchronisation: the conditions ncu measures in (caches flushed, GPU
//                            idle), for the durations against ncu's gpu__time_duration and the
//                            replayed launch (cold mode) against the program's own
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void tiny(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

__global__ void flush_l2(const float* __restrict__ buf, size_t n, float* sink) {
    float acc = 0;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) acc += buf[i];
    if (acc == 12345.678f) *sink = acc; // never true: keeps the loads
}

__global__ void stream_scale(const float* __restrict__ in, float* __restrict__ out, int n, float a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = a * in[i];
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: capture_bench short|long|isolated N\n");
        return 2;
    }
    const bool isolated = std::strcmp(argv[1], "isolated") == 0;
    const bool isLong = isolated || std::strcmp(argv[1], "long") == 0;
    const int launches = std::atoi(argv[2]);
    const int n = isLong ? (1 << 23) : 1024;
    float *a = nullptr, *b = nullptr;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMemset(a, 0, n * sizeof(float));
    float* flush = nullptr;
    size_t flushN = 0;
    if (isolated) {
        int l2 = 0;
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
        flushN = 2 * size_t(l2) / sizeof(float);
        cudaMalloc(&flush, flushN * sizeof(float) + sizeof(float));
        cudaMemset(flush, 0, flushN * sizeof(float) + sizeof(float));
    }
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < launches; ++k) {
        if (isolated) {
            flush_l2<<<528, 256>>>(flush, flushN, flush + flushN);
            cudaDeviceSynchronize();
        }
        if (isLong)
            stream_scale<<<528, 256>>>(a, b, n, 1.0f + k);
        else
            tiny<<<4, 256>>>(a, n);
    }
    cudaDeviceSynchronize();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const cudaError_t e = cudaGetLastError();
    std::printf("capture_bench %s %d: %.3f ms launch loop, %s\n", argv[1], launches, ms, cudaGetErrorString(e));
    cudaFree(flush);
    cudaFree(a);
    cudaFree(b);
    return e == cudaSuccess ? 0 : 1;
}
