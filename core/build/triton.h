#pragma once
// Triton's kernel cache: one folder per compiled kernel (<hash>/<name>.json metadata, <name>.ptx,
// <name>.cubin, the IRs), all folders under a cache root (~/.triton/cache). The metadata is
// untrusted: names must be plain, numbers in range, and only files inside the folder are read.

#include <string>
#include <vector>

namespace lowerscope {

struct TritonKernel {
    std::string folder;        // the kernel's folder (absolute)
    std::string name;          // the kernel's name (metadata "name"; the PTX entry)
    int numWarps = 0;          // metadata "num_warps"
    int warpSize = 32;         // metadata "warp_size" / target.warp_size
    int sharedBytes = -1;      // metadata "shared": dynamic shared memory per block, bytes
    std::string arch;          // "sm_90", from metadata target.arch (90); "" when absent
    std::string metadataPath;  // <folder>/<name>.json
    std::string ptxPath;       // <folder>/<name>.ptx, "" when absent
    std::string cubinPath;     // <folder>/<name>.cubin, "" when absent
    int blockThreads() const { return numWarps * warpSize; }
};

// True when `folder` holds a kernel's metadata (<name>.json beside <name>.ptx or <name>.cubin).
bool isTritonKernelFolder(const std::string& folder);

// Reads one kernel's folder. Throws std::runtime_error saying what is missing or wrong ("no
// metadata .json", "metadata is not valid JSON", "no add_kernel.cubin or add_kernel.ptx", ...).
TritonKernel readTritonKernel(const std::string& folder);

// The kernels under a cache root (each direct subfolder that isTritonKernelFolder), sorted by name
// then folder. Folders that cannot be read are listed in *skipped (folder: reason) when given.
std::vector<TritonKernel> listTritonCache(const std::string& root, std::vector<std::string>* skipped = nullptr);

// The Python file a PTX `.file` entry of `kernel` names: the path itself when it is absolute and
// exists, else the same relative path (or file name) looked up in the kernel's folder and the two
// folders above it (a cache copied next to its sources). Only .py files; "" when none is found.
std::string findTritonSource(const TritonKernel& kernel, const std::string& recordedPath);

} // namespace lowerscope
