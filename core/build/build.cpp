#include "core/build/build.h"
#include "core/untrusted.h"

#include "core/build/cache.h"
#include "core/build/stages.h"
#include "core/build/triton.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The problems() line about `tool`, or a generic one.
std::string missingToolMessage(const Toolchain& tc, const ToolInfo& tool) {
    for (const auto& p : tc.problems())
        if (p.rfind(tool.name + " not found", 0) == 0) return p;
    return tool.name + " not found";
}

// Through the one input rule (core/untrusted.h): regular files only, never blocking on a FIFO, the
// size checked before reading; `error` (when given) names the file and the limit.
bool readFile(const std::string& path, std::string& out, std::string* error = nullptr,
              std::size_t limit = kMaxCodeBytes, const char* what = "PTX or a cubin") {
    std::string why;
    if (readInputFile(path, limit, what, out, why)) return true;
    if (error) *error = why;
    return false;
}

// The `.target sm_XX[a|f]` of a PTX file (its first such directive), "" when there is none.
std::string ptxTarget(const std::string& path) {
    // The head only (never blocking, regular files only), not a getline over a file of any size.
    std::istringstream in(readInputHead(path, 64 * 1024));
    std::string line;
    for (int n = 0; n < 200 && std::getline(in, line); ++n) {
        size_t p = line.find_first_not_of(" \t");
        if (p == std::string::npos || line.compare(p, 7, ".target") != 0) continue;
        p = line.find("sm_", p);
        if (p == std::string::npos) return {};
        size_t e = p + 3;
        while (e < line.size() && (std::isalnum(static_cast<unsigned char>(line[e])))) ++e;
        return line.substr(p, e - p);
    }
    return {};
}

// The member of a container to build when the user named none: the first cubin with kernels for
// `arch`, else the first cubin with kernels, else the first PTX with kernels. With a name: that one.
const EmbeddedCode* chooseMember(const std::vector<EmbeddedCode>& embedded, const std::string& name, const std::string& arch) {
    if (!name.empty()) {
        for (const auto& e : embedded)
            if (e.name == name) return &e;
        return nullptr;
    }
    for (const auto& e : embedded)
        if (!e.isPtx && !e.kernels.empty() && e.arch == arch) return &e;
    for (const auto& e : embedded)
        if (!e.isPtx && !e.kernels.empty()) return &e;
    for (const auto& e : embedded)
        if (e.isPtx && !e.kernels.empty()) return &e;
    return nullptr;
}

// The first CUDA release whose tools know an architecture, and the last one for those CUDA 12 and
// 13 dropped (nvcc --list-gpu-code of each release).
struct ArchSupport {
    int sm;
    const char* first;
    const char* last; // nullptr: still supported by CUDA 13
};
constexpr ArchSupport kArchSupport[] = {
    {30, "6.0", "10.2"},  {35, "5.0", "11.8"},  {37, "6.5", "11.8"},  {50, "6.0", "12.9"}, {52, "7.0", "12.9"},
    {53, "7.0", "12.9"},  {60, "8.0", "12.9"},  {61, "8.0", "12.9"},  {62, "8.0", "12.9"}, {70, "9.0", "12.9"},
    {72, "10.0", "12.9"}, {75, "10.0", nullptr}, {80, "11.0", nullptr}, {86, "11.1", nullptr},
    {87, "11.4", nullptr}, {88, "13.0", nullptr}, {89, "11.8", nullptr}, {90, "11.8", nullptr},
    {100, "12.8", nullptr}, {101, "12.8", "12.9"}, {103, "12.9", nullptr}, {110, "13.0", nullptr},
    {120, "12.8", nullptr}, {121, "12.9", nullptr}};

// When nvdisasm failed on a cubin for an arch this toolkit does not list: which version would read it.
std::string disassemblerHint(const Toolchain& tc, const std::string& arch) {
    if (tc.gpuArchs.empty() || std::find(tc.gpuArchs.begin(), tc.gpuArchs.end(), arch) != tc.gpuArchs.end()) return {};
    const int sm = std::atoi(arch.c_str() + 3);
    std::string hint = " (nvdisasm " + tc.nvdisasm.version + " cannot read " + arch + " cubins; ";
    for (const auto& s : kArchSupport)
        if (s.sm == sm) {
            if (s.last) return hint + "the nvdisasm of CUDA " + s.first + " to " + s.last + " can)";
            return hint + "the nvdisasm of CUDA " + s.first + " or newer can)";
        }
    return hint + "a newer CUDA toolkit's nvdisasm may)";
}

} // namespace

std::string cacheDirectory() {
    if (const char* d = std::getenv("LOWERSCOPE_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "lowerscope").string();
    if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "lowerscope").string();
    return (fs::temp_directory_path() / ("lowerscope-cache-" + std::to_string(::getuid()))).string();
}

BuildResult buildInput(const Toolchain& toolchain, const BuildInput& input, const BuildControl& control) {
    auto t0 = Clock::now();
    BuildResult result;
    result.toolchainFingerprint = toolchain.fingerprint();
    result.inputKind = inputKindName(input.kind);
    auto setupFail = [&](std::string message) {
        result.error = std::move(message);
        result.setupError = true;
        result.timingsMs["total"] = msSince(t0);
        return result;
    };

    std::error_code ec;
    const fs::path path = fs::absolute(input.path, ec).lexically_normal();
    if (input.kind == InputKind::Triton) {
        if (ec || !fs::is_directory(path, ec)) return setupFail("cannot read Triton folder " + input.path + ": no such folder");
    } else {
        const char* noun = input.kind == InputKind::CudaSource ? "source file" : "input file";
        if (ec || !fs::is_regular_file(path, ec)) {
            // Say what it is: a folder or a device is no "missing file".
            const fs::file_status st = fs::status(path, ec);
            const char* what = fs::is_directory(st)  ? "it is a directory"
                               : fs::exists(st)       ? "not a regular file (a device, FIFO or socket)"
                                                      : "no such file";
            return setupFail(std::string("cannot read ") + noun + " " + input.path + ": " + what);
        }
        if (::access(path.c_str(), R_OK) != 0) return setupFail(std::string("cannot read ") + noun + " " + input.path);
    }

    // The options that apply, with the arch resolved (PTX: its own .target unless overridden), and
    // the tools this kind needs. cuobjdump is required only to open containers; elsewhere it only
    // cross-checks resources.
    BuildInput resolved = input;
    resolved.path = path.string();
    BuildOptions& options = resolved.options;
    std::vector<const ToolInfo*> required{&toolchain.nvdisasm};
    std::string compiler;
    std::optional<TritonKernel> triton;
    std::vector<TritonKernel> tritonCache;
    switch (input.kind) {
    case InputKind::CudaSource:
        required.insert(required.begin(), &toolchain.nvcc);
        compiler = "nvcc";
        break;
    case InputKind::Ptx:
        if (options.arch.empty()) {
            options.arch = ptxTarget(path.string());
            if (options.arch.empty())
                return setupFail("cannot tell the architecture of " + input.path +
                                 ": no `.target sm_XX` directive (give the arch explicitly)");
        }
        required.insert(required.begin(), &toolchain.ptxas);
        compiler = "ptxas";
        break;
    case InputKind::Cubin: options = BuildOptions{}; break; // nothing applies: the cubin is built
    case InputKind::Fatbin:
    case InputKind::Object:
    case InputKind::SharedLibrary:
    case InputKind::Executable:
        // An embedded PTX is assembled with the PTX options; options.arch picks the default member.
        required.push_back(&toolchain.cuobjdump);
        if (!input.member.empty() && input.member.size() > 4 && input.member.substr(input.member.size() - 4) == ".ptx")
            required.push_back(&toolchain.ptxas);
        break;
    case InputKind::Triton:
        try {
            if (isTritonKernelFolder(path.string())) {
                triton = readTritonKernel(path.string());
            } else {
                std::vector<std::string> skipped;
                tritonCache = listTritonCache(path.string(), &skipped);
                bool code = false;
                for (const auto& e : fs::directory_iterator(path, ec))
                    code |= e.path().extension() == ".ptx" || e.path().extension() == ".cubin";
                if (code)
                    return setupFail("Triton folder " + input.path +
                                     " has a kernel's PTX or cubin but no metadata <name>.json (num_warps, shared, "
                                     "target): an incomplete cache entry");
                if (tritonCache.empty()) {
                    // A kernel's metadata without its code: say which files are missing.
                    try {
                        readTritonKernel(path.string());
                    } catch (const std::exception& e) {
                        if (std::string(e.what()).find(" has neither ") != std::string::npos) return setupFail(e.what());
                    }
                }
                if (tritonCache.empty())
                    return setupFail(input.path + " is a directory, and neither a Triton kernel's folder nor a Triton cache holding kernels" +
                                     (skipped.empty() ? std::string() : " (" + skipped.front() + ")"));
                for (const auto& k : tritonCache)
                    if (input.member.empty() || input.member == k.name || input.member == fs::path(k.folder).filename().string()) {
                        triton = k;
                        break;
                    }
                if (!triton) return setupFail("the Triton cache " + input.path + " has no kernel '" + input.member + "'");
            }
        } catch (const std::exception& e) {
            return setupFail(e.what());
        }
        resolved.path = triton->folder;
        resolved.member.clear();
        for (const auto& k : tritonCache) resolved.member += fs::path(k.folder).filename().string() + ",";
        options = BuildOptions{};
        if (triton->cubinPath.empty()) {
            // The PTX's own target (sm_90a) over the metadata's (90): ptxas insists on it.
            options.arch = ptxTarget(triton->ptxPath);
            if (options.arch.empty()) options.arch = triton->arch;
            required.insert(required.begin(), &toolchain.ptxas);
        }
        break;
    }
    if (!compiler.empty()) {
        if (std::string bad = checkBuildOptions(options); !bad.empty()) return setupFail(bad);
    }
    for (const ToolInfo* t : required)
        if (!t->found()) return setupFail(missingToolMessage(toolchain, *t));
    if (!compiler.empty() && !toolchain.gpuArchs.empty()) {
        std::string base = options.arch;
        if (base.back() == 'a' || base.back() == 'f') base.pop_back();
        if (std::find(toolchain.gpuArchs.begin(), toolchain.gpuArchs.end(), base) == toolchain.gpuArchs.end()) {
            std::string list;
            for (const auto& a : toolchain.gpuArchs) list += (list.empty() ? "" : " ") + a;
            const ToolInfo& tool = compiler == "nvcc" ? toolchain.nvcc : toolchain.ptxas;
            return setupFail(compiler + " " + tool.version + " does not support " + options.arch + " (supported: " +
                             list + ")");
        }
    }
    if (!compiler.empty()) result.arch = options.arch;

    // ------------------------------------------------------------------------------------ cache
    auto tKey = Clock::now();
    std::string keyError;
    result.cacheKey = computeCacheKey(resolved, result.toolchainFingerprint, &keyError);
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

    // ----------------------------------------------------------------------------------- stages
    TempDir tmp;
    if (tmp.path().empty()) return setupFail("cannot create a temporary directory");
    StageContext ctx{toolchain, control, tmp.path(), result};
    CompiledCubin compiled;
    bool built = false;
    auto loadFile = [&](const std::string& file) {
        std::string bytes, why;
        if (!readFile(file, bytes, &why, kMaxCodeBytes, "a cubin")) {
            result.error = why;
            result.setupError = true;
            return false;
        }
        return loadCubin(ctx, bytes, compiled);
    };
    switch (input.kind) {
    case InputKind::CudaSource: built = compileCuda(ctx, resolved.path, options, compiled); break;
    case InputKind::Ptx: built = assemblePtx(ctx, resolved.path, options.arch, options, compiled); break;
    case InputKind::Cubin: built = loadFile(resolved.path); break;
    case InputKind::Fatbin:
    case InputKind::Object:
    case InputKind::SharedLibrary:
    case InputKind::Executable: {
        std::map<std::string, std::string> files;
        if (!extractEmbedded(ctx, resolved.path, files)) break;
        const EmbeddedCode* chosen = chooseMember(result.embedded, input.member, options.arch);
        if (!chosen) {
            std::string names;
            for (const auto& e : result.embedded) names += (names.empty() ? "" : ", ") + e.name;
            result.error = fs::path(input.path).filename().string() + " has no embedded '" + input.member + "' (it has: " + names + ")";
            result.setupError = true;
            break;
        }
        result.member = chosen->name;
        if (!files.count(chosen->name)) {
            result.error = "cuobjdump did not extract " + chosen->name;
            break;
        }
        if (chosen->isPtx) {
            if (!toolchain.ptxas.found()) {
                result.error = missingToolMessage(toolchain, toolchain.ptxas);
                result.setupError = true;
                break;
            }
            const std::string arch = chosen->arch.empty() ? ptxTarget(files[chosen->name]) : chosen->arch;
            result.arch = arch;
            built = assemblePtx(ctx, files[chosen->name], arch, options, compiled);
        } else {
            built = loadFile(files[chosen->name]);
        }
        break;
    }
    case InputKind::Triton:
        for (const auto& k : tritonCache) {
            EmbeddedCode e;
            e.name = fs::path(k.folder).filename().string();
            e.arch = k.arch;
            e.kernels = {k.name};
            result.embedded.push_back(std::move(e));
        }
        if (!tritonCache.empty()) result.member = fs::path(triton->folder).filename().string();
        if (!triton->cubinPath.empty()) {
            built = loadFile(triton->cubinPath);
            // The folder's PTX is the text ptxas assembled, with its .loc/.file lines (the Python
            // source) that the cubin's copy blanks; the line numbers are the same.
            std::string ptx;
            if (built && !triton->ptxPath.empty() && readFile(triton->ptxPath, ptx)) result.ptx = std::move(ptx);
        } else {
            result.arch = options.arch;
            built = assemblePtx(ctx, triton->ptxPath, options.arch, options, compiled);
        }
        break;
    }
    if (!built) {
        result.timingsMs["total"] = msSince(t0);
        if (result.compileError && !result.cancelled && control.useCache) {
            // Compile errors are as deterministic as successes: cache them too. compileError is set
            // only for the compiler's own verdict (stages.cpp, failure_kind.h): a signal, a timeout,
            // a cancel, a full disk or a crashed step never gets here.
            std::string storeError;
            cache.store(result.cacheKey, result, &storeError);
        }
        return result;
    }
    Disassembly disassembly;
    if (!disassembleCubin(ctx, compiled.cubinPath, !compiled.ptxasReport.empty(), disassembly)) {
        if (!result.cancelled && !result.arch.empty()) result.error += disassemblerHint(toolchain, result.arch);
        result.timingsMs["total"] = msSince(t0);
        return result;
    }
    collectKernels(result, disassembly, compiled.ptxasReport);
    applyPathMap(ctx);
    if (result.kernels.empty()) {
        result.error = fs::path(input.path).filename().string() + " has no kernel (no .entry in its code)";
        result.setupError = true;
        result.timingsMs["total"] = msSince(t0);
        return result;
    }
    if (triton) {
        for (auto& k : result.kernels) {
            k.launchThreads = triton->blockThreads();
            k.launchSharedBytes = triton->sharedBytes;
        }
    }
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

BuildResult buildFile(const Toolchain& toolchain, const std::string& path, const BuildOptions& options,
                      const BuildControl& control) {
    return buildInput(toolchain, describeInput(path, options), control);
}

} // namespace lowerscope
