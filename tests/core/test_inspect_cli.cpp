// End to end: `lowerscope-cli inspect` on kernels/saxpy.cu and the header-resident kernel family of
// tests/data/src with the real nvcc/nvdisasm (skipped when the toolchain is missing): JSON schema,
// --line [FILE:]N and --frame, exit codes.
#include "core/build/process.h"
#include "core/build/toolchain.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace lowerscope;

namespace {

std::string cli() { return std::string(LOWERSCOPE_BINARY_DIR) + "/app/lowerscope-cli"; }
std::string src(const char* rel) { return std::string(LOWERSCOPE_SOURCE_DIR) + "/" + rel; }

bool haveTools() {
    DiscoveryOptions o;
    o.queryArchs = false;
    o.queryVersions = false;
    const Toolchain tc = discoverToolchain(o);
    return tc.nvcc.found() && tc.nvdisasm.found() && tc.cuobjdump.found();
}

ProcessResult run(std::vector<std::string> args, const std::filesystem::path& cache) {
    ProcessSpec s;
    s.argv = {cli()};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.env["LOWERSCOPE_CACHE_DIR"] = cache.string();
    s.timeout = std::chrono::milliseconds(180000);
    return runProcess(s);
}

} // namespace

TEST(InspectCli, JsonAndLineReport) {
    if (!std::filesystem::exists(cli())) GTEST_SKIP() << "lowerscope-cli not built";
    if (!haveTools()) GTEST_SKIP() << "nvcc/nvdisasm/cuobjdump not found";
    const auto tmp = std::filesystem::temp_directory_path() / ("ls_inspect_" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp);
    const auto out = tmp / "saxpy.json";
    const ProcessResult r = run({"inspect", src("kernels/saxpy.cu"), "--arch", "sm_90", "--line", "8", "--json", out.string()}, tmp / "cache");
    ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.stderrText;
    // --line 8 (`y[i] = a * x[i] + y[i];`) prints its PTX and SASS.
    EXPECT_NE(r.stdoutText.find("fma.rn.f32"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("FFMA"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("LDG.E"), std::string::npos) << r.stdoutText;

    std::ifstream f(out);
    const auto doc = nlohmann::json::parse(f, nullptr, false);
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc["schema"], "lowerscope.inspect/2");
    EXPECT_EQ(doc["arch"], "sm_90");
    ASSERT_EQ(doc["kernels"].size(), 1u);
    const auto& k = doc["kernels"][0];
    EXPECT_EQ(k["mangled"], "_Z5saxpyifPKfPf");
    EXPECT_GT(k["ptx"]["lines"].size(), 10u);
    EXPECT_GT(k["sass"]["instructions"].size(), 10u);
    bool ffma = false;
    for (const auto& i : k["sass"]["instructions"]) ffma |= i["opcode"] == "FFMA";
    EXPECT_TRUE(ffma);
    bool sb = false, reg = false;
    for (const auto& d : k["deps"]) {
        sb |= d["kind"] == "scoreboard";
        reg |= d["kind"] == "register";
    }
    EXPECT_TRUE(sb);
    EXPECT_TRUE(reg);
    EXPECT_GE(k["blocks"].size(), 2u);
    bool line8 = false;
    // lines[] (inspect/2): each (file, line) with its call-site, callee and any-frame counts.
    for (const auto& l : k["lines"]) line8 |= l["line"] == 8 && l["call_site"]["instructions"].get<int>() > 0;
    EXPECT_TRUE(line8);
    // Control codes carry yield_hint (the text form's Y), not the raw bit under the name yield.
    for (const auto& i : k["sass"]["instructions"]) {
        EXPECT_FALSE(i["control"].contains("yield"));
        EXPECT_EQ(i["control"]["yield_hint"].get<bool>(), i["control"]["text"].get<std::string>()[14] == 'Y');
    }
    // The files the code maps to: saxpy.cu itself, the main file.
    ASSERT_FALSE(doc["files"].empty());
    EXPECT_EQ(doc["files"][0]["kind"], "main");
    EXPECT_EQ(std::filesystem::path(doc["files"][0]["path"].get<std::string>()).filename(), "saxpy.cu");

    // Usage errors: unknown kernel, nothing to do.
    EXPECT_EQ(run({"inspect", src("kernels/saxpy.cu"), "--kernel", "nope", "--json", out.string()}, tmp / "cache").exitCode, 2);
    EXPECT_EQ(run({"inspect", src("kernels/saxpy.cu")}, tmp / "cache").exitCode, 2);
    // A compile error is exit 1.
    const auto bad = tmp / "bad.cu";
    std::ofstream(bad) << "__global__ void k(int* p) { p[0] = undeclared; }\n";
    EXPECT_EQ(run({"inspect", bad.string(), "--json", out.string()}, tmp / "cache").exitCode, 1);
    std::filesystem::remove_all(tmp);
}

// A kernel family defined in headers: `--line header.cuh:N` for a call-site line (in the kernel
// body), a callee line (the innermost helper) and a middle frame (a helper called from a helper).
TEST(InspectCli, HeaderLinesByFrame) {
    if (!std::filesystem::exists(cli())) GTEST_SKIP() << "lowerscope-cli not built";
    if (!haveTools()) GTEST_SKIP() << "nvcc/nvdisasm/cuobjdump not found";
    const auto tmp = std::filesystem::temp_directory_path() / ("ls_inspect_hdr_" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp);
    const std::string cu = src("tests/data/src/header_family.cu");
    auto sassCount = [](const std::string& report) {
        size_t n = 0;
        for (size_t p = report.find("/*"); p != std::string::npos; p = report.find("/*", p + 2)) ++n;
        return n;
    };
    // The call site: gemm.cuh:18 inlines tile_dot.
    ProcessResult callSite = run({"inspect", cu, "--line", "header_family_gemm.cuh:18", "--frame", "call-site"}, tmp / "cache");
    ASSERT_TRUE(callSite.ok()) << callSite.describe() << "\n" << callSite.stderrText;
    EXPECT_NE(callSite.stdoutText.find("FFMA"), std::string::npos) << callSite.stdoutText;
    // The innermost helper, math.cuh:7: nothing by call site, its FFMAs by callee.
    ProcessResult inner = run({"inspect", cu, "--line", "header_family_math.cuh:7", "--frame", "call-site"}, tmp / "cache");
    ASSERT_TRUE(inner.ok()) << inner.stderrText;
    EXPECT_NE(inner.stdoutText.find("no code for"), std::string::npos) << inner.stdoutText;
    ProcessResult callee = run({"inspect", cu, "--line", "header_family_math.cuh:7", "--frame", "callee"}, tmp / "cache");
    ASSERT_TRUE(callee.ok()) << callee.stderrText;
    EXPECT_NE(callee.stdoutText.find("FFMA"), std::string::npos) << callee.stdoutText;
    // The middle frame, math.cuh:16: by default (any frame) it has the FFMAs of line 7 too.
    ProcessResult middleCallee = run({"inspect", cu, "--line", "header_family_math.cuh:16", "--frame", "callee"}, tmp / "cache");
    ProcessResult middleAny = run({"inspect", cu, "--line", "tests/data/src/header_family_math.cuh:16"}, tmp / "cache");
    ASSERT_TRUE(middleAny.ok()) << middleAny.stderrText;
    EXPECT_NE(middleAny.stdoutText.find("(any;"), std::string::npos) << middleAny.stdoutText;
    EXPECT_NE(middleAny.stdoutText.find("FFMA"), std::string::npos) << middleAny.stdoutText;
    EXPECT_GT(sassCount(middleAny.stdoutText), sassCount(middleCallee.stdoutText));
    // JSON: the files, and lines[] keyed by (file, line) with the three counts.
    const auto out = tmp / "hdr.json";
    ProcessResult j = run({"inspect", cu, "--line", "header_family_math.cuh:16", "--json", out.string()}, tmp / "cache");
    ASSERT_TRUE(j.ok()) << j.stderrText;
    std::ifstream f(out);
    const auto doc = nlohmann::json::parse(f, nullptr, false);
    ASSERT_TRUE(doc.is_object());
    std::map<std::string, std::string> kinds;
    for (const auto& file : doc["files"]) kinds[std::filesystem::path(file["path"].get<std::string>()).filename()] = file["kind"];
    EXPECT_EQ(kinds["header_family_gemm.cuh"], "project");
    EXPECT_EQ(kinds["header_family_math.cuh"], "project");
    ASSERT_EQ(doc["kernels"].size(), 2u);
    for (const auto& k : doc["kernels"]) {
        bool middle = false;
        for (const auto& l : k["lines"])
            if (l["line"] == 16 && l["file"].get<std::string>().find("header_family_math.cuh") != std::string::npos) {
                middle = true;
                EXPECT_EQ(l["call_site"]["instructions"], 0);
                EXPECT_GT(l["any_frame"]["instructions"].get<int>(), l["callee"]["instructions"].get<int>());
            }
        EXPECT_TRUE(middle);
        EXPECT_EQ(k["query"]["frame"], "any");
        EXPECT_FALSE(k["query"]["any_frame"]["sass_addresses"].empty());
        EXPECT_TRUE(k["query"]["call_site"]["sass_addresses"].empty());
        EXPECT_EQ(k["launch_bounds"]["minnctapersm"], 2);
    }
    // Usage errors: a bad --frame, a file no code maps to.
    EXPECT_EQ(run({"inspect", cu, "--line", "7", "--frame", "inner"}, tmp / "cache").exitCode, 2);
    ProcessResult none = run({"inspect", cu, "--line", "nosuch.cuh:3"}, tmp / "cache");
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_NE(none.stderrText.find("header_family_math.cuh"), std::string::npos) << none.stderrText; // lists the files
    std::filesystem::remove_all(tmp);
}

// Two headers with the same name: the bare name is ambiguous and the error names both.
TEST(InspectCli, AmbiguousFileNameListsTheCandidates) {
    if (!std::filesystem::exists(cli())) GTEST_SKIP() << "lowerscope-cli not built";
    if (!haveTools()) GTEST_SKIP() << "nvcc/nvdisasm/cuobjdump not found";
    const auto tmp = std::filesystem::temp_directory_path() / ("ls_inspect_amb_" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp / "x");
    std::filesystem::create_directories(tmp / "y");
    std::ofstream(tmp / "x" / "ops.cuh") << "__device__ __forceinline__ float opx(float v) { return v * 3.0f + 1.0f; }\n";
    std::ofstream(tmp / "y" / "ops.cuh") << "__device__ __forceinline__ float opy(float v) { return v * v - 2.0f; }\n";
    std::ofstream(tmp / "two.cu") << "#include \"x/ops.cuh\"\n#include \"y/ops.cuh\"\n"
                                     "__global__ void two(float* p) { p[threadIdx.x] = opx(p[threadIdx.x]) + opy(p[threadIdx.x + 32]); }\n";
    ProcessResult r = run({"inspect", (tmp / "two.cu").string(), "--line", "ops.cuh:1"}, tmp / "cache");
    EXPECT_EQ(r.exitCode, 2) << r.stdoutText;
    EXPECT_NE(r.stderrText.find("ambiguous"), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("x/ops.cuh"), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("y/ops.cuh"), std::string::npos) << r.stderrText;
    // More of the path picks one.
    ProcessResult one = run({"inspect", (tmp / "two.cu").string(), "--line", "y/ops.cuh:1", "--frame", "callee"}, tmp / "cache");
    EXPECT_EQ(one.exitCode, 0) << one.stderrText;
    EXPECT_NE(one.stdoutText.find("y/ops.cuh:1"), std::string::npos) << one.stdoutText;
    std::filesystem::remove_all(tmp);
}

// --kernel names a template instantiation by its name with template arguments ("scaled_gemm<8>",
// whitespace ignored), as its demangled form "void scaled_gemm<8>(int, ...)" has them; the plain
// name of two instantiations is ambiguous and the error lists both.
TEST(InspectCli, KernelByTemplateArguments) {
    if (!std::filesystem::exists(cli())) GTEST_SKIP() << "lowerscope-cli not built";
    if (!haveTools()) GTEST_SKIP() << "nvcc/nvdisasm/cuobjdump not found";
    const auto tmp = std::filesystem::temp_directory_path() / ("ls_inspect_tpl_" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp);
    const std::string cu = src("tests/data/src/header_family.cu");
    const std::string out = (tmp / "k.json").string();
    auto kernelsIn = [&](const std::vector<std::string>& args) {
        ProcessResult r = run(args, tmp / "cache");
        EXPECT_EQ(r.exitCode, 0) << r.stderrText;
        std::vector<std::string> names;
        std::ifstream in(out);
        const auto doc = nlohmann::json::parse(in, nullptr, false);
        if (doc.is_object())
            for (const auto& k : doc["kernels"]) names.push_back(k["name"].get<std::string>());
        return names;
    };
    const auto eight = kernelsIn({"inspect", cu, "--kernel", "scaled_gemm<8>", "--json", out});
    ASSERT_EQ(eight.size(), 1u);
    EXPECT_EQ(eight[0].rfind("void scaled_gemm<8>(", 0), 0u) << eight[0];
    const auto sixteen = kernelsIn({"inspect", cu, "--kernel", "scaled_gemm< 16 >", "--json", out});
    ASSERT_EQ(sixteen.size(), 1u);
    EXPECT_EQ(sixteen[0].rfind("void scaled_gemm<16>(", 0), 0u) << sixteen[0];
    // The exact demangled name still works; so does --line together with --kernel.
    EXPECT_EQ(kernelsIn({"inspect", cu, "--kernel", eight[0], "--json", out}), eight);
    ProcessResult line = run({"inspect", cu, "--kernel", "scaled_gemm<16>", "--line", "header_family_gemm.cuh:18"}, tmp / "cache");
    EXPECT_EQ(line.exitCode, 0) << line.stderrText;
    EXPECT_NE(line.stdoutText.find("scaled_gemm<16>"), std::string::npos) << line.stdoutText;
    EXPECT_EQ(line.stdoutText.find("scaled_gemm<8>"), std::string::npos) << line.stdoutText;

    ProcessResult plain = run({"inspect", cu, "--kernel", "scaled_gemm", "--json", out}, tmp / "cache");
    EXPECT_EQ(plain.exitCode, 2);
    EXPECT_NE(plain.stderrText.find("ambiguous"), std::string::npos) << plain.stderrText;
    EXPECT_NE(plain.stderrText.find("scaled_gemm<8>"), std::string::npos) << plain.stderrText;
    EXPECT_NE(plain.stderrText.find("scaled_gemm<16>"), std::string::npos) << plain.stderrText;
    ProcessResult wrong = run({"inspect", cu, "--kernel", "scaled_gemm<32>", "--json", out}, tmp / "cache");
    EXPECT_EQ(wrong.exitCode, 2);
    EXPECT_NE(wrong.stderrText.find("no kernel named 'scaled_gemm<32>'"), std::string::npos) << wrong.stderrText;
    std::filesystem::remove_all(tmp);
}

// Issue 30 item 4: a line past the end of the file is an error naming the file's length (it exited
// 0 with "no code").
TEST(InspectCli, LinePastTheEndIsAnError) {
    if (!std::filesystem::exists(cli())) GTEST_SKIP() << "lowerscope-cli not built";
    if (!haveTools()) GTEST_SKIP() << "nvcc/nvdisasm/cuobjdump not found";
    const auto tmp = std::filesystem::temp_directory_path() / ("ls_inspect_end_" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp);
    const ProcessResult past = run({"inspect", src("kernels/saxpy.cu"), "--arch", "sm_90", "--line", "999"}, tmp / "cache");
    EXPECT_EQ(past.exitCode, 2) << past.stdoutText;
    EXPECT_NE(past.stderrText.find("has 10 lines"), std::string::npos) << past.stderrText;
    const ProcessResult last = run({"inspect", src("kernels/saxpy.cu"), "--arch", "sm_90", "--line", "10"}, tmp / "cache");
    EXPECT_EQ(last.exitCode, 0) << last.stderrText;
    std::filesystem::remove_all(tmp);
}
