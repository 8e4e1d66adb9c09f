// End-to-end: the built lowerscope-cli `build` and `doctor` commands, their JSON and exit codes.
#include "tests/core/build_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string kernel(const char* name) { return std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/" + name; }

} // namespace

TEST(CliBuild, JsonDocumentAndCacheHit) {
    if (!nvccAndNvdisasmFound()) GTEST_SKIP() << "nvcc/nvdisasm not found";
    ScratchDir s;
    std::string cacheDir = (s.dir / "cache").string();
    ProcessResult r = runCli({"build", kernel("reduction.cu"), "--arch", "sm_80", "--json", "-", "--cache-dir", cacheDir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    json d = json::parse(r.stdoutText);
    EXPECT_EQ(d["schema"], "lowerscope.build/1");
    for (const char* key : {"schema", "toolchain", "options", "commands", "diagnostics", "kernels", "timings_ms"})
        EXPECT_TRUE(d.contains(key)) << key;
    EXPECT_EQ(d["options"]["arch"], "sm_80");
    EXPECT_EQ(d["timings_ms"]["cache_hit"], false);
    EXPECT_TRUE(d["timings_ms"].contains("compile"));
    EXPECT_TRUE(d["toolchain"]["nvcc"]["found"].get<bool>());
    ASSERT_GE(d["commands"].size(), 3u);
    EXPECT_EQ(d["commands"][0]["argv"][0], d["toolchain"]["nvcc"]["path"]);
    ASSERT_GE(d["kernels"].size(), 1u);
    for (const auto& k : d["kernels"]) {
        for (const char* key : {"name", "mangled", "resources", "ptx", "sass"}) EXPECT_TRUE(k.contains(key)) << key;
        for (const char* key : {"registers", "shared_bytes", "local_bytes", "spill_stores", "spill_loads"})
            EXPECT_TRUE(k["resources"].contains(key)) << key;
        EXPECT_GT(k["resources"]["registers"].get<int>(), 0);
        EXPECT_FALSE(k["ptx"].get<std::string>().empty());
        EXPECT_FALSE(k["sass"].get<std::string>().empty());
    }
    EXPECT_EQ(d["kernels"][0]["resources"]["shared_bytes"], 128); // reduction.cu: float partial[32]
    // The files the code maps to: the .cu itself and the toolkit's headers it inlines from.
    ASSERT_TRUE(d.contains("files"));
    ASSERT_GE(d["files"].size(), 2u);
    EXPECT_EQ(d["files"][0]["kind"], "main");
    EXPECT_NE(d["files"][0]["path"].get<std::string>().find("kernels/reduction.cu"), std::string::npos);
    EXPECT_FALSE(d["files"][0]["read_only"].get<bool>());
    bool toolkit = false;
    for (const auto& f : d["files"])
        if (f["path"].get<std::string>().find("sm_30_intrinsics.hpp") != std::string::npos) {
            toolkit = true;
            EXPECT_EQ(f["kind"], "toolkit");
            EXPECT_TRUE(f["read_only"].get<bool>());
            EXPECT_TRUE(f["resolved"].is_string());
        }
    EXPECT_TRUE(toolkit) << d["files"].dump();
    // Live registers are the core's: nvdisasm -lrm is not run.
    for (const auto& c : d["commands"])
        for (const auto& arg : c["argv"]) EXPECT_NE(arg, "-lrm") << c.dump();

    // Same build again: a cache hit with the same document apart from the timings.
    ProcessResult again = runCli({"build", kernel("reduction.cu"), "--arch", "sm_80", "--json", "-", "--cache-dir", cacheDir});
    ASSERT_EQ(again.exitCode, 0) << again.stderrText;
    json h = json::parse(again.stdoutText);
    EXPECT_EQ(h["timings_ms"]["cache_hit"], true);
    json a = d, b = h;
    a.erase("timings_ms");
    b.erase("timings_ms");
    EXPECT_EQ(a, b);

    // --no-cache builds again.
    ProcessResult fresh = runCli({"build", kernel("reduction.cu"), "--arch", "sm_80", "--json", "-", "--cache-dir", cacheDir, "--no-cache"});
    ASSERT_EQ(fresh.exitCode, 0);
    EXPECT_EQ(json::parse(fresh.stdoutText)["timings_ms"]["cache_hit"], false);

    // --print reads the same cache.
    ProcessResult res = runCli({"build", kernel("reduction.cu"), "--arch", "sm_80", "--print", "resources", "--cache-dir", cacheDir});
    ASSERT_EQ(res.exitCode, 0);
    EXPECT_NE(res.stdoutText.find("reduce_sum(float const*, float*, int)"), std::string::npos) << res.stdoutText;
    ProcessResult ptx = runCli({"build", kernel("reduction.cu"), "--arch", "sm_80", "--print", "ptx", "--cache-dir", cacheDir});
    EXPECT_EQ(ptx.stdoutText, d["ptx"].get<std::string>());
    ProcessResult sass = runCli({"build", kernel("reduction.cu"), "--arch", "sm_80", "--print", "sass", "--cache-dir", cacheDir});
    EXPECT_EQ(sass.stdoutText, d["kernels"][0]["sass"].get<std::string>());
}

// A kernel using all 255 registers: nvdisasm -lrm count refuses it ("Invalid register count"), which
// used to fail the whole build. Now it builds, and inspect shows its SASS, dependencies, CFG and
// register pressure.
TEST(CliBuild, TwoHundredFiftyFiveRegisterKernel) {
    if (!nvccAndNvdisasmFound()) GTEST_SKIP() << "nvcc/nvdisasm not found";
    ScratchDir s;
    const std::string src = std::string(LOWERSCOPE_SOURCE_DIR) + "/tests/data/src/regs255.cu";
    const std::string cache = (s.dir / "cache").string();
    ProcessResult r = runCli({"build", src, "--arch", "sm_90", "--json", "-", "--cache-dir", cache});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const json d = json::parse(r.stdoutText);
    ASSERT_EQ(d["kernels"].size(), 1u);
    EXPECT_EQ(d["kernels"][0]["resources"]["registers"], 255);
    EXPECT_NE(d["kernels"][0]["sass"].get<std::string>().find("FFMA"), std::string::npos);
    ProcessResult i = runCli({"inspect", src, "--arch", "sm_90", "--json", "-"}, {{"LOWERSCOPE_CACHE_DIR", cache}});
    ASSERT_EQ(i.exitCode, 0) << i.stderrText;
    const json doc = json::parse(i.stdoutText);
    const json& k = doc["kernels"][0];
    EXPECT_GT(k["sass"]["instructions"].size(), 500u);
    EXPECT_GT(k["deps"].size(), 1000u);
    EXPECT_GE(k["blocks"].size(), 3u);
    int peak = 0;
    for (const auto& ins : k["sass"]["instructions"])
        if (ins["live"]["gpr"].is_number()) peak = std::max(peak, ins["live"]["gpr"].get<int>());
    EXPECT_GT(peak, 240);
    EXPECT_LE(peak, 255);
}

TEST(CliBuild, CompileErrorExitsOneWithDiagnostic) {
    if (!nvccAndNvdisasmFound()) GTEST_SKIP() << "nvcc/nvdisasm not found";
    ScratchDir s;
    std::string file = s.write("broken.cu", "__global__ void k(float* y)\n"
                                            "{\n"
                                            "    y[0] = 1.0f\n"        // missing ';'
                                            "    y[1] = 2.0f;\n"
                                            "}\n");
    std::string out = (s.dir / "out.json").string();
    ProcessResult r = runCli({"build", file, "--json", out, "--no-cache"});
    EXPECT_EQ(r.exitCode, 1) << r.stderrText;
    EXPECT_NE(r.stderrText.find("broken.cu:4:"), std::string::npos) << r.stderrText; // reported where `y` follows
    std::ifstream in(out);
    json d = json::parse(in);
    EXPECT_EQ(d["ok"], false);
    ASSERT_GE(d["diagnostics"].size(), 1u);
    EXPECT_EQ(d["diagnostics"][0]["severity"], "error");
    EXPECT_EQ(d["diagnostics"][0]["line"], 4);
    EXPECT_TRUE(d["kernels"].empty());
}

TEST(CliBuild, MissingToolExitsTwoNamingIt) {
    ProcessResult r = runCli({"build", kernel("saxpy.cu"), "--no-cache"}, {{"LOWERSCOPE_NVDISASM", "/nonexistent/nvdisasm"}});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("nvdisasm not found"), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("/nonexistent/nvdisasm"), std::string::npos);

    r = runCli({"build", kernel("saxpy.cu"), "--no-cache", "--json", "-"}, {{"LOWERSCOPE_NVCC", "/nonexistent/nvcc"}});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("nvcc not found"), std::string::npos) << r.stderrText;
    json d = json::parse(r.stdoutText);
    EXPECT_EQ(d["ok"], false);
    EXPECT_NE(d["error"].get<std::string>().find("nvcc"), std::string::npos);

    r = runCli({"doctor"}, {{"LOWERSCOPE_CUOBJDUMP", "/nonexistent/cuobjdump"}});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stdoutText.find("cuobjdump  NOT FOUND"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stderrText.find("nvidia-cuda-cuobjdump"), std::string::npos) << r.stderrText;
}

TEST(CliBuild, UsageErrorsExitTwo) {
    for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
             {"build"},
             {"build", kernel("saxpy.cu"), "--opt", "9"},
             {"build", kernel("saxpy.cu"), "--bogus"},
             {"build", kernel("saxpy.cu"), "--print", "cubin"},
             {"build", kernel("saxpy.cu"), "--arch", "sm_9x", "--no-cache"},
             {"build", "/nonexistent/k.cu", "--no-cache"},
             {"build", kernel("saxpy.cu"), "--json", "-", "--print", "ptx"}}) {
        ProcessResult r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args.back() << "\n" << r.stderrText;
        EXPECT_FALSE(r.stderrText.empty());
    }
}

TEST(CliDoctor, ListsToolsAndArchs) {
    Toolchain tc = discoverToolchain();
    bool all = tc.problems().empty();
    ProcessResult r = runCli({"doctor"});
    EXPECT_EQ(r.exitCode, all ? 0 : 2) << r.stderrText;
    for (const char* tool : {"nvcc", "ptxas", "nvdisasm", "cuobjdump"}) EXPECT_NE(r.stdoutText.find(tool), std::string::npos);
    if (tc.nvcc.found()) {
        EXPECT_NE(r.stdoutText.find(tc.nvcc.path), std::string::npos);
        EXPECT_NE(r.stdoutText.find(tc.nvcc.version), std::string::npos);
        EXPECT_NE(r.stdoutText.find("sm_90"), std::string::npos);
    }
    ProcessResult j = runCli({"doctor", "--json", "-"});
    json d = json::parse(j.stdoutText);
    EXPECT_EQ(d["schema"], "lowerscope.doctor/1");
    EXPECT_EQ(d["toolchain"]["nvcc"]["path"], tc.nvcc.path);
}
