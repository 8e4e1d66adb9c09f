// The bookkeeping of `lowerscope-cli capture` without CUPTI or a GPU (core/capture): the launch
// filter, the injection's event lines written and read back (malformed and hostile lines
// skipped), launch order, per-kernel statistics and the kernel table of the document, and the
// document read back as untrusted input (schema, types, indices, cubin names and paths); the
// snapshots of saved launches as event lines, in the document, and their files read back.
#include "core/bounded_json.h"
#include "core/build/cache.h"
#include "core/capture/capture_document.h"
#include "core/capture/capture_events.h"
#include "core/capture/launch_filter.h"
#include "core/capture/launch_snapshot.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace lowerscope;
using namespace lowerscope::capture;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

CapturedLaunch launch(uint32_t corr, const std::string& name, uint64_t start, uint64_t ns, uint32_t pid = 100) {
    CapturedLaunch k;
    k.pid = pid;
    k.correlationId = corr;
    k.name = name;
    k.grid = {4, 1, 1};
    k.block = {128, 1, 1};
    k.startNs = start;
    k.endNs = start + ns;
    return k;
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "ls_capture_XXXXXX").string();
        path = ::mkdtemp(t.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// A log of one process: the stream the injection would write for five launches of two kernels,
// delivered out of order.
CaptureLog sampleLog() {
    CaptureLog log;
    EXPECT_TRUE(log.addLine(processEventLine(100, "130001", "")));
    EXPECT_TRUE(log.addLine(kernelEventLine(launch(14, "_Z3addPf", 3000, 20000))));
    EXPECT_TRUE(log.addLine(kernelEventLine(launch(10, "_Z3addPf", 1000, 30000))));
    EXPECT_TRUE(log.addLine(kernelEventLine(launch(12, "_Z3addPf", 2000, 10000))));
    EXPECT_TRUE(log.addLine(kernelEventLine(launch(11, "_Z6helperv", 1500, 5000))));
    EXPECT_TRUE(log.addLine(kernelEventLine(launch(13, "_Z6helperv", 2500, 7000))));
    EXPECT_TRUE(log.addLine(endEventLine(100, 0)));
    return log;
}

} // namespace

TEST(CaptureFilter, SkipsThenCountsMatchingLaunchesOnly) {
    LaunchFilter f({"add", 1, 2});
    std::vector<bool> got;
    for (const char* n : {"add", "mul", "add", "add", "mul", "add", "add"}) got.push_back(f.next(n, n));
    EXPECT_EQ(got, (std::vector<bool>{false, false, true, true, false, false, false}));
    EXPECT_TRUE(f.done());
    EXPECT_EQ(f.selected(), 2u);
}

TEST(CaptureFilter, AKernelsMatchTakenOnceSelectsAsItsNamesDo) {
    LaunchFilter byNames({"add", 1, 2}), byMatch({"add", 1, 2});
    for (const char* n : {"add", "mul", "add", "add", "mul", "add", "add"})
        EXPECT_EQ(byNames.next(n, n), byMatch.next(byMatch.matches(n, n))) << n;
    EXPECT_EQ(byNames.selected(), byMatch.selected());
    EXPECT_EQ(byNames.matched(), byMatch.matched());
}

TEST(CaptureFilter, NoRegexSelectsEverythingAfterTheSkip) {
    LaunchFilter f({"", 2, std::nullopt});
    int selected = 0;
    for (int i = 0; i < 10; ++i) selected += f.next("k", "k") ? 1 : 0;
    EXPECT_EQ(selected, 8);
    EXPECT_FALSE(f.done());
}

TEST(CaptureFilter, MatchesTheDemangledOrTheMangledName) {
    LaunchFilter f({"^void scaled_gemm<8>", 0, std::nullopt});
    EXPECT_TRUE(f.matches("_Z11scaled_gemmILi8EEvv", "void scaled_gemm<8>()"));
    EXPECT_FALSE(f.matches("_Z11scaled_gemmILi4EEvv", "void scaled_gemm<4>()"));
    LaunchFilter m({"ILi4E", 0, std::nullopt});
    EXPECT_TRUE(m.matches("_Z11scaled_gemmILi4EEvv", "void scaled_gemm<4>()"));
}

TEST(CaptureFilter, AnInvalidOrHugeRegexIsRefusedWithASentence) {
    EXPECT_THROW(LaunchFilter({"(unclosed", 0, std::nullopt}), std::invalid_argument);
    EXPECT_THROW(LaunchFilter({std::string(2000, 'a'), 0, std::nullopt}), std::invalid_argument);
}

TEST(CaptureEvents, EveryEventRoundTrips) {
    CaptureLog log;
    CapturedLaunch k = launch(7, "_Z1kv", 100, 50, 42);
    k.cluster = {2, 1, 1};
    k.dynamicSmem = 4096;
    k.staticSmem = 512;
    k.registers = 40;
    k.stream = 13;
    k.device = 1;
    k.graphId = 3;
    k.graphNodeId = 99;
    ASSERT_TRUE(log.addLine(kernelEventLine(k)));
    ASSERT_TRUE(log.addLine(moduleEventLine({42, 5, std::string(32, 'a'), 1234})));
    ASSERT_TRUE(log.addLine(deviceEventLine({42, 1, "NVIDIA H200", 9, 0})));
    ASSERT_TRUE(log.addLine(processEventLine(42, "130001", "")));
    ASSERT_TRUE(log.addLine(endEventLine(42, 6)));
    ASSERT_EQ(log.launches.size(), 1u);
    const CapturedLaunch& r = log.launches[0];
    EXPECT_EQ(r.name, "_Z1kv");
    EXPECT_EQ(r.cluster, (std::array<int64_t, 3>{2, 1, 1}));
    EXPECT_EQ(r.dynamicSmem, 4096);
    EXPECT_EQ(r.staticSmem, 512);
    EXPECT_EQ(r.registers, 40);
    EXPECT_EQ(r.stream, 13u);
    EXPECT_EQ(r.device, 1u);
    EXPECT_EQ(r.graphNodeId, 99u);
    EXPECT_EQ(r.durationNs(), 50u);
    ASSERT_EQ(log.modules.size(), 1u);
    EXPECT_EQ(log.modules[0].bytes, 1234u);
    ASSERT_EQ(log.devices.size(), 1u);
    EXPECT_EQ(log.devices[0].name, "NVIDIA H200");
    ASSERT_EQ(log.processes.size(), 1u);
    EXPECT_TRUE(log.processes[0].flushed);
    EXPECT_EQ(log.processes[0].dropped, 6u);
    EXPECT_EQ(log.skippedLines, 0u);
}

TEST(CaptureEvents, MalformedAndHostileLinesAreSkippedAndCounted) {
    CaptureLog log;
    json k = json::parse(kernelEventLine(launch(1, "_Z1kv", 10, 5)));
    auto with = [&](const char* key, json v) {
        json j = k;
        j[key] = std::move(v);
        return j.dump();
    };
    const std::vector<std::string> bad = {
        "",
        "not json",
        "[1,2,3]",
        R"({"e":"kernel"})",
        with("grid", json::array({1, 2})),
        with("grid", json::array({1, -2, 3})),
        with("block", "128"),
        with("start", 100), // ends (15) before it starts
        with("pid", -1),
        with("name", ""),
        R"({"e":"module","pid":1,"module":1,"hash":"../../etc/passwd","bytes":4})",
        R"({"e":"module","pid":1,"module":1,"hash":"ABCDEF0123456789ABCDEF0123456789","bytes":4})",
        R"({"e":"device","pid":1,"id":0,"name":"x","cc":"9.0"})",
        R"({"e":"wat","pid":1})",
        std::string(200, '[') + std::string(200, ']'),
        std::string(kMaxEventLineBytes + 10, ' '),
    };
    for (const auto& line : bad) EXPECT_FALSE(log.addLine(line)) << line.substr(0, 80);
    EXPECT_EQ(log.skippedLines, bad.size());
    EXPECT_TRUE(log.launches.empty());
    EXPECT_TRUE(log.modules.empty());
    EXPECT_TRUE(log.devices.empty());
}

TEST(CaptureEvents, AFileIsReadLineByLineAndATornLastLineIsSkipped) {
    TempDir dir;
    const fs::path file = dir.path / "events-1.jsonl";
    {
        std::ofstream out(file, std::ios::binary);
        out << processEventLine(1, "130001", "") << kernelEventLine(launch(1, "_Z1kv", 10, 5))
            << std::string(kMaxEventLineBytes + 5, 'x') << '\n'
            << kernelEventLine(launch(2, "_Z1kv", 20, 5)) << R"({"e":"kernel","pid":1,"co)";
    }
    CaptureLog log;
    std::string error;
    ASSERT_TRUE(log.addFile(file.string(), error)) << error;
    EXPECT_EQ(log.launches.size(), 2u);
    EXPECT_EQ(log.skippedLines, 2u); // the overlong line and the torn one
    EXPECT_FALSE(log.addFile((dir.path / "missing.jsonl").string(), error));
}

TEST(CaptureEvents, LaunchesAreOrderedByProcessThenCorrelationThenStart) {
    CaptureLog log;
    log.addLine(kernelEventLine(launch(5, "_Z1bv", 900, 1, 200)));
    log.addLine(kernelEventLine(launch(9, "_Z1av", 100, 1, 100)));
    log.addLine(kernelEventLine(launch(3, "_Z1av", 50, 1, 100)));
    log.addLine(kernelEventLine(launch(3, "_Z1gv", 40, 1, 100))); // a graph's nodes share the id
    log.addLine(kernelEventLine(launch(1, "_Z1bv", 10, 1, 200)));
    std::vector<std::pair<uint32_t, uint32_t>> order;
    const std::vector<size_t> indices = log.launchOrder();
    for (size_t i : indices) order.emplace_back(log.launches[i].pid, log.launches[i].correlationId);
    EXPECT_EQ(order, (std::vector<std::pair<uint32_t, uint32_t>>{{200, 1}, {200, 5}, {100, 3}, {100, 3}, {100, 9}}));
    EXPECT_EQ(log.launches[indices.at(2)].name, "_Z1gv");
}

TEST(CaptureDocument, KernelTableHasCountsMediansSharesAndIsSortedByTotal) {
    const CaptureLog log = sampleLog();
    CaptureRunInfo run;
    run.program = "./app";
    run.args = {"--n", "5"};
    const json doc = captureDocument(log, run, {"add", 1, 1}, {});
    EXPECT_EQ(doc["schema"], "lowerscope.capture/1");
    EXPECT_EQ(doc["launch_total"], 5);
    EXPECT_DOUBLE_EQ(doc["total_gpu_ns"].get<double>(), 72000.0);
    ASSERT_EQ(doc["kernels"].size(), 2u);
    const json& add = doc["kernels"][0];
    EXPECT_EQ(add["name"], "_Z3addPf");
    EXPECT_EQ(add["demangled"], "add(float*)");
    EXPECT_EQ(add["count"], 3);
    EXPECT_DOUBLE_EQ(add["total_ns"].get<double>(), 60000.0);
    EXPECT_DOUBLE_EQ(add["median_ns"].get<double>(), 20000.0);
    EXPECT_DOUBLE_EQ(add["min_ns"].get<double>(), 10000.0);
    EXPECT_DOUBLE_EQ(add["max_ns"].get<double>(), 30000.0);
    EXPECT_NEAR(add["share"].get<double>(), 60.0 / 72.0, 1e-12);
    EXPECT_LE(add["ci_low_ns"].get<double>(), 20000.0);
    EXPECT_GE(add["ci_high_ns"].get<double>(), 20000.0);
    EXPECT_EQ(add["selected"], 1);
    const json& helper = doc["kernels"][1];
    EXPECT_EQ(helper["count"], 2);
    EXPECT_DOUBLE_EQ(helper["median_ns"].get<double>(), 6000.0);
    // Launch order is the correlation order; the filter took the second add launch only.
    ASSERT_EQ(doc["launches"].size(), 5u);
    std::vector<int> corr, selected;
    for (const auto& l : doc["launches"]) {
        corr.push_back(l["correlation"]);
        if (l["selected"].get<bool>()) selected.push_back(l["correlation"]);
    }
    EXPECT_EQ(corr, (std::vector<int>{10, 11, 12, 13, 14}));
    EXPECT_EQ(selected, (std::vector<int>{12}));
    EXPECT_EQ(doc["launches"][0]["kernel"], 0); // index of add in the sorted table
    EXPECT_EQ(doc["launches"][1]["kernel"], 1);
    EXPECT_EQ(doc["launches"][0]["duration_ns"], 30000);
    // No module holds them: said so.
    const std::string notes = doc["notes"].dump();
    EXPECT_NE(notes.find("no saved module holds add(float*)"), std::string::npos) << notes;

    CaptureSummary s;
    std::string error;
    ASSERT_TRUE(readCaptureDocument(doc, s, error)) << error;
    const std::string table = kernelTableText(s);
    EXPECT_NE(table.find("83.3"), std::string::npos) << table;
    EXPECT_NE(table.find("60.000"), std::string::npos) << table;
    EXPECT_LT(table.find("add"), table.find("helper")) << table;
}

TEST(CaptureDocument, AProcessThatDidNotFlushOrCouldNotRecordIsNoted) {
    CaptureLog log;
    log.addLine(processEventLine(1, "130001", ""));
    log.addLine(processEventLine(2, "", "cuptiSubscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"));
    const json doc = captureDocument(log, {}, {}, {});
    const std::string notes = doc["notes"].dump();
    EXPECT_NE(notes.find("process 1 ended without flushing"), std::string::npos) << notes;
    EXPECT_NE(notes.find("process 2 was not recorded: cuptiSubscribe"), std::string::npos) << notes;
    const json empty = captureDocument(CaptureLog{}, {}, {}, {});
    EXPECT_NE(empty["notes"].dump().find("no process of the program initialised CUDA"), std::string::npos);
}

TEST(CaptureDocument, ModulesAreDescribedFromTheSavedCubinsAndCheckedAgainstTheirHash) {
    TempDir dir;
    // A real cubin of the test data (a Triton kernel, add_kernel) saved as the injection would.
    std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) +
                         "/tests/data/triton/cache/GVJ5JLWJO4FI5T6C3ZJORNRNHWSRSYR6A5QVSPS2G2X3LGKK4TOA/add_kernel.cubin",
                     std::ios::binary);
    const std::string cubin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(cubin.empty());
    const std::string hash = xxh3Hex(cubin.data(), cubin.size());
    std::ofstream(dir.path / (hash + ".cubin"), std::ios::binary) << cubin;
    const std::string other(32, 'b');
    std::ofstream(dir.path / (other + ".cubin"), std::ios::binary) << "not the cubin of that hash";

    CaptureLog log;
    log.addLine(moduleEventLine({1, 1, hash, cubin.size()}));
    log.addLine(moduleEventLine({2, 7, hash, cubin.size()})); // another process, same bytes
    log.addLine(moduleEventLine({1, 2, other, 26}));
    log.addLine(moduleEventLine({1, 3, std::string(32, 'c'), 10})); // never saved
    log.addLine(kernelEventLine(launch(1, "add_kernel", 10, 5)));
    const auto modules = describeModules(log, dir.path.string());
    ASSERT_EQ(modules.size(), 3u);
    EXPECT_EQ(modules[0].error, "");
    EXPECT_EQ(modules[0].file, hash + ".cubin");
    EXPECT_EQ(modules[0].kernels, (std::vector<std::string>{"add_kernel"}));
    EXPECT_EQ(modules[0].arch.rfind("sm_", 0), 0u) << modules[0].arch;
    EXPECT_EQ(modules[0].pids, (std::vector<uint32_t>{1, 2}));
    EXPECT_NE(modules[1].error.find("does not hold the cubin of that hash"), std::string::npos);
    EXPECT_FALSE(modules[2].error.empty());

    const json doc = captureDocument(log, {}, {}, modules);
    EXPECT_EQ(doc["kernels"][0]["modules"], json::array({0}));
    const fs::path docPath = dir.path / "c.json";
    std::ofstream(docPath) << doc.dump();
    CaptureSummary s;
    std::string error, cubinPath;
    size_t index = 99;
    ASSERT_TRUE(readCaptureFile(docPath.string(), s, error)) << error;
    EXPECT_TRUE(looksLikeCaptureDocument(docPath.string()));
    {
        // Keys are written sorted, so with more launches "schema" lies past the first 4 KiB (a
        // capture of eight launches on the GPU machine was taken for a .cu and sent to nvcc).
        CaptureLog many = log;
        for (int i = 0; i < 64; ++i) many.addLine(kernelEventLine(launch(static_cast<uint32_t>(100 + i), "add_kernel", 1000 + 10 * static_cast<uint64_t>(i), 5)));
        const std::string text = captureDocument(many, {}, {}, modules).dump();
        ASSERT_GT(text.find("lowerscope.capture/"), 4096u);
        const fs::path bigPath = dir.path / "many.json";
        std::ofstream(bigPath) << text;
        EXPECT_TRUE(looksLikeCaptureDocument(bigPath.string()));
        std::ofstream(dir.path / "other.json") << json{{"launches", json::array()}, {"zz", std::string(5000, 'x')}}.dump();
        EXPECT_FALSE(looksLikeCaptureDocument((dir.path / "other.json").string()));
    }
    ASSERT_TRUE(captureKernelCubin(docPath.string(), s, "add_kernel", cubinPath, index, error)) << error;
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(fs::path(cubinPath).filename().string(), hash + ".cubin");
    // The only kernel needs no name; an unknown one is refused naming the kernels.
    ASSERT_TRUE(captureKernelCubin(docPath.string(), s, "", cubinPath, index, error)) << error;
    EXPECT_FALSE(captureKernelCubin(docPath.string(), s, "mul_kernel", cubinPath, index, error));
    EXPECT_NE(error.find("add_kernel"), std::string::npos) << error;
    // A cubin changed after the capture is refused.
    std::ofstream(dir.path / (hash + ".cubin"), std::ios::binary | std::ios::trunc) << cubin << "x";
    EXPECT_FALSE(captureKernelCubin(docPath.string(), s, "add_kernel", cubinPath, index, error));
    EXPECT_NE(error.find("hash differs"), std::string::npos) << error;
}

TEST(CaptureReader, HostileDocumentsAreRefusedWithASentence) {
    const json good = captureDocument(sampleLog(), {}, {}, {});
    CaptureSummary s;
    std::string error;
    ASSERT_TRUE(readCaptureDocument(good, s, error)) << error;
    auto refused = [&](json doc, const std::string& expect) {
        error.clear();
        EXPECT_FALSE(readCaptureDocument(doc, s, error)) << expect;
        EXPECT_NE(error.find(expect), std::string::npos) << error;
    };
    json j = good;
    j["schema"] = "lowerscope.capture/9";
    refused(j, "newer version");
    refused(json::array(), "not a Lowerscope capture document");
    refused(json{{"schema", "lowerscope.profile/1"}}, "not a Lowerscope capture document");
    j = good;
    j["modules"] = json::array({{{"file", "../../../etc/passwd"}, {"hash", std::string(32, 'a')}}});
    refused(j, "HASH.cubin");
    j["modules"] = json::array({{{"file", "/tmp/" + std::string(32, 'a') + ".cubin"}, {"hash", std::string(32, 'a')}}});
    refused(j, "HASH.cubin");
    j["modules"] = json::array({{{"file", "x.cubin"}, {"hash", "x"}}});
    refused(j, "HASH.cubin");
    j = good;
    j["kernels"][0]["modules"] = json::array({5});
    refused(j, "names a module that is not in its list");
    j = good;
    j["kernels"][0]["modules"] = json::array({-1});
    refused(j, "names a module that is not in its list");
    j = good;
    j["kernels"][0]["count"] = "3";
    refused(j, "lacks count or total_ns");
    j = good;
    j["kernels"][0]["name"] = 7;
    refused(j, "no usable name");
    j = good;
    j["launches"][0]["kernel"] = 1000;
    refused(j, "names a kernel that is not in its list");
    j = good;
    j["kernels"] = "all of them";
    refused(j, "no kernels list");
    // Wrong types of optional fields are ignored, numbers clamped.
    j = good;
    j["exit"] = {{"code", 1e300}, {"signal", -5}};
    j["devices"] = json::array({1, "x", {{"name", 3}}});
    j["kernels"][0]["share"] = 17;
    j["kernels"][0]["median_ns"] = -4;
    ASSERT_TRUE(readCaptureDocument(j, s, error)) << error;
    EXPECT_EQ(s.signal, 0);
    EXPECT_EQ(s.kernels[0].share, 1.0);
    EXPECT_EQ(s.kernels[0].medianNs, 0.0);
}

TEST(CaptureReader, ACubinOutsideTheCapturesFolderIsNeverOpened) {
    TempDir dir, elsewhere;
    // A file whose name and content agree, so that only the folder rule can refuse it.
    const std::string bytes = "bytes of someone else's file";
    const std::string hash = xxh3Hex(bytes.data(), bytes.size());
    std::ofstream(elsewhere.path / (hash + ".cubin")) << bytes;
    fs::create_directories(dir.path / "capture");
    // A symlink named like the module, leading out of the capture's folder.
    fs::create_symlink(elsewhere.path / (hash + ".cubin"), dir.path / "capture" / (hash + ".cubin"));
    json doc = captureDocument(sampleLog(), {}, {}, {});
    doc["modules"] = json::array({{{"file", hash + ".cubin"}, {"hash", hash}, {"kernels", {"_Z3addPf"}}}});
    doc["kernels"][0]["modules"] = json::array({0});
    const fs::path docPath = dir.path / "capture" / "c.json";
    std::ofstream(docPath) << doc.dump();
    CaptureSummary s;
    std::string error, cubin;
    size_t index = 0;
    ASSERT_TRUE(readCaptureFile(docPath.string(), s, error)) << error;
    EXPECT_FALSE(captureKernelCubin(docPath.string(), s, "add", cubin, index, error));
    EXPECT_EQ(error.find("hash differs"), std::string::npos) << error;
    EXPECT_NE(error.find(hash + ".cubin"), std::string::npos) << error;
    EXPECT_TRUE(cubin.empty());
    // The same file inside the folder opens (the refusal above is the folder rule's).
    fs::remove(dir.path / "capture" / (hash + ".cubin"));
    fs::copy_file(elsewhere.path / (hash + ".cubin"), dir.path / "capture" / (hash + ".cubin"));
    EXPECT_TRUE(captureKernelCubin(docPath.string(), s, "add", cubin, index, error)) << error;
}

TEST(CaptureReader, OversizedAndSpecialFilesAreNotRead) {
    TempDir dir;
    CaptureSummary s;
    std::string error;
    const fs::path deep = dir.path / "deep.json";
    std::ofstream(deep) << std::string(5000, '[') << std::string(5000, ']');
    EXPECT_FALSE(readCaptureFile(deep.string(), s, error));
    EXPECT_NE(error.find("too deep"), std::string::npos) << error;
    EXPECT_FALSE(readCaptureFile(dir.path.string(), s, error));
    EXPECT_FALSE(looksLikeCaptureDocument(dir.path.string()));
    EXPECT_FALSE(looksLikeCaptureDocument((dir.path / "missing").string()));
}

TEST(CaptureReader, TheFuzzSeedsAreAValidDocumentAndEventLine) {
    const std::string seeds = std::string(LOWERSCOPE_SOURCE_DIR) + "/tests/fuzz/seeds/documents/";
    CaptureSummary s;
    std::string error;
    ASSERT_TRUE(readCaptureFile(seeds + "capture.json", s, error)) << error;
    EXPECT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.modules.size(), 1u);
    std::ifstream in(seeds + "capture_event.jsonl");
    std::string line;
    std::getline(in, line);
    CaptureLog log;
    EXPECT_TRUE(log.addLine(line)) << log.firstSkipReason;
    std::ifstream snap(seeds + "capture_snapshot.jsonl");
    std::getline(snap, line);
    EXPECT_TRUE(log.addLine(line)) << log.firstSkipReason;
    EXPECT_EQ(log.snapshots.size(), 1u);
    const auto doc = readJsonFileBounded(seeds + "capture.json", error);
    ASSERT_TRUE(doc) << error;
    std::vector<LaunchSnapshot> snapshots;
    ASSERT_TRUE(readSnapshots(*doc, snapshots, error)) << error;
    ASSERT_EQ(snapshots.size(), 1u);
    EXPECT_EQ(snapshots[0].launchIndex, 2);
}

// ------------------------------------------------------------ saved launches (issue 29 item 2)

namespace {

LaunchSnapshot sampleSnapshot(uint32_t pid = 100, uint32_t corr = 12) {
    LaunchSnapshot s;
    s.pid = pid;
    s.correlationId = corr;
    s.name = "_Z3addPf";
    s.grid = {4, 1, 1};
    s.block = {128, 1, 1};
    s.cluster = {2, 1, 1};
    s.dynamicSmem = 1024;
    s.params = {{0, 8}, {8, 4}};
    s.paramBytes = {0x00, 0x10, 0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00};
    s.regions.push_back({0x7f0000001000ull, 4096, snapshotFileName(pid, corr, "before", 0x7f0000001000ull),
                         snapshotFileName(pid, corr, "after", 0x7f0000001000ull), true});
    s.regions.push_back({0x7f0000100000ull, 256, snapshotFileName(pid, corr, "before", 0x7f0000100000ull), "", false});
    s.omitted.push_back({0x7f0000200000ull, uint64_t(8) << 30, "over the memory limit (1073741824 bytes a launch)"});
    return s;
}

} // namespace

TEST(CaptureSnapshots, AnEventLineRoundTrips) {
    const LaunchSnapshot s = sampleSnapshot();
    EXPECT_EQ(s.regions[0].before, "100-12/before-7f0000001000.bin");
    const std::string line = snapshotEventLine(s);
    ASSERT_EQ(line.back(), '\n');
    EXPECT_NE(line.find("\"address\":\"0x7f0000001000\""), std::string::npos) << line;
    CaptureLog log;
    ASSERT_TRUE(log.addLine(line)) << log.firstSkipReason;
    ASSERT_EQ(log.snapshots.size(), 1u);
    const LaunchSnapshot& r = log.snapshots[0];
    EXPECT_EQ(r.id(), "100-12");
    EXPECT_EQ(r.name, s.name);
    EXPECT_EQ(r.grid, s.grid);
    EXPECT_EQ(r.block, s.block);
    EXPECT_EQ(r.cluster, s.cluster);
    EXPECT_EQ(r.dynamicSmem, 1024);
    EXPECT_EQ(r.params, s.params);
    EXPECT_EQ(r.paramBytes, s.paramBytes);
    ASSERT_EQ(r.regions.size(), 2u);
    EXPECT_EQ(r.regions[0].address, 0x7f0000001000ull);
    EXPECT_EQ(r.regions[0].bytes, 4096u);
    EXPECT_EQ(r.regions[0].before, s.regions[0].before);
    EXPECT_EQ(r.regions[0].after, s.regions[0].after);
    EXPECT_TRUE(r.regions[0].pointers);
    EXPECT_EQ(r.regions[1].after, "");
    EXPECT_FALSE(r.regions[1].pointers);
    ASSERT_EQ(r.omitted.size(), 1u);
    EXPECT_EQ(r.omitted[0].bytes, uint64_t(8) << 30);
    EXPECT_EQ(r.omitted[0].why, s.omitted[0].why);
    EXPECT_EQ(r.error, "");
    // A launch that could not be saved: the error is kept.
    LaunchSnapshot failed;
    failed.pid = 1;
    failed.correlationId = 2;
    failed.name = "_Z1kv";
    failed.error = "cuCtxSynchronize before the launch returned CUDA error 700";
    ASSERT_TRUE(log.addLine(snapshotEventLine(failed))) << log.firstSkipReason;
    EXPECT_EQ(log.snapshots[1].error, failed.error);
}

TEST(CaptureSnapshots, MalformedSnapshotLinesAreSkipped) {
    const json good = json::parse(snapshotEventLine(sampleSnapshot()));
    ASSERT_TRUE(CaptureLog().addLine(good.dump()));
    auto with = [&](const std::function<void(json&)>& edit) {
        json j = good;
        edit(j);
        return j.dump();
    };
    const std::vector<std::string> bad = {
        with([](json& j) { j["regions"][0]["before"] = "../../etc/passwd"; }),
        with([](json& j) { j["regions"][0]["before"] = "/tmp/100-12/before-7f0000001000.bin"; }),
        with([](json& j) { j["regions"][0]["before"] = "100-13/before-7f0000001000.bin"; }), // another launch's
        with([](json& j) { j["regions"][0]["before"] = "100-12/before-7f0000002000.bin"; }), // another address's
        with([](json& j) { j["regions"][0]["after"] = "x/100-12/after-7f0000001000.bin"; }), // a folder in a line
        with([](json& j) { j["regions"][0]["address"] = 139637976731648; }),             // not a "0x" string
        with([](json& j) { j["regions"][0]["address"] = "0x"; }),
        with([](json& j) { j["regions"][0]["address"] = "0x7f00000010000000000"; }), // over 64 bits
        with([](json& j) { j["regions"][0]["bytes"] = 0; }),
        with([](json& j) { j["regions"][0]["bytes"] = (uint64_t(4) << 30) + 1; }),
        with([](json& j) { j["regions"][1] = j["regions"][0]; }), // twice
        with([](json& j) { j["param_bytes"] = "0g"; }),
        with([](json& j) { j["param_bytes"] = "abc"; }),
        with([](json& j) { j["param_bytes"] = std::string(2 * kMaxParamBytes + 2, 'a'); }),
        with([](json& j) { j["params"] = json::array({json::array({8, 8})}); }), // past the 12 bytes
        with([](json& j) { j["params"] = json::array({json::array({0})}); }),
        with([](json& j) { j["grid"] = json::array({1, -1, 1}); }),
        with([](json& j) { j["smem"] = -1; }),
        with([](json& j) { j["name"] = ""; }),
        with([](json& j) { j.erase("corr"); }),
        with([](json& j) {
            for (size_t i = 0; i <= kMaxSnapshotRegions; ++i)
                j["regions"].push_back({{"address", "0x" + std::to_string(i + 1) + "000"}, {"bytes", 1}});
        }),
    };
    CaptureLog log;
    for (const auto& line : bad) EXPECT_FALSE(log.addLine(line)) << line.substr(0, 300);
    EXPECT_EQ(log.skippedLines, bad.size());
    EXPECT_TRUE(log.snapshots.empty());
    EXPECT_NE(log.firstSkipReason.find("snapshot"), std::string::npos) << log.firstSkipReason;
}

TEST(CaptureSnapshots, TheDocumentListsThemTiedToTheirLaunchesAndReadsBack) {
    CaptureLog log = sampleLog();
    ASSERT_TRUE(log.addLine(snapshotEventLine(sampleSnapshot(100, 12))));
    // A launch through the runtime API: the kernel record has the runtime call's correlation id
    // (13 is a helper launch; 14 an add), the snapshot the driver call's (15): tied to 14.
    LaunchSnapshot runtime = sampleSnapshot(100, 15);
    runtime.regions.clear();
    runtime.omitted.clear();
    runtime.grid = {4, 1, 1};
    ASSERT_TRUE(log.addLine(snapshotEventLine(runtime)));
    LaunchSnapshot orphan = sampleSnapshot(555, 3);
    orphan.regions.clear();
    orphan.error = "cuCtxSynchronize before the launch returned CUDA error 700";
    ASSERT_TRUE(log.addLine(snapshotEventLine(orphan)));
    const json doc = captureDocument(log, {}, {}, {}, "run.launches");
    ASSERT_EQ(doc["snapshots"].size(), 3u);
    const json& first = doc["snapshots"][0];
    EXPECT_EQ(first["id"], "100-12");
    EXPECT_EQ(first["regions"][0]["before"], "run.launches/100-12/before-7f0000001000.bin");
    EXPECT_EQ(first["regions"][0]["after"], "run.launches/100-12/after-7f0000001000.bin");
    EXPECT_EQ(first["regions"][1]["after"], "");
    // launches are 10 11 12 13 14 in order: 12 is index 2, 14 index 4.
    EXPECT_EQ(first["launch"], 2);
    EXPECT_EQ(doc["launches"][2]["snapshot"], "100-12");
    EXPECT_EQ(doc["snapshots"][1]["launch"], 4);
    EXPECT_EQ(doc["launches"][4]["snapshot"], "100-15");
    EXPECT_EQ(doc["snapshots"][2]["launch"], -1);
    EXPECT_FALSE(doc["launches"][0].contains("snapshot"));
    const std::string notes = doc["notes"].dump();
    EXPECT_NE(notes.find("555-3"), std::string::npos) << notes;
    EXPECT_NE(notes.find("CUDA error 700"), std::string::npos) << notes;
    EXPECT_NE(notes.find("over the memory limit"), std::string::npos) << notes;

    std::vector<LaunchSnapshot> back;
    std::string error;
    ASSERT_TRUE(readSnapshots(doc, back, error)) << error;
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[0].launchIndex, 2);
    EXPECT_EQ(back[0].paramBytes, sampleSnapshot().paramBytes);
    EXPECT_EQ(back[0].regions[0].before, "run.launches/100-12/before-7f0000001000.bin");
    EXPECT_TRUE(back[0].regions[0].pointers);
    EXPECT_EQ(back[1].launchIndex, 4);
    EXPECT_EQ(back[2].launchIndex, -1);
    EXPECT_EQ(back[2].error, orphan.error);
    // The whole document still reads as a capture; one without snapshots has none.
    CaptureSummary summary;
    EXPECT_TRUE(readCaptureDocument(doc, summary, error)) << error;
    json none = doc;
    none.erase("snapshots");
    EXPECT_TRUE(readSnapshots(none, back, error));
    EXPECT_TRUE(back.empty());
}

TEST(CaptureSnapshots, HostileDocumentSnapshotsAreRefusedWithASentence) {
    CaptureLog log = sampleLog();
    ASSERT_TRUE(log.addLine(snapshotEventLine(sampleSnapshot())));
    const json doc = captureDocument(log, {}, {}, {}, "run.launches");
    auto refused = [&](const std::function<void(json&)>& edit, const std::string& expect) {
        json j = doc;
        edit(j);
        std::vector<LaunchSnapshot> out;
        std::string error;
        const bool ok = readSnapshots(j, out, error);
        EXPECT_FALSE(ok) << j["snapshots"].dump().substr(0, 300);
        EXPECT_TRUE(out.empty());
        EXPECT_NE(error.find(expect), std::string::npos) << error;
    };
    auto before = [](const char* path) {
        return [path](json& j) { j["snapshots"][0]["regions"][0]["before"] = path; };
    };
    refused(before("../100-12/before-7f0000001000.bin"), "before-ADDRESS.bin");
    refused(before("run.launches/../../100-12/before-7f0000001000.bin"), "before-ADDRESS.bin");
    refused(before("/etc/100-12/before-7f0000001000.bin"), "before-ADDRESS.bin");
    refused(before("run.launches//100-12/before-7f0000001000.bin"), "before-ADDRESS.bin");
    refused(before("./100-12/before-7f0000001000.bin"), "before-ADDRESS.bin");
    refused(before("run.launches/100-12/before-7f0000001000.bin/x"), "before-ADDRESS.bin");
    refused([](json& j) { j["snapshots"][0]["id"] = "100-13"; }, "PID-CORR");
    refused([](json& j) { j["snapshots"][0]["launch"] = 99; }, "index into the document's launches");
    refused([](json& j) { j["snapshots"][0]["launch"] = -2; }, "index into the document's launches");
    refused([](json& j) { j["snapshots"][0].erase("launch"); }, "index into the document's launches");
    refused([](json& j) { j["snapshots"][1] = j["snapshots"][0]; }, "listed twice");
    refused([](json& j) { j["snapshots"] = "all of them"; }, "not a list");
    refused([](json& j) { j["snapshots"][0]["regions"][0]["address"] = 1; }, "address");
    refused([](json& j) { j["snapshots"][0]["param_bytes"] = "zz"; }, "param_bytes");
    refused([](json& j) { j["snapshots"][0]["omitted"] = json::array({{{"address", "x"}}}); }, "omitted");
    // A plain relative folder of any name is fine (the document may have been renamed).
    json renamed = doc;
    renamed["snapshots"][0]["regions"][0]["before"] = "old name.launches/100-12/before-7f0000001000.bin";
    std::vector<LaunchSnapshot> out;
    std::string error;
    EXPECT_TRUE(readSnapshots(renamed, out, error)) << error;
}

TEST(CaptureSnapshots, ASavedRegionIsReadOnlyInsideTheDocumentsFolderAndAtItsSize) {
    TempDir dir, elsewhere;
    const fs::path docPath = dir.path / "run.json";
    fs::create_directories(dir.path / "run.launches" / "100-12");
    const std::string rel = "run.launches/100-12/before-7f0000001000.bin";
    {
        std::ofstream out(dir.path / rel, std::ios::binary);
        for (int i = 0; i < 16; ++i) out.put(static_cast<char>(i));
    }
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(readSnapshotFile(docPath.string(), rel, 16, bytes, error)) << error;
    ASSERT_EQ(bytes.size(), 16u);
    EXPECT_EQ(bytes[15], 15);
    // Another size than recorded: refused.
    EXPECT_FALSE(readSnapshotFile(docPath.string(), rel, 17, bytes, error));
    EXPECT_NE(error.find("17 bytes"), std::string::npos) << error;
    EXPECT_TRUE(bytes.empty());
    EXPECT_FALSE(readSnapshotFile(docPath.string(), rel, kMaxSnapshotFileBytes + 1, bytes, error));
    // Paths leaving the folder, lexically or through a symlink, are refused.
    EXPECT_FALSE(readSnapshotFile(docPath.string(), "../x/before-1.bin", 16, bytes, error));
    EXPECT_FALSE(readSnapshotFile(docPath.string(), (dir.path / rel).string(), 16, bytes, error));
    EXPECT_FALSE(readSnapshotFile(docPath.string(), "run.launches/100-12/../../../etc/passwd", 16, bytes, error));
    {
        std::ofstream out(elsewhere.path / "secret.bin", std::ios::binary);
        out << std::string(16, 's');
    }
    fs::create_symlink(elsewhere.path / "secret.bin", dir.path / "run.launches" / "100-12" / "after-7f0000001000.bin");
    EXPECT_FALSE(readSnapshotFile(docPath.string(), "run.launches/100-12/after-7f0000001000.bin", 16, bytes, error));
    EXPECT_TRUE(bytes.empty());
    // A folder or a FIFO is not read.
    EXPECT_FALSE(readSnapshotFile(docPath.string(), "run.launches/100-12", 16, bytes, error));
    const fs::path fifo = dir.path / "run.launches" / "100-12" / "before-1.bin";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_FALSE(readSnapshotFile(docPath.string(), "run.launches/100-12/before-1.bin", 16, bytes, error));
}

// The kernel line is written field by field (it is the one the injection writes per execution):
// it must be the JSON document the object model would write, for extreme values and for names with
// quotes, control bytes and invalid UTF-8 (replaced by U+FFFD, as everywhere else).
TEST(CaptureEvents, KernelLineIsTheJsonDocument) {
    for (const std::string& name : {std::string("_Z3addPf"), std::string("a\"b\\c\n\x01"), std::string("bad \xff\xfe utf8")}) {
        CapturedLaunch l;
        l.pid = 4294967295u;
        l.correlationId = 7;
        l.name = name;
        l.device = 1;
        l.context = 2;
        l.stream = 3;
        l.grid = {2147483647, 1, -1};
        l.block = {1024, 1, 1};
        l.cluster = {0, 0, 0};
        l.dynamicSmem = 232448;
        l.staticSmem = -5;
        l.registers = 255;
        l.startNs = 18446744073709551615ull;
        l.endNs = 0;
        l.graphId = 9;
        l.graphNodeId = 10;
        const std::string text = kernelEventLine(l);
        ASSERT_EQ(text.back(), '\n');
        ASSERT_EQ(text.find('\n'), text.size() - 1) << text;
        const nlohmann::json got = nlohmann::json::parse(text);
        const nlohmann::json expected = nlohmann::json::parse(
            nlohmann::json{{"e", "kernel"}, {"pid", l.pid}, {"corr", l.correlationId}, {"name", l.name},
                           {"device", l.device}, {"context", l.context}, {"stream", l.stream},
                           {"grid", l.grid}, {"block", l.block}, {"cluster", l.cluster},
                           {"smem", {l.dynamicSmem, l.staticSmem}}, {"regs", l.registers},
                           {"start", l.startNs}, {"end", l.endNs}, {"graph", l.graphId},
                           {"graph_node", l.graphNodeId}}
                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        EXPECT_EQ(got, expected) << text; // (the reader's acceptance: EveryEventRoundTrips)
    }
}

// ------------------------------------------------- kernel lines and launches without a JSON value

namespace {

// What a log made of `line`: whether it was taken, the skip reason, and the launch as its line.
struct LineOutcome {
    bool taken = false;
    std::string skipReason;
    std::string launch;
    bool operator==(const LineOutcome&) const = default;
};

LineOutcome readLine(std::string_view line) {
    CaptureLog log;
    LineOutcome out;
    out.taken = log.addLine(line);
    out.skipReason = log.firstSkipReason;
    if (!log.launches.empty()) out.launch = kernelEventLine(log.launches.front());
    return out;
}

// The same JSON value with the key "e" escaped: a line the reader must parse as JSON.
std::string throughTheJsonParser(const std::string& line) {
    EXPECT_EQ(line.rfind("{\"e\":", 0), 0u) << line;
    return "{\"\\u0065\":" + line.substr(5);
}

} // namespace

TEST(CaptureEvents, KernelLinesReadWithoutJsonAgreeWithTheJsonParser) {
    // The reader takes the writer's kernel lines without building a JSON value and leaves the rest
    // to the JSON parser. Whatever it takes, it must read as the parser does: every line here, valid
    // or mutated, is read both ways and must come out the same (taken or skipped for the same reason,
    // the same launch). fuzz_documents does the same with its inputs.
    std::mt19937_64 random(29);
    auto number = [&]() -> uint64_t {
        switch (random() % 5) {
        case 0: return random() % 4;
        case 1: return random() % 100000;
        case 2: return random() >> (random() % 64);
        case 3: return (uint64_t(1) << (random() % 64)) - (random() % 2);
        default: return UINT64_MAX - random() % 3;
        }
    };
    const std::string mutations = "0123456789-+.eE \t\"\\,:[]{}xn\x7f\x80\xff";
    size_t taken = 0, skipped = 0;
    for (int i = 0; i < 1000; ++i) {
        CapturedLaunch k;
        k.pid = static_cast<uint32_t>(number());
        k.correlationId = static_cast<uint32_t>(number());
        k.name = i % 7 == 0 ? "" : "_Z" + std::to_string(i % 13) + "kernel";
        k.device = static_cast<uint32_t>(number());
        k.context = static_cast<uint32_t>(number());
        k.stream = static_cast<uint32_t>(number());
        // (mostly valid: a value past a field's range makes the whole line malformed)
        auto mostly = [&](uint64_t below) { return static_cast<int64_t>(random() % 16 ? random() % below : number()); };
        for (auto* dims : {&k.grid, &k.block, &k.cluster})
            for (int64_t& d : *dims) d = mostly(1024);
        k.dynamicSmem = mostly(1 << 20);
        k.staticSmem = mostly(1 << 20);
        k.registers = mostly(256);
        k.startNs = number();
        k.endNs = random() % 16 ? k.startNs + random() % 5000 : number();
        k.graphId = number();
        k.graphNodeId = number();
        std::string line = kernelEventLine(k);
        line.pop_back();
        const int edits = static_cast<int>(random() % 4); // 0: the line as written
        for (int e = 0; e < edits && line.size() > 6; ++e) {
            const size_t at = 5 + random() % (line.size() - 5);
            const char c = mutations[random() % mutations.size()];
            switch (random() % 3) {
            case 0: line[at] = c; break;
            case 1: line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c); break;
            default: line.erase(at, 1); break;
            }
        }
        const LineOutcome direct = readLine(line), parsed = readLine(throughTheJsonParser(line));
        ASSERT_EQ(direct, parsed) << line;
        (direct.taken ? taken : skipped) += 1;
    }
    // Both kinds came up often enough to mean something.
    EXPECT_GT(taken, 100u) << skipped;
    EXPECT_GT(skipped, 100u) << taken;
}

TEST(CaptureEvents, KernelLinesOfAnyLayoutOrWithOddValuesReadAsJson) {
    CapturedLaunch k = launch(7, "_Z1kv", 100, 50, 42);
    k.cluster = {2, 1, 1};
    k.dynamicSmem = 4096;
    k.registers = 40;
    k.graphId = 3;
    const std::string canonical = kernelEventLine(k);
    const json j = json::parse(canonical);
    auto with = [&](const char* key, json v) {
        json e = j;
        e[key] = std::move(v);
        return e.dump();
    };
    auto without = [&](const char* key) {
        json e = j;
        e.erase(key);
        return e.dump();
    };
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string line = canonical;
        const size_t at = line.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return line.replace(at, from.size(), to);
    };
    auto name = [](const LineOutcome& o) { return json::parse(o.launch)["name"].get<std::string>(); };
    const LineOutcome expected = readLine(canonical);
    ASSERT_TRUE(expected.taken) << expected.skipReason;
    EXPECT_EQ(expected.launch, canonical);

    // Other layouts of the same value: keys sorted, indented, spaces and a CR LF end.
    EXPECT_EQ(readLine(j.dump()), expected);
    EXPECT_EQ(readLine(j.dump(2)), expected);
    EXPECT_EQ(readLine(" { \"e\" : \"kernel\" ," + canonical.substr(14, canonical.size() - 16) + " } \r\n"), expected);
    // Escapes and UTF-8 in the name; invalid UTF-8 is not JSON.
    EXPECT_EQ(name(readLine(replaced("_Z1kv", "_Z1k\\u0041\\/v"))), "_Z1kA/v");
    EXPECT_EQ(name(readLine(replaced("_Z1kv", "_Z1k\xc3\xa9v"))), "_Z1k\xc3\xa9v");
    EXPECT_EQ(readLine(replaced("_Z1kv", "_Z1k\xffv")).skipReason, "a line that is not a JSON object");
    EXPECT_EQ(readLine(replaced("_Z1kv", "_Z1k\tv")).skipReason, "a line that is not a JSON object");
    // Numbers at and past the limits.
    EXPECT_TRUE(readLine(with("end", UINT64_MAX)).taken);
    EXPECT_EQ(readLine(replaced("\"end\":150", "\"end\":18446744073709551616")).skipReason,
              "a malformed kernel event"); // past 64 bits: a float
    EXPECT_EQ(readLine(with("corr", uint64_t(1) << 32)).skipReason, "a malformed kernel event");
    EXPECT_EQ(readLine(with("regs", 65537)).skipReason, "a malformed kernel event");
    EXPECT_EQ(readLine(with("corr", 7.0)).skipReason, "a malformed kernel event");
    EXPECT_EQ(readLine(replaced("\"corr\":7", "\"corr\":7e0")).skipReason, "a malformed kernel event");
    EXPECT_EQ(readLine(replaced("\"corr\":7", "\"corr\":07")).skipReason, "a line that is not a JSON object");
    EXPECT_EQ(readLine(replaced("\"corr\":7", "\"corr\":-0")), readLine(with("corr", 0)));
    EXPECT_EQ(json::parse(readLine(with("smem", json::array({-5, 7}))).launch)["smem"], json::array({0, 7}));
    EXPECT_EQ(readLine(with("grid", json::array({1, 2, 3, 4}))).skipReason, "a malformed kernel event");
    EXPECT_EQ(readLine(with("pid", "42")).skipReason, "an event without a pid");
    // Missing fields: graph ids default to 0, the rest are needed.
    LineOutcome noGraph = readLine(without("graph"));
    EXPECT_TRUE(noGraph.taken);
    EXPECT_EQ(json::parse(noGraph.launch)["graph"], 0);
    EXPECT_EQ(readLine(without("end")).skipReason, "a malformed kernel event");
    EXPECT_EQ(readLine(without("name")).skipReason, "a malformed kernel event");
    EXPECT_EQ(readLine(without("pid")).skipReason, "an event without a pid");
    EXPECT_EQ(readLine(R"({"e":"kernel"})").skipReason, "an event without a pid");
    // Extra keys are ignored; a key twice, text after the object or a torn line are the parser's.
    EXPECT_EQ(readLine(with("extra", json::array({1, {{"x", 2}}}))), expected);
    const std::string twice = replaced("\"regs\":40", "\"regs\":41,\"regs\":40");
    EXPECT_EQ(readLine(twice), readLine(throughTheJsonParser(twice)));
    const std::string object = canonical.substr(0, canonical.size() - 1);
    for (const std::string& notJson :
         {object + "x", object + "{}", object.substr(0, object.size() / 2), replaced("}", ",}")})
        EXPECT_EQ(readLine(notJson).skipReason, "a line that is not a JSON object") << notJson;
}

TEST(CaptureDocument, TheTextIsTheWholeDocumentWithOneLaunchPerLine) {
    // The launches are written straight into the document's text: byte for byte what the document
    // built as one JSON value (each launch an object, as it was built before) dumps.
    CaptureLog log = sampleLog();
    CapturedLaunch big = launch(15, "_Z3addPf", 5000, 100);
    big.grid = {INT32_MAX, 65535, 1};
    big.cluster = {2, 2, 1};
    big.dynamicSmem = 232448;
    big.staticSmem = 49152;
    big.registers = 255;
    big.device = 7;
    big.stream = UINT32_MAX;
    big.startNs = UINT64_MAX - 100;
    big.endNs = UINT64_MAX;
    big.graphId = UINT64_MAX;
    ASSERT_TRUE(log.addLine(kernelEventLine(big)));
    ASSERT_TRUE(log.addLine(kernelEventLine(launch(3, "_Z4tinyv\xc3\xa9", 100, 1, 7))));
    ASSERT_TRUE(log.addLine(snapshotEventLine(sampleSnapshot(100, 12))));
    CaptureRunInfo run;
    run.program = "./app \"quoted\"\n";
    run.args = {"\xff", "\x01"};
    run.wallMs = 12.5;
    const CaptureDocumentParts parts = captureDocumentParts(log, run, {"add", 1, 2}, {}, "run.launches");
    ASSERT_EQ(parts.launches.size(), 7u);

    json whole = parts.head;
    for (size_t i = 0; i < parts.launches.size(); ++i) {
        const DocumentLaunch& d = parts.launches[i];
        const CapturedLaunch& l = d.launch;
        auto triple = [](const std::array<int64_t, 3>& v) { return json::array({v[0], v[1], v[2]}); };
        json entry = {{"id", i + 1},
                      {"pid", l.pid},
                      {"kernel", d.kernel},
                      {"correlation", l.correlationId},
                      {"device", l.device},
                      {"stream", l.stream},
                      {"grid", triple(l.grid)},
                      {"block", triple(l.block)},
                      {"cluster", triple(l.cluster)},
                      {"dynamic_smem", l.dynamicSmem},
                      {"static_smem", l.staticSmem},
                      {"registers", l.registers},
                      {"start_ns", l.startNs},
                      {"duration_ns", l.durationNs()},
                      {"graph", l.graphId},
                      {"selected", d.selected}};
        if (!d.snapshot.empty()) entry["snapshot"] = d.snapshot;
        whole["launches"].push_back(std::move(entry));
    }
    const std::string text = parts.text();
    EXPECT_EQ(json::parse(text), json::parse(whole.dump(-1, ' ', false, json::error_handler_t::replace)));
    // The head as an indented dump; each launch one compact line of sorted keys.
    for (const json& l : whole["launches"])
        {
            const std::string line = l.dump(-1, ' ', false, json::error_handler_t::replace);
            EXPECT_NE(text.find("\n  " + line + (l == whole["launches"].back() ? "\n ]" : ",\n")), std::string::npos) << line;
        }
    json headOnly = whole;
    headOnly["launches"] = json::array();
    const std::string headText = headOnly.dump(1, ' ', false, json::error_handler_t::replace);
    const size_t cut = headText.find("\"launches\": []");
    ASSERT_NE(cut, std::string::npos);
    EXPECT_EQ(text.substr(0, cut), headText.substr(0, cut));
    EXPECT_EQ(text.substr(text.size() - (headText.size() - cut - 14) - 1), headText.substr(cut + 14) + "\n");
    const json doc = captureDocument(log, run, {"add", 1, 2}, {}, "run.launches");
    EXPECT_EQ(doc, json::parse(text));
    EXPECT_EQ(doc["launches"][2]["snapshot"], "100-12");
    EXPECT_EQ(doc["launches"][5]["start_ns"], UINT64_MAX - 100);

    // The head reads back as the whole document does, its snapshots given the launches' count.
    CaptureSummary fromHead, fromDoc;
    std::string error;
    ASSERT_TRUE(readCaptureDocument(parts.head, fromHead, error)) << error;
    ASSERT_TRUE(readCaptureDocument(doc, fromDoc, error)) << error;
    EXPECT_EQ(fromHead.kernels.size(), fromDoc.kernels.size());
    EXPECT_EQ(fromHead.launchTotal, 7u);
    std::vector<LaunchSnapshot> headSnapshots, docSnapshots;
    ASSERT_TRUE(readSnapshots(parts.head, parts.launches.size(), headSnapshots, error)) << error;
    ASSERT_TRUE(readSnapshots(doc, docSnapshots, error)) << error;
    ASSERT_EQ(headSnapshots.size(), 1u);
    EXPECT_EQ(headSnapshots[0].launchIndex, docSnapshots[0].launchIndex);
    EXPECT_FALSE(readSnapshots(parts.head, headSnapshots, error)); // its own launches are empty

    // Without launches the head is the document.
    const CaptureDocumentParts none = captureDocumentParts(CaptureLog{}, run, {}, {});
    EXPECT_EQ(none.text(), none.head.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
}
