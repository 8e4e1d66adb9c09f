#pragma once
// Shared by the SASS-in-depth view tests, benchmark and screenshot tool: a real lowering model
// assembled from the golden nvcc/nvdisasm outputs in tests/data (no toolchain needed), and a
// synthetic long listing for the benchmarks.

#include "core/analysis/lowering.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace lowerscope::testdata {

inline std::string readText(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// tests/data/<arch>/<kernel>.{ptx,sass,gp.sass} → LoweringModel (live counts computed by the
// model, as in a build). Empty model (no kernels) when the files are missing.
inline LoweringModel goldenModel(const std::string& arch, const std::string& kernel) {
    const std::filesystem::path dir = std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "tests" / "data" / arch;
    BuildResult build;
    if (!std::filesystem::exists(dir / (kernel + ".sass"))) return {};
    build.ok = true;
    build.ptx = readText(dir / (kernel + ".ptx"));
    const std::string sass = readText(dir / (kernel + ".sass"));
    const std::string gp = readText(dir / (kernel + ".gp.sass"));
    // One KernelArtifacts per function in the listing (the model matches them by mangled name).
    std::istringstream in(sass);
    std::string line;
    while (std::getline(in, line)) {
        const auto pos = line.find(".global");
        if (pos == std::string::npos || line.find(".section") != std::string::npos) continue;
        std::istringstream words(line.substr(pos + 7));
        std::string name;
        words >> name;
        if (name.empty()) continue;
        KernelArtifacts k;
        k.name = name;
        k.mangled = name;
        k.sass = sass;
        k.sassPtxLines = gp;
        build.kernels.push_back(std::move(k));
    }
    return buildLoweringModel(build);
}

} // namespace lowerscope::testdata

#include "core/analysis/cfg.h"
#include "core/analysis/deps.h"

namespace lowerscope::testdata {

// A long listing made of `tiles` copies of a real kernel's SASS (addresses, branch targets and
// labels shifted per copy), truncated to `maxInstructions` when > 0, with CFG and dependencies
// recomputed by the core: realistic operand/dependency density at any length.
inline KernelModel tiledKernel(const KernelModel& k, int tiles, int maxInstructions = 0) {
    KernelModel t;
    t.name = k.name;
    t.mangled = k.mangled;
    t.sass.name = k.sass.name;
    t.resources = k.resources;
    const auto& src = k.sass.instructions;
    if (src.empty()) return t;
    const uint32_t span = src.back().address + 16;
    for (int tile = 0; tile < tiles; ++tile) {
        const uint32_t shift = uint32_t(tile) * span;
        for (const SassInstruction& s : src) {
            if (maxInstructions > 0 && int(t.sass.instructions.size()) >= maxInstructions) break;
            SassInstruction ins = s;
            ins.address += shift;
            if (ins.branchTarget) *ins.branchTarget += shift;
            for (Operand& o : ins.operands)
                if (o.target) *o.target += shift;
            t.sass.instructions.push_back(std::move(ins));
        }
        for (const auto& [name, address] : k.sass.labels)
            t.sass.labels[name + "_t" + std::to_string(tile)] = address + shift;
    }
    t.cfg = buildCfg(t.sass);
    t.deps = computeDependencies(t.sass, t.cfg);
    return t;
}

} // namespace lowerscope::testdata
