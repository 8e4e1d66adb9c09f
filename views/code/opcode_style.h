#pragma once
// Opcode category of a SASS instruction for colouring the SASS pane.

#include "core/model.h"
#include "core/parse/opcodes.h" // categoryName(), categoryLabel()

#include <QString>

#include <string_view>

namespace lowerscope {

// Category of a SASS mnemonic ("FFMA" → FP32, "LDG" → Memory). Unknown mnemonics → Misc.
InstrCategory sassCategory(std::string_view mnemonic);
// One-line description of the mnemonic from the opcode table, "" when unknown.
QString sassDescription(std::string_view mnemonic);

} // namespace lowerscope
