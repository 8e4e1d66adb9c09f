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
// Calls to local subroutines (`CALL.REL` to a `$...` label of the same function: the slow paths of
// IEEE division and square root, `__noinline__` functions, CUDA 13's tcgen05 guardrail traps) are
// seen two ways. Values flow through the callee: a use after the call depends on the definitions
// inside it that reach its RET. And the CALL row stands for the callee: a summary per subroutine
// (what it reads before writing on some path from its entry, what it writes before a RET, nested
// calls included) makes the CALL read the former and write the latter, so arrows lead from the
// argument set-up to the CALL and from the CALL to each use of a value the callee produced; those
// edges carry the callee's name in `DepEdge::callee`. (Liveness keeps nvdisasm's calling
// convention instead, see liveness.h: the CALL reads R0/R1 and clobbers the caller-saved set;
// an arrow is drawn only for what the callee actually reads.)
// Needs defs/uses filled (analyseDefUse) and, for scoreboards, decoded control bits.

#include "core/model.h"

#include <vector>

namespace lowerscope {

// Edges sorted by (from, to, resource). `distance` = consumer index − producer index in the
// listing (negative for loop-carried edges). Never throws.
std::vector<DepEdge> computeDependencies(const SassFunction& function, const Cfg& cfg);

const char* depKindName(DepKind kind); // "register", "predicate", "uniform", "scoreboard"

} // namespace lowerscope
