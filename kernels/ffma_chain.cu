// FFMA latency vs throughput. Both kernels execute the same number of FFMAs per thread:
//   ffma_dependent:   one chain, every FFMA waits for the previous result (latency bound,
//                     about 4 cycles per FFMA on Hopper);
//   ffma_independent: eight interleaved chains, so the scheduler can issue back to back
//                     (throughput bound with enough warps).
// Launch one warp per block to see latency, many warps to see throughput.

__global__ void ffma_dependent(float* out, int iters, float a, float b)
{
    float x = threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            x = fmaf(x, a, b);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void ffma_independent(float* out, int iters, float a, float b)
{
    float x[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        x[c] = threadIdx.x * 1e-3f + c;
    }
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 2; ++k) {
#pragma unroll
            for (int c = 0; c < 8; ++c) {
                x[c] = fmaf(x[c], a, b);
            }
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        s += x[c];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
