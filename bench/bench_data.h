#pragma once

// The generated benchmark listing of bench/unrolled.cu, shared by parse_bench and analysis_bench:
// scripts/gen-bench-listing writes unrolled.{sass,gp.sass,lrm.sass,ptx} into <build>/bench/data
// (or $LOWERSCOPE_BENCH_DATA). Needs the LOWERSCOPE_BINARY_DIR compile definition.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace lowerscope::benchdata {

// Folder holding the generated listing.
inline std::filesystem::path dataDir() {
    if (const char* d = std::getenv("LOWERSCOPE_BENCH_DATA")) return d;
    return std::filesystem::path(LOWERSCOPE_BINARY_DIR) / "bench" / "data";
}

// Contents of unrolled.<name>, read once and cached for the process; empty when the file is missing.
inline const std::string& text(const std::string& name) {
    static std::map<std::string, std::string> cache;
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    std::ifstream f(dataDir() / ("unrolled." + name), std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return cache[name] = s.str();
}

// False (and the benchmark marked skipped with a hint) when the listing was not generated.
inline bool haveData(benchmark::State& state) {
    if (text("sass").empty()) {
        state.SkipWithError("no listing: run scripts/gen-bench-listing <build-dir>");
        return false;
    }
    return true;
}

} // namespace lowerscope::benchdata
