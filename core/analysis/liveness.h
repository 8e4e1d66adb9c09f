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
//  * Guarded definitions, as nvdisasm -lrm treats them (read off -lrm narrow on tests/data/regmodel):
//    - under a uniform guard (`@UP0`, `@!UP3`) a definition is a full one: it ends the liveness
//      of what it writes, like an unguarded one (`@!UP0 ULDC UR8` ... `@!UP0 UIADD3 ..., UR8`
//      leaves UR8 dead above the ULDC);
//    - under a per-thread guard (`@P0`, `@!P2`; not @PT) the old value may survive, so walking a
//      region backwards a guarded definition does not end liveness (`@!P0 S2R R3` ... `@!P0 LEA
//      ..., R3` keeps R3 live above the S2R, up to the entry when nothing else writes it);
//    - regions: a region starts at the entry and at every block reached other than by the
//      fall-through of the block before it (a label); conditional branches, guarded EXITs and
//      calls inside it are side exits. What a region passes to its predecessors is what its own
//      reads need from above (through per-thread-guarded definitions) plus what each exit needs,
//      less everything written, guarded or not, between the region's start and that exit. A value
//      that is needed only below a guarded write is therefore live down to the write inside the
//      region but not in the region's predecessors: the accumulators of `@!P1 QMMA R24, ...`
//      (followed by `@!P1 BRA`) in a loop are not live from the entry, nor is a slow path's
//      `@!P0 IMAD.MOV.U32 R8` result live back to the subroutine's entry.
//  * EXIT reads R1, the stack pointer: it stays live to every exit once written.
//  * A block from which no EXIT or RET is reachable (an endless loop, the `BRA` to itself after the
//    last EXIT) has R1 live at its end, as if it left the function.
//  * CALL does not follow the callee: it reads R0, R1 and its register operands (the 64-bit
//    target of CALL.ABS), and writes the caller-saved registers of the calling convention:
//    R0, R3..R15 and, above R31, R32..R35, R40..R43, ... (every other block of four), up to the
//    highest R the function names rounded up to the end of its block of four (R13 → R15, R11 →
//    R11: nvdisasm clobbers R14 and R15 in a function whose highest register is R13, and nothing
//    above R11 in one whose highest is R11); every P up to the highest index named in the module;
//    UR4..UR35 up to the module's highest UR; every UP up to the module's highest UP. A guarded CALL kills
//    nothing (as any guarded write). A CALL to a plain `.L` label (sm_8x loop exits, which the CFG
//    draws as a jump) is treated the same way and only falls through here.
//  * RET reads R1, R2, its operand pair and the callee-saved registers up to the function's
//    register count (RegisterLimits::gprCount): R16..R31, R36..R39, R44..R47, ...
//  * BRA / BRX / JMX: edges to every target that resolves (buildCfg). nvdisasm truncates long
//    BRANCH_TARGETS lists, so an indirect branch can miss targets in both tools.
//  * Instructions that nothing reaches (the NOP padding) are computed like any other; nvdisasm
//    prints no count for them.
//
// Known differences from nvdisasm. Those of the register-model corpus (tests/data/regmodel, sm_80,
// sm_90a, sm_100a, sm_120a; tests/core/test_register_oracle.cpp compares reads, writes and live
// sets per register class on every row, recognises each of these and fails on any other):
//  * deliberate: LDGSTS's zero-fill predicate (`LDGSTS.E.BYPASS.128 [R9], [R4.64], P0`): nvdisasm
//    marks it written as well as read (`x`); as we read the ISA the instruction only reads it
//    (it selects whether the source is copied or zeros are stored: cp.async's zero fill), so
//    here it is read only and no dependency arrow starts at an LDGSTS for it. Only the written
//    column differs: the live sets agree.
// Found on kernels outside the golden set and the corpus (see docs/PERFORMANCE.md "Liveness"):
//  * deliberate: P2R reads the predicates of its mask (`P2R R0, PR, RZ, 0x1` reads P0, as its
//    dependency arrow shows); nvdisasm ignores the PR operand, so it counts one predicate less
//    between the predicate's definition and the P2R;
//  * sm_8x loops that contain calls and are left through a guarded `CALL.REL.NOINC` to a `.L`
//    label: nvdisasm's counts inside them are not reproduced (up to half the rows of such a loop);
// (An earlier list also had "a few rows inside the math library's slow paths where nvdisasm drops
// a register along one branch edge after guarded writes"; the region rule above explains that
// pattern on the corpus, but those kernels have not been compared again.)
//
// Cost: one pass to build region summaries, a fixed point over regions (six 64-bit words per set),
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

// Per instruction: what is counted there (`live`), what it reads and what it writes in the
// model the counts are built on, implicit effects included (the calling convention of CALL and
// RET, EXIT's stack pointer). nvdisasm -lrm narrow prints the same three things per row
// (`v` read, `^` written, `x` both, `:` live through); tests/core/test_register_oracle.cpp
// compares them register by register.
struct RegisterRow {
    LiveSet live, read, written;
};
std::vector<RegisterRow> registerRows(const SassFunction& function, const Cfg& cfg, const RegisterLimits& limits = {});

} // namespace lowerscope
