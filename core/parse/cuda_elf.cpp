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

namespace {

// One section header of a 64-bit little-endian ELF.
struct SectionHeader {
    uint32_t name = 0, type = 0, link = 0;
    uint64_t offset = 0, size = 0, entsize = 0;
};

// The section headers, or empty when the table is out of bounds.
std::vector<SectionHeader> sectionHeaders(std::string_view b, uint64_t* shstrndx) {
    std::optional<ElfHeader> h = readElfHeader(b);
    if (!h || !h->is64 || !h->littleEndian || b.size() < 64) return {};
    const uint64_t shoff = readUint(b, 0x28, 8, true);
    const uint64_t shentsize = readUint(b, 0x3a, 2, true);
    const uint64_t shnum = readUint(b, 0x3c, 2, true);
    *shstrndx = readUint(b, 0x3e, 2, true);
    if (shentsize < 64 || shnum == 0 || *shstrndx >= shnum) return {};
    if (shoff > b.size() || shnum > (b.size() - shoff) / shentsize) return {};
    std::vector<SectionHeader> out;
    for (uint64_t i = 0; i < shnum; ++i) {
        const size_t s = static_cast<size_t>(shoff + i * shentsize);
        SectionHeader sh;
        sh.name = static_cast<uint32_t>(readUint(b, s, 4, true));
        sh.type = static_cast<uint32_t>(readUint(b, s + 4, 4, true));
        sh.offset = readUint(b, s + 0x18, 8, true);
        sh.size = readUint(b, s + 0x20, 8, true);
        sh.link = static_cast<uint32_t>(readUint(b, s + 0x28, 4, true));
        sh.entsize = readUint(b, s + 0x38, 8, true);
        if (sh.offset > b.size() || sh.size > b.size() - sh.offset) sh.offset = 0, sh.size = 0; // unusable, kept for indexing
        out.push_back(sh);
    }
    return out;
}

std::string_view sectionBytes(std::string_view b, const SectionHeader& sh) {
    if (sh.offset > b.size() || sh.size > b.size() - sh.offset) return {}; // never a throwing substr
    return b.substr(static_cast<size_t>(sh.offset), static_cast<size_t>(sh.size));
}

// The NUL-terminated string at `off` in `table`, "" when out of bounds.
std::string_view stringAt(std::string_view table, uint64_t off) {
    if (off >= table.size()) return {};
    const size_t end = table.find('\0', static_cast<size_t>(off));
    if (end == std::string_view::npos) return {};
    return table.substr(static_cast<size_t>(off), end - static_cast<size_t>(off));
}

} // namespace

std::optional<std::string_view> elfSection(std::string_view b, std::string_view name) {
    uint64_t shstrndx = 0;
    const std::vector<SectionHeader> sections = sectionHeaders(b, &shstrndx);
    if (sections.empty()) return std::nullopt;
    const std::string_view strings = sectionBytes(b, sections[shstrndx]);
    for (const auto& sh : sections)
        if (stringAt(strings, sh.name) == name) return sectionBytes(b, sh);
    return std::nullopt;
}

std::vector<std::string> cudaElfKernels(std::string_view b) {
    constexpr uint32_t kSymtab = 2;
    constexpr unsigned kFunc = 2, kCudaEntry = 0x10;
    uint64_t shstrndx = 0;
    const std::vector<SectionHeader> sections = sectionHeaders(b, &shstrndx);
    std::vector<std::string> out;
    for (const auto& sh : sections) {
        if (sh.type != kSymtab || sh.entsize < 24 || sh.link >= sections.size()) continue;
        const std::string_view syms = sectionBytes(b, sh);
        const std::string_view names = sectionBytes(b, sections[sh.link]);
        for (size_t off = 0; off + 24 <= syms.size(); off += static_cast<size_t>(sh.entsize)) {
            const auto info = static_cast<unsigned char>(syms[off + 4]);
            const auto other = static_cast<unsigned char>(syms[off + 5]);
            if ((info & 0xf) != kFunc || !(other & kCudaEntry)) continue;
            const std::string_view name = stringAt(names, readUint(syms, off, 4, true));
            if (!name.empty()) out.emplace_back(name);
        }
    }
    return out;
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
