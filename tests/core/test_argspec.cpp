// Argument specs: expressions, buffer specs, sidecars, and matching/packing against PTX
// parameters (from real nvcc output), including every error path.
#include "core/build/build.h"
#include "core/parse/ptx_parser.h"
#include "core/run/argspec.h"
#include "core/run/buffer_data.h"
#include "core/run/protocol.h"
#include "core/build/toolchain.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

using namespace lowerscope;

namespace {

// Headers of real `nvcc -ptx -arch=sm_90` output (CUDA 13.0) for kernels/saxpy.cu and
// kernels/ffma_chain.cu.
const char* kSaxpyPtx = R"(//
.version 9.0
.target sm_90
.address_size 64

	// .globl	_Z5saxpyifPKfPf

.visible .entry _Z5saxpyifPKfPf(
	.param .u32 _Z5saxpyifPKfPf_param_0,
	.param .f32 _Z5saxpyifPKfPf_param_1,
	.param .u64 _Z5saxpyifPKfPf_param_2,
	.param .u64 _Z5saxpyifPKfPf_param_3
)
{
	ret;
}
)";

const char* kFfmaPtx = R"(
.version 9.0
.target sm_90
.address_size 64

.visible .entry _Z14ffma_dependentPfiff(
	.param .u64 _Z14ffma_dependentPfiff_param_0,
	.param .u32 _Z14ffma_dependentPfiff_param_1,
	.param .f32 _Z14ffma_dependentPfiff_param_2,
	.param .f32 _Z14ffma_dependentPfiff_param_3
)
{
	ret;
}
)";

std::vector<PtxParam> paramsOf(const char* ptx) {
    PtxListing l = parsePtx(ptx);
    EXPECT_EQ(l.functions.size(), 1u);
    return l.functions.empty() ? std::vector<PtxParam>{} : l.functions[0].params;
}

LaunchSpec saxpySpec() {
    LaunchSpec s;
    s.kernel = "saxpy";
    s.grid = {"ceil(n/256)"};
    s.block = {"256"};
    s.args = {"n=1<<24", "a=2.5", "x=f32[n]:random(seed=1)", "y=f32[n]:random(seed=2)"};
    s.outputs = {"y"};
    s.bytes = "12*n";
    s.flops = "2*n";
    return s;
}

template <typename T>
T scalarAs(const ResolvedParam& p) {
    T v{};
    EXPECT_EQ(p.scalar.size(), sizeof(T));
    std::memcpy(&v, p.scalar.data(), sizeof(T));
    return v;
}

} // namespace

TEST(Expr, ArithmeticAndPrecedence) {
    EXPECT_EQ(evaluateConstant("1<<24").i, 16777216);
    EXPECT_EQ(evaluateConstant("1 + 2*3").i, 7);
    EXPECT_EQ(evaluateConstant("(1 + 2)*3").i, 9);
    EXPECT_EQ(evaluateConstant("1 << 2 + 1").i, 8);  // C precedence: + binds tighter than <<
    EXPECT_EQ(evaluateConstant("17 % 5").i, 2);
    EXPECT_EQ(evaluateConstant("256 >> 4").i, 16);
    EXPECT_EQ(evaluateConstant("-3 + 5").i, 2);
    EXPECT_EQ(evaluateConstant("0x10").i, 16);
    EXPECT_EQ(evaluateConstant("max(3, 9, 4)").i, 9);
    EXPECT_EQ(evaluateConstant("min(3, 9, -4)").i, -4);
    EXPECT_EQ(evaluateConstant("abs(-7)").i, 7);
    // True division: exact quotients stay integers, ceil() of a fraction rounds up.
    EXPECT_TRUE(evaluateConstant("512/16").isInt);
    EXPECT_EQ(evaluateConstant("ceil(1000/256)").i, 4);
    EXPECT_EQ(evaluateConstant("floor(1000/256)").i, 3);
    EXPECT_EQ(evaluateConstant("round(2.5)").i, 3);
    ExprValue r = evaluateConstant("2.5");
    EXPECT_FALSE(r.isInt);
    EXPECT_DOUBLE_EQ(r.d, 2.5);
    EXPECT_DOUBLE_EQ(evaluateConstant("1e-6").d, 1e-6);
    EXPECT_DOUBLE_EQ(evaluateConstant("1.5f").d, 1.5);
}

TEST(Expr, Variables) {
    Expr e = Expr::parse("ceil(n/256) * k");
    EXPECT_EQ(e.names(), (std::vector<std::string>{"n", "k"}));
    ExprValue v = e.evaluate([](const std::string& name) {
        return ExprValue::integer(name == "n" ? 1000 : 2);
    });
    EXPECT_EQ(v.i, 8);
}

TEST(Expr, ErrorsAreClear) {
    auto msg = [](const std::string& text) {
        try {
            evaluateConstant(text);
        } catch (const ExprError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(msg("1 +").find("column"), std::string::npos);
    EXPECT_NE(msg("(1 + 2").find("expected ')'"), std::string::npos);
    EXPECT_NE(msg("1 / 0").find("division by zero"), std::string::npos);
    EXPECT_NE(msg("5 % 0").find("modulo by zero"), std::string::npos);
    EXPECT_NE(msg("1 << 70").find("shift count"), std::string::npos);
    EXPECT_NE(msg("1 << 62 << 1").find("overflow"), std::string::npos);
    EXPECT_NE(msg("9223372036854775807 + 1").find("overflow"), std::string::npos);
    EXPECT_NE(msg("99999999999999999999").find("too large"), std::string::npos);
    EXPECT_NE(msg("sqrt(4)").find("unknown function"), std::string::npos);
    EXPECT_NE(msg("n * 2").find("unknown name 'n'"), std::string::npos);
    EXPECT_NE(msg("2.5 % 2").find("must be an integer"), std::string::npos);
    EXPECT_NE(msg("1 $ 2").find("unexpected"), std::string::npos);
    EXPECT_NE(msg(std::string(1000, '(')).find("nested too deeply"), std::string::npos);
}

TEST(ArgSpec, ParsesScalarsAndBuffers) {
    ArgSpec n = parseArgSpec("n=1<<24");
    EXPECT_FALSE(n.isBuffer);
    EXPECT_EQ(n.name, "n");
    ArgSpec x = parseArgSpec(" x = f32[n] ");
    EXPECT_TRUE(x.isBuffer);
    EXPECT_EQ(x.type, ElemType::F32);
    EXPECT_EQ(x.init.kind, InitKind::Random);
    EXPECT_FALSE(x.seedGiven);
    ArgSpec y = parseArgSpec("y=bf16[n*2]:random(seed=7)");
    EXPECT_EQ(y.type, ElemType::BF16);
    EXPECT_EQ(y.init.seed, 7u);
    EXPECT_TRUE(y.seedGiven);
    EXPECT_EQ(parseArgSpec("y=f64[4]:random(9)").init.seed, 9u);
    EXPECT_EQ(parseArgSpec("y=i8[4]:zeros").init.kind, InitKind::Zeros);
    EXPECT_EQ(parseArgSpec("y=i32[4]:ones").init.kind, InitKind::Ones);
    EXPECT_EQ(parseArgSpec("y=u32[4]:iota").init.kind, InitKind::Iota);
    ArgSpec c = parseArgSpec("y=f16[4]:const(3)");
    EXPECT_EQ(c.init.kind, InitKind::Const);
    EXPECT_EQ(c.init.value, 3);
    EXPECT_EQ(parseArgSpec("z=i64[4]:const(-1.5)").init.value, -1.5);
    ArgSpec runs = parseArgSpec("x=f32[n]:random(seed=5, run=32)");
    EXPECT_EQ(runs.init.seed, 5u);
    EXPECT_EQ(runs.init.run, 32);
    EXPECT_EQ(initToString(runs.init), "random(seed=5, run=32)");
    EXPECT_EQ(parseArgSpec("x=f32[n]:random(run=4)").init.run, 4);
    EXPECT_EQ(parseArgSpec("x=f32[n]:random(seed=5)").init.run, 1);
}

TEST(ArgSpec, RejectsMalformedSpecs) {
    for (const char* bad : {"n", "=3", "1n=3", "n=", "x=f33[4]", "x=f32[4", "x=f32[4]random", "x=f32[4]:gaussian",
                            "x=f32[4]:const()", "x=f32[4]:zeros(1)", "grid=4", "block_x=2", "x=f32[1+]",
                            "x=f32[4]:random(seed=)", "x=f32[4]:random(seed=1, run=0)",
                            "x=f32[4]:random(run=-3)", "x=f32[4]:random(seed=1, runs=2)", "x=f32[4]:random(seed=1,)",
                            "x=f32[4]:random(run)"}) {
        EXPECT_THROW(parseArgSpec(bad), ArgSpecError) << bad;
    }
}

TEST(ArgSpec, ResolvesSaxpyAgainstRealPtx) {
    auto params = paramsOf(kSaxpyPtx);
    ASSERT_EQ(params.size(), 4u);
    ResolvedLaunch r = resolveLaunch(saxpySpec(), params, "saxpy(int, float, float const*, float*)");
    EXPECT_EQ(r.grid[0], 65536u);
    EXPECT_EQ(r.grid[1], 1u);
    EXPECT_EQ(r.block[0], 256u);
    ASSERT_EQ(r.params.size(), 4u);
    // Offsets follow the ABI: 4-byte int, 4-byte float, then 8-aligned pointers.
    EXPECT_EQ(r.params[0].offset, 0);
    EXPECT_EQ(r.params[1].offset, 4);
    EXPECT_EQ(r.params[2].offset, 8);
    EXPECT_EQ(r.params[3].offset, 16);
    EXPECT_EQ(r.paramBytes, 24);
    EXPECT_EQ(scalarAs<int32_t>(r.params[0]), 1 << 24);
    EXPECT_EQ(scalarAs<float>(r.params[1]), 2.5f);
    ASSERT_EQ(r.buffers.size(), 2u);
    EXPECT_EQ(r.params[2].buffer, 0);
    EXPECT_EQ(r.params[3].buffer, 1);
    EXPECT_EQ(r.buffers[0].count, 1 << 24);
    EXPECT_EQ(r.buffers[0].bytes(), int64_t(4) << 24);
    EXPECT_EQ(r.buffers[0].init.seed, 1u);
    EXPECT_FALSE(r.buffers[0].output);
    EXPECT_TRUE(r.buffers[1].output);
    ASSERT_TRUE(r.bytes && r.flops);
    EXPECT_EQ(*r.bytes, 12.0 * (1 << 24));
    EXPECT_EQ(*r.flops, 2.0 * (1 << 24));
    std::vector<uint8_t> packed = r.packedParams();
    ASSERT_EQ(packed.size(), 24u);
    int32_t n;
    std::memcpy(&n, packed.data(), 4);
    EXPECT_EQ(n, 1 << 24);
}

TEST(ArgSpec, DefaultOutputsFromConstness) {
    LaunchSpec s = saxpySpec();
    s.outputs.clear();
    auto params = paramsOf(kSaxpyPtx);
    ResolvedLaunch r = resolveLaunch(s, params, "saxpy(int, float, float const*, float*)");
    EXPECT_FALSE(r.buffers[0].output);  // float const*
    EXPECT_TRUE(r.buffers[1].output);   // float*
    // Unknown signature (extern "C"): every buffer is an output.
    ResolvedLaunch all = resolveLaunch(s, params, "");
    EXPECT_TRUE(all.buffers[0].output);
    EXPECT_TRUE(all.buffers[1].output);
    auto nc = nonConstPointerParams("k(const float*, float*, int, const __half2*, float* const)");
    ASSERT_TRUE(nc);
    EXPECT_EQ(*nc, (std::vector<bool>{false, true, false, false, true}));
}

TEST(ArgSpec, GridAndBlockAreNamesInExpressions) {
    auto params = paramsOf(kFfmaPtx);
    LaunchSpec s;
    s.kernel = "ffma_dependent";
    s.grid = {"132"};
    s.block = {"32"};
    s.args = {"out=f32[grid*block]:zeros", "iters=65536", "a=0.999999", "b=1e-6"};
    ResolvedLaunch r = resolveLaunch(s, params);
    EXPECT_EQ(r.buffers[0].count, 132 * 32);
    EXPECT_EQ(scalarAs<int32_t>(r.params[1]), 65536);
    EXPECT_EQ(scalarAs<float>(r.params[2]), 0.999999f);
    EXPECT_EQ(scalarAs<float>(r.params[3]), 1e-6f);
    // Multi-dimensional launch: grid_x/grid_y and the totals.
    LaunchSpec m = s;
    m.grid = {"ceil(N/16)", "ceil(M/16)"};
    m.block = {"16", "16"};
    m.args = {"out=f32[grid_x*grid_y*block]", "iters=N+M", "a=1", "b=2"};
    EXPECT_THROW(resolveLaunch(m, params), ArgSpecError);  // N, M undefined
    m.args = {"out=f32[grid*block]", "iters=grid_y", "a=1", "b=2"};
    m.grid = {"10", "3"};
    ResolvedLaunch r2 = resolveLaunch(m, params);
    EXPECT_EQ(r2.grid[0], 10u);
    EXPECT_EQ(r2.grid[1], 3u);
    EXPECT_EQ(r2.buffers[0].count, 30 * 256);
    EXPECT_EQ(scalarAs<int32_t>(r2.params[1]), 3);
}

TEST(ArgSpec, MismatchErrorsNameTheProblem) {
    auto params = paramsOf(kSaxpyPtx);
    auto err = [&](LaunchSpec s) {
        try {
            resolveLaunch(s, params);
        } catch (const ArgSpecError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    LaunchSpec s = saxpySpec();
    s.args.pop_back();
    EXPECT_NE(err(s).find("takes 4 parameters"), std::string::npos) << err(s);
    EXPECT_NE(err(s).find("_Z5saxpyifPKfPf_param_3"), std::string::npos);
    s = saxpySpec();
    s.grid = {"1"};
    s.args = {"n=f32[4]", "a=2.5", "x=f32[4]", "y=f32[4]"};  // buffer into a 4-byte int
    EXPECT_NE(err(s).find("not a 64-bit pointer"), std::string::npos) << err(s);
    s = saxpySpec();
    s.args[0] = "n=1<<40";
    s.grid = {"1"};
    EXPECT_NE(err(s).find("does not fit in 32 bits"), std::string::npos) << err(s);
    s = saxpySpec();
    s.args[0] = "n=2.5";
    EXPECT_NE(err(s).find("must be an integer"), std::string::npos) << err(s);
    s = saxpySpec();
    s.block = {"2048"};
    EXPECT_NE(err(s).find("at most 1024"), std::string::npos) << err(s);
    s = saxpySpec();
    s.grid = {"0"};
    EXPECT_NE(err(s).find("at least 1"), std::string::npos) << err(s);
    s = saxpySpec();
    s.args[2] = "x=f32[m]";
    EXPECT_NE(err(s).find("unknown name 'm'"), std::string::npos) << err(s);
    s = saxpySpec();
    s.args[0] = "n=n+1";
    EXPECT_NE(err(s).find("in terms of itself"), std::string::npos) << err(s);
    s = saxpySpec();
    s.args[1] = "n=3";
    EXPECT_NE(err(s).find("given twice"), std::string::npos) << err(s);
    s = saxpySpec();
    s.outputs = {"n"};
    EXPECT_NE(err(s).find("not a buffer"), std::string::npos) << err(s);
    s = saxpySpec();
    s.args[2] = "x=f32[0]";
    EXPECT_NE(err(s).find("at least 1"), std::string::npos) << err(s);
    s = saxpySpec();
    s.args[0] = "n=-5";  // int parameters are .u32 in PTX: negative values are accepted (two's complement)
    s.args[2] = "x=f32[4]";
    s.args[3] = "y=f32[4]";
    s.grid = {"1"};
    EXPECT_EQ(err(s), "no error");
}

TEST(ArgSpec, AggregateAndAlignedParams) {
    std::vector<PtxParam> params(3);
    params[0] = {"p0", "u8", 1, 1, 1, false};
    params[1] = {"p1", "f64", 8, 8, 1, false};
    params[2] = {"p2", "b8", 16, 4, 16, false};
    LaunchSpec s;
    s.kernel = "k";
    s.grid = {"1"};
    s.block = {"1"};
    s.args = {"c=7", "d=0.5", "agg=1"};
    EXPECT_THROW(resolveLaunch(s, params), ArgSpecError);
    params.pop_back();
    s.args.pop_back();
    ResolvedLaunch r = resolveLaunch(s, params);
    EXPECT_EQ(r.params[0].offset, 0);
    EXPECT_EQ(r.params[1].offset, 8);  // f64 aligned to 8 after a 1-byte parameter
    EXPECT_EQ(r.paramBytes, 16);
    EXPECT_EQ(scalarAs<double>(r.params[1]), 0.5);
    s.args[0] = "c=256";
    EXPECT_THROW(resolveLaunch(s, params), ArgSpecError);
}

TEST(Sidecar, ParsesEveryRepositorySidecar) {
    const std::filesystem::path dir = std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "kernels";
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        ++files;
        std::vector<LaunchSpec> specs = loadSidecar(entry.path().string());
        EXPECT_FALSE(specs.empty()) << entry.path();
        for (const auto& s : specs) {
            EXPECT_FALSE(s.kernel.empty());
            EXPECT_FALSE(s.grid.empty());
            EXPECT_FALSE(s.block.empty());
            EXPECT_FALSE(s.args.empty());
        }
    }
    EXPECT_GE(files, 6);
    auto saxpy = loadSidecar((dir / "saxpy.json").string());
    ASSERT_EQ(saxpy.size(), 1u);
    EXPECT_EQ(saxpy[0].grid, (std::vector<std::string>{"ceil(n/256)"}));
    EXPECT_EQ(saxpy[0].outputs, (std::vector<std::string>{"y"}));
    auto gemm = loadSidecar((dir / "gemm_epilogue.json").string());
    EXPECT_EQ(gemm[0].grid, (std::vector<std::string>{"ceil(N/16)", "ceil(M/16)"}));
    EXPECT_EQ(gemm[0].block, (std::vector<std::string>{"16", "16"}));
    EXPECT_EQ(sidecarPathFor("kernels/saxpy.cu"), "kernels/saxpy.json");
}

TEST(Sidecar, BadSidecarsGiveErrors) {
    for (const char* bad : {"", "[]", "{}", R"({"kernels": 3})", R"({"kernels": [{"grid": 1}]})",
                            R"({"kernels": [{"name": "k", "grid": 1}]})",
                            R"({"kernels": [{"name": "k", "grid": [1,2,3,4], "block": 1}]})",
                            R"({"kernels": [{"name": "k", "grid": {}, "block": 1}]})",
                            R"({"kernels": [{"name": "k", "grid": 1, "block": 1, "args": [1]}]})",
                            R"({"kernels": [{"name": "k", "grid": 1, "block": 1, "bytes": []}]})"}) {
        EXPECT_THROW(parseSidecar(bad), ArgSpecError) << bad;
    }
}

// Every sidecar resolves against the PTX nvcc produces for its kernel file (needs nvcc).
TEST(Sidecar, EveryKernelResolvesAgainstItsPtx) {
    Toolchain tc = discoverToolchain();
    if (!tc.problems().empty()) {
        GTEST_SKIP() << "toolchain incomplete (scripts/bootstrap installs it): " << tc.problems().front();
    }
    const std::filesystem::path dir = std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "kernels";
    for (const char* name : {"saxpy", "ffma_chain", "reduction", "sgemm_tiled", "relu_sparse", "gemm_epilogue"}) {
        std::string cu = (dir / (std::string(name) + ".cu")).string();
        BuildResult b = buildFile(tc, cu, BuildOptions{});
        ASSERT_FALSE(b.ptx.empty()) << name << ": " << b.error;
        PtxListing ptx = parsePtx(b.ptx);
        for (const LaunchSpec& s : loadSidecar(sidecarPathFor(cu))) {
            const PtxFunction* fn = nullptr;
            for (const auto& f : ptx.functions) {
                if (f.isEntry && (f.name == s.kernel || f.name.find(std::to_string(s.kernel.size()) + s.kernel) == 2)) {
                    fn = &f;
                }
            }
            ASSERT_NE(fn, nullptr) << s.kernel;
            std::string signature;
            for (const auto& k : b.kernels) {
                if (k.mangled == fn->name) {
                    signature = k.name;
                }
            }
            ResolvedLaunch r = resolveLaunch(s, fn->params, signature);
            EXPECT_EQ(r.params.size(), fn->params.size()) << s.kernel;
            size_t outputs = 0;
            for (const auto& buf : r.buffers) {
                outputs += buf.output ? 1 : 0;
            }
            EXPECT_EQ(outputs, s.outputs.size()) << s.kernel;
        }
    }
}

TEST(BufferData, GeneratorsAreDeterministicAndInRange) {
    auto a = makeBufferData(ElemType::F32, 100000, BufferInit{InitKind::Random, 5, 0});
    auto b = makeBufferData(ElemType::F32, 100000, BufferInit{InitKind::Random, 5, 0});
    auto c = makeBufferData(ElemType::F32, 100000, BufferInit{InitKind::Random, 6, 0});
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    double sum = 0, mn = 1, mx = -1;
    int zeros = 0;
    for (int64_t i = 0; i < 100000; ++i) {
        double v = elementAsDouble(ElemType::F32, a.data(), i);
        sum += v;
        mn = std::min(mn, v);
        mx = std::max(mx, v);
        zeros += v == 0 ? 1 : 0;
    }
    EXPECT_GE(mn, -1.0);
    EXPECT_LT(mx, 1.0);
    EXPECT_NEAR(sum / 100000, 0.0, 0.01);
    EXPECT_LT(zeros, 5);
    // run=32: every aligned group of 32 elements holds one value, and the groups differ.
    BufferInit runs{InitKind::Random, 5, 0};
    runs.run = 32;
    auto r = makeBufferData(ElemType::F32, 4096, runs);
    int distinctGroups = 0;
    for (int64_t g = 0; g < 4096 / 32; ++g) {
        const double first = elementAsDouble(ElemType::F32, r.data(), g * 32);
        for (int64_t k = 1; k < 32; ++k) {
            ASSERT_EQ(elementAsDouble(ElemType::F32, r.data(), g * 32 + k), first) << g << " " << k;
        }
        distinctGroups += g > 0 && first != elementAsDouble(ElemType::F32, r.data(), (g - 1) * 32) ? 1 : 0;
    }
    EXPECT_GT(distinctGroups, 4096 / 32 - 3);
    runs.run = 1;
    EXPECT_EQ(makeBufferData(ElemType::F32, 100000, runs), a); // run=1 is the plain generator
    auto iota = makeBufferData(ElemType::I32, 10, BufferInit{InitKind::Iota, 0, 0});
    EXPECT_EQ(elementAsDouble(ElemType::I32, iota.data(), 9), 9);
    auto h = makeBufferData(ElemType::F16, 3, BufferInit{InitKind::Const, 0, 3.0});
    EXPECT_EQ(elementAsDouble(ElemType::F16, h.data(), 2), 3.0);
    auto bf = makeBufferData(ElemType::BF16, 3, BufferInit{InitKind::Ones, 0, 0});
    EXPECT_EQ(elementAsDouble(ElemType::BF16, bf.data(), 1), 1.0);
    auto i8 = makeBufferData(ElemType::I8, 1000, BufferInit{InitKind::Random, 1, 0});
    bool negative = false;
    for (int i = 0; i < 1000; ++i) {
        negative = negative || elementAsDouble(ElemType::I8, i8.data(), i) < 0;
    }
    EXPECT_TRUE(negative);
}

// Large buffers are filled by several threads: the bytes must not depend on how the work was cut
// (one thread below 2 M elements; other counts cut at other places).
TEST(BufferData, ThreadedFillGivesTheSameBytesAsOneThread) {
    for (ElemType type : {ElemType::F32, ElemType::I8, ElemType::F64}) {
        BufferInit init{InitKind::Random, 9, 0};
        init.run = type == ElemType::I8 ? 3 : 1;
        const auto one = makeBufferData(type, (int64_t(2) << 20) - 1, init);
        const auto two = makeBufferData(type, (int64_t(2) << 20) + 1, init);
        const auto three = makeBufferData(type, (int64_t(3) << 20) + 7, init);
        const size_t e = static_cast<size_t>(elemSize(type));
        ASSERT_EQ(three.size(), ((size_t(3) << 20) + 7) * e);
        EXPECT_TRUE(std::equal(one.begin(), one.end(), two.begin())) << elemTypeName(type);
        EXPECT_TRUE(std::equal(two.begin(), two.end(), three.begin())) << elemTypeName(type);
        EXPECT_NE(std::count(three.end() - 1024, three.end(), uint8_t(0)), 1024) << "the tail was filled";
    }
}

TEST(BufferData, HalfConversions) {
    EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
    EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
    EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
    EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
    EXPECT_EQ(floatToHalf(5.960464477539063e-08f), 0x0001);  // smallest subnormal
    EXPECT_EQ(halfToFloat(0x0001), 5.960464477539063e-08f);
    EXPECT_EQ(floatToHalf(0.1f), 0x2e66);
    EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
    for (uint32_t h = 0; h < 0x7c00; ++h) {  // every finite positive half round-trips
        ASSERT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h);
    }
    EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
    EXPECT_EQ(bfloat16ToFloat(0x4040), 3.0f);
}

TEST(BufferData, PoisonDigestAndCompare) {
    std::vector<uint8_t> d(16, kPoisonA);
    d[4] = 0;  // element 1 of four f32 written
    std::vector<bool> still;
    EXPECT_EQ(countPoisoned(d, 4, kPoisonA, &still), 3);
    std::vector<uint8_t> e(16, kPoisonB);
    e[8] = 1;  // element 2 written in the second run only
    EXPECT_EQ(countPoisoned(e, 4, kPoisonB, &still), 2);  // elements 0 and 3 never written
    EXPECT_EQ(still, (std::vector<bool>{true, false, false, true}));

    std::vector<uint8_t> x = makeBufferData(ElemType::F32, 1000, BufferInit{InitKind::Random, 1, 0});
    EXPECT_EQ(digestHex(x.data(), x.size()).size(), 16u);
    EXPECT_EQ(digestHex(x.data(), x.size()), digestHex(x.data(), x.size()));
    std::vector<uint8_t> y = x;
    EXPECT_TRUE(compareBuffers(ElemType::F32, x, y, 0, 0).agree());
    float f;
    std::memcpy(&f, y.data() + 40, 4);
    f += 1e-3f;
    std::memcpy(y.data() + 40, &f, 4);
    EXPECT_NE(digestHex(x.data(), x.size()), digestHex(y.data(), y.size()));
    BufferComparison c = compareBuffers(ElemType::F32, x, y, 1e-5, 1e-5);
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_EQ(c.firstMismatch, 10);
    EXPECT_NEAR(c.maxAbsError, 1e-3, 1e-6);
    EXPECT_TRUE(compareBuffers(ElemType::F32, x, y, 2e-3, 0).agree());
    y.pop_back();
    EXPECT_TRUE(compareBuffers(ElemType::F32, x, y, 1, 1).sizeMismatch);
}

// ------------------------------------------------------------ Hopper launch specs (issue 29, item 3)

namespace {

// `k(const __grid_constant__ CUtensorMap a, const CUtensorMap* b, float* c, int n)` as nvcc writes
// its parameters (CUDA 13: the map by value is `.align 128 .b8 [128]`).
std::vector<PtxParam> tmaParams() {
    return {PtxParam{"p0", "b8", 128, 128, 128, false}, PtxParam{"p1", "u64", 8, 8, 1, false},
            PtxParam{"p2", "u64", 8, 8, 1, false}, PtxParam{"p3", "u32", 4, 4, 1, false}};
}

LaunchSpec tmaSpec() {
    LaunchSpec s;
    s.kernel = "k";
    s.grid = {"N/64", "M/64"};
    s.block = {"128"};
    s.lets = {"A=bf16[M*K]:random(seed=3)", "B=bf16[N*K]", "M=128", "N=256", "K=512"};
    s.args = {"tmA=tensormap(A, bf16, dims=[K,M], box=[64,64], swizzle=128B)",
              "tmB=tensormap(B, bf16, dims=[K,N], box=[64,128/2], swizzle=128b, l2promotion=256B)", "C=f32[M*N]",
              "n=M*N"};
    return s;
}

std::string resolveError(const LaunchSpec& s, const std::vector<PtxParam>& params) {
    try {
        resolveLaunch(s, params);
    } catch (const ArgSpecError& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST(TensorMapSpec, ParsesEveryField) {
    ArgSpec a = parseArgSpec("tm = tensormap(A, f16, dims=[K, M, 4], strides=[2*K, 2*K*M], box=[32, 8, 1], "
                             "elem_strides=[1,2,1], interleave=none, swizzle=64B, l2promotion=128B, oobfill=nan)");
    ASSERT_TRUE(a.isTensorMap);
    EXPECT_FALSE(a.isBuffer);
    EXPECT_EQ(a.name, "tm");
    EXPECT_EQ(a.tensorMap.buffer, "A");
    EXPECT_EQ(a.tensorMap.type, TensorMapType::F16);
    ASSERT_EQ(a.tensorMap.dims.size(), 3u);
    EXPECT_EQ(a.tensorMap.dims[1].text(), "M");
    EXPECT_EQ(a.tensorMap.strides.size(), 2u);
    EXPECT_EQ(a.tensorMap.elementStrides.size(), 3u);
    EXPECT_EQ(a.tensorMap.swizzle, TensorMapSwizzle::B64);
    EXPECT_EQ(a.tensorMap.l2Promotion, TensorMapL2Promotion::B128);
    EXPECT_EQ(a.tensorMap.oobFill, TensorMapOobFill::NanRequestZeroFma);
    // Defaults: no strides (packed), unit element strides, none everywhere, zero fill.
    ArgSpec d = parseArgSpec("t=tensormap(X, u8, dims=[64], box=[16])");
    EXPECT_TRUE(d.tensorMap.strides.empty());
    EXPECT_EQ(d.tensorMap.swizzle, TensorMapSwizzle::None);
    EXPECT_EQ(d.tensorMap.interleave, TensorMapInterleave::None);
    EXPECT_EQ(d.tensorMap.oobFill, TensorMapOobFill::Zeros);
    for (const char* t : {"u8", "u16", "u32", "i32", "u64", "i64", "f16", "f32", "f64", "bf16", "f32ftz", "tf32",
                          "tf32ftz"}) {
        auto type = parseTensorMapType(t);
        ASSERT_TRUE(type) << t;
        EXPECT_EQ(tensorMapTypeName(*type), t);
    }
}

TEST(TensorMapSpec, MalformedTextIsRefusedClearly) {
    auto err = [](const std::string& text) {
        try {
            parseArgSpec(text);
        } catch (const ArgSpecError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(err("t=tensormap(A)").find("expected tensormap(BUFFER, TYPE"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf17, dims=[1], box=[1])").find("unknown tensor map element type 'bf17'"),
              std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, box=[8])").find("needs dims=[...] and box=[...]"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8,8], box=[8])").find("box has 1 entries but dims 2"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8,8], box=[8,8], strides=[16,16])").find("strides gives"),
              std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[1,2,3,4,5,6], box=[1])").find("1 to 5 entries"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=8, box=[8])").find("list in brackets"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8], box=[8], swizzle=256B)").find("swizzle must be"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8], box=[8], colour=red)").find("unknown tensormap key 'colour'"),
              std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8], box=[8], dims=[8])").find("dims given twice"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8, box=[8])").find("unbalanced"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8], box=[8]").find("expected ')'"), std::string::npos);
    EXPECT_NE(err("t=tensormap(1+2, bf16, dims=[8], box=[8])").find("must name a buffer"), std::string::npos);
    EXPECT_NE(err("t=tensormap(A, bf16, dims=[8+], box=[8])").find("dims"), std::string::npos);
    // Long untrusted text is quoted only in part.
    const std::string longText = "t=tensormap(A, bf16, dims=[" + std::string(100000, '1') + "], box=[8])";
    EXPECT_LT(err(longText).size(), 400u);
}

TEST(TensorMapSpec, ResolvesByValueAndByPointer) {
    ResolvedLaunch r = resolveLaunch(tmaSpec(), tmaParams());
    ASSERT_EQ(r.tensorMaps.size(), 2u);
    ASSERT_EQ(r.buffers.size(), 3u);  // C (an argument) first, then the lets' A and B
    EXPECT_EQ(r.buffers[0].name, "C");
    EXPECT_EQ(r.buffers[1].name, "A");
    EXPECT_FALSE(r.buffers[1].output);  // a let's buffer is an input
    EXPECT_TRUE(r.buffers[0].output);   // unknown signature: argument buffers are outputs
    EXPECT_EQ(r.buffers[1].init.seed, 3u);
    EXPECT_EQ(r.buffers[2].count, 256 * 512);
    const TensorMapSpec& a = r.tensorMaps[0];
    EXPECT_EQ(a.buffer, 1);
    EXPECT_EQ(a.type, TensorMapType::BF16);
    EXPECT_EQ(a.rank, 2);
    EXPECT_EQ(a.dims, (std::vector<uint64_t>{512, 128}));
    EXPECT_EQ(a.strides, (std::vector<uint64_t>{1024}));  // packed: K × 2 bytes
    EXPECT_EQ(a.box, (std::vector<uint32_t>{64, 64}));
    EXPECT_EQ(a.elementStrides, (std::vector<uint32_t>{1, 1}));
    EXPECT_EQ(a.swizzle, TensorMapSwizzle::B128);
    EXPECT_EQ(r.tensorMaps[1].buffer, 2);
    EXPECT_EQ(r.tensorMaps[1].l2Promotion, TensorMapL2Promotion::B256);
    // Slots: the map by value at 0 (128 bytes), the map by pointer at 128, C at 136, n at 144.
    EXPECT_EQ(r.params[0].tensorMap, 0);
    EXPECT_EQ(r.params[0].size, 128);
    EXPECT_EQ(r.params[0].offset, 0);
    EXPECT_EQ(r.params[1].tensorMap, 1);
    EXPECT_EQ(r.params[1].size, 8);
    EXPECT_EQ(r.params[1].offset, 128);
    EXPECT_EQ(r.params[2].buffer, 0);
    EXPECT_EQ(r.params[3].offset, 144);
    EXPECT_EQ(r.paramBytes, 148);
    EXPECT_EQ(r.params[0].valueText, "tensormap(A, bf16, dims=[512,128], box=[64,64], swizzle=128B)");
    EXPECT_EQ(r.params[1].valueText,
              "tensormap(B, bf16, dims=[512,256], box=[64,64], swizzle=128B, l2promotion=256B) by pointer");
    EXPECT_EQ(r.grid, (std::array<uint32_t, 3>{4, 2, 1}));
    // The request carries the maps and the slots, and reads back the same.
    LaunchVariant v = makeVariant(r, {1, 2, 3}, "k");
    EXPECT_EQ(v.tensorMaps, r.tensorMaps);
    EXPECT_EQ(v.params[0].tensorMap, 0);
    EXPECT_EQ(v.params[1].tensorMap, 1);
    EXPECT_EQ(v.buffers.size(), 3u);
}

TEST(TensorMapSpec, ResolveErrorsNameTheProblem) {
    auto with = [](int arg, const std::string& text) {
        LaunchSpec s = tmaSpec();
        s.args[static_cast<size_t>(arg)] = text;
        return resolveError(s, tmaParams());
    };
    EXPECT_EQ(resolveError(tmaSpec(), tmaParams()), "no error");
    // A tensor map for a 4-byte parameter, a buffer for the 128-byte map.
    EXPECT_NE(with(3, "t=tensormap(A, bf16, dims=[K,M], box=[64,64])").find("goes to a const __grid_constant__ CUtensorMap"),
              std::string::npos);
    EXPECT_NE(with(0, "x=f32[4]").find("not a 64-bit pointer"), std::string::npos);
    // The aggregate without a map says what to write.
    EXPECT_NE(with(0, "x=3").find("give it as tensormap("), std::string::npos);
    // The named buffer must exist and be a buffer.
    EXPECT_NE(with(0, "t=tensormap(Z, bf16, dims=[K,M], box=[64,64])").find("'Z' is not a buffer argument or let"),
              std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(M, bf16, dims=[K,M], box=[64,64])").find("'M' is not a buffer"), std::string::npos);
    // More than the buffer holds.
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K,2*M], box=[64,64])").find("addresses 262144 bytes but its buffer has 131072"),
              std::string::npos);
    // The driver's rules, checked before the runner sees them.
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K,M], box=[4,64])").find("not a multiple of 16"), std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K,M], box=[128,64], swizzle=128B)").find("exceeds the 128B swizzle span"),
              std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K,M], box=[257,64])").find("box entry '257' = 257 is out of range"),
              std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K,M], strides=[1000], box=[64,64])").find("multiples of 16"),
              std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K-1,M], box=[64,64])").find("give strides=[...]"), std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K,M], box=[64,64], elem_strides=[9,1])").find("out of range"),
              std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, u8, dims=[K,M], box=[64,64], oobfill=nan)").find("floating-point"),
              std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[K,M], box=[64,64], interleave=32B)").find("rank 3..5"),
              std::string::npos);
    EXPECT_NE(with(0, "t=tensormap(A, bf16, dims=[0,M], box=[64,64])").find("out of range"), std::string::npos);
    // A map is not a number, and a let cannot be a map.
    EXPECT_NE(with(3, "n=tmA").find("'tmA' is a tensor map, not a number"), std::string::npos);
    LaunchSpec s = tmaSpec();
    s.lets.push_back("t=tensormap(A, bf16, dims=[K,M], box=[64,64])");
    EXPECT_NE(resolveError(s, tmaParams()).find("only scalars and buffers"), std::string::npos);
    s = tmaSpec();
    s.lets.push_back("M=1");
    EXPECT_NE(resolveError(s, tmaParams()).find("'M' is given twice"), std::string::npos);
    // A by-value parameter aligned below 64 is not a CUtensorMap.
    auto params = tmaParams();
    params[0].align = 16;
    EXPECT_NE(resolveError(tmaSpec(), params).find("aligned to 16, not 64"), std::string::npos);
    // Element sizes that differ from the buffer's are allowed, with a warning.
    ResolvedLaunch r = resolveLaunch([&] {
        LaunchSpec t = tmaSpec();
        t.args[0] = "t=tensormap(A, u8, dims=[2*K,M], box=[64,64])";
        return t;
    }(), tmaParams());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("differ in size"), std::string::npos);
}

TEST(TensorMapSpec, CheckAndExtent) {
    TensorMapSpec m;
    m.type = TensorMapType::F32;
    m.rank = 3;
    m.dims = {16, 4, 2};
    m.strides = {64, 512};  // row padding in the outer dimension
    m.box = {16, 4, 1};
    m.elementStrides = {1, 1, 1};
    EXPECT_EQ(tensorMapExtentBytes(m), 4 + 15 * 4 + 3 * 64 + 1 * 512u);
    EXPECT_EQ(checkTensorMap(m, 1024), "");
    EXPECT_NE(checkTensorMap(m, 700), "");
    m.interleave = TensorMapInterleave::B32;
    EXPECT_NE(checkTensorMap(m, 1024).find("swizzle=32B"), std::string::npos);
    m.swizzle = TensorMapSwizzle::B32;
    m.strides = {64, 512};
    EXPECT_EQ(checkTensorMap(m, 1024), "");
    m.strides = {48, 512};
    EXPECT_NE(checkTensorMap(m, 1024).find("multiples of 32"), std::string::npos);
    TensorMapSpec bad;
    EXPECT_NE(checkTensorMap(bad, 1 << 20), "");  // rank 0
    bad.rank = 2;
    bad.dims = {4};
    EXPECT_NE(checkTensorMap(bad, 1 << 20).find("entries"), std::string::npos);
    // Huge dims saturate instead of wrapping around.
    TensorMapSpec huge;
    huge.type = TensorMapType::F64;
    huge.rank = 5;
    huge.dims = {uint64_t(1) << 32, uint64_t(1) << 32, uint64_t(1) << 32, uint64_t(1) << 32, uint64_t(1) << 32};
    huge.strides = {(uint64_t(1) << 40) - 16, (uint64_t(1) << 40) - 16, (uint64_t(1) << 40) - 16, (uint64_t(1) << 40) - 16};
    huge.box = {2, 1, 1, 1, 1};
    huge.elementStrides = {1, 1, 1, 1, 1};
    EXPECT_EQ(tensorMapExtentBytes(huge), UINT64_MAX);
    EXPECT_NE(checkTensorMap(huge, int64_t(1) << 40).find("addresses"), std::string::npos);
}

TEST(ByteAggregate, ParsesAndPacksAsWritten) {
    std::vector<PtxParam> params = {PtxParam{"p0", "b8", 24, 8, 24, false}, PtxParam{"p1", "u32", 4, 4, 1, false}};
    LaunchSpec s;
    s.kernel = "k";
    s.grid = {"1"};
    s.block = {"1"};
    s.args = {"p=bytes(i32:n,-2 f32:0.5, u8:255 pad:3 hex:dead_beef f16:1 bf16:-2)", "n=7"};
    ResolvedLaunch r = resolveLaunch(s, params);
    const std::vector<uint8_t> want = {7, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0, 0, 0, 0x3f, 255, 0, 0, 0,
                                       0xde, 0xad, 0xbe, 0xef, 0x00, 0x3c, 0x00, 0xc0};
    EXPECT_EQ(r.params[0].scalar, want);
    EXPECT_EQ(r.params[0].valueText, "bytes(hex:07000000feffffff0000003fff000000...)");
    EXPECT_EQ(r.packedParams().size(), 28u);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), r.packedParams().begin()));
    // bytes(zeros) takes the parameter's size; bytes() works for a scalar slot too.
    s.args = {"p=bytes(zeros)", "n=bytes(u16:1,2)"};
    r = resolveLaunch(s, params);
    EXPECT_EQ(r.params[0].scalar, std::vector<uint8_t>(24, 0));
    EXPECT_EQ(r.params[1].scalar, (std::vector<uint8_t>{1, 0, 2, 0}));
    auto err = [&](const std::string& p0) {
        LaunchSpec t = s;
        t.args[0] = p0;
        return resolveError(t, params);
    };
    EXPECT_NE(err("p=bytes(i32:1)").find("gives 4 bytes but the parameter has 24"), std::string::npos);
    EXPECT_NE(err("p=bytes(u8:256 pad:23)").find("out of range [0, 255]"), std::string::npos);
    EXPECT_NE(err("p=bytes(i8:-129 pad:23)").find("out of range [-128, 127]"), std::string::npos);
    EXPECT_NE(err("p=bytes(i32:0.5 pad:20)").find("i32 value"), std::string::npos);
    EXPECT_NE(err("p=bytes(hex:abc pad:22)").find("even"), std::string::npos);
    EXPECT_NE(err("p=bytes(hex:zz)").find("hex digits only"), std::string::npos);
    EXPECT_NE(err("p=bytes(pad:0)").find("1 <= N"), std::string::npos);
    EXPECT_NE(err("p=bytes(1,2,3)").find("items are TYPE:values"), std::string::npos);
    EXPECT_NE(err("p=bytes(junk i32:1)").find("items are TYPE:values"), std::string::npos);
    EXPECT_NE(err("p=bytes()").find("needs items"), std::string::npos);
    EXPECT_NE(err("p=bytes(i32:)").find("at least one value"), std::string::npos);
    EXPECT_NE(err("p=bytes(pad:40000)").find("1 <= N <= 32764"), std::string::npos);
    EXPECT_NE(err("p=bytes(hex:" + std::string(70000, '0') + ")").find("64 KiB"), std::string::npos);
    EXPECT_NE(err("p=bytes(u16:" + [] {
                  std::string v;
                  for (int i = 0; i < 16400; ++i) v += "1,";
                  return v + "1";
              }() + ")")
                  .find("larger than 32764 bytes"),
              std::string::npos);
}

TEST(Cluster, ResolvesAndChecksAgainstTheGrid) {
    LaunchSpec s = tmaSpec();
    s.cluster = {"2", "1", "1"};
    ResolvedLaunch r = resolveLaunch(s, tmaParams());
    EXPECT_EQ(r.cluster, (std::array<uint32_t, 3>{2, 1, 1}));
    s.cluster = {"grid_x"};  // expressions of the grid, y and z default to 1
    r = resolveLaunch(s, tmaParams());
    EXPECT_EQ(r.cluster, (std::array<uint32_t, 3>{4, 1, 1}));
    EXPECT_TRUE(r.warnings.empty());
    s.cluster = {};
    EXPECT_EQ(resolveLaunch(s, tmaParams()).cluster, (std::array<uint32_t, 3>{0, 0, 0}));
    s.cluster = {"3"};
    EXPECT_NE(resolveError(s, tmaParams()).find("cluster x = 3 does not divide grid x = 4"), std::string::npos);
    s.cluster = {"0"};
    EXPECT_NE(resolveError(s, tmaParams()).find("must be 1..16"), std::string::npos);
    s.cluster = {"4", "2", "2"};
    s.grid = {"4", "2", "2"};
    EXPECT_EQ(resolveError(s, tmaParams()), "no error");
    r = resolveLaunch(s, tmaParams());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("not portable"), std::string::npos);
    s.cluster = {"4", "2", "4"};
    s.grid = {"4", "2", "4"};
    EXPECT_NE(resolveError(s, tmaParams()).find("larger than any GPU allows"), std::string::npos);
    s.cluster = {"1", "1", "1", "1"};
    EXPECT_NE(resolveError(s, tmaParams()).find("1 to 3"), std::string::npos);
}

TEST(Sidecar, LetsAndClusterAndTheTmaGemmSidecar) {
    auto specs = parseSidecar(R"({"kernels": [{"name": "k", "grid": [4, 2], "block": 128, "cluster": [2, 1, 1],
        "lets": ["A=bf16[64]"], "args": ["x=1"]}]})");
    ASSERT_EQ(specs.size(), 1u);
    EXPECT_EQ(specs[0].cluster, (std::vector<std::string>{"2", "1", "1"}));
    EXPECT_EQ(specs[0].lets, (std::vector<std::string>{"A=bf16[64]"}));
    for (const char* bad : {R"({"kernels": [{"name": "k", "grid": 1, "block": 1, "lets": "A=f32[1]"}]})",
                            R"({"kernels": [{"name": "k", "grid": 1, "block": 1, "lets": [1]}]})",
                            R"({"kernels": [{"name": "k", "grid": 1, "block": 1, "cluster": [1,1,1,1]}]})",
                            R"({"kernels": [{"name": "k", "grid": 1, "block": 1, "cluster": {}}]})"}) {
        EXPECT_THROW(parseSidecar(bad), ArgSpecError) << bad;
    }
    const std::string cu = std::string(LOWERSCOPE_SOURCE_DIR) + "/tests/gpu/kernels/tma_gemm.cu";
    auto tma = loadSidecar(sidecarPathFor(cu));
    ASSERT_EQ(tma.size(), 1u);
    EXPECT_EQ(tma[0].cluster.size(), 3u);
    EXPECT_EQ(tma[0].lets.size(), 2u);
    // Against the PTX nvcc writes for it (sm_90a), when the toolkit is here.
    Toolchain tc = discoverToolchain();
    if (!tc.problems().empty()) {
        GTEST_SKIP() << "toolchain incomplete: " << tc.problems().front();
    }
    BuildOptions o;
    o.arch = "sm_90a";
    BuildResult b = buildFile(tc, cu, o);
    ASSERT_FALSE(b.ptx.empty()) << b.error;
    PtxListing ptx = parsePtx(b.ptx);
    const PtxFunction* fn = nullptr;
    for (const auto& f : ptx.functions) {
        if (f.isEntry && f.name == "tma_gemm") fn = &f;
    }
    ASSERT_NE(fn, nullptr);
    ASSERT_EQ(fn->params.size(), 7u);
    EXPECT_EQ(fn->params[0].size, 128);
    EXPECT_GE(fn->params[0].align, 64);
    ResolvedLaunch r = resolveLaunch(tma[0], fn->params);
    EXPECT_EQ(r.params[0].tensorMap, 0);  // by value
    EXPECT_EQ(r.params[0].size, 128);
    EXPECT_EQ(r.params[1].tensorMap, 1);  // by pointer
    EXPECT_EQ(r.params[1].size, 8);
    EXPECT_EQ(r.cluster, (std::array<uint32_t, 3>{2, 1, 1}));
    EXPECT_EQ(r.sharedBytes, 4u * 16384 + 1024);
    EXPECT_EQ(r.grid, (std::array<uint32_t, 3>{4, 2, 1}));
    ASSERT_EQ(r.buffers.size(), 4u);  // C, info, then A and B
    EXPECT_TRUE(r.buffers[0].output && r.buffers[1].output);
    EXPECT_FALSE(r.buffers[2].output || r.buffers[3].output);
    EXPECT_TRUE(r.warnings.empty());
}
