#pragma once
// Dependency edges of one SASS function, from reaching definitions over its CFG.
//
// Register edges (R → kind Register, P → Predicate, UR/UP → Uniform): for every register an
// instruction reads, one edge from each definition that can reach it along some CFG path (so a use
// after a loop back edge can have two producers). A guarded definition (`@P0 MOV R2, ...`) may
// leave the old value in place, so it does not hide earlier definitions; an unguarded one does.
// Scoreboard edges (kind Scoreboard, resource "SBn"): an instruction that sets write or read
// barrier n is a producer; an instruction whose wait mask has bit n (or `DEPBAR.LE SBn, ...`)
// consumes every producer of SBn that reaches it, and a full wait clears the scoreboard.
// Needs defs/uses filled (analyseDefUse) and, for scoreboards, decoded control bits.

#include "core/model.h"

#include <vector>

namespace lowerscope {

// Edges sorted by (from, to, resource). `distance` = consumer index − producer index in the
// listing (negative for loop-carried edges). Never throws.
std::vector<DepEdge> computeDependencies(const SassFunction& function, const Cfg& cfg);

const char* depKindName(DepKind kind); // "register", "predicate", "uniform", "scoreboard"

} // namespace lowerscope
