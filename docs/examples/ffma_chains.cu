// FFMA latency vs throughput as a parameter series (issue 15, experiment 2):
//   lowerscope-cli experiment docs/examples/ffma_chains.cu --vary "-D CHAINS=1,2,4,8,16" -o OUT
// Every thread executes 16 FFMAs per iteration whatever CHAINS is, spread over CHAINS independent
// dependency chains: with one chain each FFMA waits for the previous one (latency), with enough
// chains the scheduler issues back to back (throughput).
#ifndef CHAINS
#define CHAINS 4
#endif
static_assert(CHAINS >= 1 && CHAINS <= 16 && 16 % CHAINS == 0, "CHAINS must divide 16");

__global__ void ffma_chains(float* out, int iters, float a, float b)
{
    float x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
        x[c] = threadIdx.x * 1e-3f + c;
    }
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16 / CHAINS; ++k) {
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) {
                x[c] = fmaf(x[c], a, b);
            }
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
        s += x[c];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
