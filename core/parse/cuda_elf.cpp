#include "core/parse/cuda_elf.h"

#include <cstring>

namespace lowerscope {

namespace {

// Little- or big-endian unsigned read of N bytes at `off`; the caller has checked the bounds.
uint64_t readUint(std::string_view b, size_t off, size_t n, bool little) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t byte = static_cast<unsigned char>(b[off + (little ? n - 1 - i : i)]);
        v = (v << 8) | byte;
    }
    return v;
}

} // namespace

std::optional<ElfHeader> readElfHeader(std::string_view b, std::string* error) {
    auto fail = [&](const char* why) -> std::optional<ElfHeader> {
        if (error) *error = why;
        return std::nullopt;
    };
    if (b.size() < 16 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0) return fail("not an ELF file");
    ElfHeader h;
    if (b[4] != 1 && b[4] != 2) return fail("unknown ELF class");
    h.is64 = b[4] == 2;
    if (b[5] != 1 && b[5] != 2) return fail("unknown ELF byte order");
    h.littleEndian = b[5] == 1;
    h.osAbi = static_cast<uint8_t>(b[7]);
    h.abiVersion = static_cast<uint8_t>(b[8]);
    // e_type, e_machine at 16/18; e_flags at 48 (64-bit) or 36 (32-bit).
    const size_t flagsOff = h.is64 ? 48 : 36;
    if (b.size() < flagsOff + 4) return fail("truncated ELF header");
    h.type = static_cast<uint16_t>(readUint(b, 16, 2, h.littleEndian));
    h.machine = static_cast<uint16_t>(readUint(b, 18, 2, h.littleEndian));
    h.flags = static_cast<uint32_t>(readUint(b, flagsOff, 4, h.littleEndian));
    return h;
}

std::string cudaElfArch(const ElfHeader& h) {
    if (!h.isCuda()) return {};
    // CUDA ELF ABI 8 (CUDA 12.8+) moved EF_CUDA_SM to bits 8..15; older ABIs keep it in bits 0..7.
    const unsigned sm = h.abiVersion >= 8 ? (h.flags >> 8) & 0xff : h.flags & 0xff;
    if (sm == 0) return {};
    return "sm_" + std::to_string(sm);
}

std::optional<std::string_view> elfSection(std::string_view b, std::string_view name) {
    std::optional<ElfHeader> h = readElfHeader(b);
    if (!h || !h->is64 || !h->littleEndian || b.size() < 64) return std::nullopt;
    const uint64_t shoff = readUint(b, 0x28, 8, true);
    const uint64_t shentsize = readUint(b, 0x3a, 2, true);
    const uint64_t shnum = readUint(b, 0x3c, 2, true);
    const uint64_t shstrndx = readUint(b, 0x3e, 2, true);
    if (shentsize < 64 || shnum == 0 || shstrndx >= shnum) return std::nullopt;
    if (shoff > b.size() || shnum > (b.size() - shoff) / shentsize) return std::nullopt;
    auto section = [&](uint64_t i, uint64_t& off, uint64_t& size, uint32_t& nameOff) {
        const size_t s = static_cast<size_t>(shoff + i * shentsize);
        nameOff = static_cast<uint32_t>(readUint(b, s, 4, true));
        off = readUint(b, s + 0x18, 8, true);
        size = readUint(b, s + 0x20, 8, true);
        return off <= b.size() && size <= b.size() - off;
    };
    uint64_t strOff = 0, strSize = 0;
    uint32_t ignored = 0;
    if (!section(shstrndx, strOff, strSize, ignored)) return std::nullopt;
    const std::string_view strings = b.substr(static_cast<size_t>(strOff), static_cast<size_t>(strSize));
    for (uint64_t i = 0; i < shnum; ++i) {
        uint64_t off = 0, size = 0;
        uint32_t nameOff = 0;
        if (!section(i, off, size, nameOff) || nameOff >= strings.size()) continue;
        const size_t end = strings.find('\0', nameOff);
        if (end == std::string_view::npos) continue;
        if (strings.substr(nameOff, end - nameOff) == name)
            return b.substr(static_cast<size_t>(off), static_cast<size_t>(size));
    }
    return std::nullopt;
}

std::string ptxFromDebugSection(std::string_view section) {
    if (section.find(".version") == std::string_view::npos) return {};
    std::string text(section);
    for (char& c : text)
        if (c == '\0') c = '\n';
    // The section ends with the last line's terminator; keep exactly one newline at the end.
    while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
    return text;
}

} // namespace lowerscope
