#include "core/build/input.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace lowerscope {

const char* inputKindName(InputKind kind) {
    switch (kind) {
    case InputKind::CudaSource: return "cuda";
    case InputKind::Ptx: return "ptx";
    case InputKind::Cubin: return "cubin";
    }
    return "cuda";
}

std::optional<InputKind> inputKindFromName(std::string_view name) {
    for (InputKind k : {InputKind::CudaSource, InputKind::Ptx, InputKind::Cubin})
        if (name == inputKindName(k)) return k;
    return std::nullopt;
}

namespace {

constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint16_t kEmCuda = 190; // e_machine of NVIDIA CUDA ELF files

std::string lowerExtension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

// PTX as ptxas reads it: comments and blank lines, then `.version`.
bool looksLikePtx(const std::string& head) {
    size_t i = 0;
    while (i < head.size()) {
        while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
        if (head.compare(i, 2, "//") == 0) {
            i = head.find('\n', i);
            if (i == std::string::npos) return false;
            continue;
        }
        if (head.compare(i, 2, "/*") == 0) {
            i = head.find("*/", i + 2);
            if (i == std::string::npos) return false;
            i += 2;
            continue;
        }
        return head.compare(i, 8, ".version") == 0;
    }
    return false;
}

} // namespace

InputKind detectInputKind(const std::string& path) {
    std::string head(4096, '\0');
    {
        std::ifstream in(path, std::ios::binary);
        if (in) {
            in.read(head.data(), static_cast<std::streamsize>(head.size()));
            head.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
        } else {
            head.clear();
        }
    }
    if (head.size() >= 20 && std::equal(kElfMagic, kElfMagic + 4, head.begin())) {
        // e_machine sits at offset 18 in both ELF classes; byte order from EI_DATA.
        const auto b0 = static_cast<unsigned char>(head[18]), b1 = static_cast<unsigned char>(head[19]);
        const uint16_t machine = head[5] == 2 ? uint16_t(b0 << 8 | b1) : uint16_t(b1 << 8 | b0);
        if (machine == kEmCuda) return InputKind::Cubin;
    }
    const std::string ext = lowerExtension(path);
    if (ext == ".ptx" || looksLikePtx(head)) return InputKind::Ptx;
    if (ext == ".cubin") return InputKind::Cubin;
    return InputKind::CudaSource;
}

BuildInput describeInput(const std::string& path, const BuildOptions& options) {
    BuildInput input;
    input.kind = detectInputKind(path);
    input.path = path;
    input.options = options;
    return input;
}

} // namespace lowerscope
