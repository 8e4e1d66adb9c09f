#pragma once
// Shared helpers of the build tests: the real toolchain (discovered once, never writing the user's
// cache), a scratch folder, tool runs that make test inputs.

#include "core/build/build.h"
#include "core/build/process.h"
#include "core/build/toolchain.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

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

// A scratch directory removed at scope exit.
struct ScratchDir {
    std::filesystem::path dir;
    ScratchDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "lowerscope-test-XXXXXX").string();
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
