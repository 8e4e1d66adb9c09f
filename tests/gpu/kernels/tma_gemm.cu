// A small Hopper GEMM of our own for the launch-spec tests (issue 29, item 3): bf16 inputs loaded by
// TMA through host-encoded tensor maps, multiplied by wgmma (f32 accumulators), f32 out.
//
//   C[m][n] = sum_k A[m][k] * B[n][k]      A: M×K row-major, B: N×K row-major ("TN"), C: M×N
//
// One warpgroup (128 threads) per 64×64 tile of C; K in steps of 64 through a ring of kStages
// shared-memory stages (4 × 16 KiB: above the 48 KiB default, so the runner must opt in). tmA comes
// by value (`const __grid_constant__ CUtensorMap`), tmB by pointer (a device copy): both ways the
// runner passes tensor maps. info[] reports what the launch looked like from inside: the cluster
// size (%cluster_nctarank), the dynamic shared memory (%dynamic_smem_size), the grid's blocks and
// the cluster's x extent.
//
// Build: sm_90a (wgmma and TMA need the architecture-specific target).
#include <cuda.h>
#include <cstdint>

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 64;
constexpr int kStages = 4;
constexpr int kTileBytes = kBM * kBK * 2; // bf16
constexpr int kStageBytes = 2 * kTileBytes;

__device__ __forceinline__ uint32_t smemAddr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// wgmma shared-memory matrix descriptor: K-major tile, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ uint64_t descriptor(uint32_t addr) {
    uint64_t d = 0;
    d |= (uint64_t)((addr & 0x3FFFF) >> 4);
    d |= (uint64_t)(16 >> 4) << 16;   // leading byte offset (unused for swizzled K-major)
    d |= (uint64_t)(1024 >> 4) << 32; // stride byte offset
    d |= (uint64_t)1 << 62;           // 128B swizzle
    return d;
}

__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}

__device__ __forceinline__ void mbarExpectTx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "wait_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra wait_%=;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

__device__ __forceinline__ void tmaLoad2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
        ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
        : "memory");
}

// d[64×64 tile fragment] += A(64×16) · B(64×16)ᵀ, both from shared memory.
__device__ __forceinline__ void wgmma64x64x16(float (&d)[32], uint64_t descA, uint64_t descB) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(descA), "l"(descB));
}

} // namespace

extern "C" __global__ void __launch_bounds__(128)
tma_gemm(const __grid_constant__ CUtensorMap tmA, const CUtensorMap* tmB, float* C, int* info, int M, int N, int K) {
    extern __shared__ uint8_t smemRaw[];
    __shared__ __align__(8) uint64_t full[kStages];
    // The 128-byte swizzle wants 1024-byte aligned tiles: the sidecar asks for 1 KiB of slack.
    const uint32_t base = (smemAddr(smemRaw) + 1023u) & ~1023u;
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
    const int kTiles = K / kBK;

    if (tid == 0) {
        // tmB lives in global memory, written by a host copy: make it visible to the tensor proxy.
        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(reinterpret_cast<uint64_t>(tmB))
                     : "memory");
        for (int s = 0; s < kStages; ++s) mbarInit(smemAddr(&full[s]), 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    auto issue = [&](int kt) {
        const int s = kt % kStages;
        const uint32_t bar = smemAddr(&full[s]);
        const uint32_t a = base + s * kStageBytes, b = a + kTileBytes;
        mbarExpectTx(bar, kStageBytes);
        tmaLoad2d(a, &tmA, bar, kt * kBK, m0);
        tmaLoad2d(b, tmB, bar, kt * kBK, n0);
    };
    if (tid == 0) {
        for (int kt = 0; kt < kTiles && kt < kStages; ++kt) issue(kt);
    }

    float d[32];
    for (int i = 0; i < 32; ++i) d[i] = 0.f;
    for (int kt = 0; kt < kTiles; ++kt) {
        const int s = kt % kStages;
        mbarWait(smemAddr(&full[s]), (kt / kStages) & 1);
        const uint32_t a = base + s * kStageBytes, b = a + kTileBytes;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int k = 0; k < kBK / 16; ++k) {
            // 16 bf16 = 32 bytes further along K inside the swizzled 128-byte rows.
            wgmma64x64x16(d, descriptor(a + 32 * k), descriptor(b + 32 * k));
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads(); // every warp is done with stage s before it is loaded again
        if (tid == 0 && kt + kStages < kTiles) issue(kt + kStages);
    }

    // Accumulator fragment of m64nNk16 (f32): warp w holds rows 16w..16w+15; per 8 columns,
    // d[4j..4j+3] = (r, c), (r, c+1), (r+8, c), (r+8, c+1) with r = 16w + lane/4, c = 8j + 2(lane%4).
    const int warp = tid / 32, lane = tid % 32;
    const int r = m0 + warp * 16 + lane / 4;
    for (int j = 0; j < kBN / 8; ++j) {
        const int c = n0 + 8 * j + 2 * (lane % 4);
        C[size_t(r) * N + c] = d[4 * j + 0];
        C[size_t(r) * N + c + 1] = d[4 * j + 1];
        C[size_t(r + 8) * N + c] = d[4 * j + 2];
        C[size_t(r + 8) * N + c + 1] = d[4 * j + 3];
    }

    if (blockIdx.x == 0 && blockIdx.y == 0 && tid == 0) {
        uint32_t ranks, smem, clusterX;
        asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(ranks));
        asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem));
        asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(clusterX));
        info[0] = static_cast<int>(ranks);
        info[1] = static_cast<int>(smem);
        info[2] = static_cast<int>(gridDim.x * gridDim.y);
        info[3] = static_cast<int>(clusterX);
    }
    (void)M;
}
