// Test source (scripts/gen-golden): a templated tiled GEMM defined entirely in a header, the way
// libraries ship kernels; header_family.cu instantiates it explicitly.
#pragma once
#include "header_family_math.cuh"

template <int TILE>
__global__ void __launch_bounds__(TILE * TILE, 2)
scaled_gemm(int n, float scale, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
    __shared__ float as[TILE][TILE + 1];
    __shared__ float bs[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[threadIdx.y][threadIdx.x] = (row < n && t + threadIdx.x < n) ? a[row * n + t + threadIdx.x] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < n) ? b[(t + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        acc = tile_dot<TILE>(as, bs, threadIdx.y, threadIdx.x, acc, scale);
        __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = acc;
}
