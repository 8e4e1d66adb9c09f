#include "core/build/build.h"

#include "core/build/cache.h"
#include "core/build/demangle.h"
#include "core/build/process.h"
#include "core/parse/diagnostics.h"
#include "core/parse/tool_output.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

bool readFile(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return !in.bad();
}

// A private directory for intermediate files, removed with everything in it on scope exit.
class TempDir {
public:
    TempDir() {
        std::error_code ec;
        fs::path base = fs::temp_directory_path(ec);
        if (ec) base = "/tmp";
        std::string tmpl = (base / "lowerscope-build-XXXXXX").string();
        if (::mkdtemp(tmpl.data())) m_path = tmpl;
    }
    ~TempDir() {
        if (m_path.empty()) return;
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

CommandRecord record(const std::string& stage, const ProcessSpec& spec, const ProcessResult& r, bool keepStdout) {
    CommandRecord c;
    c.stage = stage;
    c.argv = spec.argv;
    c.exitCode = r.started() ? r.exitCode : -1;
    c.wallMs = r.wallMs;
    if (keepStdout) c.stdoutText = r.stdoutText;
    c.stderrText = r.started() ? r.stderrText : r.startError;
    return c;
}

// The problems() line about `tool`, or a generic one.
std::string missingToolMessage(const Toolchain& tc, const ToolInfo& tool) {
    for (const auto& p : tc.problems())
        if (p.rfind(tool.name + " not found", 0) == 0) return p;
    return tool.name + " not found";
}

// Fills the per-stage failure fields for a tool run that did not succeed. Returns true if it failed.
bool failedRun(BuildResult& result, const std::string& tool, const ProcessResult& r) {
    if (r.ok()) return false;
    if (r.cancelled) {
        result.cancelled = true;
        result.error = "cancelled";
    } else if (!r.started()) {
        result.error = r.startError;
        result.setupError = true;
    } else {
        std::string firstLine = r.stderrText.substr(0, r.stderrText.find('\n'));
        result.error = tool + " failed: " + r.describe() + (firstLine.empty() ? "" : ": " + firstLine);
    }
    return true;
}

Resources mergeResources(const Resources* ptxas, const Resources* cuobj) {
    // ptxas -v is authoritative for what it reports (its smem excludes the 1 KiB the driver
    // reserves per block on sm_80+, which cuobjdump's SHARED includes on some archs); cuobjdump
    // fills the rest (LOCAL, CONSTANT[0] when ptxas omitted it).
    Resources r;
    if (ptxas) r = *ptxas;
    if (cuobj) {
        auto fill = [](int& dst, int src) {
            if (dst < 0) dst = src;
        };
        fill(r.registers, cuobj->registers);
        fill(r.stackBytes, cuobj->stackBytes);
        fill(r.sharedBytes, cuobj->sharedBytes);
        fill(r.constantBytes, cuobj->constantBytes);
        if (cuobj->localBytes >= 0) r.localBytes = cuobj->localBytes;
    }
    return r;
}

} // namespace

std::string cacheDirectory() {
    if (const char* d = std::getenv("LOWERSCOPE_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "lowerscope").string();
    if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "lowerscope").string();
    return (fs::temp_directory_path() / ("lowerscope-cache-" + std::to_string(::getuid()))).string();
}

BuildResult buildFile(const Toolchain& toolchain, const std::string& sourcePath, const BuildOptions& options,
                      const BuildControl& control) {
    auto t0 = Clock::now();
    BuildResult result;
    result.toolchainFingerprint = toolchain.fingerprint();
    auto setupFail = [&](std::string message) {
        result.error = std::move(message);
        result.setupError = true;
        result.timingsMs["total"] = msSince(t0);
        return result;
    };

    if (std::string bad = checkBuildOptions(options); !bad.empty()) return setupFail(bad);
    // nvcc and nvdisasm are required; cuobjdump only cross-checks resources (ptxas -v has them).
    for (const ToolInfo* t : {&toolchain.nvcc, &toolchain.nvdisasm})
        if (!t->found()) return setupFail(missingToolMessage(toolchain, *t));
    if (!toolchain.gpuArchs.empty()) {
        std::string base = options.arch;
        if (base.back() == 'a' || base.back() == 'f') base.pop_back();
        if (std::find(toolchain.gpuArchs.begin(), toolchain.gpuArchs.end(), base) == toolchain.gpuArchs.end()) {
            std::string list;
            for (const auto& a : toolchain.gpuArchs) list += (list.empty() ? "" : " ") + a;
            return setupFail("nvcc " + toolchain.nvcc.version + " does not support " + options.arch + " (supported: " +
                             list + ")");
        }
    }
    std::error_code ec;
    fs::path source = fs::absolute(sourcePath, ec).lexically_normal();
    if (ec || !fs::is_regular_file(source, ec)) return setupFail("cannot read source file " + sourcePath + ": no such file");
    if (::access(source.c_str(), R_OK) != 0) return setupFail("cannot read source file " + sourcePath);

    // ------------------------------------------------------------------------------------ cache
    auto tKey = Clock::now();
    std::string keyError;
    result.cacheKey = computeCacheKey(source.string(), options, result.toolchainFingerprint, &keyError);
    if (result.cacheKey.empty()) return setupFail(keyError);
    BuildCache cache(control.cacheDir);
    if (control.useCache) {
        if (auto hit = cache.load(result.cacheKey)) {
            BuildResult r = std::move(*hit);
            r.cacheHit = true;
            r.cancelled = false;
            r.timingsMs.clear();
            r.timingsMs["cache_lookup"] = msSince(tKey);
            r.timingsMs["total"] = msSince(t0);
            return r;
        }
    }
    result.timingsMs["cache_lookup"] = msSince(tKey);

    TempDir tmp;
    if (tmp.path().empty()) return setupFail("cannot create a temporary directory");
    const std::string stem = source.stem().string();
    const std::string keepDir = tmp.path() + "/keep";
    const std::string cubinPath = tmp.path() + "/" + stem + ".cubin";
    fs::create_directories(keepDir, ec);

    // ---------------------------------------------------------------------------------- compile
    // One nvcc run produces both artifacts: -keep leaves the PTX that ptxas assembled (byte-identical
    // to `nvcc -ptx` with the same options, and the PTX that `nvdisasm -gp` line numbers refer to),
    // so the front end does not run twice. Measured in docs/PERFORMANCE.md ("Build pipeline").
    ProcessSpec compile;
    compile.argv = {toolchain.nvcc.path};
    for (auto& a : toNvccArgs(options)) compile.argv.push_back(std::move(a));
    for (const char* a : {"-cubin", "-Xptxas", "-v", "-keep", "-keep-dir"}) compile.argv.push_back(a);
    compile.argv.push_back(keepDir);
    compile.argv.push_back("-o");
    compile.argv.push_back(cubinPath);
    compile.argv.push_back(source.string());
    compile.timeout = control.timeout;
    compile.cancel = control.cancel;
    auto tCompile = Clock::now();
    ProcessResult cr = runProcess(compile);
    result.timingsMs["compile"] = msSince(tCompile);
    result.commands.push_back(record("cubin", compile, cr, false));
    result.diagnostics = parseDiagnostics(cr.stderrText, "nvcc");
    // ptxas names its input by the temporary path: name it after the module instead (line numbers
    // refer to BuildResult::ptx).
    for (auto& d : result.diagnostics)
        if (d.tool == "ptxas" && !d.file.empty() && d.file.rfind(tmp.path(), 0) == 0) d.file = fs::path(d.file).filename().string();
    {
        std::string ptxPath = keepDir + "/" + stem + ".ptx";
        if (!fs::exists(ptxPath, ec)) {
            // Extra nvcc flags can change the name (several -gencode targets): take any .ptx.
            for (const auto& e : fs::directory_iterator(keepDir, ec))
                if (e.path().extension() == ".ptx") {
                    ptxPath = e.path().string();
                    break;
                }
        }
        readFile(ptxPath, result.ptx);
    }
    if (!cr.ok()) {
        failedRun(result, "nvcc", cr);
        if (cr.started() && !cr.cancelled && !cr.timedOut) {
            result.compileError = true;
            if (std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                             [](const Diagnostic& d) { return d.severity == Severity::Error; })) {
                Diagnostic d;
                d.tool = "nvcc";
                d.message = "nvcc " + cr.describe() + (cr.stderrText.empty() ? "" : ": " + cr.stderrText.substr(0, 2000));
                result.diagnostics.push_back(std::move(d));
            }
            result.error = "compilation failed";
        }
        result.timingsMs["total"] = msSince(t0);
        if (result.compileError && control.useCache) {
            // Compile errors are as deterministic as successes: cache them too.
            std::string storeError;
            cache.store(result.cacheKey, result, &storeError);
        }
        return result;
    }
    {
        std::string cubin;
        if (!readFile(cubinPath, cubin)) {
            result.error = "nvcc succeeded but wrote no cubin (" + cubinPath + ")";
            result.timingsMs["total"] = msSince(t0);
            return result;
        }
        result.cubin.assign(cubin.begin(), cubin.end());
    }

    // ------------------------------------------------------------------------------ disassemble
    // Independent readers of the same cubin, in parallel. `-gi` text is derived from the `-gi -gp`
    // run (see stripPtxLineComments); `-lrm count` cannot be combined with line info (nvdisasm
    // ignores -g* with it), so it is a run of its own.
    std::vector<ProcessSpec> specs;
    std::vector<std::string> stages;
    auto addSpec = [&](const std::string& stage, std::vector<std::string> argv) {
        ProcessSpec s;
        s.argv = std::move(argv);
        s.timeout = control.timeout;
        s.cancel = control.cancel;
        specs.push_back(std::move(s));
        stages.push_back(stage);
    };
    addSpec("sass-ptx-lines", {toolchain.nvdisasm.path, "-c", "-hex", "-gi", "-gp", cubinPath});
    addSpec("sass-live", {toolchain.nvdisasm.path, "-c", "-lrm", "count", cubinPath});
    if (toolchain.cuobjdump.found()) addSpec("res-usage", {toolchain.cuobjdump.path, "-res-usage", cubinPath});
    auto tDis = Clock::now();
    std::vector<ProcessResult> dr = runProcessesParallel(specs);
    result.timingsMs["disassemble"] = msSince(tDis);
    for (size_t i = 0; i < specs.size(); ++i) result.commands.push_back(record(stages[i], specs[i], dr[i], stages[i] == "res-usage"));
    for (size_t i = 0; i < specs.size(); ++i) {
        std::string tool = fs::path(specs[i].argv[0]).filename().string();
        if (stages[i] == "res-usage" && !dr[i].cancelled) continue; // optional cross-check
        if (failedRun(result, tool, dr[i])) {
            result.timingsMs["total"] = msSince(t0);
            return result;
        }
    }
    if (!toolchain.cuobjdump.found()) {
        Diagnostic d;
        d.severity = Severity::Remark;
        d.tool = "lowerscope";
        d.message = "cuobjdump not found: resources come from ptxas -v only";
        result.diagnostics.push_back(std::move(d));
    }

    // ------------------------------------------------------------------------------------ parse
    auto tParse = Clock::now();
    auto gpByFunction = splitNvdisasmFunctions(dr[0].stdoutText);
    auto liveByFunction = splitNvdisasmFunctions(dr[1].stdoutText);
    auto ptxasRes = parsePtxasVerbose(cr.stderrText);
    std::map<std::string, Resources> cuobjRes;
    if (specs.size() > 2 && dr[2].ok()) cuobjRes = parseCuobjdumpResUsage(dr[2].stdoutText);
    bool anyPtxLines = dr[0].stdoutText.find("//## File \".nv_debug_ptx_txt\"") != std::string::npos;
    for (const auto& entry : ptxEntries(result.ptx)) {
        KernelArtifacts k;
        k.mangled = entry.mangled;
        k.name = demangle(entry.mangled);
        k.ptx = entry.text;
        k.ptxFirstLine = entry.firstLine;
        if (auto it = gpByFunction.find(entry.mangled); it != gpByFunction.end()) {
            k.sass = stripPtxLineComments(it->second);
            if (anyPtxLines) k.sassPtxLines = it->second;
        }
        if (auto it = liveByFunction.find(entry.mangled); it != liveByFunction.end()) k.sassLive = it->second;
        auto p = ptxasRes.find(entry.mangled);
        auto c = cuobjRes.find(entry.mangled);
        k.resources = mergeResources(p == ptxasRes.end() ? nullptr : &p->second, c == cuobjRes.end() ? nullptr : &c->second);
        result.kernels.push_back(std::move(k));
    }
    result.timingsMs["parse"] = msSince(tParse);
    result.ok = true;

    if (control.useCache) {
        auto tStore = Clock::now();
        std::string storeError;
        if (!cache.store(result.cacheKey, result, &storeError)) {
            Diagnostic d;
            d.severity = Severity::Remark;
            d.tool = "lowerscope";
            d.message = "build cache not written: " + storeError;
            result.diagnostics.push_back(std::move(d));
        }
        result.timingsMs["cache_store"] = msSince(tStore);
    }
    result.timingsMs["total"] = msSince(t0);
    return result;
}

} // namespace lowerscope
