// Experiment 3 (issue 15): skip the work of inactive elements, or compute everything?
// A thresholded activation with per-element work: y = work(v) where v = x - θ > 0, else 0.
//   act_dense: computes work(v) for every element and multiplies by the mask (no branch around
//              the work: 0 × work(v) is not 0 when work(v) is inf or NaN, so the compiler must keep it);
//   act_skip:  branches around the work where v <= 0.
// x is uniform in [-1, 1) and θ = 2·sparsity − 1, so the fraction of inactive elements is
// `sparsity`. The pattern comes from the input: random(seed=5) places inactive elements at random;
// random(seed=5, run=32) gives every aligned run of 32 elements (one warp) the same value, so a
// warp is either all inactive or all active.
// work() is a dependent chain of `iters` FFMAs: with 256 of them the dense kernel is issue-bound
// (about 4× the time of its 8 bytes per element of DRAM traffic on an H200).

__device__ __forceinline__ float work(float v, int iters)
{
    float a = v;
    for (int k = 0; k < iters; ++k) {
        a = fmaf(a, 0.999f, v);
    }
    return a;
}

__global__ void act_dense(int n, float sparsity, int iters, const float* __restrict__ x, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const float v = x[i] - (2.0f * sparsity - 1.0f);
    const float keep = v > 0.0f ? 1.0f : 0.0f;
    y[i] = work(v, iters) * keep;
}

__global__ void act_skip(int n, float sparsity, int iters, const float* __restrict__ x, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const float v = x[i] - (2.0f * sparsity - 1.0f);
    float r = 0.0f;
    if (v > 0.0f) {
        r = work(v, iters);
    }
    y[i] = r;
}
