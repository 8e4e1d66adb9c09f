// Register-model corpus (tests/core/test_register_oracle.cpp): a Blackwell GEMM tile on tensor
// memory: TMA loads into shared memory under an mbarrier, tcgen05.alloc of 128 columns,
// tcgen05.mma (kind::f16) from shared-memory descriptors into TMEM, tcgen05.commit to an mbarrier,
// a block-scaled kind::mxf8f6f4 MMA whose scale factors are copied into TMEM with tcgen05.cp,
// tcgen05.shift, tcgen05.ld / tcgen05.st of the accumulator and tcgen05.dealloc.
// Built for sm_100a; `tcgen05_gemm_2cta` is the cta_group::2 variant for a cluster of two CTAs.
#include <cuda.h>
#include <cstdint>

namespace {

__device__ __forceinline__ uint32_t smemAddr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarInit(uint64_t* bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)), "r"(count));
}

__device__ __forceinline__ void mbarExpectTx(uint64_t* bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(bar)), "r"(bytes) : "memory");
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

__device__ __forceinline__ uint64_t smemDescriptor(const void* p) {
    const uint64_t a = smemAddr(p);
    return ((a & 0x3ffff) >> 4) | (uint64_t{1} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 46) | (uint64_t{2} << 61);
}

} // namespace

__global__ void __launch_bounds__(128, 1)
tcgen05_gemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB, float* __restrict__ c,
             const uint8_t* __restrict__ scales, int kTiles, int ldc, uint32_t idesc, uint32_t idescScaled) {
    __shared__ alignas(1024) uint16_t tileA[128 * 64];
    __shared__ alignas(1024) uint16_t tileB[128 * 64];
    __shared__ alignas(128) uint8_t sf[2][512];
    __shared__ uint64_t loaded, done;
    __shared__ uint32_t tmemBase;
    const int warp = threadIdx.x / 32;

    if (threadIdx.x == 0) {
        mbarInit(&loaded, 1);
        mbarInit(&done, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(smemAddr(&tmemBase)));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
    }
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) sf[i / 512][i % 512] = scales[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const uint32_t tmem = tmemBase;

    for (int k = 0; k < kTiles; ++k) {
        if (threadIdx.x == 0) {
            mbarExpectTx(&loaded, 2 * 128 * 64 * 2);
            tmaLoad2d(tileA, &mapA, &loaded, k * 64, blockIdx.y * 128);
            tmaLoad2d(tileB, &mapB, &loaded, k * 64, blockIdx.x * 128);
        }
        mbarWait(&loaded, k & 1);
        if (threadIdx.x == 0) {
            for (int kk = 0; kk < 4; ++kk) {
                const uint64_t da = smemDescriptor(&tileA[kk * 16]), db = smemDescriptor(&tileB[kk * 16]);
                asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                             "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}"
                             ::"r"(tmem), "l"(da), "l"(db), "r"(idesc), "r"(k | kk));
            }
            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                         ::"r"(smemAddr(&done)) : "memory");
        }
        mbarWait(&done, k & 1);
    }

    // Block-scaled pass: scale factors into TMEM columns 128.. and 160.., then one MXFP8 MMA.
    if (threadIdx.x == 0) {
        asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(tmem + 128), "l"(smemDescriptor(sf[0])));
        asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(tmem + 160), "l"(smemDescriptor(sf[1])));
        asm volatile("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%0], %1, %2, %3, [%4], [%5], 1;"
                     ::"r"(tmem), "l"(smemDescriptor(tileA)), "l"(smemDescriptor(tileB)), "r"(idescScaled),
                     "r"(tmem + 128), "r"(tmem + 160));
        asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(tmem));
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                     ::"r"(smemAddr(&done)) : "memory");
    }
    mbarWait(&done, kTiles & 1);
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

    // Epilogue: each warp reads its 32 lanes of the accumulator, 8 columns at a time, scales them
    // and writes them back to TMEM (to exercise tcgen05.st) and to global memory.
    const uint32_t lanes = tmem + (static_cast<uint32_t>(warp * 32) << 16);
    const int row = blockIdx.y * 128 + threadIdx.x;
    for (int col = 0; col < 64; col += 8) {
        uint32_t v[8];
        asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
                     : "r"(lanes + col));
        asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
        for (int j = 0; j < 8; ++j) v[j] = __float_as_uint(__uint_as_float(v[j]) * 0.5f);
        asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};" ::"r"(lanes + col), "r"(v[0]),
                     "r"(v[1]), "r"(v[2]), "r"(v[3]));
        for (int j = 0; j < 8; ++j) c[row * ldc + blockIdx.x * 128 + col + j] = __uint_as_float(v[j]);
    }
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
    __syncthreads();
    if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" ::"r"(tmem));
}

// The same tile split over a cluster of two CTAs: the MMA reads B from both CTAs' shared memory
// and commits to both CTAs' barriers (multicast mask 0b11).
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
tcgen05_gemm_2cta(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                  float* __restrict__ c, int kTiles, int ldc, uint32_t idesc) {
    __shared__ alignas(1024) uint16_t tileA[128 * 64];
    __shared__ alignas(1024) uint16_t tileB[128 * 64];
    __shared__ uint64_t loaded, done;
    __shared__ uint32_t tmemBase;
    const int warp = threadIdx.x / 32;
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));

    if (threadIdx.x == 0) {
        mbarInit(&loaded, 1);
        mbarInit(&done, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smemAddr(&tmemBase)));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const uint32_t tmem = tmemBase;

    for (int k = 0; k < kTiles; ++k) {
        if (threadIdx.x == 0) {
            mbarExpectTx(&loaded, 2 * 128 * 64 * 2);
            tmaLoad2d(tileA, &mapA, &loaded, k * 64, blockIdx.y * 128);
            tmaLoad2d(tileB, &mapB, &loaded, k * 64, (blockIdx.x / 2) * 256 + rank * 128);
        }
        mbarWait(&loaded, k & 1);
        if (threadIdx.x == 0 && rank == 0) {
            for (int kk = 0; kk < 4; ++kk) {
                const uint64_t da = smemDescriptor(&tileA[kk * 16]), db = smemDescriptor(&tileB[kk * 16]);
                asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                             "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}"
                             ::"r"(tmem), "l"(da), "l"(db), "r"(idesc), "r"(k | kk));
            }
            asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;"
                         ::"r"(smemAddr(&done)), "h"(static_cast<uint16_t>(3)) : "memory");
        }
        mbarWait(&done, k & 1);
    }
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const uint32_t lanes = tmem + (static_cast<uint32_t>(warp * 32) << 16);
    const int row = blockIdx.y * 128 + threadIdx.x;
    for (int col = 0; col < 128; col += 16) {
        uint32_t v[16];
        asm volatile("tcgen05.ld.sync.aligned.16x256b.x4.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
                     "%13, %14, %15}, [%16];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]),
                       "=r"(v[8]), "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]),
                       "=r"(v[15])
                     : "r"(lanes + col));
        asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
        for (int j = 0; j < 16; ++j) c[row * ldc + blockIdx.x * 128 + col + j] = __uint_as_float(v[j]);
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 128;" ::"r"(tmem));
    }
}
