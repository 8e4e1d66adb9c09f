#pragma once
// The opcode reference table: one-line descriptions, categories, memory spaces and the def/use
// exceptions of SASS opcodes, plus descriptions of PTX instructions and of opcode modifiers.
// The data is resources/opcodes.json, compiled into the library (kOpcodesJson); it is parsed once,
// on first use, and lives for the whole process. Lookups are thread-safe after that.
//
// Keys of a `sass` entry in the JSON (all but category/description optional):
//   category     InstrCategory name ("Memory", "FP32", ..., "Misc")
//   description  one line, our own words
//   space        memory space: "global", "shared", "local", "constant", "generic", "texture",
//                "surface", "tensor"
//   defs         which operands are written: "first" (default: leading predicates, then the first
//                register operand, then the predicates right after it, e.g. IADD3 carry-outs),
//                "none" (stores, branches, barriers), "predicates" (the first two leading predicates:
//                ISETP/FSETP/PLOP3/FCHK), "allButLast" (VOTE/VOTEU/ELECT), "tex" (the first two
//                register operands)
//   dstWidth / srcWidth  registers per register operand (DADD: 2/2)
//   size         where .64/.128/F64/S64/U64 modifiers widen register operands: "dst", "src"
//                (data operands of stores and reductions), "both" (atomics), "all" (MOV.64, IADD.64)
//   shapes       [{match:[modifiers], widths:[...]}]: the first entry whose modifiers are all
//                present gives the width of each non-predicate operand in order (HMMA fragments,
//                IMAD.WIDE, CS2R)
//   convert      "f2i" | "i2f" | "f2f" | "i2i" | "frnd": widths from the type modifiers
//   hgmma        accumulator width from the MxNxK shape (N/2 registers for F32, N/4 for F16)
//   countModifier / tmem  LDSM .1/.2/.4 and LDTM/STTM .xN give the register count
//   p2r / r2p    reads / writes the predicate file (P0..P6) as a whole
//   flow         "branch", "indirect", "call", "return", "exit": how it ends a basic block
//   modifiers    {modifier: explanation} specific to this opcode

#include "core/model.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace lowerscope {

extern const char kOpcodesJson[];

enum class DefRule : uint8_t { First, None, Predicates, AllButLast, Texture };
enum class SizeRule : uint8_t { None, Dst, Src, Both, All };
enum class ConvertRule : uint8_t { None, F2I, I2F, F2F, I2I, Frnd };
enum class FlowKind : uint8_t { None, Branch, Indirect, Call, Return, Exit };

struct OperandShape {
    std::vector<std::string> match; // every listed modifier must be present
    std::vector<int> widths;        // per non-predicate operand, in order
};

struct OpcodeInfo {
    std::string mnemonic;
    InstrCategory category = InstrCategory::Misc;
    std::string description;
    std::string space;   // "" when not a memory instruction
    DefRule defs = DefRule::First;
    int dstWidth = 1;
    int srcWidth = 1;
    SizeRule size = SizeRule::None;
    std::vector<OperandShape> shapes;
    ConvertRule convert = ConvertRule::None;
    bool hgmma = false;
    bool countModifier = false; // LDSM/STSM: .1/.2/.4
    bool tmem = false;          // LDTM/STTM: .xN
    bool p2r = false;
    bool r2p = false;
    FlowKind flow = FlowKind::None;
    std::map<std::string, std::string> modifiers;
};

// The SASS entry for a base mnemonic ("LDG", not "LDG.E.128"); nullptr when unknown.
const OpcodeInfo* lookupSassOpcode(std::string_view mnemonic);

// One-line description of a PTX instruction. Accepts a full opcode ("cp.async.bulk.tensor.2d...",
// "ld.global.nc.f32"): the longest dotted prefix present in the table wins. nullptr when unknown.
const std::string* lookupPtxInstruction(std::string_view opcode);

// Explanation of one modifier of a SASS opcode ("E" of LDG, "FTZ" of FADD); the opcode-specific
// text when there is one, else the common one, else "" (unknown). Handles shape-like modifiers
// (e.g. "64x16x16", "x4") generically.
std::string explainModifier(std::string_view mnemonic, std::string_view modifier);

// Every SASS mnemonic in the table, sorted (for coverage tests and the GUI index).
std::vector<std::string> sassMnemonics();

// "Memory", "FP32", ... (the JSON names); InstrCategory from such a name (Misc when unknown).
const char* categoryName(InstrCategory category); // identifier, as in opcodes.json and JSON output
const char* categoryLabel(InstrCategory category); // display wording ("Special function")
InstrCategory categoryFromName(std::string_view name);

// The memory space of an instruction: the table's space, refined where the opcode says more
// (LDGSTS reads global and writes shared: "global"). "" when not a memory instruction.
std::string memorySpace(const SassInstruction& instruction);

} // namespace lowerscope
