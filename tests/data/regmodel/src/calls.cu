// Register-model corpus (tests/core/test_register_oracle.cpp): subroutine calls inside a kernel.
// IEEE division and square root have slow paths that ptxas places after EXIT and reaches with
// CALL.REL.NOINC; a __noinline__ device function is a second subroutine with arguments and a
// result. Built for sm_80, sm_90a, sm_100a and sm_120a.

__device__ __noinline__ float blend(float a, float b, float t) {
    return a + (b - a) * t;
}

__global__ void div_sqrt_calls(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                               int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float a = x[i], b = y[i];
    const float q = a / b;
    const float r = sqrtf(fabsf(a) + 1.f);
    const float s = blend(q, r, b);
    out[i] = s / (r + 2.f);
}

__global__ void double_calls(const double* __restrict__ x, double* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = sqrt(x[i]) / (x[i] + 3.0);
}
