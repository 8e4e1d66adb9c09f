// Test source (scripts/gen-golden): device helpers of the header-resident kernel family, inlined
// two levels deep so that inline chains have a middle frame in this header.
#pragma once

// Innermost helper: one multiply-add, scaled.
__device__ __forceinline__ float scaled_fma(float a, float b, float c, float scale) {
    return fmaf(a * scale, b, c);
}

// Middle helper: a dot product of one row of A with one column of B over a tile.
template <int TILE>
__device__ __forceinline__ float tile_dot(const float (*a)[TILE + 1], const float (*b)[TILE + 1], int row, int col,
                                          float acc, float scale) {
#pragma unroll
    for (int k = 0; k < TILE; ++k)
        acc = scaled_fma(a[row][k], b[k][col], acc, scale);
    return acc;
}
