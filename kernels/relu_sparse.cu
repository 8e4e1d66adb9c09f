// "Skip the zeros": y = W · relu(x), W is rows×cols row-major, one thread per row.
//   relu_matvec_dense:      multiplies every element, zeros included (straight-line, coalesced
//                           across the warp's rows only through the cache);
//   relu_matvec_skip_zeros: branches around columns where relu(x) == 0. Fewer FFMAs, but a
//                           data-dependent branch in the inner loop and the same loads of x.
// Whether skipping pays off depends on the sparsity and on divergence: measure, don't assume.

__device__ __forceinline__ float relu(float v) { return v > 0.0f ? v : 0.0f; }

__global__ void relu_matvec_dense(int rows, int cols, const float* __restrict__ W,
                                  const float* __restrict__ x, float* __restrict__ y)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) {
        acc = fmaf(W[c * rows + r], relu(x[c]), acc);
    }
    y[r] = acc;
}

__global__ void relu_matvec_skip_zeros(int rows, int cols, const float* __restrict__ W,
                                       const float* __restrict__ x, float* __restrict__ y)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) {
        const float v = relu(x[c]);
        if (v == 0.0f) {
            continue;
        }
        acc = fmaf(W[c * rows + r], v, acc);
    }
    y[r] = acc;
}
