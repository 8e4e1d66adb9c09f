#pragma once
// The `lowerscope.inspect/2` document and the per-line text report of `lowerscope-cli inspect`.
//
// Document: {schema, source, arch, files, kernels:[{name, mangled, resources, launch_bounds, files,
// ptx:{lines:[{line, text, source}]}, sass:{instructions:[...listing_json...]},
// deps:[{from, to, resource, kind, distance}], blocks:[{id, start, end, first_index, last_index,
// successors, predecessors, loop_depth}], edges:[{from, to, kind}], lines:[...], total, query?}]}.
//  * files (document and kernel): [{path, resolved, kind, read_only, instructions, call_sites}],
//    every file the code maps to (source_files.h); path is the key used in every `file` field.
//  * lines: one entry per (file, line) that any frame of any instruction's inline chain names,
//    sorted, each {file, line, call_site, callee, any_frame}; each of the three is {instructions,
//    mix, max_live_gpr, stall_cycles, memory} over the instructions whose outermost frame (call
//    site), innermost frame (callee) or any frame is that line (instructions 0 when none).
//  * total: the same five fields for the whole kernel.
//  * query (with a query line): {file (the recorded path), line, frame ("call-site", "callee" or
//    "any": the one the text report shows), call_site, callee, any_frame}, each
//    {ptx_lines, sass_addresses}.
// Addresses are integers (byte offsets in the function); PTX lines are those of the kernel's .entry
// (line numbers of the whole module, as nvdisasm -gp uses). Control codes carry `yield_hint`
// (core/parse/listing_json.h), live counts `upred`. Version 1 of the document is not written.

#include "core/analysis/lowering.h"

#include <nlohmann/json.hpp>

#include <string>

namespace lowerscope {

struct InspectOptions {
    std::string sourceFile; // as given by the user; recorded in `source`
    std::string kernel;     // "" = every kernel; else mangled, demangled or bare name
    std::string queryFile;  // recorded path of the query line's file (resolveLineQuery)
    int line = 0;           // > 0: add the per-kernel `query` section for queryFile:line
    InlineAttribution frame = InlineAttribution::AnyFrame; // what the text report shows
};

// Resolves the `--line` argument: "N" (a line of the main file) or "FILE:N" (FILE as recorded, as a
// path to the same file, or the end of one path in whole components, e.g. a unique file name).
// Sets `file` to the recorded path and `line` and returns true; else sets `error` to one line (an
// ambiguous name lists the candidates) and returns false.
bool resolveLineQuery(const LoweringModel& model, const std::string& spec, std::string& file, int& line,
                      std::string& error);

// The JSON document. Kernels not matching `options.kernel` are left out.
nlohmann::json inspectJson(const LoweringModel& model, const InspectOptions& options);

// Text for stdout: per kernel with code on queryFile:line for `options.frame`, its PTX lines and
// SASS instructions (each marked with its innermost position when that is another line), after a
// header with the instruction counts of all three attributions.
std::string lineReport(const LoweringModel& model, const InspectOptions& options);

// Aggregate as JSON: {instructions, mix{category: n}, max_live_gpr, stall_cycles, memory{space: n}}.
nlohmann::json aggregateJson(const LineAggregate& aggregate);

// Source files as JSON: [{path, resolved (null when not found here), kind, read_only,
// instructions, call_sites}].
nlohmann::json sourceFilesJson(const std::vector<SourceFileInfo>& files);

} // namespace lowerscope
