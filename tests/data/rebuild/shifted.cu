__device__ __forceinline__ float helper(float x) { return x * x + 1.0f; }

__global__ void shifted(const float* in, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef EXTRA
    if (i == 0) out[n] = in[n] * 3.0f + in[n + 1] / in[n + 2];
#endif
    if (i < n) {
        float v = in[i];
        v = helper(v) * in[i + n];
        out[i] = v + 2.0f;
    }
}
