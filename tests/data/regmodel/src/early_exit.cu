// Register-model corpus (tests/core/test_register_oracle.cpp): predicated early exits and values
// defined and used under the same guard: a bounds check that leaves at once, a uniform flag that
// selects an optional scale (loaded and used only when set), and a loop left early on a sentinel.
// Built for sm_80, sm_90a, sm_100a and sm_120a.
#include <cstdint>

__global__ void early_exit(const float* __restrict__ in, float* __restrict__ out, const float* __restrict__ scale,
                           int n, int useScale, int stride) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    if (v < 0.f) return; // a second, data-dependent exit
    if (useScale) v *= scale[blockIdx.x];
    float sum = 0.f;
    for (int j = i; j < n; j += stride) {
        const float x = in[j];
        if (x == -1.f) break;
        sum += x * v;
    }
    if (useScale) sum += scale[0];
    out[i] = sum;
}

// Uniform conditions only: the predicates end up in UP registers.
__global__ void early_exit_uniform(const int* __restrict__ table, int* __restrict__ out, int n, int mode, int bias) {
    if (mode == 0) return;
    int acc = 0;
    if (mode > 1) acc = table[mode] + bias;
    for (int k = 0; k < n; ++k) {
        if (mode > 2 && k == mode) break;
        acc += table[k] * mode;
    }
    if (mode > 1) acc -= table[mode + 1];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
