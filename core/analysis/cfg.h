#pragma once
// Control-flow graph of one SASS function: basic blocks, edges and loop depth.
//
// Leaders: the first instruction, every label and resolved branch target, and the instruction after
// a branch, indirect branch, call, return or EXIT (predicated or not — nvdisasm -bbcfg splits the
// same way). Edges: a branch has a Taken edge (and a FallThrough edge when it is conditional: a
// guard other than @PT, a predicate operand as in `BRA.U !UP0`, or BRA.DIV/CONV); BRX/JMX get
// Taken edges to the labels of their BRANCH_TARGETS list that resolve; CALL falls through, and a
// CALL to a plain `.L_x_N` label of the same function (sm_8x ptxas leaves loops with
// `@P0 CALL.REL.NOINC `(.L_x_1)`, whose target never returns) also gets a Taken edge there, as
// nvdisasm -bbcfg draws it (calls to subroutine symbols such as `$__internal_*` do not); EXIT/RET
// get an Exit edge (to = -1), plus a FallThrough edge when predicated. An edge whose target is an
// ancestor on the depth-first search from the entry is a Back edge (a loop). Differences from
// nvdisasm -bbcfg: nvdisasm omits blocks unreachable from the entry (e.g. the `BRA` to itself and
// the NOP padding after the last EXIT) and draws no exit edges; both are kept here.

#include "core/model.h"
#include "core/parse/opcodes.h"

namespace lowerscope {

// Builds the CFG of `function` (branch targets must be resolved, as parseSass does). Never throws;
// an empty function gives an empty CFG. Blocks are numbered in address order.
Cfg buildCfg(const SassFunction& function);

// Block id of each instruction index (size = instruction count).
std::vector<int> blockOfInstruction(const Cfg& cfg, size_t instructionCount);

// Block successors for data flow through local subroutines (`CALL.REL` to a label of the same
// function, such as nvcc's `$__internal_*` helpers): a block ending in such a call continues at
// the callee's entry instead of the next block, and each RET block reachable from that entry
// continues at the block after every call to it (context-insensitive). Other blocks keep
// cfg successors. Used by computeDependencies; the Cfg itself mirrors nvdisasm (calls fall through).
std::vector<std::vector<int>> interproceduralSuccessors(const SassFunction& function, const Cfg& cfg);

// True when the branch-like instruction may also fall through (see above).
// Post-order of an iterative depth-first search over `successors` (block ids), starting from every
// unvisited block in id order: every block appears once, successors before predecessors where the
// graph allows. Used by the backward (liveness) and forward (dependencies, reversed) data-flow passes.
std::vector<int> depthFirstPostOrder(const std::vector<std::vector<int>>& successors);

bool isConditionalBranch(const SassInstruction& instruction);

// The control-flow kind of the instruction's opcode (core/parse/opcodes.h); None when unknown.
FlowKind flowOf(const SassInstruction& instruction);

// True for a CALL to a `.L` label of the same function, which the CFG treats as a jump (above).
bool isLocalLabelCall(const SassInstruction& instruction);

} // namespace lowerscope
