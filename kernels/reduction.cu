// Sum reduction: grid-stride accumulation, warp shuffles, then shared memory across warps,
// one atomicAdd per block. warpReduceSum is inlined into the kernel (see the inline chains).

__device__ __forceinline__ float warpReduceSum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

__device__ __forceinline__ float blockReduceSum(float v)
{
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    v = warpReduceSum(v);
    if (lane == 0) {
        partial[warp] = v;
    }
    __syncthreads();
    const int warps = (blockDim.x + 31) >> 5;
    v = (threadIdx.x < warps) ? partial[lane] : 0.0f;
    if (warp == 0) {
        v = warpReduceSum(v);
    }
    return v;
}

__global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        sum += in[i];
    }
    sum = blockReduceSum(sum);
    if (threadIdx.x == 0) {
        atomicAdd(out, sum);
    }
}
