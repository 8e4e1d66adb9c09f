// A program with its own host setup for the GPU test gpu_capture (tests/gpu/capture_test.sh):
// runtime API, two kernels, several launches, a result checked on the host. Under
// `lowerscope-cli capture` the kernel table must show scale ×5 and add_one ×3.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

__global__ void scale(float* x, float a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void add_one(float* x, int n) {
    extern __shared__ float staged[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x % 16] = 1.0f;
    __syncthreads();
    if (i < n) x[i] += staged[threadIdx.x % 16];
}

int main() {
    const int n = 1 << 20;
    float* d = nullptr;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) {
        std::fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    std::vector<float> host(n, 2.0f);
    cudaMemcpy(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    for (int i = 0; i < 5; ++i) scale<<<(n + 255) / 256, 256>>>(d, 1.5f, n);
    for (int i = 0; i < 3; ++i) add_one<<<(n + 127) / 128, 128, 16 * sizeof(float)>>>(d, n);
    cudaMemcpy(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    const cudaError_t e = cudaGetLastError();
    cudaFree(d);
    const float expect = 2.0f * 1.5f * 1.5f * 1.5f * 1.5f * 1.5f + 3.0f;
    std::printf("capture_program: x[7] = %g (expected %g), %s\n", host[7], expect, cudaGetErrorString(e));
    return e == cudaSuccess && host[7] == expect && host[n - 1] == expect ? 0 : 1;
}
