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
// (sm_70 and later): bits 41–44 stall, 45 yield (inverted into Control::yieldHint), 46–48 write
// barrier (7 = none), 49–51 read barrier (7 = none), 52–57 wait mask, 58–61 reuse flags. Never
// fails: every word decodes.
Control decodeControl(uint64_t encodingHi);

// Inverse of decodeControl for the control bits only (other bits zero). Out-of-range fields are
// masked to their width; a barrier outside 0..6 encodes as 7 (none).
uint64_t encodeControl(const Control& control);

// Text form `B0-2---:R-:W2:Y:S01` (the layout popularised by maxas/CuAssembler):
//   B + 6 columns : one per scoreboard 0..5, the digit when the wait mask has that bit, else '-'
//   R<n> / R-     : read barrier released when the source operands have been read
//   W<n> / W-     : write barrier (scoreboard) set until the result is written
//   Y / -         : yield hint (Control::yieldHint; JSON `yield_hint`). The encoded bit 45 is
//                   *inverted*: bit clear prints `Y`, meaning the scheduler is encouraged to switch
//                   to another warp after this instruction; bit set (the common case in ptxas
//                   output) prints `-`, meaning keep issuing from this warp if possible. NVIDIA
//                   does not document the control bits. Sources: CuAssembler's decoder
//                   (CuAsm `decodeCtrlCodes`: the yield field is bit 4 of the 21-bit control word
//                   that starts at bit 41, printed 'Y' when 0, citing the maxas "Control-Codes" wiki
//                   and Jia et al., arXiv:1903.07486), and Jia et al., "Dissecting the NVIDIA Volta
//                   GPU Architecture via Microbenchmarking" (arXiv:1804.06826, "yield flag": set
//                   prefers the current warp, cleared prefers switching). Checked on the encoding:
//                   sm_90 `S2R R3, SR_CTAID.X`, high word 0x000e220000002500, has bit 45 set and
//                   ptxas-placed `-`; the dependent IMAD, 0x001fca000f8e0200, has it clear and `Y`
//                   (tests/core/test_control.cpp).
//   S<nn>         : stall cycles before the next instruction of this warp may issue, two digits.
// Reuse flags are not part of the text (they are shown per operand as `.reuse`).
std::string controlText(const Control& control);

// Parses controlText's format (optionally wrapped in [ ]); reuse is 0. std::nullopt when malformed.
std::optional<Control> parseControlText(std::string_view text);

} // namespace lowerscope
