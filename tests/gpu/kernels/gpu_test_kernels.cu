// Kernels for the GPU tests (tests/gpu): faults of each kind, a kernel that never ends, and one
// that writes only half of its output. Each takes (float* out, int n).
#include <cassert>
#include <cstddef>

// Writes 2^40 bytes past the buffer: CUDA_ERROR_ILLEGAL_ADDRESS.
__global__ void oob_write(float* out, int n)
{
    float* far = out + (static_cast<size_t>(1) << 38);
    far[threadIdx.x] = static_cast<float>(n);
}

// A 4-byte store to an odd address: CUDA_ERROR_MISALIGNED_ADDRESS.
__global__ void misaligned_write(float* out, int n)
{
    float* odd = reinterpret_cast<float*>(reinterpret_cast<char*>(out) + 1);
    odd[threadIdx.x] = static_cast<float>(n);
}

// __trap(): the launch fails (CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure").
__global__ void trap_kernel(float* out, int n)
{
    if (threadIdx.x == 0) {
        __trap();
    }
    out[threadIdx.x] = static_cast<float>(n);
}

// A failing device assert: CUDA_ERROR_ASSERT.
__global__ void assert_kernel(float* out, int n)
{
    assert(n < 0);
    out[threadIdx.x] = static_cast<float>(n);
}

// Spins until out[0] holds a value nobody writes: runs until killed.
__global__ void endless_loop(float* out, int n)
{
    volatile float* v = out;
    while (v[0] != -12345.0f) {
    }
    out[threadIdx.x] = static_cast<float>(n);
}

// Writes only the first half of out: the runner must report it as not fully written.
__global__ void half_write(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        out[i] = 1.0f;
    }
}
