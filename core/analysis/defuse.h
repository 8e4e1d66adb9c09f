#pragma once
// Def/use analysis of SASS instructions: which registers (R, P, UR, UP) each instruction writes
// and reads, from operand positions plus the per-opcode exceptions of the opcode table
// (core/parse/opcodes.h) and, for the opcodes whose operands are register groups (HGMMA, UTMA*,
// UBLKCP, LDSM/STSM, QMMA/OMMA, UTC*MMA, LDTM/STTM, ...), the operand-width table
// resources/operand_widths.json (widths and def/use roles per operand, checked against
// nvdisasm -lrm narrow). An instruction of such an opcode in a form the table does not list keeps
// the default reading and is marked `widthGuessed` (`width_guessed: true` in the JSON). Wide operands expand to register ranges (DADD R2 → R2..R3, LDG.E.128 R4 →
// R4..R7, HMMA fragments); RZ/PT/URZ/UPT are never defs or uses; a guarded instruction also reads
// its guard predicate. Unknown opcodes follow the default rule (the first register operand, plus
// leading predicates, is written; everything else is read).

#include "core/model.h"

namespace lowerscope {

// Fills `defs` and `uses` of one instruction (replacing what was there).
void analyseDefUse(SassInstruction& instruction);

// Fills defs/uses of every instruction of the function.
void analyseDefUse(SassFunction& function);

// True when resources/operand_widths.json lists the opcode (base mnemonic).
bool operandWidthsListed(std::string_view mnemonic);

// "R4", "P0", "UR6", "UP1" for one register.
std::string registerName(RegClass cls, int index);

} // namespace lowerscope
