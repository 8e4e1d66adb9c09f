// saxpy: y = a*x + y. The "hello world" of memory-bound kernels: 12 bytes moved per 2 FLOPs.
#include <cstdint>

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
