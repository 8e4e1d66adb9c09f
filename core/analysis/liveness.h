#pragma once
// Live registers per SASS instruction, computed in the core from the def/use sets over the CFG
// (backward data flow), with the conventions of nvdisasm's `-lrm count` column. The build no
// longer runs `nvdisasm -lrm count` (it grows much faster than linearly with the kernel and refuses
// kernels that use 255 registers); the column stays as the test oracle (tests/core/test_liveness.cpp
// asserts equality on every golden kernel and lists the deliberate differences).
//
// Definition. For each register class (R → LiveCounts::gpr, P → pred, UR → ugpr, UP → upred) the
// count at an instruction is |live-in ∪ live-out ∪ written|: a register counts when the
// instruction reads it, carries it through, or writes it (even a result nobody reads occupies its
// register there). RZ, PT, URZ and UPT are never registers.
//
// Register ranges. A wide operand names every register of its range, as analyseDefUse fills defs
// and uses: R4.64 → R4, R5; LDG.E.128 R8 → R8..R11; HMMA/HGMMA fragments; a memory descriptor
// `desc[UR4]` → UR4, UR5 (and the one sm_8x disassembly leaves implicit, decoded from the
// encoding); CALL/BRX/JMX/RET targets are register pairs.
//
// Edge cases, each checked against nvdisasm (-lrm count for the counts, -lrm narrow for the sets):
//  * A guarded definition (`@P0 MOV R2, ...`, any guard but @PT) does not kill: the old value may
//    survive, so a register written only under a guard is live from the function's entry.
//  * EXIT reads R1, the stack pointer: it stays live to every exit once written.
//  * A block from which no EXIT or RET is reachable (an endless loop, the `BRA` to itself after the
//    last EXIT) has R1 live at its end, as if it left the function.
//  * CALL does not follow the callee: it reads R0, R1 and its register operands (the 64-bit
//    target of CALL.ABS), and writes the caller-saved registers of the calling convention:
//    R0, R3..R15 and, above R31, R32..R35, R40..R43, ... (every other block of four), up to the
//    highest R the function names; every P up to the highest index named in the module; UR4..UR35
//    up to the module's highest UR; every UP up to the module's highest UP. A guarded CALL kills
//    nothing (as any guarded write). A CALL to a plain `.L` label (sm_8x loop exits, which the CFG
//    draws as a jump) is treated the same way and only falls through here.
//  * RET reads R1, R2, its operand pair and the callee-saved registers up to the function's
//    register count (RegisterLimits::gprCount): R16..R31, R36..R39, R44..R47, ...
//  * BRA / BRX / JMX: edges to every target that resolves (buildCfg). nvdisasm truncates long
//    BRANCH_TARGETS lists, so an indirect branch can miss targets in both tools.
//  * Instructions that nothing reaches (the NOP padding) are computed like any other; nvdisasm
//    prints no count for them.
//
// Known differences from nvdisasm (found on kernels outside the golden set; see the report in
// docs/PERFORMANCE.md "Liveness"):
//  * deliberate: P2R reads the predicates of its mask (`P2R R0, PR, RZ, 0x1` reads P0, as its
//    dependency arrow shows); nvdisasm ignores the PR operand, so it counts one predicate less
//    between the predicate's definition and the P2R;
//  * sm_8x loops that contain calls and are left through a guarded `CALL.REL.NOINC` to a `.L`
//    label: nvdisasm's counts inside them are not reproduced (up to half the rows of such a loop);
//  * a few rows inside the math library's slow paths where nvdisasm drops a register along one
//    branch edge after guarded writes (0.2 % of the rows of such functions; not explained);
//  * sm_120 only: nvdisasm's CALL also clobbers the two registers above the highest one named.
//
// Cost: one pass to build block summaries, a fixed point over blocks (six 64-bit words per set),
// one backward pass over the instructions; no allocation per instruction.

#include "core/model.h"

#include <bitset>
#include <vector>

namespace lowerscope {

// The register file a function is analysed against: how far the calling convention at CALL and
// RET reaches. -1 = derived from the function itself.
struct RegisterLimits {
    int gprCount = -1;            // the function's register count (ptxas -v "Used N registers",
                                  // cuobjdump REG); -1 = the highest R named + 3 (ptxas counts two
                                  // more than it names on sm_75 and later)
    int maxPredicate = -1;        // highest P index named in the module (every function of the cubin)
    int maxUniform = -1;          // highest UR index named in the module
    int maxUniformPredicate = -1; // highest UP index named in the module
};

// The highest P, UR and UP indices `function` names (gprCount stays -1). Fold the results of
// every function of a cubin with mergeLimits for the module-wide limits nvdisasm uses.
RegisterLimits registerLimits(const SassFunction& function);
RegisterLimits mergeLimits(const RegisterLimits& a, const RegisterLimits& b);

// Fills `live` of every instruction of `function` (replacing what was there). Needs defs/uses
// (analyseDefUse) and `cfg` = buildCfg(function). Never throws; an empty function is left empty.
void computeLiveness(SassFunction& function, const Cfg& cfg, const RegisterLimits& limits = {});

// For a listing parsed outside buildLoweringModel (reports, diffs, test fixtures): fills defs/uses
// (analyseDefUse) and the live counts of every function, with the limits of all its functions
// and register counts derived from the code. Never throws.
void analyseLiveness(SassListing& listing);

// The registers counted at one instruction (those behind its LiveCounts).
struct LiveSet {
    std::bitset<255> gpr; // R0..R254
    std::bitset<7> pred;  // P0..P6
    std::bitset<63> ugpr; // UR0..UR62
    std::bitset<7> upred; // UP0..UP6
};

// The same analysis as computeLiveness, returning which registers are counted at each
// instruction (one entry per instruction index), for tooltips and tests; `function` is not changed.
std::vector<LiveSet> liveRegisters(const SassFunction& function, const Cfg& cfg,
                                   const RegisterLimits& limits = {});

} // namespace lowerscope
