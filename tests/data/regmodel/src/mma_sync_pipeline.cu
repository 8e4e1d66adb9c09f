// Register-model corpus (tests/core/test_register_oracle.cpp): a tensor-core HGEMM tile in the
// Ampere style that Hopper still runs: a two-stage cp.async pipeline into shared memory,
// ldmatrix (x4 and x2.trans) fragments, mma.sync m16n8k16 with f32 accumulators, and a guarded
// epilogue with 64-bit stores. Built for sm_80 and sm_90a.
#include <cuda_fp16.h>
#include <cstdint>

namespace {

constexpr int kTile = 32, kK = 32;

__device__ __forceinline__ uint32_t smemAddr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cpAsync16(void* dst, const void* src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smemAddr(dst)), "l"(src), "r"(valid ? 16 : 0));
}

__device__ __forceinline__ void ldmatrixX4(uint32_t (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smemAddr(p)));
}

__device__ __forceinline__ void ldmatrixX2T(uint32_t (&r)[2], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(smemAddr(p)));
}

__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

} // namespace

// One warp per 32x32 tile of C; 8 halves per cp.async.
__global__ void __launch_bounds__(32)
mma_sync_pipeline(const __half* __restrict__ a, const __half* __restrict__ b, float* __restrict__ c, int m, int n, int k) {
    __shared__ alignas(128) __half sa[2][kTile * kK];
    __shared__ alignas(128) __half sb[2][kK * kTile];
    const int lane = threadIdx.x;
    const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
    float acc[2][4][4] = {};
    const int tiles = (k + kK - 1) / kK;

    auto load = [&](int stage, int t) {
        for (int i = lane; i < kTile * kK / 8; i += 32) {
            const int r = i / (kK / 8), q = (i % (kK / 8)) * 8;
            const int ga = (row0 + r) * k + t * kK + q;
            cpAsync16(&sa[stage][r * kK + q], a + ga, row0 + r < m && t * kK + q < k);
            const int gb = (t * kK + r) * n + col0 + q;
            cpAsync16(&sb[stage][r * kTile + q], b + gb, t * kK + r < k && col0 + q < n);
        }
        asm volatile("cp.async.commit_group;");
    };

    load(0, 0);
    for (int t = 0; t < tiles; ++t) {
        const int stage = t & 1;
        if (t + 1 < tiles) {
            load(stage ^ 1, t + 1);
            asm volatile("cp.async.wait_group 1;");
        } else {
            asm volatile("cp.async.wait_group 0;");
        }
        __syncwarp();
        for (int kk = 0; kk < kK; kk += 16) {
            uint32_t fa[2][4], fb[4][2];
            for (int i = 0; i < 2; ++i) ldmatrixX4(fa[i], &sa[stage][(i * 16 + (lane % 16)) * kK + kk + (lane / 16) * 8]);
            for (int j = 0; j < 4; ++j) ldmatrixX2T(fb[j], &sb[stage][(kk + (lane % 16)) * kTile + j * 8]);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) mma16816(acc[i][j], fa[i], fb[j]);
        }
        __syncwarp();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
            const int r = row0 + i * 16 + lane / 4, col = col0 + j * 8 + (lane % 4) * 2;
            if (r < m && col + 1 < n) *reinterpret_cast<float2*>(&c[r * n + col]) = make_float2(acc[i][j][0], acc[i][j][1]);
            if (r + 8 < m && col + 1 < n)
                *reinterpret_cast<float2*>(&c[(r + 8) * n + col]) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
}
