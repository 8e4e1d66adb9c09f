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
// Instructions without line information are only in the function total.
std::vector<LineAggregate> aggregateByLine(const SassFunction& function,
                                           InlineAttribution attribution = InlineAttribution::CallSite);

// The whole function (file "", line 0).
LineAggregate aggregateFunction(const SassFunction& function);

// Adds one instruction to an aggregate.
void accumulate(LineAggregate& aggregate, const SassInstruction& instruction);

} // namespace lowerscope
