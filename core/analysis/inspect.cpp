#include "core/analysis/inspect.h"

#include "core/untrusted.h"

#include "core/parse/control.h"
#include "core/analysis/aggregate.h"
#include "core/analysis/deps.h"
#include "core/parse/listing_json.h"
#include "core/parse/opcodes.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace lowerscope {

namespace {

using json = nlohmann::json;

const char* edgeKindName(CfgEdgeKind k) {
    switch (k) {
    case CfgEdgeKind::FallThrough: return "fallthrough";
    case CfgEdgeKind::Taken: return "taken";
    case CfgEdgeKind::Back: return "back";
    case CfgEdgeKind::Exit: return "exit";
    }
    return "fallthrough";
}

json resourcesJson(const Resources& r) {
    auto v = [](int x) { return x < 0 ? json(nullptr) : json(x); };
    return json{{"registers", v(r.registers)}, {"shared_bytes", v(r.sharedBytes)}, {"local_bytes", v(r.localBytes)},
                {"stack_bytes", v(r.stackBytes)}, {"constant_bytes", v(r.constantBytes)},
                {"spill_stores", v(r.spillStores)}, {"spill_loads", v(r.spillLoads)}, {"barriers", v(r.barriers)}};
}

// Every kernel without a name; else only the kernel the name picks (LoweringModel::kernel).
bool kernelMatches(const LoweringModel& model, const KernelModel& k, const std::string& want) {
    return want.empty() || model.kernel(want) == &k;
}

json queryJson(const KernelModel& k, const InspectOptions& o) {
    json q{{"file", o.queryFile}, {"line", o.line}, {"frame", attributionName(o.frame)}};
    for (auto [a, name] : {std::pair{InlineAttribution::CallSite, "call_site"}, std::pair{InlineAttribution::Callee, "callee"},
                           std::pair{InlineAttribution::AnyFrame, "any_frame"}}) {
        q[name] = json{{"ptx_lines", k.correlation.ptxLinesForSource(o.queryFile, o.line, a)},
                       {"sass_addresses", k.correlation.sassForSource(o.queryFile, o.line, a)}};
    }
    return q;
}

json launchBoundsJson(const LoweringModel& m, const KernelModel& k) {
    if (k.ptxFunction < 0 || static_cast<size_t>(k.ptxFunction) >= m.ptx.functions.size()) return nullptr;
    return m.ptx.functions[static_cast<size_t>(k.ptxFunction)].launchBounds;
}

// "file:line" as the report prints it: the file name only (the header names the whole path).
std::string shortPosition(const std::string& file, int line) {
    const size_t slash = file.rfind('/');
    return (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(line);
}

} // namespace

bool resolveLineQuery(const LoweringModel& model, const std::string& spec, std::string& file, int& line,
                      std::string& error) {
    const size_t colon = spec.rfind(':');
    const std::string fileSpec = colon == std::string::npos ? std::string() : spec.substr(0, colon);
    const std::string number = colon == std::string::npos ? spec : spec.substr(colon + 1);
    long n = 0;
    bool digits = !number.empty() && number.size() <= 9;
    for (char c : number) digits = digits && c >= '0' && c <= '9';
    if (digits) n = std::stol(number);
    if (!digits || n < 1) {
        error = "--line wants N or FILE:N with N a positive line number, not '" + spec + "'";
        return false;
    }
    if (colon != std::string::npos && fileSpec.empty()) {
        error = "--line " + spec + ": no file before ':'";
        return false;
    }
    file = resolveSourceQuery(model.files, fileSpec, error);
    if (file.empty()) return false;
    line = static_cast<int>(n);
    // A line past the end of a file that can be read is an error naming the file's length (it
    // printed "no code" and exited 0).
    for (const auto& f : model.files) {
        if (f.path != file || f.resolved.empty()) continue;
        std::string text, why;
        if (!readInputFile(f.resolved, kMaxSourceBytes, "a source file", text, why)) break;
        const long lines = long(std::count(text.begin(), text.end(), '\n')) + (!text.empty() && text.back() != '\n');
        if (n > lines) {
            error = "--line " + spec + ": " + f.path + " has " + std::to_string(lines) + " line" + (lines == 1 ? "" : "s");
            return false;
        }
        break;
    }
    return true;
}

json aggregateJson(const LineAggregate& a) {
    json mix = json::object();
    for (const auto& [c, n] : a.mix) mix[categoryName(c)] = n;
    json mem = json::object();
    for (const auto& [s, n] : a.memoryBySpace) mem[s] = n;
    return json{{"instructions", a.instructions}, {"mix", mix}, {"max_live_gpr", a.maxLiveGpr},
                {"stall_cycles", a.stallCycles}, {"memory", mem}};
}

json sourceFilesJson(const std::vector<SourceFileInfo>& files) {
    json out = json::array();
    for (const auto& f : files)
        out.push_back(json{{"path", f.path}, {"resolved", f.resolved.empty() ? json(nullptr) : json(f.resolved)},
                           {"kind", sourceFileKindName(f.kind)}, {"read_only", f.readOnly},
                           {"instructions", f.instructions}, {"call_sites", f.callSites}});
    return out;
}

json inspectJson(const LoweringModel& model, const InspectOptions& o) {
    json doc{{"schema", "lowerscope.inspect/2"}, {"source", o.sourceFile}, {"arch", model.arch},
             {"files", sourceFilesJson(model.files)}};
    json kernels = json::array();
    for (const auto& k : model.kernels) {
        if (!kernelMatches(model, k, o.kernel)) continue;
        json kj{{"name", k.name}, {"mangled", k.mangled}, {"resources", resourcesJson(k.resources)},
                {"launch_bounds", launchBoundsJson(model, k)}, {"files", sourceFilesJson(k.files)}};
        json ptxLines = json::array();
        if (k.ptxFunction >= 0 && static_cast<size_t>(k.ptxFunction) < model.ptx.functions.size()) {
            const auto& f = model.ptx.functions[static_cast<size_t>(k.ptxFunction)];
            for (int l = f.firstLine; l >= 1 && l <= f.lastLine && static_cast<size_t>(l) <= model.ptx.lines.size(); ++l)
                ptxLines.push_back(model.ptx.lines[static_cast<size_t>(l - 1)]);
        }
        kj["ptx"] = json{{"lines", std::move(ptxLines)}};
        json ins = json::array();
        for (const auto& i : k.sass.instructions) ins.push_back(i);
        kj["sass"] = json{{"instructions", std::move(ins)}};
        json deps = json::array();
        for (const auto& e : k.deps) {
            json d{{"from", e.from}, {"to", e.to}, {"resource", e.resource}, {"kind", depKindName(e.kind)}, {"distance", e.distance}};
            if (!e.callee.empty()) d["callee"] = e.callee;
            deps.push_back(std::move(d));
        }
        kj["deps"] = std::move(deps);
        json blocks = json::array();
        for (const auto& b : k.cfg.blocks)
            blocks.push_back(json{{"id", b.id}, {"start", b.startAddress}, {"end", b.endAddress},
                                  {"first_index", b.firstIndex}, {"last_index", b.lastIndex},
                                  {"successors", b.successors}, {"predecessors", b.predecessors},
                                  {"loop_depth", b.loopDepth}});
        kj["blocks"] = std::move(blocks);
        json edges = json::array();
        for (const auto& e : k.cfg.edges)
            edges.push_back(json{{"from", e.from}, {"to", e.to < 0 ? json(nullptr) : json(e.to)}, {"kind", edgeKindName(e.kind)}});
        kj["edges"] = std::move(edges);
        json lines = json::array();
        for (const auto& a : lineTable(k.sass))
            lines.push_back(json{{"file", a.file}, {"line", a.line}, {"call_site", aggregateJson(a.callSite)},
                                 {"callee", aggregateJson(a.callee)}, {"any_frame", aggregateJson(a.anyFrame)}});
        kj["lines"] = std::move(lines);
        kj["total"] = aggregateJson(k.total);
        if (o.line > 0) kj["query"] = queryJson(k, o);
        kernels.push_back(std::move(kj));
    }
    doc["kernels"] = std::move(kernels);
    return doc;
}

std::string lineReport(const LoweringModel& model, const InspectOptions& o) {
    std::ostringstream out;
    bool any = false;
    for (const auto& k : model.kernels) {
        if (!kernelMatches(model, k, o.kernel)) continue;
        const auto ptxLines = k.correlation.ptxLinesForSource(o.queryFile, o.line, o.frame);
        const auto sass = k.correlation.sassForSource(o.queryFile, o.line, o.frame);
        if (ptxLines.empty() && sass.empty()) continue;
        any = true;
        const auto count = [&](InlineAttribution a) { return k.correlation.sassForSource(o.queryFile, o.line, a).size(); };
        out << "== " << k.name << "  " << o.queryFile << ":" << o.line << "  (" << attributionName(o.frame)
            << "; SASS instructions by call site " << count(InlineAttribution::CallSite) << ", callee "
            << count(InlineAttribution::Callee) << ", any frame " << count(InlineAttribution::AnyFrame) << ")\n";
        out << "PTX (" << ptxLines.size() << " line" << (ptxLines.size() == 1 ? "" : "s") << "):\n";
        for (int l : ptxLines)
            if (l >= 1 && static_cast<size_t>(l) <= model.ptx.lines.size()) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "  %6d  ", l);
                out << buf << model.ptx.lines[static_cast<size_t>(l - 1)].text << "\n";
            }
        out << "SASS (" << sass.size() << " instruction" << (sass.size() == 1 ? "" : "s") << "):\n";
        for (uint32_t addr : sass) {
            const int idx = k.sass.indexOf(addr);
            if (idx < 0) continue;
            const auto& i = k.sass.instructions[static_cast<size_t>(idx)];
            char buf[32];
            std::snprintf(buf, sizeof buf, "  /*%04x*/  ", addr);
            out << buf << i.text;
            if (i.hasEncoding) out << "    [" << controlText(i.control) << "]";
            // Where the instruction itself is, when that is not the line asked about (an inlined
            // callee seen from its call site, or a middle frame).
            if (i.source.valid() && !(i.source.line == o.line && i.source.file == o.queryFile))
                out << "    @ " << shortPosition(i.source.file, i.source.line);
            out << "\n";
        }
    }
    if (!any)
        out << "no code for " << o.queryFile << ":" << o.line << " (" << attributionName(o.frame) << ")"
            << (o.kernel.empty() ? "" : " in " + o.kernel) << "\n";
    return out.str();
}

} // namespace lowerscope
