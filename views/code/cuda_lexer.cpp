#include "views/code/cuda_lexer.h"

#include "views/common/theme.h"

namespace lowerscope {

CudaLexer::CudaLexer(QObject* parent) : QsciLexerCPP(parent) {
    setFoldComments(true);
    setFoldCompact(false);
    applyTheme();
}

const char* CudaLexer::keywords(int set) const {
    switch (set) {
    case 1:
        return "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t "
               "char32_t class compl concept const consteval constexpr constinit const_cast continue co_await "
               "co_return co_yield decltype default delete do double dynamic_cast else enum explicit export "
               "extern false float for friend goto if inline int long mutable namespace new noexcept not "
               "not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires "
               "return short signed sizeof static static_assert static_cast struct switch template this "
               "thread_local throw true try typedef typeid typename union unsigned using virtual void volatile "
               "wchar_t while xor xor_eq "
               "__global__ __device__ __host__ __shared__ __constant__ __managed__ __restrict__ __noinline__ "
               "__forceinline__ __launch_bounds__ __grid_constant__ __align__ __cluster_dims__ __inline__";
    case 2:
        return "threadIdx blockIdx blockDim gridDim warpSize clusterIdx clusterDim "
               "__syncthreads __syncthreads_count __syncthreads_and __syncthreads_or __syncwarp __threadfence "
               "__threadfence_block __threadfence_system __shfl_sync __shfl_up_sync __shfl_down_sync "
               "__shfl_xor_sync __ballot_sync __any_sync __all_sync __activemask __match_any_sync "
               "__match_all_sync __reduce_add_sync __reduce_min_sync __reduce_max_sync __popc __popcll __clz "
               "__ffs __brev __byte_perm __funnelshift_l __funnelshift_r __ldg __ldcg __ldca __ldcs __stcg "
               "__stcs __stwt __fmaf_rn __fmul_rn __fadd_rn __fdividef __expf __logf __sinf __cosf __powf "
               "__saturatef __float2int_rn __int2float_rn __float2half __half2float __hadd __hmul __hfma "
               "atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd "
               "atomicOr atomicXor clock clock64 __nanosleep printf assert __cvta_generic_to_shared "
               "__pipeline_memcpy_async __pipeline_commit __pipeline_wait_prior fmaf rsqrtf sqrtf expf "
               "exp2f logf log2f sinf cosf tanhf fabsf fminf fmaxf";
    case 4:
        return "dim3 char1 char2 char3 char4 uchar1 uchar2 uchar3 uchar4 short1 short2 short3 short4 ushort1 "
               "ushort2 ushort3 ushort4 int1 int2 int3 int4 uint1 uint2 uint3 uint4 long1 long2 long3 long4 "
               "ulong1 ulong2 ulong3 ulong4 float1 float2 float3 float4 double1 double2 double3 double4 half "
               "half2 __half __half2 __nv_bfloat16 __nv_bfloat162 size_t cudaStream_t cudaError_t "
               "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t";
    }
    return QsciLexerCPP::keywords(set);
}

void CudaLexer::applyTheme() {
    Theme::styleLexerBase(*this);
    for (int s : {Comment, CommentLine, CommentDoc, CommentLineDoc}) setColor(Theme::commentText(), s);
    setColor(Theme::keywordText(), Keyword);
    setColor(Theme::labelText(), KeywordSet2);
    setColor(Theme::typeText(), GlobalClass);
    setColor(Theme::numberText(), Number);
    for (int s : {DoubleQuotedString, SingleQuotedString, RawString}) setColor(Theme::stringText(), s);
    setColor(Theme::directiveText(), PreProcessor);
    setColor(Theme::editorText(), Operator);
    setColor(Theme::editorText(), Identifier);
    // Inactive (#if 0) styles share the palette with a dimmer colour.
    for (int s = 64; s < 64 + 27; ++s) setColor(QColor(128, 128, 128), s);
}

} // namespace lowerscope
