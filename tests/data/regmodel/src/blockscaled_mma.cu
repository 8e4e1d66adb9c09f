// Register-model corpus (tests/core/test_register_oracle.cpp): consumer-Blackwell (sm_120a)
// warp-level MMA on narrow floats: an FP8 loop (kind::f8f6f4, E4M3 x E5M2), an MXFP8 loop whose
// scale factors ride along in registers (kind::mxf8f6f4.block_scale, UE8M0 scales), and an
// NVFP4 loop (kind::mxf4nvf4.block_scale.scale_vec::4X, UE4M3 scales). Built for sm_120a.
#include <cstdint>

namespace {

__device__ __forceinline__ void mmaFp8(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mmaMxfp8(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], uint32_t sfa,
                                         uint32_t sfb) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3}, {%10}, {0, 0}, {%11}, {0, 0};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(sfa), "r"(sfb));
}

__device__ __forceinline__ void mmaNvfp4(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], uint32_t sfa,
                                         uint32_t sfb) {
    asm volatile("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3}, {%10}, {0, 0}, {%11}, {0, 0};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(sfa), "r"(sfb));
}

} // namespace

// One warp computes a 16x16 tile from fragments streamed from global memory (layout is the
// caller's: each lane reads its own fragment words).
__global__ void __launch_bounds__(32)
blockscaled_mma(const uint4* __restrict__ fa, const uint2* __restrict__ fb, const uint32_t* __restrict__ sfa,
                const uint32_t* __restrict__ sfb, float4* __restrict__ out, int kSteps, int kind) {
    const int lane = threadIdx.x;
    float d0[4] = {}, d1[4] = {};
    for (int k = 0; k < kSteps; ++k) {
        const uint4 a4 = fa[k * 32 + lane];
        const uint32_t a[4] = {a4.x, a4.y, a4.z, a4.w};
        const uint2 b0 = fb[(k * 2) * 32 + lane], b1 = fb[(k * 2 + 1) * 32 + lane];
        const uint32_t bb0[2] = {b0.x, b0.y}, bb1[2] = {b1.x, b1.y};
        if (kind == 0) {
            mmaFp8(d0, a, bb0);
            mmaFp8(d1, a, bb1);
        } else if (kind == 1) {
            const uint32_t sa = sfa[k * 32 + lane], sb = sfb[k * 32 + lane];
            mmaMxfp8(d0, a, bb0, sa, sb);
            mmaMxfp8(d1, a, bb1, sa, sb);
        } else {
            const uint32_t sa = sfa[k * 32 + lane], sb = sfb[k * 32 + lane];
            mmaNvfp4(d0, a, bb0, sa, sb);
            mmaNvfp4(d1, a, bb1, sa, sb);
        }
    }
    out[blockIdx.x * 64 + lane * 2] = make_float4(d0[0], d0[1], d0[2], d0[3]);
    out[blockIdx.x * 64 + lane * 2 + 1] = make_float4(d1[0], d1[1], d1[2], d1[3]);
}
