// The program bench/capture_bench.sh runs (issue 29's measurements), plain and under capture:
//   capture_bench short N    N launches of a ~2 µs kernel, one stream, synchronised at the end
//                            (the capture overhead: wall time with and without the injection)
//   capture_bench long N     N launches of a ~50 µs memory-bound kernel (durations against ncu's
//                            gpu__time_duration, and a replayed launch against the program's own)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void tiny(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

__global__ void stream_scale(const float* __restrict__ in, float* __restrict__ out, int n, float a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = a * in[i];
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: capture_bench short|long N\n");
        return 2;
    }
    const bool isLong = std::strcmp(argv[1], "long") == 0;
    const int launches = std::atoi(argv[2]);
    const int n = isLong ? (1 << 23) : 1024;
    float *a = nullptr, *b = nullptr;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMemset(a, 0, n * sizeof(float));
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < launches; ++k) {
        if (isLong)
            stream_scale<<<528, 256>>>(a, b, n, 1.0f + k);
        else
            tiny<<<4, 256>>>(a, n);
    }
    cudaDeviceSynchronize();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const cudaError_t e = cudaGetLastError();
    std::printf("capture_bench %s %d: %.3f ms launch loop, %s\n", argv[1], launches, ms, cudaGetErrorString(e));
    cudaFree(a);
    cudaFree(b);
    return e == cudaSuccess ? 0 : 1;
}
