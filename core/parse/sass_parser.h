#pragma once
// Parser for nvdisasm's text output (`nvdisasm -c [-hex] [-gi] [-gp] [-lrm count]`), any number of
// functions. Pure functions over text: no tools are run here.

#include "core/model.h"

#include <string_view>

namespace lowerscope {

// Parses one nvdisasm listing. Fills, per instruction: address, predicate, opcode / mnemonic /
// modifiers, operands (with register ranges, `.reuse`, negation, |abs|, resolved label targets),
// text, the 128-bit encoding and its Control (when printed with -hex), the source location with
// its inline chain (`//## File` comments, -gi), the PTX line (-gp) and the live GPR/PRED/UGPR counts
// (-lrm count). Labels are mapped to addresses and branch targets resolved. defs/uses stay empty
// (analyseDefUse fills them). Never throws and never fails: unrecognised lines are skipped, so
// garbage input gives an empty or partial listing.
SassListing parseSass(std::string_view text);

// Merges what `other` knows into `into`, matching functions by name and instructions by address:
// a missing encoding, source location, PTX line or live counts in `into` is taken from `other`.
// Functions or instructions only in `other` are ignored.
void mergeSass(SassListing& into, const SassListing& other);

// Fills the live GPR/PRED/UGPR counts of `into`'s instructions from an `nvdisasm -c -lrm count`
// listing of the same cubin, matching functions by name and instructions by address; counts
// already present are kept. The same result as merging parseSass(live), without building the
// second listing: only the addresses and the `// | ... |` column are read.
void applyLiveCounts(SassListing& into, std::string_view live);

// Convenience for the build pipeline's three variants: `hexGi` (-c -hex -gi) is the base,
// `hexGiGp` (-c -hex -gi -gp) adds PTX lines, `live` (-c -lrm count) adds live counts.
// Any of the texts may be empty.
SassListing parseSassTexts(std::string_view hexGi, std::string_view hexGiGp, std::string_view live);

// Splits "LDG.E.128" into mnemonic "LDG" and modifiers {"E","128"} (helper shared with tests).
void splitOpcode(std::string_view opcode, std::string& mnemonic, std::vector<std::string>& modifiers);

// Classifies one printed operand ("-|R3|.reuse", "desc[UR4][R2.64+0x10]", "`(.L_x_3)", ...).
// Label targets are left unresolved (parseSass resolves them against the function's labels).
Operand parseOperand(std::string_view text);

} // namespace lowerscope
