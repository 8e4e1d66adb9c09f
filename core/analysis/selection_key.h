#pragma once
// Selection keys that survive a rebuild. An address or a PTX line number means nothing in the
// next build (a define that adds code above shifts every address and line), so a selection is
// remembered by source position instead and looked up again in the new model:
//  * a SASS instruction by its kernel, its innermost source frame (file, line) and its position
//    among the kernel's instructions with that frame, in address order;
//  * a PTX line by the function it is in, its `.loc` position (file, line) and its position among
//    that function's lines with the same position; a line without `.loc` (a directive, a label, a
//    brace) by its text and its position among the function's lines with that text.
// The GUI takes a key from the old model before a rebuild and asks for it in the new one.

#include "core/analysis/lowering.h"

#include <cstdint>
#include <optional>
#include <string>

namespace lowerscope {

// A SASS instruction by source position. An empty `kernel` is no key.
struct SassKey {
    std::string kernel;   // mangled name
    std::string file;     // innermost frame as the compiler recorded it; "" without line info
    int line = 0;         // 0 without line info
    int ordinal = 0;      // 0-based among the kernel's instructions with this (file, line)
    std::string mnemonic; // "LDG": preferred when the line's code changed
    uint32_t address = 0; // in the build the key was taken from (the last resort)
    bool valid() const { return !kernel.empty(); }
    bool operator==(const SassKey&) const = default;
};

// The key of the instruction at `address` of `kernel`; an invalid key when there is none.
SassKey sassKey(const KernelModel& kernel, uint32_t address);

// Where a key points in a (new) model.
struct SassMatch {
    int kernel = -1;      // index into LoweringModel::kernels
    uint32_t address = 0;
    bool exact = false;   // same (file, line), same position, same mnemonic
};

// Looks `key` up in `model`: the kernel with the same mangled name; there, the instruction with
// the same (file, line) and position; when the line has fewer instructions now, the nearest one
// with the same mnemonic, else its last one; when the line has no code any more, the first
// instruction of the nearest line of the same file that has some; for an instruction without
// line information, the same address if it still exists. std::nullopt when the kernel is gone or
// nothing applies. Never throws.
std::optional<SassMatch> findSass(const LoweringModel& model, const SassKey& key);

// A PTX line by source position. `line` == 0 is no key.
struct PtxKey {
    std::string function; // mangled name of the .entry/.func it is in; "" for module-level lines
    std::string file;     // innermost `.loc` frame; "" for a line without one
    int line = 0;         // its line; 0 for a line without `.loc`
    int ordinal = 0;      // 0-based among the function's lines with this (file, line), or this text
    std::string text;     // the line, trimmed (identifies lines without `.loc`)
    int ptxLine = 0;      // 1-based, in the build the key was taken from (the last resort)
    bool valid() const { return ptxLine > 0; }
    bool operator==(const PtxKey&) const = default;
};

// The key of 1-based line `ptxLine` of `ptx`; an invalid key when out of range.
PtxKey ptxKey(const PtxListing& ptx, int ptxLine);

// Looks `key` up in `ptx` (1-based line), with the same fallbacks as findSass: same function,
// same position (or text), else the nearest line of the same file with code in that function,
// else the old line number when the function is gone but the line still exists.
std::optional<int> findPtx(const PtxListing& ptx, const PtxKey& key);

} // namespace lowerscope
