#pragma once
// Volta+ scheduling control bits: decoding from the high 64 bits of a 128-bit SASS encoding and a
// compact text form.

#include "core/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lowerscope {

// Decodes the control fields of one instruction from the high 64-bit word of its encoding
// (sm_70 and later): bits 41–44 stall, 45 yield, 46–48 write barrier (7 = none), 49–51 read
// barrier (7 = none), 52–57 wait mask, 58–61 reuse flags. Never fails: every word decodes.
Control decodeControl(uint64_t encodingHi);

// Inverse of decodeControl for the control bits only (other bits zero). Out-of-range fields are
// masked to their width; a barrier outside 0..6 encodes as 7 (none).
uint64_t encodeControl(const Control& control);

// Text form `B0-2---:R-:W2:Y:S01` (the layout popularised by maxas/CuAssembler):
//   B + 6 columns : one per scoreboard 0..5, the digit when the wait mask has that bit, else '-'
//   R<n> / R-     : read barrier released when the source operands have been read
//   W<n> / W-     : write barrier (scoreboard) set until the result is written
//   Y / -         : yield hint. The encoded bit 45 is *inverted*: bit clear prints `Y`, meaning the
//                   scheduler is encouraged to switch to another warp after this instruction; bit
//                   set (the common case in ptxas output) prints `-`, meaning keep issuing from this
//                   warp if possible. This follows the reverse-engineered convention (maxas,
//                   CuAssembler); NVIDIA does not document it.
//   S<nn>         : stall cycles before the next instruction of this warp may issue, two digits.
// Reuse flags are not part of the text (they are shown per operand as `.reuse`).
std::string controlText(const Control& control);

// Parses controlText's format (optionally wrapped in [ ]); reuse is 0. std::nullopt when malformed.
std::optional<Control> parseControlText(std::string_view text);

} // namespace lowerscope
