// Register-model corpus (tests/core/test_register_oracle.cpp): a Hopper GEMM tile with TMA loads,
// mbarrier full/empty rings, one producer and two consumer warpgroups that trade registers with
// setmaxnreg, and wgmma (m64n64k16, f16 in, f32 accumulators) on shared-memory descriptors.
// Built for sm_90a only; not meant to be run (the descriptors are plausible, not tuned).
#include <cuda.h>
#include <cstdint>

namespace {

constexpr int kStages = 3;
constexpr int kTileM = 64, kTileN = 64, kTileK = 64;

__device__ __forceinline__ uint32_t smemAddr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarInit(uint64_t* bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)), "r"(count));
}

__device__ __forceinline__ void mbarExpectTx(uint64_t* bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarArrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddr(bar)) : "memory");
}

__device__ __forceinline__ void mbarWait(uint64_t* bar, uint32_t parity) {
    asm volatile("{\n\t.reg .pred p;\n"
                 "WAIT_%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra WAIT_%=;\n}" ::"r"(smemAddr(bar)), "r"(parity) : "memory");
}

__device__ __forceinline__ void tmaLoad2d(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(smemAddr(dst)), "l"(map), "r"(x), "r"(y), "r"(smemAddr(bar)) : "memory");
}

__device__ __forceinline__ void tmaStore2d(const CUtensorMap* map, const void* src, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(map), "r"(x), "r"(y), "r"(smemAddr(src)) : "memory");
    asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;" ::: "memory");
}

// A wgmma shared-memory descriptor: start address, leading and stride byte offsets, 128-byte swizzle.
__device__ __forceinline__ uint64_t smemDescriptor(const void* p) {
    const uint64_t a = smemAddr(p);
    return ((a & 0x3ffff) >> 4) | (uint64_t{1} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62);
}

__device__ __forceinline__ void wgmma64x64x16(float (&d)[32], uint64_t descA, uint64_t descB, int accumulate) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(descA), "l"(descB), "r"(accumulate));
}

} // namespace

__global__ void __launch_bounds__(384, 1)
wgmma_tma_gemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
               const __grid_constant__ CUtensorMap mapC, int kTiles) {
    __shared__ alignas(1024) uint16_t tileA[kStages][kTileM * kTileK];
    __shared__ alignas(1024) uint16_t tileB[kStages][kTileN * kTileK];
    __shared__ alignas(128) float tileC[2][kTileM * kTileN];
    __shared__ uint64_t full[kStages], empty[kStages];

    const int warpgroup = threadIdx.x / 128;
    const int lane = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            mbarInit(&full[s], 1);
            mbarInit(&empty[s], 2);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (warpgroup == 0) {
        // Producer: gives registers away and streams A and B tiles through the ring.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (lane == 0) {
            for (int k = 0; k < kTiles; ++k) {
                const int s = k % kStages;
                if (k >= kStages) mbarWait(&empty[s], ((k / kStages) + 1) & 1);
                mbarExpectTx(&full[s], (kTileM + kTileN) * kTileK * 2);
                tmaLoad2d(tileA[s], &mapA, &full[s], k * kTileK, blockIdx.y * kTileM);
                tmaLoad2d(tileB[s], &mapB, &full[s], k * kTileK, blockIdx.x * kTileN);
            }
        }
    } else {
        // Consumers: take registers, multiply, store through TMA.
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        float d[32];
        for (int i = 0; i < 32; ++i) d[i] = 0.f;
        for (int k = 0; k < kTiles; ++k) {
            const int s = k % kStages;
            mbarWait(&full[s], (k / kStages) & 1);
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
            for (int kk = 0; kk < kTileK / 16; ++kk)
                wgmma64x64x16(d, smemDescriptor(&tileA[s][kk * 16]), smemDescriptor(&tileB[s][kk * 16]), k > 0 || kk > 0);
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            if (lane == 0) mbarArrive(&empty[s]);
        }
        float* c = tileC[warpgroup - 1];
        for (int i = 0; i < 32; ++i) c[(i / 2) * 128 + lane * 2 + (i & 1)] = d[i];
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("bar.sync %0, 128;" ::"r"(warpgroup));
        if (lane == 0) tmaStore2d(&mapC, c, blockIdx.x * kTileN, blockIdx.y * kTileM + (warpgroup - 1) * 32);
    }
}
