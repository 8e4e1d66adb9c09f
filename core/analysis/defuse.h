#pragma once
// Def/use analysis of SASS instructions: which registers (R, P, UR, UP) each instruction writes
// and reads, from operand positions plus the per-opcode exceptions of the opcode table
// (core/parse/opcodes.h). Wide operands expand to register ranges (DADD R2 → R2..R3, LDG.E.128 R4 →
// R4..R7, HMMA fragments); RZ/PT/URZ/UPT are never defs or uses; a guarded instruction also reads
// its guard predicate. Unknown opcodes follow the default rule (the first register operand, plus
// leading predicates, is written; everything else is read).

#include "core/model.h"

namespace lowerscope {

// Fills `defs` and `uses` of one instruction (replacing what was there).
void analyseDefUse(SassInstruction& instruction);

// Fills defs/uses of every instruction of the function.
void analyseDefUse(SassFunction& function);

// "R4", "P0", "UR6", "UP1" for one register.
std::string registerName(RegClass cls, int index);

} // namespace lowerscope
