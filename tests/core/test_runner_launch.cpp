// Launch specs for Hopper kernels (issue 29 item 3) through the real lowerscope-runner on the fake
// GPU (run_fakes/fake_gpu.cpp): a spec with tensor maps, a cluster and opt-in shared memory is
// resolved (argspec), sent (protocol) and launched; the fake records what the runner asked the
// driver for ($FAKE_LAUNCH_LOG) and its probe kernel copies the tensor maps it received, by value
// and by pointer, into an output buffer.
#include "core/run/argspec.h"
#include "core/run/protocol.h"
#include "core/run/runner_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace lowerscope;

namespace {

struct LaunchLog {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("lowerscope-launch-log-" + std::to_string(::getpid()) + "-" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    LaunchLog() { std::filesystem::remove(path); }
    ~LaunchLog() { std::filesystem::remove(path); }
    std::vector<std::string> lines() const {
        std::ifstream f(path);
        std::vector<std::string> out;
        for (std::string l; std::getline(f, l);) out.push_back(l);
        return out;
    }
    size_t count(const std::string& prefix) const {
        const auto l = lines();
        return static_cast<size_t>(std::count_if(l.begin(), l.end(), [&](const std::string& x) { return x.rfind(prefix, 0) == 0; }));
    }
    bool has(const std::string& line) const {
        const auto l = lines();
        return std::find(l.begin(), l.end(), line) != l.end();
    }
};

RunnerConfig fakeGpu(const LaunchLog& log) {
    RunnerConfig c;
    c.command = {RUNNER_BIN};
    c.deadline = std::chrono::milliseconds(20000);
    c.env = {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}, {"FAKE_LAUNCH_LOG", log.path.string()}};
    return c;
}

// The PTX parameters of `fake_tensormap_probe(const __grid_constant__ CUtensorMap a,
// const CUtensorMap* b, uint8_t* out)`.
std::vector<PtxParam> probeParams() {
    return {PtxParam{"p0", "b8", 128, 128, 128, false}, PtxParam{"p1", "u64", 8, 8, 1, false},
            PtxParam{"p2", "u64", 8, 8, 1, false}};
}

LaunchSpec probeSpec() {
    LaunchSpec s;
    s.kernel = "fake_tensormap_probe";
    s.grid = {"4", "2"};
    s.block = {"128"};
    s.cluster = {"2", "1", "1"};
    s.sharedBytes = "100000";
    s.lets = {"A=bf16[M*K]:iota", "M=128", "K=512"};
    s.args = {"tmA=tensormap(A, bf16, dims=[K,M], box=[64,64], swizzle=128B)",
              "tmB=tensormap(A, f16, dims=[K,M/2], strides=[2048], box=[32,8], elem_strides=[2,1], l2promotion=256B, "
              "oobfill=nan)",
              "out=u8[256]:zeros"};
    s.outputs = {"out"};
    return s;
}

RunRequest requestFor(const LaunchSpec& spec, MeasureMode mode) {
    const ResolvedLaunch r = resolveLaunch(spec, probeParams());
    RunRequest req;
    req.mode = mode;
    req.returnOutputs = true;
    req.stop.minSamples = 5;
    req.stop.minGpuTimeS = 0.0001;
    req.stop.wallLimitS = 5;
    req.variants.push_back(makeVariant(r, {'f', 'a', 'k', 'e', 0x7f, 'E', 'L', 'F'}, spec.kernel));
    // What the runner reads back must be what was sent.
    LaunchVariant back;
    fromJson(toJson(req.variants[0]), back);
    EXPECT_EQ(back, req.variants[0]);
    return req;
}

// The text the fake's cuTensorMapEncodeTiled wrote into a map (up to its first NUL).
std::string mapText(const std::vector<uint8_t>& bytes, size_t at) {
    std::string s(reinterpret_cast<const char*>(bytes.data() + at), 128);
    return s.substr(0, s.find('\0'));
}

} // namespace

TEST(RunnerLaunch, TensorMapsReachTheKernelByValueAndByPointer) {
    LaunchLog log;
    ProcessRunner runner(fakeGpu(log));
    RunOutcome o = runner.run(requestFor(probeSpec(), MeasureMode::Cold));
    ASSERT_TRUE(o.ok) << runErrorKindName(o.error.kind) << ": " << o.error.message;
    const VariantResult& v = o.result.variants.at(0);
    ASSERT_EQ(v.outputs.size(), 1u);
    const std::vector<uint8_t>& out = v.outputs[0].data;
    ASSERT_EQ(out.size(), 256u);
    // bf16 = 9, rank 2, dims innermost first, packed stride K*2 bytes, swizzle 128B = 3; the buffer
    // is A (iota: bf16 0, 1 = 0000 803f).
    EXPECT_EQ(mapText(out, 0), "t9 r2 d512,128 s1024 b64,64 e1,1 i0 w3 l0 o0 a=0000803f");
    // f16 = 6, explicit stride, element strides, L2 256B = 3, NaN fill = 1; passed through a device copy.
    EXPECT_EQ(mapText(out, 128), "t6 r2 d512,64 s2048 b32,8 e2,1 i0 w0 l3 o1 a=0000803f");
    EXPECT_TRUE(v.outputs[0].fullyWritten);
    // Both maps encoded once at load, with the same text the kernel saw.
    EXPECT_EQ(log.count("encode "), 2u);
    EXPECT_TRUE(log.has("encode " + mapText(out, 0)));
    EXPECT_TRUE(log.has("encode " + mapText(out, 128)));
    // 100000 bytes of dynamic shared memory: the runner opted in (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8).
    EXPECT_TRUE(log.has("attr 8 100000"));
    EXPECT_EQ(log.count("attr 14 "), 0u); // a cluster of 2 is portable: no non-portable opt-in
    // Every launch of the kernel went through cuLaunchKernelEx with the cluster attribute.
    const size_t launches = log.count("launch_ex fake_tensormap_probe shared=100000 cluster=2,1,1");
    EXPECT_GE(launches, 3u + 5u); // first launch, two poison launches, at least the minimum samples
    EXPECT_EQ(log.count("launch_ex "), launches);
}

TEST(RunnerLaunch, ClusterLaunchesAreCapturedInHotMode) {
    LaunchLog log;
    ProcessRunner runner(fakeGpu(log));
    LaunchSpec spec = probeSpec();
    spec.cluster = {"4", "2"};  // 8 blocks: still portable
    spec.sharedBytes = "";
    RunOutcome o = runner.run(requestFor(spec, MeasureMode::Hot));
    ASSERT_TRUE(o.ok) << runErrorKindName(o.error.kind) << ": " << o.error.message;
    EXPECT_EQ(o.result.variants.at(0).mode, "hot");
    EXPECT_GE(log.count("launch_ex fake_tensormap_probe shared=0 cluster=4,2,1 captured"), 1u);
    EXPECT_EQ(log.count("attr 8 "), 0u); // no dynamic shared memory: no opt-in
}

TEST(RunnerLaunch, NonPortableClusterIsAllowedOnTheKernel) {
    LaunchLog log;
    ProcessRunner runner(fakeGpu(log));
    LaunchSpec spec = probeSpec();
    spec.grid = {"16"};
    spec.cluster = {"16"};
    RunOutcome o = runner.run(requestFor(spec, MeasureMode::Cold));
    ASSERT_TRUE(o.ok) << runErrorKindName(o.error.kind) << ": " << o.error.message;
    EXPECT_TRUE(log.has("attr 14 1")); // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    EXPECT_GE(log.count("launch_ex fake_tensormap_probe shared=100000 cluster=16,1,1"), 1u);
}

TEST(RunnerLaunch, SharedMemoryBeyondTheDeviceIsRefusedBeforeLaunch) {
    LaunchLog log;
    ProcessRunner runner(fakeGpu(log));
    LaunchSpec spec = probeSpec();
    spec.sharedBytes = "232448 + 1"; // the fake device's opt-in maximum is 232448
    RunOutcome o = runner.run(requestFor(spec, MeasureMode::Cold));
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::LaunchError);
    EXPECT_NE(o.error.message.find("232449"), std::string::npos) << o.error.message;
    EXPECT_NE(o.error.message.find("232448 bytes per block"), std::string::npos) << o.error.message;
    EXPECT_NE(o.error.message.find("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"), std::string::npos) << o.error.message;
    EXPECT_EQ(log.count("launch_ex "), 0u);
    EXPECT_EQ(log.count("attr 8 "), 0u);
    // The runner keeps serving: the same launch within the limit works.
    spec.sharedBytes = "232448";
    RunOutcome ok = runner.run(requestFor(spec, MeasureMode::Cold));
    EXPECT_TRUE(ok.ok) << ok.error.message;
    EXPECT_TRUE(log.has("attr 8 232448"));
}

TEST(RunnerLaunch, ByteAggregatesArePassedAsWritten) {
    LaunchLog log;
    ProcessRunner runner(fakeGpu(log));
    // The probe copies its first 128 parameter bytes: a 128-byte struct given as raw bytes.
    LaunchSpec spec = probeSpec();
    spec.args[0] = "s=bytes(i32:7,-1 f32:0.5 pad:4 hex:0102030405060708 u8:9 pad:103)";
    RunOutcome o = runner.run(requestFor(spec, MeasureMode::Cold));
    ASSERT_TRUE(o.ok) << runErrorKindName(o.error.kind) << ": " << o.error.message;
    const std::vector<uint8_t>& out = o.result.variants.at(0).outputs.at(0).data;
    ASSERT_EQ(out.size(), 256u);
    const std::vector<uint8_t> want = {7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x3f, 0, 0, 0, 0,
                                       1, 2, 3, 4, 5, 6, 7, 8, 9};
    EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()));
    EXPECT_TRUE(std::all_of(out.begin() + 25, out.begin() + 128, [](uint8_t b) { return b == 0; }));
    EXPECT_EQ(log.count("encode "), 1u); // only tmB is a tensor map now
}

TEST(RunnerLaunch, SharedBuffersInACompareGetTheirTensorMapsEncodedAgain) {
    LaunchLog log;
    ProcessRunner runner(fakeGpu(log));
    RunRequest req = requestFor(probeSpec(), MeasureMode::Cold);
    req.variants[0].label = "A";
    req.variants.push_back(req.variants[0]);
    req.variants[1].label = "B";
    req.shareBuffers = true;
    RunOutcome o = runner.run(req);
    ASSERT_TRUE(o.ok) << runErrorKindName(o.error.kind) << ": " << o.error.message;
    EXPECT_TRUE(o.result.buffersShared);
    // Two maps per variant at load, then B's two again over A's buffers.
    EXPECT_EQ(log.count("encode "), 6u);
    ASSERT_EQ(o.result.variants.size(), 2u);
    // The maps each variant's first launch saw (on its own buffers, before they were shared) say
    // the same but for the address word the fake keeps at byte 120 of each.
    const std::vector<uint8_t>& a = o.result.variants[0].outputs.at(0).data;
    const std::vector<uint8_t>& b = o.result.variants[1].outputs.at(0).data;
    ASSERT_EQ(a.size(), 256u);
    ASSERT_EQ(b.size(), 256u);
    EXPECT_TRUE(std::equal(a.begin(), a.begin() + 120, b.begin()));
    EXPECT_TRUE(std::equal(a.begin() + 128, a.begin() + 248, b.begin() + 128));
}
