// Test source (scripts/gen-golden): explicit instantiations of the header-resident kernel family.
// Every line of code of these kernels lives in header_family_gemm.cuh and header_family_math.cuh.
#include "header_family_gemm.cuh"

template __global__ void scaled_gemm<8>(int, float, const float*, const float*, float*);
template __global__ void scaled_gemm<16>(int, float, const float*, const float*, float*);
