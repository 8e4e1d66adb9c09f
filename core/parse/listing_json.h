#pragma once
// JSON forms of the parsed listings (PTX lines, SASS instructions and their parts), with the key
// names of the `lowerscope.inspect/2` schema. Used by `inspect`, the golden tests and the GUI.
//
// Conventions: addresses are integers (byte offsets in the function); absent values are null
// (a PTX line without `.loc`, an instruction without line info, encoding or live counts);
// `encoding` is the 128-bit word as "0x" + 32 hex digits (high word first); defs/uses expand
// register ranges to one string per register ("R4", "R5", "P0", "UR6", "UP1").

#include "core/model.h"

#include <nlohmann/json.hpp>

#include <string>

namespace lowerscope {

// {file, line, inlined_at:[{file, line}...]}: inlined_at[0] is the immediate call site.
void to_json(nlohmann::json& j, const SourceFrame& f);
void to_json(nlohmann::json& j, const SourceLoc& s);
// {line, text, source}
void to_json(nlohmann::json& j, const PtxLine& l);
// {name, type, size, align, array_count, pointer}
void to_json(nlohmann::json& j, const PtxParam& p);
// {maxntid:[x,y,z], reqntid:[x,y,z], minnctapersm, maxnreg, maxclusterrank}; absent → null.
void to_json(nlohmann::json& j, const PtxLaunchBounds& b);
// {name, entry, params, launch_bounds, first_line, last_line}
void to_json(nlohmann::json& j, const PtxFunction& f);
// {version, target, address_size, files{"1": path}, functions, lines}
void to_json(nlohmann::json& j, const PtxListing& l);

// {stall, yield_hint, write_barrier, read_barrier, wait_mask, reuse, text}; barriers -1 → null.
// yield_hint is true exactly when the text form shows `Y` (the encoded bit 45 is clear): the old
// key `yield` carried the raw bit, whose true meant the opposite, and is not written any more.
void to_json(nlohmann::json& j, const Control& c);
// {gpr, pred, ugpr}; -1 → null.
void to_json(nlohmann::json& j, const LiveCounts& l);
// "R4" for one register, "R4..R5" for a range (display form; defs/uses use registerNames()).
void to_json(nlohmann::json& j, const RegRange& r);
// {text, kind, regs[], reuse, negated, absolute, target}; target only when resolved.
void to_json(nlohmann::json& j, const Operand& o);
// {address, predicate, opcode, operands, encoding, control, source, ptx_line, live, defs, uses,
//  branch_target}
void to_json(nlohmann::json& j, const SassInstruction& i);
// {name, labels{name: address}, instructions}
void to_json(nlohmann::json& j, const SassFunction& f);
// {arch, functions}
void to_json(nlohmann::json& j, const SassListing& l);

// "R", "P", "UR", "UP".
const char* regClassName(RegClass cls);
// "Register", "Predicate", ... as in OperandKind.
const char* operandKindName(OperandKind kind);
// One name per register of the range: {R,2,2} → "R2", "R3".
void appendRegisterNames(const RegRange& r, nlohmann::json& array);
// "0x" + 16 hex digits of hi + 16 of lo.
std::string encodingHex(uint64_t hi, uint64_t lo);

} // namespace lowerscope
