// A program for the GPU test gpu_replay (tests/gpu/replay_test.sh): a Hopper GEMM whose operands
// reach the kernel through tensor maps built on the host, as real Hopper GEMMs pass them — the
// kernel of tests/gpu/kernels/tma_gemm.cu (TMA loads, wgmma), tmA by value
// (`const __grid_constant__ CUtensorMap`), tmB by pointer (a 128-byte device allocation holding the
// map), encoded here with cuTensorMapEncodeTiled over small cudaMalloc'd operands (so that the
// driver places them inside its own allocation heap, where a replay does not get their addresses
// back and has to re-point the tensor maps). Launched twice with a 2×1×1 cluster and 65 KiB of
// opt-in dynamic shared memory; the result is checked against a host GEMM.
//   build: nvcc -arch=sm_90a -o tma_replay_program tests/gpu/tma_replay_program.cu -lcuda
#include "kernels/tma_gemm.cu"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <vector>

namespace {

bool encode(CUtensorMap* map, void* base, int inner, int outer) {
    const cuuint64_t dims[2] = {cuuint64_t(inner), cuuint64_t(outer)};
    const cuuint64_t strides[1] = {cuuint64_t(inner) * 2};
    const cuuint32_t box[2] = {64, 64};
    const cuuint32_t elementStrides[2] = {1, 1};
    const CUresult r = cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box,
                                              elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
    return r == CUDA_SUCCESS;
}

} // namespace

int main() {
    int cc = 0;
    cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, 0);
    if (cc != 9) {
        std::printf("tma_replay_program: needs an sm_90 device, this is cc %d.x\n", cc);
        return 77;
    }
    const int M = 128, N = 256, K = 512;
    std::vector<__nv_bfloat16> hA(size_t(M) * K), hB(size_t(N) * K);
    std::vector<float> fA(hA.size()), fB(hB.size());
    for (size_t i = 0; i < hA.size(); ++i) {
        hA[i] = __float2bfloat16(float(int(i * 7 % 17) - 8) / 8.0f);
        fA[i] = __bfloat162float(hA[i]);
    }
    for (size_t i = 0; i < hB.size(); ++i) {
        hB[i] = __float2bfloat16(float(int(i * 5 % 13) - 6) / 4.0f);
        fB[i] = __bfloat162float(hB[i]);
    }
    void *A = nullptr, *B = nullptr;
    float* C = nullptr;
    int* info = nullptr;
    CUtensorMap* tmBDevice = nullptr;
    if (cudaMalloc(&A, hA.size() * 2) != cudaSuccess || cudaMalloc(&B, hB.size() * 2) != cudaSuccess ||
        cudaMalloc(&C, size_t(M) * N * 4) != cudaSuccess || cudaMalloc(&info, 16) != cudaSuccess ||
        cudaMalloc(&tmBDevice, sizeof(CUtensorMap)) != cudaSuccess) {
        std::fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy(A, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice);
    CUtensorMap tmA, tmB;
    if (!encode(&tmA, A, K, M) || !encode(&tmB, B, K, N)) return 1;
    cudaMemcpy(tmBDevice, &tmB, sizeof tmB, cudaMemcpyHostToDevice);
    // Where the driver's encoding keeps the address (for the notes: the replay does not rely on it).
    for (int w = 0; w < 16; ++w) {
        uint64_t word = 0;
        std::memcpy(&word, reinterpret_cast<const char*>(&tmA) + 8 * w, 8);
        if (word >= uint64_t(reinterpret_cast<uintptr_t>(A)) && word < uint64_t(reinterpret_cast<uintptr_t>(A)) + hA.size() * 2)
            std::printf("tma_replay_program: tmA word %d = %#llx, A at %p\n", w, static_cast<unsigned long long>(word), A);
    }
    const int smem = 4 * 16384 + 1024;
    cudaFuncSetAttribute(tma_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(N / 64, M / 64, 1);
    config.blockDim = dim3(128, 1, 1);
    config.dynamicSmemBytes = smem;
    cudaLaunchAttribute cluster[1];
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = 2;
    cluster[0].val.clusterDim.y = 1;
    cluster[0].val.clusterDim.z = 1;
    config.attrs = cluster;
    config.numAttrs = 1;
    for (int k = 0; k < 2; ++k) {
        cudaMemset(C, 0, size_t(M) * N * 4);
        const cudaError_t e = cudaLaunchKernelEx(&config, tma_gemm, tmA, static_cast<const CUtensorMap*>(tmBDevice), C,
                                                 info, M, N, K);
        if (e != cudaSuccess) {
            std::fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(e));
            return 1;
        }
    }
    std::vector<float> out(size_t(M) * N);
    cudaMemcpy(out.data(), C, out.size() * 4, cudaMemcpyDeviceToHost);
    const cudaError_t e = cudaGetLastError();
    int bad = 0;
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double ref = 0;
            for (int k = 0; k < K; ++k) ref += double(fA[size_t(m) * K + k]) * fB[size_t(n) * K + k];
            if (std::fabs(out[size_t(m) * N + n] - ref) > 1e-3 * (1 + std::fabs(ref))) ++bad;
        }
    std::printf("tma_replay_program: %d of %d elements differ from the host GEMM, %s\n", bad, M * N,
                cudaGetErrorString(e));
    return bad == 0 && e == cudaSuccess ? 0 : 1;
}
