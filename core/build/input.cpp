#include "core/build/input.h"
#include "core/untrusted.h"

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
    case InputKind::Fatbin: return "fatbin";
    case InputKind::Object: return "object";
    case InputKind::SharedLibrary: return "shared-library";
    case InputKind::Executable: return "executable";
    case InputKind::Triton: return "triton";
    }
    return "cuda";
}

std::optional<InputKind> inputKindFromName(std::string_view name) {
    for (InputKind k : {InputKind::CudaSource, InputKind::Ptx, InputKind::Cubin, InputKind::Fatbin, InputKind::Object,
                        InputKind::SharedLibrary, InputKind::Executable, InputKind::Triton})
        if (name == inputKindName(k)) return k;
    return std::nullopt;
}

bool isContainer(InputKind kind) {
    return kind == InputKind::Fatbin || kind == InputKind::Object || kind == InputKind::SharedLibrary ||
           kind == InputKind::Executable;
}

namespace {

constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint16_t kEmCuda = 190; // e_machine of NVIDIA CUDA ELF files
constexpr unsigned char kFatbinMagic[4] = {0x50, 0xed, 0x55, 0xba}; // 0xba55ed50, little-endian

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
    std::error_code ec;
    if (fs::is_directory(path, ec)) return InputKind::Triton;
    // Never blocks: a FIFO or device is not opened (its kind then comes from the name, and the build
    // refuses it as not a regular file).
    const std::string head = readInputHead(path, 4096);
    if (head.size() >= 20 && std::equal(kElfMagic, kElfMagic + 4, head.begin())) {
        // e_machine sits at offset 18 in both ELF classes; byte order from EI_DATA.
        const auto b0 = static_cast<unsigned char>(head[18]), b1 = static_cast<unsigned char>(head[19]);
        const uint16_t machine = head[5] == 2 ? uint16_t(b0 << 8 | b1) : uint16_t(b1 << 8 | b0);
        if (machine == kEmCuda) return InputKind::Cubin;
        const auto t0 = static_cast<unsigned char>(head[16]), t1 = static_cast<unsigned char>(head[17]);
        const uint16_t type = head[5] == 2 ? uint16_t(t0 << 8 | t1) : uint16_t(t1 << 8 | t0);
        if (type == 1) return InputKind::Object;
        // ET_DYN is a library or a position-independent program; the name tells them apart.
        if (type == 3 && fs::path(path).filename().string().find(".so") != std::string::npos)
            return InputKind::SharedLibrary;
        return InputKind::Executable;
    }
    if (head.size() >= 4 && std::equal(kFatbinMagic, kFatbinMagic + 4, head.begin(),
                                       [](unsigned char m, char c) { return m == static_cast<unsigned char>(c); }))
        return InputKind::Fatbin;
    const std::string ext = lowerExtension(path);
    if (ext == ".ptx" || looksLikePtx(head)) return InputKind::Ptx;
    if (ext == ".cubin") return InputKind::Cubin;
    if (ext == ".fatbin") return InputKind::Fatbin;
    if (ext == ".o") return InputKind::Object;
    if (ext == ".so") return InputKind::SharedLibrary;
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
