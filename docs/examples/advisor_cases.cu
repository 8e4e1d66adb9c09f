// Test subjects of the advisor (issue 34): seven small kernels, each held back by one limiter the
// advisor's rules name, each with the define that relieves it declared as a tunable in
// advisor_cases.json (the default is what the kernel uses without -D). The calibration
// (bench/advise_calibration.sh) measures whether the predicted effect of each relief shows.
//   regs_heavy     64 live floats per thread: occupancy limited by registers. MIN_BLOCKS goes into
//                  __launch_bounds__ (role min_blocks); ptxas ignores --maxrregcount for it.
//   regs_capped    the same work without launch bounds: --maxrregcount is its relief.
//   smem_colsum    column sums staged through a TILE × 128 shared tile: with TILE = 96 (48 KiB per
//                  block) occupancy is limited by shared memory (role tile).
//   strided_sum    64 blocks of 128 threads walk a long array: 4 warps on an SM, one load in flight
//                  per warp unless the loop is unrolled (UNROLL, role unroll).
//   transpose_pad  32 × 32 shared-memory transpose: reading a column of the tile hits one bank 32
//                  times unless each row is padded (PAD, role pad).
//   narrow_blocks  blocks of 32 threads over 2^24 elements: the SM's 32 block slots hold 32 warps,
//                  half of what it can run (the relief is the block size, no define).
//   half_grid      66 blocks of 256 threads on a GPU of 132 SMs: half the SMs idle (the relief is
//                  smaller blocks, the same threads; no define).
// Each kernel's result does not depend on its define or its block size (same additions in the
// same order, a thread's work a function of its global index), so the outputs of A and B agree
// exactly.

#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif
#ifndef TILE
#define TILE 96
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef PAD
#define PAD 0
#endif
static_assert(TILE >= 1 && TILE * 128 * 4 <= 48 * 1024, "TILE x 128 floats must fit 48 KiB");
static_assert(UNROLL >= 1 && PAD >= 0, "UNROLL >= 1, PAD >= 0");

constexpr int kUnroll = UNROLL;

// 64 live floats per thread, mixed four times (regs_heavy and regs_capped).
__device__ __forceinline__ float heavySum(float t)
{
    float v[64];
#pragma unroll
    for (int k = 0; k < 64; ++k) {
        v[k] = fmaf(t, 1.0f + k * 0.015625f, k * 0.001f);
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int k = 0; k < 64; ++k) {
            v[k] = fmaf(v[k], v[(k + 17 * r + 1) & 63], -0.25f * v[k]);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 64; ++k) {
        s += v[k];
    }
    return s;
}

__global__ void __launch_bounds__(256, MIN_BLOCKS) regs_heavy(int n, const float* __restrict__ x, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    y[i] = heavySum(x[i]);
}

// The same work without launch bounds: ptxas takes its register budget from --maxrregcount here
// (the relief the advisor offers), which it ignores for regs_heavy.
__global__ void regs_capped(int n, const float* __restrict__ x, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    y[i] = heavySum(x[i]);
}

// Blocks of 128 threads; block b sums columns [128 b, 128 b + 128) of a rows × cols matrix, each
// thread the column (b·128 + (tid + r) mod 128) of row r, so every thread reads the whole tile.
__global__ void smem_colsum(int rows, int cols, const float* __restrict__ a, float* __restrict__ out)
{
    __shared__ float tile[TILE][128];
    const int base = blockIdx.x * 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < rows; r0 += TILE) {
        for (int r = 0; r < TILE; ++r) {
            const int row = r0 + r, col = base + threadIdx.x;
            tile[r][threadIdx.x] = (row < rows && col < cols) ? a[row * cols + col] : 0.0f;
        }
        __syncthreads();
        for (int r = 0; r < TILE && r0 + r < rows; ++r) {
            acc += tile[r][(threadIdx.x + r0 + r) & 127];
        }
        __syncthreads();
    }
    if (base + threadIdx.x < cols) {
        out[base + threadIdx.x] = acc;
    }
}

__global__ void strided_sum(int n, const float* __restrict__ x, float* __restrict__ out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
#pragma unroll kUnroll
    for (int i = t; i < n; i += threads) {
        acc += x[i];
    }
    out[t] = acc;
}

// Blocks of 32 × 8 threads, one 32 × 32 tile each; n a multiple of 32.
__global__ void transpose_pad(int n, const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float tile[32][32 + PAD];
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y0 = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8) {
        tile[j][threadIdx.x] = in[(y0 + j) * n + x];
    }
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x;
    const int oy0 = blockIdx.x * 32;
    for (int j = threadIdx.y; j < 32; j += 8) {
        out[(oy0 + j) * n + ox] = tile[threadIdx.x][j];
    }
}

// One element per thread, a dependent chain of 32 FMAs on it (enough work per element that the
// warps' issue, not DRAM, sets the pace at full occupancy).
__global__ void narrow_blocks(int n, const float* __restrict__ x, float* __restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    float v = x[i];
#pragma unroll
    for (int k = 0; k < 32; ++k) {
        v = fmaf(v, 0.999f, 0.001f * k);
    }
    y[i] = v;
}

// Four independent FMA chains per thread, seeded by the thread's global index: the result does
// not depend on how the threads are cut into blocks.
__global__ void half_grid(int iters, float* __restrict__ out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 1.0f + t * 1e-6f, b = a + 0.25f, c = a + 0.5f, d = a + 0.75f;
    for (int k = 0; k < iters; ++k) {
        a = fmaf(a, 0.9999f, 1e-4f);
        b = fmaf(b, 0.9999f, 1e-4f);
        c = fmaf(c, 0.9999f, 1e-4f);
        d = fmaf(d, 0.9999f, 1e-4f);
    }
    out[t] = a + b + c + d;
}
