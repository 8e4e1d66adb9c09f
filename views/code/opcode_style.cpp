#include "views/code/opcode_style.h"

#include "core/parse/opcodes.h"

namespace lowerscope {

// The core's opcode table (resources/opcodes.json) is the reference; its category is used as is.
InstrCategory sassCategory(std::string_view mnemonic) {
    const OpcodeInfo* info = lookupSassOpcode(mnemonic);
    return info ? info->category : InstrCategory::Misc;
}

QString sassDescription(std::string_view mnemonic) {
    const OpcodeInfo* info = lookupSassOpcode(mnemonic);
    return info ? QString::fromStdString(info->description) : QString();
}

} // namespace lowerscope
