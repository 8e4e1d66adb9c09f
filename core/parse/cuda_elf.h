#pragma once
// A small reader for the parts of an ELF file the build needs: the header (class, type, machine,
// flags; for a CUDA ELF the SASS architecture) and a section's bytes by name (a cubin built with
// line info carries its PTX in `.nv_debug_ptx_txt`). Everything else is left to the toolkit's
// tools (cuobjdump, nvdisasm). The bytes are untrusted: every offset is bounds-checked and nothing
// here throws.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lowerscope {

struct ElfHeader {
    bool is64 = false;
    bool littleEndian = true;
    uint8_t osAbi = 0;       // EI_OSABI (0x41 on CUDA ELF files)
    uint8_t abiVersion = 0;  // EI_ABIVERSION (the CUDA ELF ABI: 7 and older, or 8 since CUDA 12.8)
    uint16_t type = 0;       // ET_REL 1, ET_EXEC 2, ET_DYN 3
    uint16_t machine = 0;    // EM_X86_64 62, EM_AARCH64 183, EM_CUDA 190, ...
    uint32_t flags = 0;      // e_flags
    bool isCuda() const { return machine == 190; }
};

// The header of an ELF file, or nullopt (with *error saying why: "not an ELF file", "truncated ELF
// header", ...) when `bytes` does not start with one.
std::optional<ElfHeader> readElfHeader(std::string_view bytes, std::string* error = nullptr);

// The SASS architecture a CUDA ELF is for, from e_flags ("sm_90"); "" when not a CUDA ELF or the
// field is empty. The a/f feature suffixes are not recorded there: the base arch is returned.
std::string cudaElfArch(const ElfHeader& header);

// The bytes of the first section called `name` (64-bit little-endian ELF only, as every CUDA ELF
// is); nullopt when absent or when the section table is out of bounds.
std::optional<std::string_view> elfSection(std::string_view bytes, std::string_view name);

// The kernels of a CUDA ELF: function symbols marked STO_CUDA_ENTRY in its symbol table, in table
// order. Empty when there is no symbol table (or it is out of bounds).
std::vector<std::string> cudaElfKernels(std::string_view bytes);

// The PTX text that `nvdisasm -gp` line numbers refer to, from a `.nv_debug_ptx_txt` section: one
// NUL-terminated line per PTX line (comments and `.loc`/`.file` blanked), turned into '\n' lines.
// "" when the section holds no `.version` line.
std::string ptxFromDebugSection(std::string_view section);

} // namespace lowerscope
