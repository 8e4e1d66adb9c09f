// Test source: a kernel that uses all 255 registers (nvdisasm -lrm count refuses such a cubin
// with "Invalid register count : '255'"); its SASS, dependencies, CFG and pressure must still
// come out (tests/core/test_cli_build.cpp).
#define N 252
__global__ void __launch_bounds__(32, 1) all_registers(const float* __restrict__ in, float* __restrict__ out, int iters) {
    float v[N];
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = in[threadIdx.x + k * 32];
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < N; ++k) v[k] = fmaf(v[k], v[(k + 7) % N], v[(k + 13) % N]);
    }
#pragma unroll
    for (int k = 0; k < N; ++k) out[threadIdx.x + k * 32] = v[k];
}
