// Register-model corpus (tests/core/test_register_oracle.cpp): the Hopper data movers that are
// not TMA tensor copies: a bulk copy global → shared (cp.async.bulk, completes on an mbarrier),
// ldmatrix / stmatrix of 16-bit 8x8 matrices (x1, x2, x4, with and without .trans), a 3-D TMA
// load with multicast over a cluster, and wgmma with the A operand in registers. Built for sm_90a.
#include <cuda.h>
#include <cstdint>

namespace {

__device__ __forceinline__ uint32_t smemAddr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarWait(uint64_t* bar, uint32_t parity) {
    asm volatile("{\n\t.reg .pred p;\n"
                 "WAIT_%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra WAIT_%=;\n}" ::"r"(smemAddr(bar)), "r"(parity) : "memory");
}

__device__ __forceinline__ uint64_t smemDescriptor(const void* p) {
    const uint64_t a = smemAddr(p);
    return ((a & 0x3ffff) >> 4) | (uint64_t{1} << 16) | (uint64_t{64} << 32);
}

} // namespace

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
bulk_stmatrix(const __grid_constant__ CUtensorMap map3d, const uint4* __restrict__ src, uint32_t* __restrict__ out,
              int bytes, int z) {
    __shared__ alignas(1024) uint16_t buf[128 * 64];
    __shared__ alignas(1024) uint16_t stage[64 * 64];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(&bar)), "r"(bytes + 8192)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smemAddr(buf)), "l"(src), "r"(bytes), "r"(smemAddr(&bar)) : "memory");
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                     "[%0], [%1, {%2, %3, %4}], [%5], %6;"
                     ::"r"(smemAddr(stage)), "l"(&map3d), "r"(0), "r"(blockIdx.x * 64), "r"(z), "r"(smemAddr(&bar)),
                     "h"(static_cast<uint16_t>(3)) : "memory");
    }
    mbarWait(&bar, 0);

    uint32_t a1, a2[2], a4[4];
    const void* row = &buf[(t % 16) * 64 + (t / 16) * 8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a1) : "r"(smemAddr(row)));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(a2[0]), "=r"(a2[1]) : "r"(smemAddr(row)));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a4[0]), "=r"(a4[1]), "=r"(a4[2]), "=r"(a4[3]) : "r"(smemAddr(row)));

    // wgmma with A in registers (4 registers of f16 pairs), B from shared memory.
    float d[8] = {};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9, %10, %11}, %12, 1, 1, 1, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "r"(a4[0] ^ a1), "r"(a4[1]), "r"(a4[2] + a2[0]), "r"(a4[3] + a2[1]), "l"(smemDescriptor(stage)));
    asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");

    void* dst = &buf[(t % 16) * 64 + (t / 16) * 8 + 4096];
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(smemAddr(dst)), "r"(__float_as_uint(d[0])));
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(smemAddr(dst)),
                 "r"(__float_as_uint(d[1])), "r"(__float_as_uint(d[2])));
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smemAddr(dst)),
                 "r"(__float_as_uint(d[3])), "r"(__float_as_uint(d[4])), "r"(__float_as_uint(d[5])),
                 "r"(__float_as_uint(d[6]) + a1));
    __syncthreads();
    out[blockIdx.x * 128 + t] = buf[4096 + t] + __float_as_uint(d[7]);
}
