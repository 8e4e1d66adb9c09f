// `lowerscope-cli capture` end to end without a GPU: the real CLI starts a fake program
// (capture_fakes/fake_cuda_program.cpp) that plays the CUDA driver — it loads the real injection
// library named by CUDA_INJECTION64_PATH and calls its InitializeInjection, as libcuda does at
// cuInit — and a fake CUPTI (capture_fakes/fake_cupti.cpp) that the injection loads through the
// runner's loader and that delivers a context, a module with a real cubin and kernel records.
// Checked: the kernel table and document (counts, medians, cluster, shared memory, filter,
// device, module with its cubin), `inspect` on the capture, a failing, crashing or hanging
// program (its process group killed at the timeout), a CUPTI held by another profiler, and the
// library's exports.
#include "core/bounded_json.h"
#include "core/build/process.h"
#include "core/build/toolchain.h"

#include <csignal>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
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
