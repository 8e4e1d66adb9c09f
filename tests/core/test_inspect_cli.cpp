// End to end: `lowerscope-cli inspect` on kernels/saxpy.cu with the real nvcc/nvdisasm (skipped
// when the toolchain is missing): JSON schema, --line output, exit codes.
#include "core/build/process.h"
#include "core/build/toolchain.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

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
    EXPECT_EQ(doc["schema"], "lowerscope.inspect/1");
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
    for (const auto& l : k["lines"]) line8 |= l["line"] == 8 && l["instructions"].get<int>() > 0;
    EXPECT_TRUE(line8);

    // Usage errors: unknown kernel, nothing to do.
    EXPECT_EQ(run({"inspect", src("kernels/saxpy.cu"), "--kernel", "nope", "--json", out.string()}, tmp / "cache").exitCode, 2);
    EXPECT_EQ(run({"inspect", src("kernels/saxpy.cu")}, tmp / "cache").exitCode, 2);
    // A compile error is exit 1.
    const auto bad = tmp / "bad.cu";
    std::ofstream(bad) << "__global__ void k(int* p) { p[0] = undeclared; }\n";
    EXPECT_EQ(run({"inspect", bad.string(), "--json", out.string()}, tmp / "cache").exitCode, 1);
    std::filesystem::remove_all(tmp);
}
