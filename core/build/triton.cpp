#include "core/build/triton.h"

#include "core/bounded_json.h"
#include "core/untrusted.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

constexpr uintmax_t kMaxMetadataBytes = 4u << 20;

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// A kernel name usable as a file name: an identifier (Triton names files after the function).
bool plainName(const std::string& n) {
    if (n.empty() || n.size() > 512) return false;
    return std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The metadata file of a folder: <name>.json that is not Triton's group index (__grp__*.json).
std::vector<fs::path> metadataFiles(const fs::path& folder) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
        const std::string f = e.path().filename().string();
        if (e.path().extension() == ".json" && f.rfind("__grp__", 0) != 0 && isFile(e.path())) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A file of a kernel's folder stays in it: the document-path rule (core/untrusted.h), so that a
// symbolic link inside a cache folder never makes another file's PTX, cubin or metadata be shown.
void checkInside(const fs::path& file, const fs::path& folder) {
    std::string resolved, error;
    if (!resolveDocumentPath(file.string(), {folder.string()}, "Triton file", resolved, error))
        throw std::runtime_error(error);
}

int intField(const nlohmann::json& j, const char* key, int lo, int hi, int fallback) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return fallback;
    const auto v = it->get<int64_t>();
    return v < lo || v > hi ? fallback : static_cast<int>(v);
}

} // namespace

bool isTritonKernelFolder(const std::string& folder) {
    for (const auto& m : metadataFiles(folder)) {
        const fs::path stem = m.parent_path() / m.stem();
        if (isFile(stem.string() + ".ptx") || isFile(stem.string() + ".cubin")) return true;
    }
    return false;
}

TritonKernel readTritonKernel(const std::string& folderPath) {
    std::error_code ec;
    const fs::path folder = fs::absolute(folderPath, ec).lexically_normal();
    if (!fs::is_directory(folder, ec)) throw std::runtime_error("Triton folder " + folderPath + " does not exist");
    const std::vector<fs::path> metas = metadataFiles(folder);
    if (metas.empty())
        throw std::runtime_error("Triton folder " + folderPath +
                                 " has no kernel metadata (<name>.json); is it a kernel's folder of a Triton cache?");
    const fs::path meta = metas.front();
    checkInside(meta, folder);
    if (fs::file_size(meta, ec) > kMaxMetadataBytes) throw std::runtime_error(meta.string() + " is too large for Triton metadata");
    // Bounded (core/bounded_json.h): a Triton cache may be anyone's.
    JsonLimits limits;
    limits.maxBytes = kMaxMetadataBytes;
    std::string jsonError;
    const std::optional<nlohmann::json> parsed = readJsonFileBounded(meta.string(), jsonError, limits);
    if (!parsed || !parsed->is_object())
        throw std::runtime_error(meta.string() + " is not valid JSON metadata" + (parsed ? "" : " (" + jsonError + ")"));
    const nlohmann::json& j = *parsed;

    TritonKernel k;
    k.folder = folder.string();
    k.metadataPath = meta.string();
    k.name = j.value("name", std::string());
    if (!j.contains("name") || !j["name"].is_string()) k.name = meta.stem().string();
    if (!plainName(k.name)) throw std::runtime_error(meta.string() + ": kernel name is not a plain identifier");
    k.numWarps = intField(j, "num_warps", 1, 64, 0);
    if (k.numWarps == 0) throw std::runtime_error(meta.string() + ": no valid num_warps (1..64)");
    k.sharedBytes = intField(j, "shared", 0, 16 << 20, -1);
    k.warpSize = intField(j, "warp_size", 1, 64, 32);
    if (auto t = j.find("target"); t != j.end() && t->is_object()) {
        k.warpSize = intField(*t, "warp_size", 1, 64, k.warpSize);
        const int cc = intField(*t, "arch", 10, 999, 0);
        if (cc > 0 && t->value("backend", std::string("cuda")) == "cuda") k.arch = "sm_" + std::to_string(cc);
    }
    // Files named after the kernel, inside this folder only (the name is a plain identifier).
    const fs::path ptx = folder / (k.name + ".ptx"), cubin = folder / (k.name + ".cubin");
    if (isFile(ptx)) checkInside(ptx, folder), k.ptxPath = ptx.string();
    if (isFile(cubin)) checkInside(cubin, folder), k.cubinPath = cubin.string();
    if (k.ptxPath.empty() && k.cubinPath.empty())
        throw std::runtime_error("Triton folder " + folderPath + " has neither " + k.name + ".cubin nor " + k.name +
                                 ".ptx (an incomplete cache entry)");
    return k;
}

std::vector<TritonKernel> listTritonCache(const std::string& root, std::vector<std::string>* skipped) {
    std::vector<TritonKernel> out;
    std::error_code ec;
    std::vector<fs::path> dirs;
    // Kernel folders that are symbolic links are followed only when they stay under the root.
    for (const auto& e : fs::directory_iterator(root, ec)) {
        if (!e.is_directory(ec)) continue;
        std::string resolved, why;
        if (e.is_symlink(ec) && !resolveDocumentPath(e.path().string(), {root}, "Triton folder", resolved, why)) {
            if (skipped) skipped->push_back(e.path().filename().string() + ": " + why);
            continue;
        }
        dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
        if (metadataFiles(d).empty()) continue;
        try {
            out.push_back(readTritonKernel(d.string()));
        } catch (const std::exception& e) {
            if (skipped) skipped->push_back(d.filename().string() + ": " + e.what());
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const TritonKernel& a, const TritonKernel& b) { return a.name < b.name; });
    return out;
}

std::string findTritonSource(const TritonKernel& kernel, const std::string& recorded) {
    if (recorded.empty()) return {};
    const fs::path rec(recorded);
    if (rec.extension() != ".py") return {};
    if (rec.is_absolute() && isFile(rec)) return rec.string();
    fs::path dir(kernel.folder);
    for (int up = 0; up < 3 && !dir.empty(); ++up, dir = dir.parent_path()) {
        if (rec.is_relative() && isFile(dir / rec)) return (dir / rec).lexically_normal().string();
        if (isFile(dir / rec.filename())) return (dir / rec.filename()).string();
    }
    return {};
}

} // namespace lowerscope
