#pragma once
// The shared preamble of the core tests: the real toolchain (discovered once, never writing the
// user's cache) and the skips without it, a scratch folder, the built CLI run hermetically, tool
// runs that make test inputs.

#include "core/build/build.h"
#include "core/build/process.h"
#include "core/build/toolchain.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace lowerscope::test {

inline const Toolchain& realToolchain() {
    static Toolchain tc = [] {
        DiscoveryOptions o;
        o.memoDir = "-"; // hermetic: ask the tools, never write the user's cache directory
        return discoverToolchain(o);
    }();
    return tc;
}

#define REQUIRE_BUILD_TOOLS()                                                                                    \
    do {                                                                                                         \
        const auto& tc_ = ::lowerscope::test::realToolchain();                                                   \
        if (!tc_.nvcc.found() || !tc_.ptxas.found() || !tc_.nvdisasm.found())                                    \
            GTEST_SKIP() << "nvcc, ptxas or nvdisasm not found (run scripts/bootstrap)";                         \
    } while (0)

// nvcc and nvdisasm, what most tests that build a kernel need (skip without them).
inline bool nvccAndNvdisasmFound() {
    return realToolchain().nvcc.found() && realToolchain().nvdisasm.found();
}
#define REQUIRE_NVCC_AND_NVDISASM()                                                                              \
    do {                                                                                                         \
        if (!::lowerscope::test::nvccAndNvdisasmFound())                                                         \
            GTEST_SKIP() << "nvcc or nvdisasm not found (run scripts/bootstrap)";                                \
    } while (0)

// A scratch directory (TMPDIR/<prefix>-XXXXXX) removed at scope exit.
struct ScratchDir {
    std::filesystem::path dir;
    explicit ScratchDir(const std::string& prefix = "lowerscope-test") {
        std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        dir = ::mkdtemp(tmpl.data());
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    std::string path(const std::string& name) const { return (dir / name).string(); }
    std::string write(const std::string& name, const std::string& text) const {
        std::filesystem::path p = dir / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
};

#ifdef LOWERSCOPE_CLI
// Runs the built lowerscope-cli (tests whose target defines LOWERSCOPE_CLI) with `args`, hermetic:
// its default cache (and its tool-version memo) goes to a scratch folder of this test process.
inline ProcessResult runCli(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    static ScratchDir defaultCache("lowerscope-cli-test");
    env.emplace("LOWERSCOPE_CACHE_DIR", defaultCache.dir.string());
    ProcessSpec spec;
    spec.argv = {LOWERSCOPE_CLI};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = std::move(env);
    spec.timeout = std::chrono::seconds(300);
    return runProcess(spec);
}
#endif

inline BuildControl uncached() {
    BuildControl c;
    c.useCache = false;
    return c;
}

inline std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs a toolkit tool to make a test input; fails the test (with its stderr) when it does not work.
inline void runTool(std::vector<std::string> argv) {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.timeout = std::chrono::seconds(120);
    ProcessResult r = runProcess(s);
    ASSERT_TRUE(r.ok()) << shellQuote(s.argv) << ": " << r.describe() << "\n" << r.stderrText;
}

} // namespace lowerscope::test
