// Replays of captured launches (issue 29 item 2) through the real lowerscope-runner on the fake GPU
// (run_fakes/fake_gpu.cpp): the request's regions are mapped back at their original addresses by
// the runner's virtual-memory code (the fake maps host memory there), the captured parameter bytes
// point into them, the kernel (x[i] += a * y[i]) runs on them, and each region comes back as an
// output. The fake can refuse every address (FAKE_VMM_RELOCATE): the parameter pointers are then
// relocated, or the request fails when the memory must keep its addresses.
#include "core/run/protocol.h"
#include "core/run/runner_client.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace lowerscope;

namespace {

// Far from anything the test process or the runner maps (below the usual mmap area).
constexpr uint64_t kX = 0x5a0000010000ull;
constexpr uint64_t kY = 0x5a0000030100ull; // shares no 64 KiB page with x; not page-aligned itself
constexpr int kN = 1000;

RunnerConfig fakeGpu(bool fixed, const std::map<std::string, std::string>& extra = {}) {
    RunnerConfig c;
    c.command = {RUNNER_BIN};
    if (fixed) c.command.push_back("--fixed-addresses");
    c.deadline = std::chrono::milliseconds(20000);
    c.env = {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}};
    for (const auto& [k, v] : extra) c.env[k] = v;
    return c;
}

std::vector<uint8_t> floats(int n, float first, float step) {
    std::vector<uint8_t> out(static_cast<size_t>(n) * 4);
    for (int i = 0; i < n; ++i) {
        const float v = first + step * static_cast<float>(i);
        std::memcpy(out.data() + 4 * i, &v, 4);
    }
    return out;
}

float at(const std::vector<uint8_t>& bytes, int i) {
    float v = 0;
    std::memcpy(&v, bytes.data() + 4 * i, 4);
    return v;
}

template <typename T>
std::vector<uint8_t> bytesOf(T v) {
    std::vector<uint8_t> out(sizeof v);
    std::memcpy(out.data(), &v, sizeof v);
    return out;
}

// fake_replay_axpy(float* x, const float* y, int n, float a) with the captured bytes.
LaunchVariant axpy(const std::string& label, uint64_t x = kX, uint64_t y = kY) {
    LaunchVariant v;
    v.label = label;
    v.cubin = {1, 2, 3};
    v.kernel = "fake_replay_axpy";
    v.grid = {4, 1, 1};
    v.block = {256, 1, 1};
    v.paramBytes = 24;
    v.params = {ParamSlot{"param0", 0, 8, -1, bytesOf(x), -1}, ParamSlot{"param1", 8, 8, -1, bytesOf(y), -1},
                ParamSlot{"param2", 16, 4, -1, bytesOf(kN), -1}, ParamSlot{"param3", 20, 4, -1, bytesOf(2.0f), -1}};
    return v;
}

// One block of 32 threads of `kernel` over captured parameter bytes (`params` in offset order).
LaunchVariant oneBlock(const std::string& kernel, std::vector<ParamSlot> params) {
    LaunchVariant v;
    v.cubin = {1, 2, 3};
    v.kernel = kernel;
    v.grid = {1, 1, 1};
    v.block = {32, 1, 1};
    v.paramBytes = params.back().offset + params.back().size;
    v.params = std::move(params);
    return v;
}

RunRequest replayRequest(std::vector<LaunchVariant> variants, bool requireOriginal = false) {
    RunRequest req;
    req.mode = MeasureMode::Cold;
    req.returnOutputs = true;
    req.stop.minSamples = 3;
    req.stop.minGpuTimeS = 0;
    req.stop.wallLimitS = 5;
    req.regions = {MemoryRegion{kX, floats(kN, 1.0f, 1.0f), ElemType::F32, requireOriginal},
                   MemoryRegion{kY, floats(kN, 0.5f, 0.0f), ElemType::F32, requireOriginal}};
    req.variants = std::move(variants);
    return req;
}

const OutputReport* output(const VariantResult& v, const std::string& name) {
    for (const OutputReport& o : v.outputs)
        if (o.name == name) return &o;
    return nullptr;
}

} // namespace

TEST(ReplayProtocol, RegionsRoundTripAndAreChecked) {
    RunRequest req = replayRequest({axpy("")});
    RunRequest back;
    fromJson(toJson(req), back);
    EXPECT_EQ(back, req);
    EXPECT_EQ(toJson(req)["regions"][0]["address"], "0x5a0000010000");

    nlohmann::json j = toJson(req);
    j["regions"][1]["address"] = "0x5a0000010100"; // inside the first region
    EXPECT_THROW(fromJson(j, back), ProtocolError);
    j = toJson(req);
    j["regions"][0]["address"] = "12345";
    EXPECT_THROW(fromJson(j, back), ProtocolError);
    j = toJson(req);
    j["regions"][0]["data_b64"] = "AAAA"; // 3 bytes: not a whole number of f32 elements
    EXPECT_THROW(fromJson(j, back), ProtocolError);

    RunResult r;
    r.regionsRelocated = {kX};
    RunResult rb;
    fromJson(toJson(r), rb);
    EXPECT_EQ(rb.regionsRelocated, r.regionsRelocated);
}

TEST(ReplayRunner, MemoryReturnsAtItsOriginalAddresses) {
    ProcessRunner runner(fakeGpu(true));
    const RunOutcome o = runner.run(replayRequest({axpy("")}));
    ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
    EXPECT_TRUE(o.result.regionsRelocated.empty());
    const VariantResult& v = o.result.variants.at(0);
    EXPECT_FALSE(v.samplesMs.empty());
    const OutputReport* x = output(v, "mem@0x5a0000010000");
    const OutputReport* y = output(v, "mem@0x5a0000030100");
    ASSERT_TRUE(x && y);
    ASSERT_EQ(x->data.size(), size_t(kN) * 4);
    EXPECT_EQ(x->type, ElemType::F32);
    // One launch on the captured memory: x[i] = (1 + i) + 2 * 0.5.
    for (int i : {0, 1, 500, kN - 1}) EXPECT_FLOAT_EQ(at(x->data, i), 2.0f + static_cast<float>(i)) << i;
    for (int i : {0, kN - 1}) EXPECT_FLOAT_EQ(at(y->data, i), 0.5f);
}

TEST(ReplayRunner, AVariantRunsOnTheSameRestoredMemory) {
    // Two variants of one kernel: each starts from the captured bytes (A's launch did not leak
    // into B's memory), so their memory agrees byte for byte.
    ProcessRunner runner(fakeGpu(true, {{"FAKE_REPLAY_KERNEL", "fake_replay_scaled"}}));
    // (FAKE_REPLAY_KERNEL names the fake's replay kernel; both variants use it.)
    LaunchVariant b = axpy("B");
    b.kernel = "fake_replay_scaled"; // the fake's replay kernel under another name
    LaunchVariant a = axpy("A");
    a.kernel = "fake_replay_scaled";
    RunRequest req = replayRequest({a, b});
    const RunOutcome o = runner.run(req);
    ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
    ASSERT_EQ(o.result.variants.size(), 2u);
    for (const VariantResult& v : o.result.variants) {
        const OutputReport* x = output(v, "mem@0x5a0000010000");
        ASSERT_TRUE(x);
        EXPECT_FLOAT_EQ(at(x->data, 10), 12.0f); // the same kernel: both from the captured state
    }
    ASSERT_FALSE(o.result.agreement.empty());
    for (const OutputAgreement& g : o.result.agreement) EXPECT_TRUE(g.sameDigest) << g.name;
}

TEST(ReplayRunner, ARebuiltVariantThatComputesOtherwiseDisagrees) {
    ProcessRunner runner(fakeGpu(true));
    LaunchVariant b = axpy("B");
    b.kernel = "fake_replay_axpy_fast"; // computes with 3a
    const RunOutcome o = runner.run(replayRequest({axpy("A"), b}));
    ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
    const OutputReport* xa = output(o.result.variants.at(0), "mem@0x5a0000010000");
    const OutputReport* xb = output(o.result.variants.at(1), "mem@0x5a0000010000");
    ASSERT_TRUE(xa && xb);
    EXPECT_FLOAT_EQ(at(xa->data, 10), 11.0f + 1.0f);
    EXPECT_FLOAT_EQ(at(xb->data, 10), 11.0f + 3.0f);
    ASSERT_EQ(o.result.agreement.size(), 2u);
    EXPECT_EQ(o.result.agreement[0].name, "mem@0x5a0000010000");
    EXPECT_FALSE(o.result.agreement[0].agree);
    EXPECT_EQ(o.result.agreement[0].mismatches, kN);
    EXPECT_TRUE(o.result.agreement[1].sameDigest); // y is only read
}

TEST(ReplayRunner, RefusedAddressesRelocateTheParameters) {
    ProcessRunner runner(fakeGpu(true, {{"FAKE_VMM_RELOCATE", "1"}}));
    const RunOutcome o = runner.run(replayRequest({axpy("")}));
    ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
    EXPECT_EQ(o.result.regionsRelocated, (std::vector<uint64_t>{kX, kY}));
    const OutputReport* x = output(o.result.variants.at(0), "mem@0x5a0000010000");
    ASSERT_TRUE(x);
    EXPECT_FLOAT_EQ(at(x->data, 7), 9.0f); // the kernel found its data through the relocated pointers
}

// The driver's own pool lands where the program had its memory (FAKE_DRIVER_POOL_AT: as the
// runner's host mappings and the driver's pools can in a real process). Without a hold the replay
// must relocate and says what sits there; with the range held from the start it gets the address.
TEST(ReplayRunner, HeldAddressesKeepTheDriversPoolsAway) {
    const std::map<std::string, std::string> pool{{"FAKE_DRIVER_POOL_AT", "5a0000000000"}};
    {
        ProcessRunner runner(fakeGpu(true, pool));
        const RunOutcome o = runner.run(replayRequest({axpy("")}));
        ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
        EXPECT_EQ(o.result.regionsRelocated, (std::vector<uint64_t>{kX, kY}));
        EXPECT_NE(o.runnerStderr.find("mapped there in this process: 5a0000000000-"), std::string::npos)
            << o.runnerStderr;
    }
    RunnerConfig held = fakeGpu(true, pool);
    held.command.push_back("--hold-addresses");
    held.command.push_back("0x5a0000000000+2097152");
    ProcessRunner runner(held);
    for (int request = 0; request < 2; ++request) { // held again after the first request gave it back
        const RunOutcome o = runner.run(replayRequest({axpy("")}));
        ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
        EXPECT_TRUE(o.result.regionsRelocated.empty()) << o.runnerStderr;
        const OutputReport* x = output(o.result.variants.at(0), "mem@0x5a0000010000");
        ASSERT_TRUE(x);
        EXPECT_FLOAT_EQ(at(x->data, 7), 9.0f);
    }
}

TEST(ReplayRunner, BadHoldListsAreRefusedAtTheStart) {
    for (const char* bad : {"0x5a0000000000", "5a0000000000+4096", "0x5a0000000000+0", "0xffffffffffff0000+1048576"}) {
        RunnerConfig c = fakeGpu(true);
        c.command.push_back("--hold-addresses");
        c.command.push_back(bad);
        ProcessRunner runner(c);
        const RunOutcome o = runner.run(replayRequest({axpy("")}));
        EXPECT_FALSE(o.ok) << bad;
        EXPECT_NE(o.runnerStderr.find("--hold-addresses"), std::string::npos) << bad << ": " << o.runnerStderr;
    }
}

// A pointer stored in device memory (the fake's add_kernel reads its counter through table[0]):
// where the driver gives other addresses, the stored pointer moves with the memory it points
// into, the kernel reaches the counter through it, and the table reads back as the program had
// it (the pointer moved back), so it compares with the program's memory.
TEST(ReplayRunner, PointersStoredInMemoryMoveWithTheirMemory) {
    constexpr uint64_t kTable = 0x5a0000050000ull, kCounter = 0x5a0000070000ull;
    const LaunchVariant v =
        oneBlock("add_kernel", {ParamSlot{"param0", 0, 8, -1, bytesOf(kX), -1}, ParamSlot{"param1", 8, 8, -1, bytesOf(kY), -1},
                                ParamSlot{"param2", 16, 8, -1, bytesOf(kTable), -1},
                                ParamSlot{"param3", 24, 4, -1, bytesOf(kN), -1}});
    for (const bool refuse : {false, true}) {
        ProcessRunner runner(fakeGpu(true, {{"FAKE_ADD_KERNEL", "1"}, {"FAKE_VMM_RELOCATE", refuse ? "1" : "0"}}));
        RunRequest req = replayRequest({v});
        req.stop.minSamples = 1;
        req.stop.maxSamples = 1;
        req.mode = MeasureMode::Cold;
        MemoryRegion table{kTable, bytesOf(kCounter), ElemType::U8, false, true};
        MemoryRegion counter{kCounter, std::vector<uint8_t>(16, 0), ElemType::U8, false, false};
        req.regions.push_back(table);
        req.regions.push_back(counter);
        const RunOutcome o = runner.run(req);
        ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
        EXPECT_EQ(o.result.regionsRelocated.size(), refuse ? 4u : 0u);
        EXPECT_EQ(o.runnerStderr.find("1 pointer stored in the memory at 0x5a0000050000 moved") != std::string::npos, refuse)
            << o.runnerStderr;
        const VariantResult& r = o.result.variants.at(0);
        const OutputReport* t = output(r, "mem@0x5a0000050000");
        const OutputReport* c = output(r, "mem@0x5a0000070000");
        ASSERT_TRUE(t && c);
        EXPECT_EQ(t->data, bytesOf(kCounter)) << "the stored pointer reads back as the program had it";
        uint32_t count = 0;
        std::memcpy(&count, c->data.data(), 4);
        EXPECT_EQ(count, 1u) << "the kernel reached the counter through the stored pointer (refused=" << refuse << ")";
    }
}

// Tensor maps of a captured Hopper launch (a by-value map and one kept in device memory): where the
// driver gives the memory other addresses the runner re-points them through the driver
// (cuTensorMapReplaceAddress; the fake's map holds its address as a word at byte 120), the kernel
// sees maps of the moved memory, and the map in memory reads back as the program had it.
TEST(ReplayRunner, TensorMapsArePointedAtTheirMemorysNewPlace) {
    constexpr uint64_t kMap = 0x5a0000050000ull, kOut = 0x5a0000070000ull;
    auto fakeMap = [](uint64_t address) {
        std::vector<uint8_t> m(128, 0);
        const std::string text = "t9 r2 d512,128 s1024 b64,64 e1,1 i0 w3 l0 o0 a=0000803f";
        std::memcpy(m.data(), text.data(), text.size());
        std::memcpy(m.data() + 120, &address, 8);
        return m;
    };
    auto word = [](const std::vector<uint8_t>& b, size_t at) {
        uint64_t w = 0;
        std::memcpy(&w, b.data() + at, 8);
        return w;
    };
    const LaunchVariant v = oneBlock("fake_tensormap_probe", {ParamSlot{"param0", 0, 128, -1, fakeMap(kX + 0x40), -1},
                                                              ParamSlot{"param1", 128, 8, -1, bytesOf(kMap), -1},
                                                              ParamSlot{"param2", 136, 8, -1, bytesOf(kOut), -1}});
    for (const bool refuse : {false, true}) {
        ProcessRunner runner(fakeGpu(true, {{"FAKE_VMM_RELOCATE", refuse ? "1" : "0"}}));
        RunRequest req = replayRequest({v});
        req.stop.minSamples = 1;
        req.stop.maxSamples = 1;
        req.regions.push_back(MemoryRegion{kMap, fakeMap(kY), ElemType::U8, false, true});
        req.regions.push_back(MemoryRegion{kOut, std::vector<uint8_t>(256, 0), ElemType::U8, false, false});
        const RunOutcome o = runner.run(req);
        ASSERT_TRUE(o.ok) << o.error.message << "\n" << o.runnerStderr;
        EXPECT_EQ(o.result.regionsRelocated.size(), refuse ? 4u : 0u);
        const VariantResult& r = o.result.variants.at(0);
        const OutputReport* out = output(r, "mem@0x5a0000070000");
        const OutputReport* map = output(r, "mem@0x5a0000050000");
        ASSERT_TRUE(out && map);
        ASSERT_EQ(out->data.size(), 256u);
        // What the kernel saw: the by-value map and the map in memory, each pointing into its
        // operand's place now (the same offset in its page), text untouched.
        const uint64_t byValue = word(out->data, 120), inMemory = word(out->data, 128 + 120);
        EXPECT_EQ(byValue == kX + 0x40, !refuse) << std::hex << byValue;
        EXPECT_EQ(inMemory == kY, !refuse) << std::hex << inMemory;
        EXPECT_EQ(byValue % 4096, (kX + 0x40) % 4096);
        EXPECT_EQ(inMemory % 4096, kY % 4096);
        EXPECT_EQ(std::memcmp(out->data.data(), fakeMap(0).data(), 120), 0);
        // The map in memory reads back as the program had it.
        EXPECT_EQ(map->data, fakeMap(kY));
        EXPECT_EQ(o.runnerStderr.find("tensor map in the memory at 0x5a0000050000 re-pointed") != std::string::npos, refuse)
            << o.runnerStderr;
    }
}

TEST(ReplayRunner, MemoryThatMustKeepItsAddressesFailsClearly) {
    ProcessRunner runner(fakeGpu(true, {{"FAKE_VMM_RELOCATE", "1"}}));
    const RunOutcome o = runner.run(replayRequest({axpy("")}, true));
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.error.kind, RunErrorKind::BadRequest);
    EXPECT_NE(o.error.message.find("cannot be mapped at its original address"), std::string::npos) << o.error.message;
}

TEST(ReplayRunner, NeedsTheFixedAddressRunner) {
    ProcessRunner runner(fakeGpu(false));
    const RunOutcome o = runner.run(replayRequest({axpy("")}));
    ASSERT_FALSE(o.ok);
    EXPECT_NE(o.error.message.find("--fixed-addresses"), std::string::npos) << o.error.message;
    // The same runner still measures ordinary requests afterwards (nothing was left mapped).
    RunRequest plain = replayRequest({axpy("")});
    plain.regions.clear();
    plain.variants[0].kernel = "plain_kernel";
    const RunOutcome p = runner.run(plain);
    EXPECT_TRUE(p.ok) << p.error.message;
}
