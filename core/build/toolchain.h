#pragma once
// CUDA toolchain discovery: where nvcc, ptxas, nvdisasm and cuobjdump are, and their versions.
//
// Search order per tool: explicit environment (LOWERSCOPE_NVCC, LOWERSCOPE_PTXAS,
// LOWERSCOPE_NVDISASM, LOWERSCOPE_CUOBJDUMP) → the project-local folder filled by
// scripts/bootstrap (<repo>/.tools/bin, or $LOWERSCOPE_TOOLS_DIR) → the toolkit
// ($CUDA_HOME, $CUDA_PATH, the directory of nvcc on PATH, /usr/local/cuda) → PATH.

#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

struct ToolInfo {
    std::string name;     // "nvcc"
    std::string path;     // absolute path; "" when not found
    std::string version;  // e.g. "13.0.88" ("" when unknown)
    std::string origin;   // "env", "project", "toolkit", "path"
    std::string note;     // when not found: where discovery looked / why an explicit path failed
    bool found() const { return !path.empty(); }
};

struct Toolchain {
    ToolInfo nvcc, ptxas, nvdisasm, cuobjdump;
    std::vector<std::string> gpuArchs; // from `nvcc --list-gpu-arch`, e.g. "sm_90", "sm_100a"
    // Empty when every tool is present; else one line per missing tool saying how to get it.
    std::vector<std::string> problems() const;
    // "nvcc 13.0.88; ptxas ...; nvdisasm ...; cuobjdump ..." (part of every cache key).
    std::string fingerprint() const;
};

struct DiscoveryOptions {
    std::string projectToolsDir; // "" = $LOWERSCOPE_TOOLS_DIR, else, for a program running from its
                                 // build folder only, <dir of executable>/../../.tools/bin and the
                                 // source tree's .tools/bin (compiled in); installed programs use neither
    bool queryVersions = true;   // run `--version` of each found tool
    bool queryArchs = true;      // run `nvcc --list-gpu-arch`
    // Version/arch answers are remembered in <memoDir>/toolchain-memo-v1.json, keyed by each tool's
    // path, size, mtime and inode (as ccache does), so a cache-hit build starts no process.
    // "" = the build cache directory (cacheDirectory()); "-" = always ask the tools.
    std::string memoDir;
};

// Finds the tools. Never throws; missing tools have an empty path.
Toolchain discoverToolchain(const DiscoveryOptions& options = {});

} // namespace lowerscope
