// A program for the GPU test gpu_replay (tests/gpu/replay_test.sh): kernels whose inputs live in
// the program's own memory and reach the kernel in the ways real programs pass them —
//   axpy_struct:         pointers inside a struct passed by value (y += a·x, y accumulates);
//   bump_through_table:  a pointer to a device struct that holds the data pointer (a pointer
//                        stored in memory: its memory must return at its original address).
// The result is checked on the host; under `lowerscope-cli capture --save-launches` a launch's
// replay must reproduce what the program's launch wrote.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

struct Axpy {
    const float* x;
    float* y;
    int n;
    float a;
};

struct Table {
    float* data;
    int n;
};

__global__ void axpy_struct(Axpy p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.y[i] = p.a * p.x[i] + p.y[i];
}

__global__ void bump_through_table(const Table* t, float v) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < t->n) t->data[i] = t->data[i] * 0.5f + v;
}

int main() {
    const int n = 1 << 20;
    float *x = nullptr, *y = nullptr;
    Table* table = nullptr;
    if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&table, sizeof(Table)) != cudaSuccess) {
        std::fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    std::vector<float> hx(n), hy(n);
    for (int i = 0; i < n; ++i) {
        hx[i] = 0.25f * static_cast<float>(i % 1000);
        hy[i] = 1.0f + static_cast<float>(i % 7);
    }
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const Table ht{y, n};
    cudaMemcpy(table, &ht, sizeof ht, cudaMemcpyHostToDevice);
    for (int k = 0; k < 3; ++k) axpy_struct<<<(n + 255) / 256, 256>>>(Axpy{x, y, n, 1.5f + k});
    for (int k = 0; k < 2; ++k) bump_through_table<<<(n + 127) / 128, 128>>>(table, 2.0f);
    std::vector<float> out(n);
    cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    const cudaError_t e = cudaGetLastError();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float v = hy[i];
        for (int k = 0; k < 3; ++k) v = (1.5f + k) * hx[i] + v;
        for (int k = 0; k < 2; ++k) v = v * 0.5f + 2.0f;
        const float d = v > out[i] ? v - out[i] : out[i] - v;
        if (d > 1e-5f * (v > 0 ? v : -v) + 1e-5f) ++bad; // the device fuses a·x + y (FMA)
    }
    cudaFree(x);
    cudaFree(y);
    cudaFree(table);
    std::printf("replay_program: %d of %d elements differ, %s\n", bad, n, cudaGetErrorString(e));
    return e == cudaSuccess && bad == 0 ? 0 : 1;
}
