#pragma once
// The `lowerscope.inspect/1` document and the per-line text report of `lowerscope-cli inspect`.
//
// Document: {schema, source, arch, kernels:[{name, mangled, resources, ptx:{lines:[{line, text,
// source}]}, sass:{instructions:[...listing_json...]}, deps:[{from, to, resource, kind, distance}],
// blocks:[{id, start, end, first_index, last_index, successors, predecessors, loop_depth}],
// edges:[{from, to, kind}], lines:[{file, line, instructions, mix, max_live_gpr, stall_cycles,
// memory}], total:{...}, query?}]}. Addresses are integers (byte offsets in the function); PTX
// lines are those of the kernel's .entry (line numbers of the whole module, as nvdisasm -gp uses).
// With a query line, each kernel also gets `query: {file, line, attribution, ptx_lines,
// sass_addresses}` for both attributions.

#include "core/analysis/lowering.h"

#include <nlohmann/json.hpp>

#include <string>

namespace lowerscope {

struct InspectOptions {
    std::string sourceFile; // as given by the user; recorded in `source` and used for line queries
    std::string kernel;     // "" = every kernel; else mangled, demangled or bare name
    int line = 0;           // > 0: add the per-kernel `query` section for this source line
};

// The JSON document. Kernels not matching `options.kernel` are left out.
nlohmann::json inspectJson(const LoweringModel& model, const InspectOptions& options);

// Text for stdout: per kernel with code on `options.line`, the PTX lines and SASS instructions
// attributed to it (call-site attribution, then the inlined-callee view when it differs).
std::string lineReport(const LoweringModel& model, const InspectOptions& options);

// Aggregate as JSON: {file, line, instructions, mix{category: n}, max_live_gpr, stall_cycles,
// memory{space: n}}.
nlohmann::json aggregateJson(const LineAggregate& aggregate);

} // namespace lowerscope
