// Test source (tests/views/test_views_real_kernels): __half arithmetic from the toolkit's
// cuda_fp16.h, so that some SASS is written in a toolkit header (cuda_fp16.hpp) and inlined here.
#include <cuda_fp16.h>

__global__ void half_axpy(int n, __half a, const __half* x, __half* y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]) + __hmul(x[i], x[i]);
}
