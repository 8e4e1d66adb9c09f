#pragma once
// Shared helpers of the analysis tests: the golden tool outputs under tests/data/<arch>/ (written
// by scripts/gen-golden from kernels/*.cu with the real nvcc/nvdisasm).

#include "core/analysis/defuse.h"
#include "core/parse/sass_parser.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace lowerscope::testutil {

inline std::filesystem::path dataDir() { return std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "tests" / "data"; }

inline std::string readFile(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Archs (sm_*) that have golden data.
inline std::vector<std::string> goldenArchs() {
    std::vector<std::string> out;
    std::error_code ec;
    if (!std::filesystem::is_directory(dataDir(), ec)) return out;
    for (const auto& e : std::filesystem::directory_iterator(dataDir()))
        if (e.is_directory() && e.path().filename().string().rfind("sm_", 0) == 0) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

// Kernel base names with a .sass file for the arch.
inline std::vector<std::string> goldenKernels(const std::string& arch) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dataDir() / arch)) {
        const std::string name = e.path().filename().string();
        const std::string ext = ".sass";
        if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0 &&
            name.find(".gp.") == std::string::npos && name.find(".lrm.") == std::string::npos)
            out.push_back(name.substr(0, name.size() - ext.size()));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The three listings of a golden kernel merged, with defs/uses filled.
inline SassListing loadGolden(const std::string& arch, const std::string& kernel) {
    const auto dir = dataDir() / arch;
    SassListing l = parseSassTexts(readFile(dir / (kernel + ".sass")), readFile(dir / (kernel + ".gp.sass")),
                                   readFile(dir / (kernel + ".lrm.sass")));
    for (auto& f : l.functions) analyseDefUse(f);
    return l;
}

#define LOWERSCOPE_REQUIRE_GOLDEN()                                                                \
    do {                                                                                           \
        if (::lowerscope::testutil::goldenArchs().empty()) GTEST_SKIP() << "no tests/data/sm_* (run scripts/gen-golden)"; \
    } while (0)

} // namespace lowerscope::testutil
