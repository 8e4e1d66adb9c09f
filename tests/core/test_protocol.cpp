// Runner protocol: every message round-trips through JSON; malformed input gives ProtocolError.
#include "core/run/address_ranges.h"
#include "core/run/protocol.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

using namespace lowerscope;
using nlohmann::json;

namespace {

LaunchVariant sampleVariant() {
    LaunchVariant v;
    v.label = "A";
    v.cubin = {0x7f, 'E', 'L', 'F', 0, 1, 2, 255};
    v.kernel = "_Z5saxpyifPKfPf";
    v.grid = {65536, 1, 1};
    v.block = {256, 1, 1};
    v.sharedBytes = 1024;
    v.paramBytes = 24;
    v.params = {{"n", 0, 4, -1, {0, 0, 0, 1}}, {"a", 4, 4, -1, {0, 0, 0x20, 0x40}}, {"x", 8, 8, 0, {}},
                {"y", 16, 8, 1, {}}};
    v.buffers = {{"x", ElemType::F32, 1 << 24, {InitKind::Random, 1, 0}, false},
                 {"y", ElemType::BF16, 1 << 24, {InitKind::Const, 0, 3.5}, true}};
    v.buffers[0].init.run = 32; // random(seed=1, run=32) must survive the trip to the runner
    v.bytes = 12.0 * (1 << 24);
    v.flops = std::nullopt;
    return v;
}

template <typename T>
T roundTrip(const T& v) {
    json j = toJson(v);
    T back;
    fromJson(json::parse(j.dump()), back);
    return back;
}

} // namespace

TEST(Protocol, Base64) {
    for (size_t n = 0; n < 40; ++n) {
        std::vector<uint8_t> b(n);
        for (size_t i = 0; i < n; ++i) {
            b[i] = static_cast<uint8_t>(i * 37 + 11);
        }
        EXPECT_EQ(fromBase64(toBase64(b)), b) << n;
    }
    EXPECT_EQ(toBase64({'M', 'a', 'n'}), "TWFu");
    EXPECT_EQ(toBase64({'M'}), "TQ==");
    EXPECT_THROW(fromBase64("abc"), ProtocolError);
    EXPECT_THROW(fromBase64("ab=c"), ProtocolError);
    EXPECT_THROW(fromBase64("a!cd"), ProtocolError);
    EXPECT_THROW(fromBase64("TQ==TWFu"), ProtocolError);
}

TEST(Protocol, RequestRoundTrip) {
    RunRequest r;
    r.id = "7";
    r.mode = MeasureMode::Hot;
    r.stop.minSamples = 20;
    r.stop.maxNoise = 0.01;
    r.stop.wallLimitS = 3;
    r.kernelTimeoutS = 12;
    r.measureGraph = true;
    r.shareBuffers = false;
    r.returnOutputs = true;
    r.atol = 1e-3;
    r.rtol = 0;
    r.profileSamplePeriodLog2 = 14;
    r.variants = {sampleVariant(), sampleVariant()};
    r.variants[1].label = "B";
    json j = toJson(r);
    EXPECT_EQ(j["op"], "run");
    EXPECT_EQ(j["variants"][0]["params"][2]["buffer"], 0);
    EXPECT_EQ(j["variants"][0]["params"][0]["scalar_hex"], "00000001");
    EXPECT_TRUE(j["variants"][0]["flops"].is_null());
    EXPECT_EQ(roundTrip(r), r);
}

TEST(Protocol, ResultRoundTrip) {
    RunResult r;
    r.id = "3";
    r.device.name = "NVIDIA H200";
    r.device.ccMajor = 9;
    r.device.smCount = 132;
    r.device.clockMhz = 1980;
    r.device.l2Bytes = 52428800;
    r.device.copyBandwidthGBs = 4250.5;
    VariantResult v;
    v.label = "A";
    v.kernel = "_Z5saxpyifPKfPf";
    v.mode = "cold";
    v.resources = {16, 0, 0, 0, 1024};
    v.occupancy = {8, 64, 64, 1.0, 62.06};
    v.firstLaunchMs = 0.25;
    v.samplesMs = {0.1, 0.11, 0.105};
    v.sampleClockMhz = {1980, 1975, 1980};
    v.throttledSamples = 2;
    v.stopReason = "noise";
    OutputReport o;
    o.name = "y";
    o.count = 4;
    o.digest = "0123456789abcdef";
    o.fullyWritten = true;
    o.data = {1, 2, 3, 4};
    v.outputs = {o};
    GraphCosts g;
    g.launchesPerGraph = 100;
    g.captureMs = 0.5;
    g.breakEvenReplays = 3.5;
    v.graph = g;
    r.variants = {v};
    OutputAgreement a;
    a.name = "y";
    a.labelA = "A";
    a.labelB = "B";
    a.mismatches = 3;
    a.maxAbsError = 0.5;
    r.agreement = {a};
    r.wallS = 1.5;
    r.buffersShared = true;
    EXPECT_EQ(roundTrip(r), r);
    // Through a result line and the client-side parser.
    RunnerMessage m = parseRunnerMessage(resultLine(r));
    EXPECT_EQ(m.kind, RunnerMessage::Kind::Result);
    EXPECT_EQ(m.id, "3");
    EXPECT_EQ(m.result, r);
    // Without a graph.
    r.variants[0].graph.reset();
    EXPECT_EQ(roundTrip(r), r);
}

TEST(Protocol, ErrorsProgressAndHello) {
    RunError e{RunErrorKind::KernelFault, "the kernel faulted", "CUDA_ERROR_ILLEGAL_ADDRESS", 700, "first_launch", "A", true};
    RunnerMessage m = parseRunnerMessage(errorLine(e, "9"));
    EXPECT_EQ(m.kind, RunnerMessage::Kind::Error);
    EXPECT_EQ(m.error, e);
    EXPECT_EQ(m.id, "9");
    json j = json::parse(errorLine(e));
    EXPECT_EQ(j["error"]["kind"], "kernel_fault");
    EXPECT_EQ(j["error"]["cuda_error"], "CUDA_ERROR_ILLEGAL_ADDRESS");

    RunProgress p{"4", "measure", "B", 120, 0.004, 1.25};
    m = parseRunnerMessage(progressLine(p));
    EXPECT_EQ(m.kind, RunnerMessage::Kind::Progress);
    EXPECT_EQ(m.progress, p);

    DeviceInfo d;
    d.name = "GPU";
    d.smCount = 4;
    m = parseRunnerMessage(hello(d, "lowerscope-runner 0.1.0"));
    EXPECT_EQ(m.kind, RunnerMessage::Kind::Hello);
    EXPECT_EQ(m.protocol, kRunnerProtocolVersion);
    EXPECT_EQ(m.device, d);
    EXPECT_EQ(m.runnerVersion, "lowerscope-runner 0.1.0");
    EXPECT_EQ(roundTrip(d), d);
}

TEST(Protocol, ErrorKindsTravelByName) {
    // Every kind has its own wire name, and the name reads back as the same kind.
    const std::pair<RunErrorKind, const char*> kinds[] = {
        {RunErrorKind::NoDriver, "no_driver"},          {RunErrorKind::NoDevice, "no_device"},
        {RunErrorKind::DriverError, "driver_error"},    {RunErrorKind::BadRequest, "bad_request"},
        {RunErrorKind::ModuleLoad, "module_load"},      {RunErrorKind::KernelNotFound, "kernel_not_found"},
        {RunErrorKind::LaunchError, "launch_error"},    {RunErrorKind::OutOfMemory, "out_of_memory"},
        {RunErrorKind::KernelFault, "kernel_fault"},    {RunErrorKind::KernelTimeout, "kernel_timeout"},
        {RunErrorKind::CudaError, "cuda_error"},        {RunErrorKind::Throttled, "throttled"},
        {RunErrorKind::Internal, "internal"},           {RunErrorKind::Deadline, "deadline"},
        {RunErrorKind::RunnerExited, "runner_exited"},  {RunErrorKind::RunnerStart, "runner_start"},
        {RunErrorKind::Protocol, "protocol"},           {RunErrorKind::Cancelled, "cancelled"},
        {RunErrorKind::BadLaunch, "bad_launch"},        {RunErrorKind::Unknown, "unknown"},
        {RunErrorKind::NoCupti, "no_cupti"},            {RunErrorKind::ProfilingUnsupported, "profiling_unsupported"},
        {RunErrorKind::ProfilingNotPermitted, "profiling_not_permitted"},
        {RunErrorKind::ProfilerBusy, "profiler_busy"},  {RunErrorKind::CuptiError, "cupti_error"},
    };
    std::set<std::string> names;
    for (const auto& [kind, name] : kinds) {
        EXPECT_STREQ(runErrorKindName(kind), name);
        EXPECT_EQ(parseRunErrorKind(name), kind) << name;
        names.insert(name);
        RunError e;
        e.kind = kind;
        EXPECT_EQ(json::parse(errorLine(e))["error"]["kind"], name);
        EXPECT_EQ(parseRunnerMessage(errorLine(e)).error.kind, kind);
    }
    EXPECT_EQ(names.size(), std::size(kinds));
    // A kind from a newer runner, or none at all, is Unknown (never an exception).
    EXPECT_EQ(parseRunErrorKind("kernel_melted"), RunErrorKind::Unknown);
    EXPECT_EQ(parseRunnerMessage(R"({"error": {"kind": "kernel_melted", "message": "x"}})").error.kind,
              RunErrorKind::Unknown);
    EXPECT_EQ(parseRunnerMessage(R"({"error": {"message": "x"}})").error.kind, RunErrorKind::Unknown);
    // Setup errors (exit 2 in the CLI) against kernel errors (exit 1).
    EXPECT_TRUE(isSetupError(RunErrorKind::NoDevice));
    EXPECT_TRUE(isSetupError(RunErrorKind::RunnerStart));
    EXPECT_TRUE(isSetupError(RunErrorKind::BadRequest));
    EXPECT_FALSE(isSetupError(RunErrorKind::KernelFault));
    EXPECT_FALSE(isSetupError(RunErrorKind::Deadline));
}

TEST(Protocol, MalformedMessagesThrow) {
    for (const char* bad : {"", "nope", "[]", "{}", R"({"something": 1})", R"({"result": 3})",
                            R"({"result": {"variants": [{"samples_ms": ["x"]}]}})", R"({"error": []})",
                            R"({"progress": {"samples": "many"}})", R"({"hello": {"protocol": "one"}})"}) {
        EXPECT_THROW(parseRunnerMessage(bad), ProtocolError) << bad;
    }
    RunRequest r;
    for (const char* bad : {R"({"variants": []})", R"({"mode": "warm", "variants": [{}]})",
                            R"({"variants": [{"cubin_b64": "", "kernel": "k", "grid": [1,1], "block": [1,1,1]}]})",
                            R"({"variants": [{"grid": [0,1,1], "block": [1,1,1]}]})",
                            R"({"variants": [{"grid": [1,1,1], "block": [1,1,1], "param_bytes": 4,
                                "params": [{"offset": 0, "size": 8, "scalar_hex": "00"}]}]})",
                            R"({"variants": [{"grid": [1,1,1], "block": [1,1,1], "param_bytes": 8,
                                "params": [{"offset": 0, "size": 8, "buffer": 2}]}]})",
                            R"({"variants": [{"grid": [1,1,1], "block": [1,1,1],
                                "buffers": [{"name": "x", "type": "f17", "count": 4}]}]})",
                            R"({"variants": [{"grid": [1,1,1], "block": [1,1,1],
                                "buffers": [{"name": "x", "count": -4}]}]})",
                            R"({"variants": [{"grid": [1,1,1], "block": [1,1,1],
                                "buffers": [{"name": "x", "count": 4, "run": 0}]}]})",
                            R"({"profile_sample_period_log2": 40, "variants": [{"grid": [1,1,1], "block": [1,1,1]}]})"}) {
        EXPECT_THROW(fromJson(json::parse(bad), r), ProtocolError) << bad;
    }
}

TEST(Protocol, RandomLinesNeverCrash) {
    std::mt19937 rng(5);
    const std::string good = resultLine(RunResult{});
    for (int i = 0; i < 2000; ++i) {
        std::string s = good;
        int edits = 1 + static_cast<int>(rng() % 4);
        for (int k = 0; k < edits && !s.empty(); ++k) {
            size_t pos = rng() % s.size();
            s[pos] = static_cast<char>(rng() % 128);
        }
        try {
            parseRunnerMessage(s);
        } catch (const ProtocolError&) {
        }
    }
    SUCCEED();
}

TEST(Protocol, ModeNames) {
    EXPECT_EQ(parseMode("cold"), MeasureMode::Cold);
    EXPECT_EQ(parseMode("hot"), MeasureMode::Hot);
    EXPECT_EQ(parseMode("graph"), MeasureMode::Hot);
    EXPECT_EQ(parseMode("auto"), MeasureMode::Auto);
    EXPECT_FALSE(parseMode("lukewarm"));
    EXPECT_EQ(modeName(MeasureMode::Hot), "hot");
}

// Tensor maps and clusters (issue 29 item 3): they travel to the runner and are checked there.
TEST(Protocol, TensorMapsAndClusterRoundTrip) {
    LaunchVariant v = sampleVariant();
    v.paramBytes = 264;  // scalars and buffers up to 24, tmA at 128 (128 bytes), tmB at 256 (8)
    v.params.push_back(ParamSlot{"tmA", 128, 128, -1, {}, 0});
    v.params.push_back(ParamSlot{"tmB", 256, 8, -1, {}, 1});
    TensorMapSpec m;
    m.buffer = 1;
    m.type = TensorMapType::BF16;
    m.rank = 2;
    m.dims = {4096, 4096};
    m.strides = {8192};
    m.box = {64, 128};
    m.elementStrides = {1, 1};
    m.swizzle = TensorMapSwizzle::B128;
    m.l2Promotion = TensorMapL2Promotion::B256;
    m.oobFill = TensorMapOobFill::NanRequestZeroFma;
    v.tensorMaps = {m, m};
    v.tensorMaps[1].swizzle = TensorMapSwizzle::None;
    v.grid = {64, 2, 1};
    v.cluster = {2, 2, 1};
    json j = toJson(v);
    EXPECT_EQ(j["cluster"], json::array({2, 2, 1}));
    EXPECT_EQ(j["params"][4]["tensor_map"], 0);
    EXPECT_FALSE(j["params"][4].contains("scalar_hex"));
    EXPECT_EQ(j["tensor_maps"][0]["type"], "bf16");
    EXPECT_EQ(j["tensor_maps"][0]["swizzle"], "128B");
    EXPECT_EQ(j["tensor_maps"][0]["dims"], json::array({4096, 4096}));
    EXPECT_EQ(roundTrip(v), v);
    // Without maps or a cluster the variant is written as before.
    json plain = toJson(sampleVariant());
    EXPECT_FALSE(plain.contains("cluster"));
    EXPECT_FALSE(plain.contains("tensor_maps"));
    EXPECT_EQ(roundTrip(sampleVariant()), sampleVariant());

    // What the runner refuses: each edit below breaks one rule.
    auto refused = [&](const std::function<void(json&)>& edit) {
        json bad = toJson(v);
        edit(bad);
        LaunchVariant back;
        try {
            fromJson(json::parse(bad.dump()), back);
        } catch (const ProtocolError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(refused([](json&) {}), "accepted");
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["buffer"] = 5; }), "accepted");
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["dims"] = json::array({4096, 1 << 20}); }).find("bytes but its buffer"),
              std::string::npos);
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["box"] = json::array({300, 1}); }).find("1..256"),
              std::string::npos);
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["strides"] = json::array({8190}); }), "accepted");
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["dims"] = json::array({1, 2, 3, 4, 5, 6}); }), "accepted");
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["dims"] = json::array({-1, 2}); }), "accepted");
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["type"] = "bf17"; }), "accepted");
    EXPECT_NE(refused([](json& b) { b["tensor_maps"][0]["swizzle"] = "256B"; }), "accepted");
    EXPECT_NE(refused([](json& b) { b["tensor_maps"] = json::object(); }), "accepted");
    EXPECT_NE(refused([](json& b) { b["params"][4]["tensor_map"] = 7; }).find("missing tensor map"), std::string::npos);
    EXPECT_NE(refused([](json& b) { b["params"][4]["offset"] = 136; }).find("multiple of 64"), std::string::npos);
    EXPECT_NE(refused([](json& b) { b["params"][5]["size"] = 16; }).find("128 bytes"), std::string::npos);
    EXPECT_NE(refused([](json& b) { b["params"][5]["buffer"] = 0; }).find("not both"), std::string::npos);
    EXPECT_NE(refused([](json& b) { b["cluster"] = json::array({3, 1, 1}); }).find("divide"), std::string::npos);
    EXPECT_NE(refused([](json& b) { b["cluster"] = json::array({4, 2, 4}); }).find("16 blocks"), std::string::npos);
    EXPECT_NE(refused([](json& b) { b["cluster"] = json::array({0, 1, 1}); }), "accepted");
}

// The address ranges a replay runner holds (--hold-addresses): rounded out to 2 MiB pages, merged,
// written and read back; anything malformed, empty, wrapping or too large is refused.
TEST(AddressRanges, MergeFormatParseAndRefuse) {
    const uint64_t mib2 = uint64_t(2) << 20;
    const std::vector<AddressRange> merged = mergeAddressRanges(
        {{0x7ffdd8c00000, 0x7ffdd9000000}, {0x7ffdd8800000, 0x7ffdd8a00004}, {0x7ffdd9000000, 0x7ffdd9000001},
         {0x10, 0x10}, {0x7ffdc0000001, 0x7ffdc0000002}});
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0], (AddressRange{0x7ffdc0000000, 0x7ffdc0000000 + mib2}));
    EXPECT_EQ(merged[1], (AddressRange{0x7ffdd8800000, 0x7ffdd9000000 + mib2})); // touching ones joined
    const std::string text = formatAddressRanges(merged);
    EXPECT_EQ(text, "0x7ffdc0000000+2097152,0x7ffdd8800000+10485760");
    std::string error;
    const auto back = parseAddressRanges(text, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(*back, merged);
    EXPECT_TRUE(parseAddressRanges("", error).value().empty());
    for (const char* bad : {"0x1000", "0x1000+", "0x1000+0", "1000+4096", "0x1000+4k", "0x1000+4096,", ",0x1000+1",
                            "0xffffffffffffff00+512", "0x0+18446744073709551615"}) {
        EXPECT_FALSE(parseAddressRanges(bad, error)) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
    std::string many;
    for (size_t i = 0; i <= kMaxAddressRanges; ++i) many += (i ? "," : "") + addressHex(0x10000000 + i * 0x400000) + "+4096";
    EXPECT_FALSE(parseAddressRanges(many, error));
    EXPECT_NE(error.find("more than"), std::string::npos) << error;
}
