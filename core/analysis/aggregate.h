#pragma once
// Per-source-line and per-function aggregates of a SASS function: instruction count, mix by
// category (core/parse/opcodes.h), max live GPRs (nvdisasm -lrm count), sum of stall cycles (control
// bits), memory instructions by space ("global", "shared", "local", "constant", "generic",
// "texture", "surface", "tensor").

#include "core/analysis/lowering.h"
#include "core/model.h"

#include <vector>

namespace lowerscope {

// One entry per (file, line) that has SASS, attributed per `attribution`, sorted by (file, line).
// With AnyFrame an instruction counts once at every distinct line of its inline chain (so the
// entries add up to more than the function). Instructions without line information are only in
// the function total.
std::vector<LineAggregate> aggregateByLine(const SassFunction& function,
                                           InlineAttribution attribution = InlineAttribution::CallSite);

// One source line seen three ways: the instructions whose call site (outermost frame), innermost
// frame (callee) or any frame of the inline chain is that line.
struct LineAttribution {
    std::string file;
    int line = 0;
    LineAggregate callSite; // instructions == 0 when no instruction's call site is this line
    LineAggregate callee;
    LineAggregate anyFrame; // ⊇ both others
};

// Every (file, line) that appears in any frame, sorted by (file, line), with the three aggregates.
std::vector<LineAttribution> lineTable(const SassFunction& function);

// The whole function (file "", line 0).
LineAggregate aggregateFunction(const SassFunction& function);

// Adds one instruction to an aggregate.
void accumulate(LineAggregate& aggregate, const SassInstruction& instruction);

} // namespace lowerscope
