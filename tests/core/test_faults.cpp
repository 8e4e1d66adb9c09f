// Fault injection (issue 13): lowerscope-cli with fake CUDA tools (tests/core/fault_tools) that
// crash, abort, get killed, hang, run out of disk or fail to read; the CLI interrupted and killed
// mid-build. What must hold: only a compile error the compiler decided is cached (a transient
// failure is rebuilt next time), no tool outlives the CLI, no temporary file is left behind, and
// the small ones (-G builds, a directory or /dev/null as input, control bytes in tool output).
// Black-box (CLI only), so it also runs against the code before the fix. Skips without nvcc.
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "tests/core/build_fixture.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A scratch folder with the fake tools linked in as bin/nvcc, bin/nvdisasm, bin/cuobjdump, a cache
// and a TMPDIR of its own (so that leftovers can be seen).
struct Bench {
    fs::path dir;
    Bench() {
        std::string tmpl = (fs::temp_directory_path() / "lowerscope-faults-XXXXXX").string();
        dir = ::mkdtemp(tmpl.data());
        fs::create_directories(dir / "bin");
        fs::create_directories(dir / "tmp");
        for (const char* t : {"nvcc", "nvdisasm", "cuobjdump"})
            fs::create_symlink(FAULT_TOOL, dir / "bin" / t);
        std::ofstream(dir / "k.cu") << readFile(std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu");
    }
    ~Bench() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::map<std::string, std::string> env(const std::string& nvccMode,
                                           const std::string& nvdisasmMode = "pass") const {
        std::map<std::string, std::string> e = {
            {"LOWERSCOPE_NVCC", (dir / "bin" / "nvcc").string()},
            {"LOWERSCOPE_NVDISASM", (dir / "bin" / "nvdisasm").string()},
            {"FAKE_REAL_NVCC", realToolchain().nvcc.path},
            {"FAKE_REAL_NVDISASM", realToolchain().nvdisasm.path},
            {"FAKE_NVCC_MODE", nvccMode},
            {"FAKE_NVDISASM_MODE", nvdisasmMode},
            {"FAKE_PIDS", (dir / "pids").string()},
            {"LOWERSCOPE_CACHE_DIR", (dir / "cache").string()},
            {"TMPDIR", (dir / "tmp").string()},
        };
        if (realToolchain().cuobjdump.found()) {
            e["LOWERSCOPE_CUOBJDUMP"] = (dir / "bin" / "cuobjdump").string();
            e["FAKE_REAL_CUOBJDUMP"] = realToolchain().cuobjdump.path;
        }
        return e;
    }
    ProcessSpec spec(std::vector<std::string> args, const std::string& nvccMode,
                     const std::string& nvdisasmMode = "pass") const {
        ProcessSpec s;
        s.argv = {LOWERSCOPE_CLI};
        s.argv.insert(s.argv.end(), args.begin(), args.end());
        s.env = env(nvccMode, nvdisasmMode);
        s.timeout = std::chrono::seconds(300);
        return s;
    }
    ProcessResult cli(std::vector<std::string> args, const std::string& nvccMode,
                      const std::string& nvdisasmMode = "pass") const {
        return runProcess(spec(std::move(args), nvccMode, nvdisasmMode));
    }
    // What is left in the private TMPDIR.
    std::vector<std::string> leftovers() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(dir / "tmp")) out.push_back(e.path().filename().string());
        return out;
    }
};

// True while `pid` exists and is not a zombie.
bool alive(pid_t pid) {
    if (::kill(pid, 0) != 0) return false;
    const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

bool waitGone(pid_t pid, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (alive(pid) && std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return !alive(pid);
}

// The pids the hanging fake nvcc wrote (itself, its child), waiting for the file.
std::pair<pid_t, pid_t> hangingPids(const Bench& b) {
    for (int i = 0; i < 1500 && !fs::exists(b.dir / "pids"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::istringstream in(readFile(b.dir / "pids"));
    pid_t a = -1, c = -1;
    in >> a >> c;
    return {a, c};
}

} // namespace

// Every transient failure: reported, not cached; the next build with a healthy tool succeeds.
TEST(Faults, TransientFailuresAreNeverCached) {
    REQUIRE_NVCC_AND_NVDISASM();
    struct Case {
        const char* nvcc;
        const char* nvdisasm;
        std::vector<std::string> extra;
    };
    const std::vector<Case> cases = {
        {"segv", "pass", {}},
        {"abort", "pass", {}},
        {"killed", "pass", {}},
        {"enospc", "pass", {}},
        {"eio", "pass", {}},
        {"child-crash", "pass", {}},
        {"hang", "pass", {"--timeout", "1"}},
        {"pass", "segv", {}},
        {"pass", "hang", {"--timeout", "2"}},
    };
    int failedOnce = 0;
    for (const auto& c : cases) {
        Bench b;
        std::vector<std::string> args{"build", (b.dir / "k.cu").string()};
        args.insert(args.end(), c.extra.begin(), c.extra.end());
        ProcessResult bad = b.cli(args, c.nvcc, c.nvdisasm);
        EXPECT_NE(bad.exitCode, 0) << c.nvcc << "/" << c.nvdisasm << "\n" << bad.stderrText;
        EXPECT_FALSE(bad.stderrText.empty());
        ProcessResult good = b.cli({"build", (b.dir / "k.cu").string(), "--json", "-"}, "pass");
        EXPECT_EQ(good.exitCode, 0) << "after " << c.nvcc << "/" << c.nvdisasm
                                    << " the next build replayed the failure:\n"
                                    << good.stderrText;
        failedOnce += good.exitCode != 0;
    }
    std::cout << cases.size() << " transient failures, " << failedOnce << " replayed from the cache\n";
}

// The compiler's own verdict is deterministic: cached like a success.
TEST(Faults, CompileErrorsAreCached) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    std::ofstream(b.dir / "bad.cu") << "__global__ void k(float* p) { p[0] = undefined_name; }\n";
    ProcessResult first = b.cli({"build", (b.dir / "bad.cu").string(), "--json", "-"}, "pass");
    EXPECT_EQ(first.exitCode, 1) << first.stderrText;
    ProcessResult second = b.cli({"build", (b.dir / "bad.cu").string(), "--json", "-"}, "pass");
    EXPECT_EQ(second.exitCode, 1) << second.stderrText;
    const json doc = json::parse(second.stdoutText);
    EXPECT_EQ(doc["timings_ms"]["cache_hit"], true);
    EXPECT_NE(second.stderrText.find("undefined_name"), std::string::npos) << second.stderrText;
}

// SIGTERM (and SIGINT) stop the whole build: the CLI exits 128+signal, nvcc and its children are
// gone, and no temporary file is left (nvcc's own included).
TEST(Faults, InterruptStopsTheWholeBuild) {
    REQUIRE_NVCC_AND_NVDISASM();
    for (int sig : {SIGTERM, SIGINT}) {
        Bench b;
        InteractiveProcess cli;
        ASSERT_TRUE(cli.start(b.spec({"build", (b.dir / "k.cu").string(), "--no-cache"}, "hang")));
        const auto [nvcc, child] = hangingPids(b);
        ASSERT_GT(nvcc, 0);
        ASSERT_GT(child, 0);
        ::kill(cli.pid(), sig);
        ProcessResult r = cli.wait(std::chrono::seconds(10));
        EXPECT_EQ(r.exitCode, 128 + sig) << r.describe() << "\n" << r.stderrText;
        EXPECT_TRUE(waitGone(nvcc, std::chrono::seconds(5))) << "nvcc survived signal " << sig;
        EXPECT_TRUE(waitGone(child, std::chrono::seconds(5))) << "nvcc's child survived signal " << sig;
        EXPECT_EQ(b.leftovers(), std::vector<std::string>{}) << "signal " << sig;
        ::kill(nvcc, SIGKILL);
        ::kill(child, SIGKILL);
    }
}

// A CLI killed outright (SIGKILL: no handler runs) leaves no compiler running and no temp folder.
TEST(Faults, KilledCliLeavesNothingRunning) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    InteractiveProcess cli;
    ASSERT_TRUE(cli.start(b.spec({"build", (b.dir / "k.cu").string(), "--no-cache"}, "hang")));
    const auto [nvcc, child] = hangingPids(b);
    ASSERT_GT(nvcc, 0);
    ::kill(cli.pid(), SIGKILL);
    cli.wait(std::chrono::seconds(10));
    EXPECT_TRUE(waitGone(nvcc, std::chrono::seconds(5))) << "nvcc outlived the killed CLI";
    EXPECT_TRUE(waitGone(child, std::chrono::seconds(5))) << "nvcc's child outlived the killed CLI";
    // The watchdog removes the build's folder (nvcc's temporary files in it) once the group is dead.
    for (int i = 0; i < 250 && !b.leftovers().empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(b.leftovers(), std::vector<std::string>{});
    ::kill(nvcc, SIGKILL);
    ::kill(child, SIGKILL);
}

TEST(Faults, DeviceDebugBuildsWork) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    ProcessResult r = b.cli({"build", (b.dir / "k.cu").string(), "-G", "--no-cache"}, "pass");
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
}

TEST(Faults, DirectoryAndDeviceInputsAreNamed) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    ProcessResult dir = b.cli({"build", b.dir.string()}, "pass");
    EXPECT_EQ(dir.exitCode, 2);
    EXPECT_NE(dir.stderrText.find("is a directory"), std::string::npos) << dir.stderrText;
    ProcessResult dev = b.cli({"build", "/dev/null"}, "pass");
    EXPECT_EQ(dev.exitCode, 2);
    EXPECT_NE(dev.stderrText.find("not a regular file"), std::string::npos) << dev.stderrText;
    ProcessResult none = b.cli({"build", (b.dir / "absent.cu").string()}, "pass");
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_NE(none.stderrText.find("no such file"), std::string::npos) << none.stderrText;
}

// Raw control bytes from tool output (a garbage source echoed in a diagnostic) never reach the
// terminal: escape sequences would clear it, retitle it or worse.
TEST(Faults, ControlBytesAreEscapedInTerminalOutput) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    ProcessResult fake = b.cli({"build", (b.dir / "k.cu").string(), "--no-cache"}, "garbage");
    EXPECT_NE(fake.exitCode, 0);
    EXPECT_EQ(fake.stderrText.find('\x1b'), std::string::npos) << fake.stderrText;
    EXPECT_EQ(fake.stderrText.find('\x07'), std::string::npos);
    EXPECT_NE(fake.stderrText.find("\\x1b"), std::string::npos) << fake.stderrText;
    // The real nvcc quoting a garbage source.
    std::ofstream(b.dir / "g.cu") << "__global__ void k() { \x1b[2J\x1b]0;pwned\x07 }\n";
    ProcessResult real = b.cli({"build", (b.dir / "g.cu").string(), "--no-cache"}, "pass");
    EXPECT_NE(real.exitCode, 0);
    EXPECT_EQ(real.stderrText.find('\x1b'), std::string::npos) << real.stderrText;
    EXPECT_EQ(real.stderrText.find('\x07'), std::string::npos);
}

// ------------------------------------------------------------------------------------------------
// The runner link through the CLI (issue 13, item 4): a runner that breaks the protocol ends the
// command with exit 2 and a clear message, is killed, and never makes the CLI abort; --timeout
// bounds the start-up and --max-time/--timeout the whole request; --runner and $LOWERSCOPE_RUNNER
// split words by one rule. The fake runner is tests/core/run_fakes/fake_runner.cpp.

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

pid_t pidIn(const fs::path& file) {
    std::istringstream in(readFile(file));
    pid_t pid = -1;
    in >> pid;
    return pid;
}

} // namespace

TEST(RunnerLinkCli, ABrokenAnswerIsAProtocolErrorWithExit2) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    const std::string saxpy = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu";
    int cases = 0;
    for (const char* mode : {"short", "empty", "negative", "endless", "stale"}) {
        for (const char* command : {"run", "compare"}) {
            const fs::path mark = b.dir / (std::string(mode) + "-" + command + ".pid");
            const std::string runner = quoted(FAKE_RUNNER) + " --mode " + mode + " --mark " + quoted(mark.string());
            std::vector<std::string> args = {command, saxpy, "--runner", runner, "--timeout", "5"};
            if (std::string(command) == "compare") args.insert(args.end(), {"--a", "--opt 3", "--b", "--fast-math"});
            ProcessResult r = b.cli(args, "pass");
            ++cases;
            EXPECT_EQ(r.exitCode, 2) << command << " " << mode << ": " << r.describe() << "\n" << r.stderrText;
            EXPECT_NE(r.stderrText.find("protocol"), std::string::npos) << mode << ": " << r.stderrText;
            EXPECT_TRUE(waitGone(pidIn(mark), std::chrono::seconds(5))) << mode << ": the runner was left running";
        }
    }
    std::cout << cases << " broken answers, all exit 2\n";
}

TEST(RunnerLinkCli, RunnerTextIsEscaped) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    ProcessResult r = b.cli({"run", std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu", "--runner",
                             quoted(FAKE_RUNNER) + " --mode control"},
                            "pass");
    EXPECT_EQ(r.exitCode, 1) << r.stderrText; // a kernel fault
    EXPECT_EQ(r.stderrText.find('\x1b'), std::string::npos) << r.stderrText;
    EXPECT_EQ(r.stderrText.find('\x07'), std::string::npos);
    EXPECT_NE(r.stderrText.find("\\x1b"), std::string::npos) << r.stderrText;
}

TEST(RunnerLinkCli, TimeoutBoundsStartUpAndTheWholeRequest) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    const std::string saxpy = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu";
    // Build once, so that the timed runs below are the runner's time only.
    ASSERT_EQ(b.cli({"build", saxpy}, "pass").exitCode, 0);
    // A runner that never says hello: --timeout 1, not a fixed minute.
    const fs::path silent = b.dir / "silent.pid";
    ProcessResult r = b.cli({"run", saxpy, "--runner", quoted(FAKE_RUNNER) + " --silent --mark " + quoted(silent.string()),
                             "--timeout", "1"},
                            "pass");
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_NE(r.stderrText.find("did not say hello within 1 s"), std::string::npos) << r.stderrText;
    EXPECT_LT(r.wallMs, 15000) << "start-up took " << r.wallMs << " ms with --timeout 1";
    EXPECT_TRUE(waitGone(pidIn(silent), std::chrono::seconds(5)));
    // A runner that keeps sending progress: stopped after --max-time + 3 x --timeout.
    const fs::path chatty = b.dir / "chatty.pid";
    r = b.cli({"run", saxpy, "--runner", quoted(FAKE_RUNNER) + " --mode chatty --mark " + quoted(chatty.string()),
               "--timeout", "1", "--max-time", "1"},
              "pass");
    EXPECT_EQ(r.exitCode, 1) << r.stderrText; // a deadline, as for a hung kernel
    EXPECT_NE(r.stderrText.find("no answer"), std::string::npos) << r.stderrText;
    EXPECT_LT(r.wallMs, 20000) << "the request took " << r.wallMs << " ms with --max-time 1 --timeout 1";
    EXPECT_TRUE(waitGone(pidIn(chatty), std::chrono::seconds(5)));
}

TEST(RunnerLinkCli, RunnerFlagAndEnvironmentSplitAlike) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    const std::string saxpy = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu";
    const std::string command = quoted(FAKE_RUNNER) + " --mode \"sh\"ort";
    ProcessResult viaFlag = b.cli({"run", saxpy, "--runner", command}, "pass");
    ProcessSpec s = b.spec({"run", saxpy}, "pass");
    s.env["LOWERSCOPE_RUNNER"] = command;
    ProcessResult viaEnv = runProcess(s);
    // Both started the fake runner with "--mode short" (its short answer is the protocol error); the
    // whole text taken as one program name would say "cannot start the runner" instead.
    for (const ProcessResult* r : {&viaFlag, &viaEnv}) {
        EXPECT_EQ(r->exitCode, 2) << r->stderrText;
        EXPECT_NE(r->stderrText.find("variant(s) for a request of 1"), std::string::npos) << r->stderrText;
    }
    s.env["LOWERSCOPE_RUNNER"] = "'unterminated";
    ProcessResult bad = runProcess(s);
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.stderrText.find("LOWERSCOPE_RUNNER: unterminated"), std::string::npos) << bad.stderrText;
}

// Outputs named by the runner become files only inside --keep-outputs DIR (issue 13, item 2).
TEST(RunnerLinkCli, OutputNamesStayInsideTheKeepFolder) {
    REQUIRE_NVCC_AND_NVDISASM();
    Bench b;
    const fs::path keep = b.dir / "deep" / "er" / "keep";
    ProcessResult r = b.cli({"run", std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu", "--runner",
                             quoted(FAKE_RUNNER) + " --mode names", "--keep-outputs", keep.string()},
                            "pass");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_FALSE(fs::exists(b.dir / "deep" / "escaped.bin"));
    EXPECT_FALSE(fs::exists("/tmp/abs.bin"));
    std::set<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(b.dir / "deep")) {
        if (e.is_regular_file()) {
            EXPECT_EQ(e.path().parent_path(), keep) << e.path() << " was written outside " << keep;
            files.insert(e.path().filename().string());
        }
    }
    EXPECT_EQ(files, (std::set<std::string>{"outputs.json", "_._.._escaped.bin", "_tmp_abs.bin", "_..bin", "output.bin",
                                            "a_b.bin", "a_b-2.bin"}));
    // ...and compare-outputs reads them back (to itself: all agree).
    ProcessResult same = b.cli({"compare-outputs", keep.string(), keep.string()}, "pass");
    EXPECT_EQ(same.exitCode, 0) << same.stdoutText << same.stderrText;
}

// compare-outputs on folders someone else wrote (issue 13, item 6): missing outputs never agree,
// and outputs.json cannot make it read outside the folder. No nvcc needed.
TEST(CompareOutputs, MissingOrForeignFilesNeverAgree) {
    Bench b;
    auto folder = [&](const std::string& name, const json& outputs, const std::map<std::string, std::string>& bins) {
        const fs::path d = b.dir / name;
        fs::create_directories(d);
        std::ofstream(d / "outputs.json") << json{{"schema", "lowerscope.outputs/1"}, {"outputs", outputs}}.dump();
        for (const auto& [file, bytes] : bins) std::ofstream(d / file, std::ios::binary) << bytes;
        return d.string();
    };
    const std::string two(8, '\0');
    const json y = json::array({json{{"name", "y"}, {"type", "f32"}, {"count", 2}, {"file", "y.bin"}}});
    const std::string good = folder("good", y, {{"y.bin", two}});
    struct Case {
        const char* what;
        std::string dir;
        int exitCode;
    };
    std::ofstream(b.dir / "secret.bin", std::ios::binary) << two;
    const std::vector<Case> cases = {
        {"both .bin files missing", folder("nobin", y, {}), 2},
        {"a file outside the folder",
         folder("outside", json::array({json{{"name", "y"}, {"type", "f32"}, {"count", 2}, {"file", "../secret.bin"}}}),
                {}),
         2},
        {"an absolute file",
         folder("absolute",
                json::array({json{{"name", "y"}, {"type", "f32"}, {"count", 2}, {"file", (b.dir / "secret.bin").string()}}}),
                {}),
         2},
        {"a size that is not the count", folder("short", y, {{"y.bin", std::string(4, '\0')}}), 2},
        {"no outputs at all", folder("empty", json::array(), {}), 2},
        {"an output only the other side has",
         folder("other", json::array({json{{"name", "z"}, {"type", "f32"}, {"count", 2}, {"file", "z.bin"}}}),
                {{"z.bin", two}}),
         1},
    };
    for (const auto& c : cases) {
        const std::string other = std::string(c.what) == "no outputs at all" ? c.dir : good;
        ProcessResult r = b.cli({"compare-outputs", other, c.dir}, "pass");
        EXPECT_EQ(r.exitCode, c.exitCode) << c.what << "\n" << r.stdoutText << r.stderrText;
        EXPECT_EQ(r.stdoutText.find(": agree"), std::string::npos) << c.what << "\n" << r.stdoutText;
        if (c.exitCode == 2) EXPECT_FALSE(r.stderrText.empty()) << c.what;
    }
    // A folder that is a directory's name for outputs.json, and a deeply nested outputs.json.
    fs::create_directories(b.dir / "dirjson" / "outputs.json");
    ProcessResult dir = b.cli({"compare-outputs", good, (b.dir / "dirjson").string()}, "pass");
    EXPECT_EQ(dir.exitCode, 2);
    EXPECT_NE(dir.stderrText.find("directory"), std::string::npos) << dir.stderrText;
    fs::create_directories(b.dir / "deep");
    std::ofstream(b.dir / "deep" / "outputs.json") << std::string(100000, '[') << std::string(100000, ']');
    ProcessResult deep = b.cli({"compare-outputs", good, (b.dir / "deep").string()}, "pass");
    EXPECT_EQ(deep.exitCode, 2);
    EXPECT_NE(deep.stderrText.find("too deep"), std::string::npos) << deep.stderrText;
    // The good folder against itself agrees.
    EXPECT_EQ(b.cli({"compare-outputs", good, good}, "pass").exitCode, 0);
}
