// `lowerscope-cli capture` end to end without a GPU: the real CLI starts a fake program
// (capture_fakes/fake_cuda_program.cpp) that plays the CUDA driver — it loads the real injection
// library named by CUDA_INJECTION64_PATH and calls its InitializeInjection, as libcuda does at
// cuInit — and a fake CUPTI (capture_fakes/fake_cupti.cpp) that the injection loads through the
// runner's loader and that delivers a context, a module with a real cubin and kernel records.
// Checked: the kernel table and document (counts, medians, cluster, shared memory, filter,
// device, module with its cubin), `inspect` on the capture, a failing, crashing or hanging
// program (its process group killed at the timeout), a CUPTI held by another profiler, the
// library's exports, and saved launches (--save-launches: the parameter bytes and the fake
// device memory before and after each selected launch, the memory limit, no callbacks without it).
#include "core/bounded_json.h"
#include "core/build/process.h"
#include "core/build/toolchain.h"

#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <unistd.h>

using namespace lowerscope;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kCubin = std::string(LOWERSCOPE_SOURCE_DIR) +
                           "/tests/data/triton/cache/GVJ5JLWJO4FI5T6C3ZJORNRNHWSRSYR6A5QVSPS2G2X3LGKK4TOA/add_kernel.cubin";

struct TempDir {
    fs::path path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "ls_capture_cli_XXXXXX").string();
        path = ::mkdtemp(t.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

ProcessResult cli(std::vector<std::string> args, std::map<std::string, std::string> env = {}, int timeoutS = 60) {
    ProcessSpec spec;
    spec.argv = {LOWERSCOPE_CLI};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {{"LOWERSCOPE_LIBCUPTI", FAKE_CUPTI}, {"LOWERSCOPE_INJECT", INJECT_LIB}};
    for (auto& [k, v] : env) spec.env[k] = v;
    spec.envRemove = {"FAKE_CUPTI_BUSY"};
    spec.timeout = std::chrono::seconds(timeoutS);
    return runProcess(spec);
}

json readDoc(const fs::path& p) {
    std::string error;
    auto j = readJsonFileBounded(p.string(), error);
    EXPECT_TRUE(j) << error;
    return j ? *j : json();
}

bool processGone(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    if (text.empty()) return true;
    const size_t close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

} // namespace

TEST(CaptureInjection, TheLibraryExportsInitializeInjectionAndHidesTheRest) {
    void* lib = dlopen(INJECT_LIB, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
    ASSERT_NE(init, nullptr);
    // The runner's loader and the event writers are inside, not exported to the user's program.
    EXPECT_EQ(dlsym(lib, "_ZN10lowerscope6runner9loadCuptiERNS0_5CuptiE"), nullptr);
    EXPECT_EQ(dlsym(lib, "_ZN10lowerscope7capture15kernelEventLineB5cxx11ERKNS0_14CapturedLaunchE"), nullptr);
    // Not started by capture (no LOWERSCOPE_CAPTURE_EVENTS): it does nothing and says success.
    ::unsetenv("LOWERSCOPE_CAPTURE_EVENTS");
    EXPECT_EQ(init(), 1);
}

TEST(CaptureCli, RecordsEveryLaunchTheCubinAndTheDeviceAndPrintsTheKernelTable) {
    TempDir dir;
    const fs::path doc = dir.path / "out" / "run.json";
    const ProcessResult r = cli({"capture", "-o", doc.string(), "--kernel", "add", "--launch-skip", "1",
                                 "--launch-count", "1", "--env", "CUDA_VISIBLE_DEVICES=0", "--", FAKE_PROGRAM, kCubin});
    ASSERT_EQ(r.exitCode, 0) << r.stdoutText << r.stderrText;
    // The program's own output passes through; the table follows, largest total first.
    EXPECT_NE(r.stdoutText.find("fake program:"), std::string::npos) << r.stdoutText;
    const size_t add = r.stdoutText.find("add_kernel"), helper = r.stdoutText.find("helper");
    ASSERT_NE(add, std::string::npos) << r.stdoutText;
    ASSERT_NE(helper, std::string::npos) << r.stdoutText;
    EXPECT_LT(add, helper);
    EXPECT_NE(r.stdoutText.find("5 kernel launches of 2 kernels, 1 modules"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("Fake GPU 9000"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("the filter selected 1 launches"), std::string::npos) << r.stdoutText;

    const json d = readDoc(doc);
    ASSERT_EQ(d["schema"], "lowerscope.capture/1");
    EXPECT_EQ(d["program"], FAKE_PROGRAM);
    EXPECT_EQ(d["args"], json::array({kCubin}));
    EXPECT_EQ(d["exit"]["code"], 0);
    EXPECT_EQ(d["durations"], "concurrent");
    EXPECT_NE(r.stdoutText.find("first block starts to last block ends"), std::string::npos) << r.stdoutText;
    EXPECT_EQ(d["environment"].value("CUDA_VISIBLE_DEVICES", ""), "0");
    EXPECT_FALSE(d["environment"].contains("CUDA_INJECTION64_PATH"));
    ASSERT_EQ(d["devices"].size(), 1u);
    EXPECT_EQ(d["devices"][0]["name"], "Fake GPU 9000");
    EXPECT_EQ(d["devices"][0]["cc"], "9.0");
    ASSERT_EQ(d["processes"].size(), 1u);
    EXPECT_TRUE(d["processes"][0]["flushed"].get<bool>());
    EXPECT_EQ(d["processes"][0]["cupti"], "130001");
    ASSERT_EQ(d["kernels"].size(), 2u);
    EXPECT_EQ(d["kernels"][0]["name"], "add_kernel");
    EXPECT_EQ(d["kernels"][0]["count"], 3);
    EXPECT_DOUBLE_EQ(d["kernels"][0]["median_ns"].get<double>(), 20000.0);
    EXPECT_EQ(d["kernels"][0]["modules"], json::array({0}));
    EXPECT_EQ(d["kernels"][1]["demangled"], "helper()");
    EXPECT_EQ(d["kernels"][1]["count"], 2);
    ASSERT_EQ(d["launches"].size(), 5u);
    const json& first = d["launches"][0];
    EXPECT_EQ(first["correlation"], 10);
    EXPECT_EQ(first["cluster"], json::array({2, 1, 1}));
    EXPECT_EQ(first["dynamic_smem"], 1024);
    EXPECT_EQ(first["grid"], json::array({4, 1, 1}));
    EXPECT_EQ(first["block"], json::array({128, 1, 1}));
    EXPECT_EQ(first["stream"], 7);
    EXPECT_EQ(first["duration_ns"], 30000);
    for (const auto& l : d["launches"]) EXPECT_EQ(l["selected"].get<bool>(), l["correlation"] == 12) << l.dump();
    // The module loaded twice is one cubin file next to the document, named by its hash.
    ASSERT_EQ(d["modules"].size(), 1u);
    const std::string file = d["modules"][0]["file"];
    EXPECT_TRUE(fs::is_regular_file(doc.parent_path() / file)) << file;
    EXPECT_EQ(fs::file_size(doc.parent_path() / file), fs::file_size(kCubin));
    EXPECT_EQ(d["modules"][0]["kernels"], json::array({"add_kernel"}));
    // The helper's module was never loaded: said so. The staging folder is gone.
    EXPECT_NE(d["notes"].dump().find("no saved module holds helper()"), std::string::npos) << d["notes"];
    for (const auto& e : fs::directory_iterator(doc.parent_path()))
        EXPECT_EQ(e.path().filename().string().find(".lowerscope-events"), std::string::npos) << e.path();

    // inspect opens the captured kernel through its cubin.
    if (!discoverToolchain().nvdisasm.found()) GTEST_SKIP() << "nvdisasm not found: inspect of the capture skipped";
    const ProcessResult in = cli({"inspect", doc.string(), "--kernel", "add_kernel", "--json", "-"});
    ASSERT_EQ(in.exitCode, 0) << in.stderrText;
    EXPECT_NE(in.stderrText.find("from the capture"), std::string::npos) << in.stderrText;
    std::string error;
    const auto ij = parseJsonBounded(in.stdoutText, error);
    ASSERT_TRUE(ij) << error;
    EXPECT_NE(ij->dump().find("add_kernel"), std::string::npos);
    const ProcessResult unknown = cli({"inspect", doc.string(), "--kernel", "no_such_kernel", "--json", "-"});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.stderrText.find("add_kernel"), std::string::npos) << unknown.stderrText;
}

TEST(CaptureCli, SerializedKernelsTakeCuptisSerialisingRecordsAndSaySo) {
    // The fake CUPTI records kernels only of the kind the injection enabled, and gives its records
    // that kind: five launches come back only when the serialising kind was asked for and read.
    TempDir dir;
    const fs::path doc = dir.path / "s.json";
    const ProcessResult r = cli({"capture", "--serialize-kernels", "-o", doc.string(), "--", FAKE_PROGRAM, kCubin});
    ASSERT_EQ(r.exitCode, 0) << r.stdoutText << r.stderrText;
    EXPECT_NE(r.stdoutText.find("5 kernel launches of 2 kernels"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("serialising kernel records"), std::string::npos) << r.stdoutText;
    const json d = readDoc(doc);
    EXPECT_EQ(d["durations"], "serialized");
    EXPECT_EQ(d["launches"].size(), 5u);
    EXPECT_FALSE(d["environment"].contains("LOWERSCOPE_CAPTURE_SERIAL")) << d["environment"];
}

TEST(CaptureCli, AFailingOrCrashingProgramStillLeavesADocument) {
    TempDir dir;
    const ProcessResult failed = cli({"capture", "-o", (dir.path / "f.json").string(), "--", FAKE_PROGRAM, kCubin,
                                      "--exit", "4"});
    EXPECT_EQ(failed.exitCode, 1) << failed.stderrText;
    EXPECT_NE(failed.stderrText.find("exited with status 4"), std::string::npos) << failed.stderrText;
    EXPECT_EQ(readDoc(dir.path / "f.json")["exit"]["code"], 4);

    const ProcessResult crashed = cli({"capture", "-o", (dir.path / "c.json").string(), "--", FAKE_PROGRAM, kCubin,
                                       "--crash"});
    EXPECT_EQ(crashed.exitCode, 1) << crashed.stderrText;
    const json d = readDoc(dir.path / "c.json");
    EXPECT_EQ(d["launch_total"], 0); // the records were still in CUPTI's buffers
    EXPECT_EQ(d["modules"].size(), 1u);
    EXPECT_NE(d["notes"].dump().find("ended without flushing"), std::string::npos) << d["notes"];
    EXPECT_NE(crashed.stderrText.find("ended without flushing"), std::string::npos) << crashed.stderrText;
}

TEST(CaptureCli, TheTimeoutKillsTheProgramsWholeProcessGroup) {
    TempDir dir;
    const fs::path pidFile = dir.path / "child.pid";
    const auto t0 = std::chrono::steady_clock::now();
    const ProcessResult r = cli({"capture", "--timeout", "1", "-o", (dir.path / "h.json").string(), "--", FAKE_PROGRAM,
                                 kCubin, "--hang"},
                                {{"FAKE_CHILD_PID_FILE", pidFile.string()}});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exitCode, 1) << r.stderrText;
    EXPECT_LT(s, 30.0);
    EXPECT_NE(r.stderrText.find("stopped at the timeout"), std::string::npos) << r.stderrText;
    EXPECT_TRUE(readDoc(dir.path / "h.json")["exit"]["timed_out"].get<bool>());
    std::ifstream in(pidFile);
    pid_t child = 0;
    in >> child;
    ASSERT_GT(child, 0);
    for (int i = 0; i < 100 && !processGone(child); ++i) usleep(20000);
    EXPECT_TRUE(processGone(child)) << "the program's worker " << child << " still runs";
    if (!processGone(child)) ::kill(child, SIGKILL);
}

TEST(CaptureCli, ACuptiHeldByAnotherProfilerIsReported) {
    TempDir dir;
    const ProcessResult r = cli({"capture", "-o", (dir.path / "b.json").string(), "--", FAKE_PROGRAM, kCubin},
                                {{"FAKE_CUPTI_BUSY", "1"}});
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    const json d = readDoc(dir.path / "b.json");
    EXPECT_EQ(d["launch_total"], 0);
    EXPECT_NE(d["notes"].dump().find("another profiler"), std::string::npos) << d["notes"];
}

TEST(CaptureCli, UsageErrorsStopBeforeTheProgramRuns) {
    TempDir dir;
    const ProcessResult regex = cli({"capture", "--kernel", "(oops", "-o", (dir.path / "u.json").string(), "--",
                                     FAKE_PROGRAM, kCubin});
    EXPECT_EQ(regex.exitCode, 2);
    EXPECT_NE(regex.stderrText.find("not a valid regular expression"), std::string::npos) << regex.stderrText;
    EXPECT_EQ(regex.stdoutText.find("fake program"), std::string::npos);
    EXPECT_FALSE(fs::exists(dir.path / "u.json"));
    const ProcessResult missing = cli({"capture", "-o", (dir.path / "m.json").string(), "--",
                                       (dir.path / "no-such-program").string()});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.stderrText.find("cannot start"), std::string::npos) << missing.stderrText;
    const ProcessResult noProgram = cli({"capture", "-o", (dir.path / "n.json").string()});
    EXPECT_EQ(noProgram.exitCode, 2);
}

// ------------------------------------------------------------ saved launches (issue 29 item 2)

namespace {

std::vector<uint8_t> fileBytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<float> floats(const std::vector<uint8_t>& bytes) {
    std::vector<float> out(bytes.size() / 4);
    std::memcpy(out.data(), bytes.data(), out.size() * 4);
    return out;
}

// The region of a document snapshot with this many bytes (the fake's allocations differ in size).
const json* regionOfSize(const json& snapshot, uint64_t bytes) {
    for (const json& r : snapshot["regions"])
        if (r["bytes"] == bytes) return &r;
    return nullptr;
}

} // namespace

TEST(CaptureCli, SavedLaunchesHoldTheParametersAndTheMemoryBeforeAndAfter) {
    TempDir dir;
    const fs::path doc = dir.path / "out" / "run.json";
    // A stale launch folder of an earlier capture to the same document goes; other files stay.
    fs::create_directories(dir.path / "out" / "run.launches" / "1-1");
    std::ofstream(dir.path / "out" / "run.launches" / "README") << "mine";
    const ProcessResult r = cli({"capture", "-o", doc.string(), "--kernel", "add", "--launch-skip", "1",
                                 "--launch-count", "2", "--save-launches", "--", FAKE_PROGRAM, kCubin});
    ASSERT_EQ(r.exitCode, 0) << r.stdoutText << r.stderrText;
    // No address-space randomisation for the program (the addresses then repeat in the runner).
    EXPECT_NE(r.stdoutText.find("address randomisation off"), std::string::npos) << r.stdoutText;
    EXPECT_FALSE(fs::exists(dir.path / "out" / "run.launches" / "1-1"));
    EXPECT_TRUE(fs::exists(dir.path / "out" / "run.launches" / "README"));

    const json d = readDoc(doc);
    ASSERT_EQ(d["snapshots"].size(), 2u) << d["snapshots"].dump() << d["notes"];
    const json& s12 = d["snapshots"][0];
    const json& s14 = d["snapshots"][1];
    const std::string pid = std::to_string(d["processes"][0]["pid"].get<uint32_t>());
    EXPECT_EQ(s12["id"], pid + "-12");
    EXPECT_EQ(s14["id"], pid + "-14");
    EXPECT_NE(r.stdoutText.find("replay with: lowerscope-cli run --from-capture " + doc.string() + " --launch " + pid +
                                "-12"),
              std::string::npos)
        << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("--launch " + pid + "-14"), std::string::npos) << r.stdoutText;
    // Each is tied to its kernel record, which names it.
    for (const json& l : d["launches"]) {
        const int corr = l["correlation"];
        if (corr == 12 || corr == 14) {
            EXPECT_EQ(l.value("snapshot", ""), pid + "-" + std::to_string(corr)) << l.dump();
            EXPECT_TRUE(l["selected"].get<bool>());
        } else {
            EXPECT_FALSE(l.contains("snapshot")) << l.dump();
        }
    }
    EXPECT_EQ(d["launches"][s12["launch"].get<size_t>()]["correlation"], 12);
    EXPECT_EQ(d["launches"][s14["launch"].get<size_t>()]["correlation"], 14);

    for (const json* s : {&s12, &s14}) {
        SCOPED_TRACE(s->value("id", ""));
        EXPECT_EQ((*s)["name"], "add_kernel");
        EXPECT_EQ((*s)["error"], "");
        EXPECT_EQ((*s)["grid"], json::array({4, 1, 1}));
        EXPECT_EQ((*s)["block"], json::array({128, 1, 1}));
        EXPECT_EQ((*s)["smem"], 1024);
        EXPECT_EQ((*s)["params"], json::array({{0, 8}, {8, 8}, {16, 8}, {24, 4}}));
        // x, y and table from the parameters, d through table's first word; `pinned` (host
        // memory) left out with the reason.
        ASSERT_EQ((*s)["regions"].size(), 4u) << (*s)["regions"].dump();
        ASSERT_EQ((*s)["omitted"].size(), 1u) << (*s)["omitted"].dump();
        EXPECT_EQ((*s)["omitted"][0]["bytes"], 64);
        EXPECT_NE((*s)["omitted"][0]["why"].get<std::string>().find("host memory"), std::string::npos);
        const json* table = regionOfSize(*s, 64);
        ASSERT_NE(table, nullptr);
        EXPECT_TRUE((*table)["pointers"].get<bool>());
        for (uint64_t bytes : {4096, 256, 128}) {
            const json* region = regionOfSize(*s, bytes);
            ASSERT_NE(region, nullptr) << bytes;
            EXPECT_FALSE((*region)["pointers"].get<bool>()) << bytes;
        }
    }
    // The parameter bytes are the same whether they came from kernelParams (12) or `extra` (14):
    // three pointers (the regions' addresses) and n = 64.
    EXPECT_EQ(s12["param_bytes"], s14["param_bytes"]);
    const std::string hex = s12["param_bytes"];
    ASSERT_EQ(hex.size(), 56u);
    EXPECT_EQ(hex.substr(48), "40000000");
    auto wordAt = [&](size_t offset) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = v * 256 + std::stoul(hex.substr(2 * (offset + b), 2), nullptr, 16);
        return v;
    };
    EXPECT_EQ(wordAt(0), std::stoull((*regionOfSize(s12, 4096))["address"].get<std::string>(), nullptr, 16));
    EXPECT_EQ(wordAt(8), std::stoull((*regionOfSize(s12, 256))["address"].get<std::string>(), nullptr, 16));
    // The Ex launch's cluster comes from its launch attributes.
    EXPECT_EQ(s12["cluster"], json::array({0, 0, 0}));
    EXPECT_EQ(s14["cluster"], json::array({2, 1, 1}));

    // The files, relative to the document's folder: y before and after each launch. add_kernel
    // adds x[i] + 1 each run: after launches 10, 12, 14 y[i] is (i+1), 2(i+1), 3(i+1).
    const fs::path folder = doc.parent_path();
    auto yOf = [&](const json& s, const char* which) {
        const json* y = regionOfSize(s, 256);
        const std::string rel = (*y)[which];
        EXPECT_EQ(rel.rfind("run.launches/" + s["id"].get<std::string>() + "/" + which + "-", 0), 0u) << rel;
        return floats(fileBytes(folder / rel));
    };
    for (int run = 0; run < 2; ++run) {
        const json& s = run == 0 ? s12 : s14;
        const std::vector<float> before = yOf(s, "before"), after = yOf(s, "after");
        ASSERT_EQ(before.size(), 64u);
        ASSERT_EQ(after.size(), 64u);
        for (int i = 0; i < 64; ++i) {
            EXPECT_EQ(before[static_cast<size_t>(i)], static_cast<float>((run + 1) * (i + 1))) << i;
            EXPECT_EQ(after[static_cast<size_t>(i)], static_cast<float>((run + 2) * (i + 1))) << i;
        }
    }
    // x never changes: 0, 1, 2, ... before and after; d[0] counts the runs.
    const std::vector<float> x = floats(fileBytes(folder / (*regionOfSize(s12, 4096))["before"].get<std::string>()));
    ASSERT_EQ(x.size(), 1024u);
    EXPECT_EQ(x[1000], 1000.0f);
    EXPECT_EQ(fileBytes(folder / (*regionOfSize(s12, 4096))["after"].get<std::string>()),
              fileBytes(folder / (*regionOfSize(s12, 4096))["before"].get<std::string>()));
    const auto dBefore = fileBytes(folder / (*regionOfSize(s14, 128))["before"].get<std::string>());
    const auto dAfter = fileBytes(folder / (*regionOfSize(s14, 128))["after"].get<std::string>());
    ASSERT_EQ(dBefore.size(), 128u);
    EXPECT_EQ(dBefore[0], 2);
    EXPECT_EQ(dAfter[0], 3);
    // The table holds d's address first.
    const auto table = fileBytes(folder / (*regionOfSize(s12, 64))["before"].get<std::string>());
    uint64_t first = 0;
    std::memcpy(&first, table.data(), 8);
    EXPECT_EQ(first, std::stoull((*regionOfSize(s12, 128))["address"].get<std::string>(), nullptr, 16));
}

TEST(CaptureCli, TheMemoryLimitLeavesAllocationsOutAndOneLaunchIsTheDefault) {
    TempDir dir;
    const fs::path doc = dir.path / "small.json";
    // 0.001 MiB = 1048 bytes: x (4096 bytes) is left out; y, table and d (448 bytes) are saved.
    const ProcessResult r = cli({"capture", "-o", doc.string(), "--kernel", "add", "--save-launches",
                                 "--memory-limit", "0.001", "--", FAKE_PROGRAM, kCubin});
    ASSERT_EQ(r.exitCode, 0) << r.stdoutText << r.stderrText;
    EXPECT_NE(r.stderrText.find("saves the first selected launch only"), std::string::npos) << r.stderrText;
    const json d = readDoc(doc);
    ASSERT_EQ(d["snapshots"].size(), 1u);
    const json& s = d["snapshots"][0];
    EXPECT_EQ(d["launches"][s["launch"].get<size_t>()]["correlation"], 10);
    EXPECT_EQ(s["regions"].size(), 3u) << s.dump();
    EXPECT_EQ(regionOfSize(s, 4096), nullptr);
    bool limited = false;
    for (const json& o : s["omitted"])
        limited = limited || (o["bytes"] == 4096 && o["why"].get<std::string>().find("memory limit") != std::string::npos);
    EXPECT_TRUE(limited) << s["omitted"].dump();
    EXPECT_NE(d["notes"].dump().find("memory limit"), std::string::npos) << d["notes"];
    // Exactly one launch was selected and saved.
    size_t selected = 0;
    for (const json& l : d["launches"]) selected += l["selected"].get<bool>() ? 1 : 0;
    EXPECT_EQ(selected, 1u);
    EXPECT_EQ(fs::is_directory(dir.path / "small.launches" / s["id"].get<std::string>()), true);
}

TEST(CaptureCli, WithoutSaveLaunchesNoLaunchCallbackRunsAndNothingIsSaved) {
    TempDir dir;
    const fs::path doc = dir.path / "plain.json";
    const ProcessResult r = cli({"capture", "-o", doc.string(), "--", FAKE_PROGRAM, kCubin});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    // The fake driver counts cuCtxSynchronize calls: none without the launch callbacks.
    EXPECT_NE(r.stdoutText.find("0 synchronisations"), std::string::npos) << r.stdoutText;
    EXPECT_EQ(r.stdoutText.find("address randomisation off"), std::string::npos) << r.stdoutText;
    const json d = readDoc(doc);
    EXPECT_TRUE(d["snapshots"].empty());
    EXPECT_FALSE(fs::exists(dir.path / "plain.launches"));
}

// The saved launch replayed through the real runner on the fake GPU (issue 29 item 2): the fake
// program's "device memory" is its own static arrays, which in the runner's process lie where the
// runner's own binary is mapped, so the fake driver gives other addresses; the table holds
// pointers (into d, x), which move with the memory they point into: the fake GPU's add_kernel,
// run as the program runs it (FAKE_ADD_KERNEL), reaches d through the moved table pointer, and the
// replayed memory equals the program's after the launch, the table included (read back with the
// pointers as the program had them). A launch id that the capture does not have is named.
TEST(CaptureCli, AReplayWhoseAddressesAreRefusedMovesItsStoredPointers) {
    TempDir dir;
    const fs::path doc = dir.path / "out" / "run.json";
    const ProcessResult c = cli({"capture", "-o", doc.string(), "--kernel", "add", "--launch-skip", "1",
                                 "--launch-count", "1", "--save-launches", "--", FAKE_PROGRAM, kCubin});
    ASSERT_EQ(c.exitCode, 0) << c.stdoutText << c.stderrText;
    const json d = readDoc(doc);
    ASSERT_EQ(d["snapshots"].size(), 1u);
    const std::string id = d["snapshots"][0]["id"];
    const std::map<std::string, std::string> gpu = {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}};

    std::map<std::string, std::string> adding = gpu;
    adding["FAKE_ADD_KERNEL"] = "1";
    const ProcessResult r = cli({"run", "--from-capture", doc.string(), "--launch", id, "--runner", RUNNER_BIN,
                                 "--max-time", "1"},
                                adding);
    EXPECT_EQ(r.exitCode, 0) << r.stdoutText << r.stderrText;
    EXPECT_NE(r.stdoutText.find("the driver gave"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("2 pointers stored in the memory at"), std::string::npos) << r.stdoutText;
    EXPECT_EQ(r.stdoutText.find("DIFFERS"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("the replay reproduces the program's result"), std::string::npos) << r.stdoutText;

    const ProcessResult bad = cli({"run", "--from-capture", doc.string(), "--launch", "1-999", "--runner", RUNNER_BIN}, gpu);
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.stderrText.find("no launch '1-999' (it has: " + id + ")"), std::string::npos) << bad.stderrText;

    const ProcessResult both = cli({"run", "x.cu", "--from-capture", doc.string()}, gpu);
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_NE(both.stderrText.find("give no FILE.cu"), std::string::npos) << both.stderrText;
}

// Capture → replay end to end on the fake GPU: the fake program's memory placed where the runner
// can map it back (FAKE_DEVICE_AT), its second add_kernel launch saved, and `run --from-capture`
// through the real runner (--fixed-addresses) on the fake GPU, which runs add_kernel as the
// program does (FAKE_ADD_KERNEL): the parameters point at the restored memory, the table's stored
// pointer reaches d, and the replayed memory equals the program's after the launch, byte for
// byte. The pinned host memory the capture left out is said.
TEST(CaptureCli, ASavedLaunchReplaysAndReproducesTheProgramsMemory) {
    TempDir dir;
    const fs::path doc = dir.path / "out" / "run.json";
    const ProcessResult c = cli({"capture", "-o", doc.string(), "--kernel", "add", "--launch-skip", "1",
                                 "--launch-count", "1", "--save-launches", "--", FAKE_PROGRAM, kCubin},
                                {{"FAKE_DEVICE_AT", "5b0000000000"}});
    ASSERT_EQ(c.exitCode, 0) << c.stdoutText << c.stderrText;
    const json d = readDoc(doc);
    ASSERT_EQ(d["snapshots"].size(), 1u);
    const std::string id = d["snapshots"][0]["id"];
    EXPECT_EQ(d["snapshots"][0]["regions"][0]["address"].get<std::string>().rfind("0x5b", 0), 0u)
        << d["snapshots"][0].dump();
    const fs::path out = dir.path / "replay.json";
    const ProcessResult r = cli({"run", "--from-capture", doc.string(), "--launch", id, "--runner", RUNNER_BIN,
                                 "--max-time", "1", "--json", out.string()},
                                {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}, {"FAKE_ADD_KERNEL", "1"}});
    ASSERT_EQ(r.exitCode, 0) << r.stdoutText << r.stderrText;
    const json rep = readDoc(out);
    EXPECT_EQ(rep["replay"]["reproduced"], true) << rep["replay"].dump();
    EXPECT_EQ(rep["replay"]["relocated"], json::array());
    EXPECT_EQ(rep["replay"]["regions"].size(), 4u);
    for (const json& g : rep["replay"]["regions"]) {
        EXPECT_TRUE(g["compared"].get<bool>()) << g.dump();
        EXPECT_EQ(g["differing_bytes"], 0) << g.dump();
    }
    EXPECT_NE(r.stdoutText.find("the replay reproduces the program's result"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("was not saved: host memory"), std::string::npos) << r.stdoutText;
    // The program's own duration of the launch (corr 12: 10 us), on its clock: the concurrent
    // records' span, which a cold replay's default clock (gpu__time_duration) is not;
    // --program-clock times the replay on it.
    const json& prog = rep["replay"]["program"];
    EXPECT_DOUBLE_EQ(prog.value("duration_us", 0.0), 10.0) << prog.dump();
    EXPECT_EQ(prog.value("records", ""), "concurrent");
    const ProcessResult cold = cli({"run", "--from-capture", doc.string(), "--launch", id, "--runner", RUNNER_BIN,
                                    "--max-time", "1", "--mode", "cold", "--json", out.string()},
                                   {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}, {"FAKE_ADD_KERNEL", "1"}});
    ASSERT_EQ(cold.exitCode, 0) << cold.stdoutText << cold.stderrText;
    const json coldProg = readDoc(out)["replay"]["program"];
    EXPECT_EQ(coldProg.value("matching_clock", ""), "kernel_timestamps");
    EXPECT_FALSE(coldProg.contains("diff_pct")) << coldProg.dump();
    EXPECT_NE(cold.stdoutText.find("--program-clock times it on that clock"), std::string::npos) << cold.stdoutText;
    const ProcessResult same = cli({"run", "--from-capture", doc.string(), "--launch", id, "--runner", RUNNER_BIN,
                                    "--max-time", "1", "--mode", "cold", "--program-clock", "--json", out.string()},
                                   {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}, {"FAKE_ADD_KERNEL", "1"}});
    ASSERT_EQ(same.exitCode, 0) << same.stdoutText << same.stderrText;
    const json sameDoc = readDoc(out);
    const json& p2 = sameDoc["replay"]["program"];
    ASSERT_TRUE(p2.contains("replay_median_us")) << sameDoc.dump().substr(0, 2000);
    const std::vector<double> ts = sameDoc["samples_by_clock"]["kernel_timestamps"];
    ASSERT_FALSE(ts.empty());
    EXPECT_GT(p2["replay_median_us"].get<double>(), 0.0);
    EXPECT_NEAR(p2["diff_pct"].get<double>(), 100.0 * (p2["replay_median_us"].get<double>() / 10.0 - 1.0), 1e-9);
    EXPECT_NE(same.stdoutText.find("the replay on that clock (kernel_timestamps)"), std::string::npos) << same.stdoutText;

    // Without the fake kernel's work the replay leaves y and d as they were before: not reproduced.
    const ProcessResult idle = cli({"run", "--from-capture", doc.string(), "--runner", RUNNER_BIN, "--max-time", "1",
                                    "--json", out.string()},
                                   {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}});
    ASSERT_EQ(idle.exitCode, 0) << idle.stderrText;
    EXPECT_EQ(readDoc(out)["replay"]["reproduced"], false);
    EXPECT_NE(idle.stdoutText.find("does NOT reproduce"), std::string::npos) << idle.stdoutText;
}
