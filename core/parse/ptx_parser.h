#pragma once
// Parser for PTX text as emitted by nvcc (-ptx, optionally -lineinfo): module header, `.file`
// table, functions with their parameters, and per line whether it is an instruction and which
// source position (with `inlined_at` chain) it belongs to. Pure function over text.

#include "core/model.h"

#include <string_view>

namespace lowerscope {

// Parses a PTX module. `lines` has one entry per text line (lines[i].line == i + 1, text without
// the line terminator). Instruction lines inside a function get the location of the innermost
// preceding `.loc` of that function; `.loc … inlined_at F L C` chains are resolved against the
// most recent `.loc` at F:L:C in the same function, so SourceLoc::inlinedAt[0] is the immediate
// call site and back() the outermost (chains are capped at 64 frames). File indices are resolved
// through the `.file` table wherever it appears (nvcc puts it after the functions); an unknown
// index gives an empty file name. Never throws: malformed input yields a partial listing.
PtxListing parsePtx(std::string_view text);

// Size in bytes of a PTX fundamental type without the dot ("u64" → 8, "pred" → 1); 0 if unknown.
int ptxTypeSize(std::string_view type);

} // namespace lowerscope
