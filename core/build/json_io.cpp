#include "core/build/json_io.h"

#include "core/parse/diagnostics.h"

#include <climits>
#include <cstdint>

namespace lowerscope {

using nlohmann::json;

namespace {

json triToJson(int v) { return v < 0 ? json(nullptr) : json(v != 0); }

template <typename T>
void getIf(const json& j, const char* key, T& out) {
    auto it = j.find(key);
    if (it != j.end() && !it->is_null()) out = it->get<T>();
}

Severity severityFromName(const std::string& s) {
    if (s == "error") return Severity::Error;
    if (s == "warning") return Severity::Warning;
    if (s == "remark") return Severity::Remark;
    return Severity::Note;
}

} // namespace

void to_json(json& j, const BuildOptions& o) {
    j = json{{"arch", o.arch},
             {"host_opt", o.hostOpt},
             {"ptxas_opt", o.ptxasOpt},
             {"lineinfo", o.lineinfo},
             {"device_debug", o.deviceDebug},
             {"fast_math", o.fastMath},
             {"ftz", triToJson(o.ftz)},
             {"prec_div", triToJson(o.precDiv)},
             {"prec_sqrt", triToJson(o.precSqrt)},
             {"fmad", triToJson(o.fmad)},
             {"max_reg_count", o.maxRegCount},
             {"extra_device_vectorization", o.extraDeviceVectorization},
             {"std", o.cppStd},
             {"defines", o.defines},
             {"include_dirs", o.includeDirs},
             {"extra_nvcc_flags", o.extraNvccFlags},
             {"extra_ptxas_flags", o.extraPtxasFlags}};
}

namespace {

// Typed reads for readBuildOptions: a wrongly typed value is reported and the field left as it is.
struct OptionsReader {
    const json& j;
    const std::string& path;
    const OptionsTypeHandler& onWrongType;

    const json* find(const char* key) const {
        auto it = j.find(key);
        return it == j.end() ? nullptr : &*it;
    }
    void report(const char* key, const char* expected, const json& found) const {
        onWrongType(path.empty() ? std::string(key) : path + "." + key, expected, found);
    }
    void read(const char* key, std::string& out) const {
        if (const json* v = find(key)) {
            if (v->is_string()) out = v->get<std::string>();
            else report(key, "a string", *v);
        }
    }
    void read(const char* key, bool& out) const {
        if (const json* v = find(key)) {
            if (v->is_boolean()) out = v->get<bool>();
            else report(key, "true or false", *v);
        }
    }
    void read(const char* key, int& out) const {
        if (const json* v = find(key)) {
            if (!v->is_number_integer()) return report(key, "an integer", *v);
            const auto x = v->get<int64_t>();
            if (x < INT32_MIN || x > INT32_MAX) return report(key, "a 32-bit integer", *v);
            out = static_cast<int>(x);
        }
    }
    void read(const char* key, std::vector<std::string>& out) const {
        const json* v = find(key);
        if (!v) return;
        if (!v->is_array()) return report(key, "an array of strings", *v);
        std::vector<std::string> items;
        for (size_t i = 0; i < v->size(); ++i) {
            if (!(*v)[i].is_string())
                return report((std::string(key) + "[" + std::to_string(i) + "]").c_str(), "a string", (*v)[i]);
            items.push_back((*v)[i].get<std::string>());
        }
        out = std::move(items);
    }
    // Tri-state compiler switches: null = compiler default (-1), false/true = 0/1.
    void tri(const char* key, int& out) const {
        if (const json* v = find(key)) {
            if (v->is_null()) out = -1;
            else if (v->is_boolean()) out = v->get<bool>() ? 1 : 0;
            else report(key, "true, false or null", *v);
        }
    }
};

} // namespace

BuildOptions readBuildOptions(const json& j, const std::string& path, const OptionsTypeHandler& onWrongType) {
    BuildOptions o;
    if (!j.is_object()) {
        onWrongType(path, "an object", j);
        return o;
    }
    const OptionsReader r{j, path, onWrongType};
    r.read("arch", o.arch);
    r.read("host_opt", o.hostOpt);
    r.read("ptxas_opt", o.ptxasOpt);
    r.read("lineinfo", o.lineinfo);
    r.read("device_debug", o.deviceDebug);
    r.read("fast_math", o.fastMath);
    r.tri("ftz", o.ftz);
    r.tri("prec_div", o.precDiv);
    r.tri("prec_sqrt", o.precSqrt);
    r.tri("fmad", o.fmad);
    r.read("max_reg_count", o.maxRegCount);
    r.read("extra_device_vectorization", o.extraDeviceVectorization);
    r.read("std", o.cppStd);
    r.read("defines", o.defines);
    r.read("include_dirs", o.includeDirs);
    r.read("extra_nvcc_flags", o.extraNvccFlags);
    r.read("extra_ptxas_flags", o.extraPtxasFlags);
    return o;
}

void from_json(const json& j, BuildOptions& o) {
    o = readBuildOptions(j, "build options", [](const std::string& keyPath, const char* expected, const json& found) {
        throw json::type_error::create(302, keyPath + ": expected " + expected + ", found " + found.type_name(), &found);
    });
}

void to_json(json& j, const Resources& r) {
    // A field no tool reported (-1) is absent: null, never a number a reader could take for a count.
    auto count = [](int v) { return v < 0 ? json(nullptr) : json(v); };
    j = json{{"registers", count(r.registers)},         {"shared_bytes", count(r.sharedBytes)},
             {"local_bytes", count(r.localBytes)},       {"stack_bytes", count(r.stackBytes)},
             {"constant_bytes", count(r.constantBytes)}, {"spill_stores", count(r.spillStores)},
             {"spill_loads", count(r.spillLoads)},       {"barriers", count(r.barriers)}};
}

void from_json(const json& j, Resources& r) {
    r = Resources{};
    getIf(j, "registers", r.registers);
    getIf(j, "shared_bytes", r.sharedBytes);
    getIf(j, "local_bytes", r.localBytes);
    getIf(j, "stack_bytes", r.stackBytes);
    getIf(j, "constant_bytes", r.constantBytes);
    getIf(j, "spill_stores", r.spillStores);
    getIf(j, "spill_loads", r.spillLoads);
    getIf(j, "barriers", r.barriers);
}

void to_json(json& j, const Diagnostic& d) {
    j = json{{"file", d.file},
             {"line", d.line},
             {"column", d.column},
             {"severity", severityName(d.severity)},
             {"message", d.message},
             {"tool", d.tool}};
}

void from_json(const json& j, Diagnostic& d) {
    d = Diagnostic{};
    getIf(j, "file", d.file);
    getIf(j, "line", d.line);
    getIf(j, "column", d.column);
    std::string sev = "error";
    getIf(j, "severity", sev);
    d.severity = severityFromName(sev);
    getIf(j, "message", d.message);
    getIf(j, "tool", d.tool);
}

void to_json(json& j, const CommandRecord& c) {
    j = json{{"stage", c.stage},         {"argv", c.argv},     {"command", shellQuote(c.argv)},
             {"exit_code", c.exitCode},  {"wall_ms", c.wallMs}, {"stdout", c.stdoutText},
             {"stderr", c.stderrText}};
}

void from_json(const json& j, CommandRecord& c) {
    c = CommandRecord{};
    getIf(j, "stage", c.stage);
    getIf(j, "argv", c.argv);
    getIf(j, "exit_code", c.exitCode);
    getIf(j, "wall_ms", c.wallMs);
    getIf(j, "stdout", c.stdoutText);
    getIf(j, "stderr", c.stderrText);
}

void to_json(json& j, const EmbeddedCode& e) {
    j = json{{"name", e.name}, {"ptx", e.isPtx}, {"arch", e.arch}, {"kernels", e.kernels}};
}

void from_json(const json& j, EmbeddedCode& e) {
    e = EmbeddedCode{};
    getIf(j, "name", e.name);
    getIf(j, "ptx", e.isPtx);
    getIf(j, "arch", e.arch);
    getIf(j, "kernels", e.kernels);
}

void to_json(json& j, const KernelArtifacts& k) {
    j = json{{"name", k.name},
             {"mangled", k.mangled},
             {"resources", k.resources},
             {"ptx", k.ptx},
             {"ptx_first_line", k.ptxFirstLine},
             {"sass", k.sass},
             {"sass_ptx_lines", k.sassPtxLines},
             {"launch_threads", k.launchThreads > 0 ? json(k.launchThreads) : json(nullptr)},
             {"launch_shared_bytes", k.launchSharedBytes >= 0 ? json(k.launchSharedBytes) : json(nullptr)}};
}

void from_json(const json& j, KernelArtifacts& k) {
    k = KernelArtifacts{};
    getIf(j, "name", k.name);
    getIf(j, "mangled", k.mangled);
    getIf(j, "resources", k.resources);
    getIf(j, "ptx", k.ptx);
    getIf(j, "ptx_first_line", k.ptxFirstLine);
    getIf(j, "sass", k.sass);
    getIf(j, "sass_ptx_lines", k.sassPtxLines);
    getIf(j, "launch_threads", k.launchThreads);
    getIf(j, "launch_shared_bytes", k.launchSharedBytes);
}

void to_json(json& j, const ToolInfo& t) {
    j = json{{"name", t.name}, {"path", t.path}, {"version", t.version}, {"origin", t.origin}, {"found", t.found()}};
    if (!t.note.empty()) j["note"] = t.note;
}

void from_json(const json& j, ToolInfo& t) {
    t = ToolInfo{};
    getIf(j, "name", t.name);
    getIf(j, "path", t.path);
    getIf(j, "version", t.version);
    getIf(j, "origin", t.origin);
    getIf(j, "note", t.note);
}

void to_json(json& j, const Toolchain& t) {
    j = json{{"nvcc", t.nvcc},         {"ptxas", t.ptxas},
             {"nvdisasm", t.nvdisasm}, {"cuobjdump", t.cuobjdump},
             {"gpu_archs", t.gpuArchs}, {"fingerprint", t.fingerprint()},
             {"problems", t.problems()}};
}

void from_json(const json& j, Toolchain& t) {
    t = Toolchain{};
    getIf(j, "nvcc", t.nvcc);
    getIf(j, "ptxas", t.ptxas);
    getIf(j, "nvdisasm", t.nvdisasm);
    getIf(j, "cuobjdump", t.cuobjdump);
    getIf(j, "gpu_archs", t.gpuArchs);
}

void to_json(json& j, const BuildResult& r) {
    j = json{{"ok", r.ok},
             {"error", r.error},
             {"compile_error", r.compileError},
             {"setup_error", r.setupError},
             {"cancelled", r.cancelled},
             {"cache_hit", r.cacheHit},
             {"arch", r.arch},
             {"input_kind", r.inputKind},
             {"embedded", r.embedded},
             {"member", r.member},
             {"toolchain_fingerprint", r.toolchainFingerprint},
             {"cache_key", r.cacheKey},
             {"diagnostics", r.diagnostics},
             {"commands", r.commands},
             {"timings_ms", r.timingsMs},
             {"ptx", r.ptx},
             {"cubin_bytes", r.cubin.size()},
             {"kernels", r.kernels}};
}

void from_json(const json& j, BuildResult& r) {
    r = BuildResult{};
    if (!j.is_object()) throw json::type_error::create(302, "build result must be a JSON object", &j);
    getIf(j, "ok", r.ok);
    getIf(j, "error", r.error);
    getIf(j, "compile_error", r.compileError);
    getIf(j, "setup_error", r.setupError);
    getIf(j, "cancelled", r.cancelled);
    getIf(j, "cache_hit", r.cacheHit);
    getIf(j, "arch", r.arch);
    getIf(j, "input_kind", r.inputKind);
    getIf(j, "embedded", r.embedded);
    getIf(j, "member", r.member);
    getIf(j, "toolchain_fingerprint", r.toolchainFingerprint);
    getIf(j, "cache_key", r.cacheKey);
    getIf(j, "diagnostics", r.diagnostics);
    getIf(j, "commands", r.commands);
    getIf(j, "timings_ms", r.timingsMs);
    getIf(j, "ptx", r.ptx);
    getIf(j, "kernels", r.kernels);
}

json buildReportJson(const std::string& sourcePath, const Toolchain& toolchain, const BuildOptions& options,
                     const BuildResult& result) {
    json timings = json::object();
    for (const auto& [stage, ms] : result.timingsMs) timings[stage] = ms;
    timings["cache_hit"] = result.cacheHit;
    json report{{"schema", "lowerscope.build/1"},
                {"source", sourcePath},
                {"input",
                 {{"kind", result.inputKind},
                  {"path", sourcePath},
                  {"member", result.member},
                  {"embedded", result.embedded}}},
                {"arch", result.arch},
                {"ok", result.ok},
                {"error", result.error},
                {"toolchain", toolchain},
                {"options", options},
                {"nvcc_args", toNvccArgs(options)},
                {"commands", result.commands},
                {"diagnostics", result.diagnostics},
                {"kernels", result.kernels},
                {"ptx", result.ptx},
                {"cubin_bytes", result.cubin.size()},
                {"cache_key", result.cacheKey},
                {"timings_ms", timings}};
    return report;
}

} // namespace lowerscope
