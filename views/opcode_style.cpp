#include "views/opcode_style.h"

#include "core/opcodes.h"

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

const char* categoryName(InstrCategory category) {
    switch (category) {
    case InstrCategory::Memory: return "memory";
    case InstrCategory::FP32: return "fp32";
    case InstrCategory::FP64: return "fp64";
    case InstrCategory::FP16: return "fp16";
    case InstrCategory::Integer: return "integer";
    case InstrCategory::Tensor: return "tensor";
    case InstrCategory::Control: return "control";
    case InstrCategory::Conversion: return "conversion";
    case InstrCategory::SpecialFunction: return "special function";
    case InstrCategory::Uniform: return "uniform";
    case InstrCategory::Synchronisation: return "synchronisation";
    case InstrCategory::Move: return "move";
    case InstrCategory::Predicate: return "predicate";
    case InstrCategory::Misc: return "misc";
    }
    return "misc";
}

} // namespace lowerscope
