#include "core/build/build.h"

#include "core/build/cache.h"
#include "core/build/stages.h"

#include <algorithm>
#include <cctype>
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

// The problems() line about `tool`, or a generic one.
std::string missingToolMessage(const Toolchain& tc, const ToolInfo& tool) {
    for (const auto& p : tc.problems())
        if (p.rfind(tool.name + " not found", 0) == 0) return p;
    return tool.name + " not found";
}

bool readFile(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return !in.bad();
}

// The `.target sm_XX[a|f]` of a PTX file (its first such directive), "" when there is none.
std::string ptxTarget(const std::string& path) {
    std::ifstream in(path);
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
    auto setupFail = [&](std::string message) {
        result.error = std::move(message);
        result.setupError = true;
        result.timingsMs["total"] = msSince(t0);
        return result;
    };

    std::error_code ec;
    const fs::path path = fs::absolute(input.path, ec).lexically_normal();
    const char* noun = input.kind == InputKind::CudaSource ? "source file" : "input file";
    if (ec || !fs::is_regular_file(path, ec))
        return setupFail(std::string("cannot read ") + noun + " " + input.path + ": no such file");
    if (::access(path.c_str(), R_OK) != 0) return setupFail(std::string("cannot read ") + noun + " " + input.path);

    // The options that apply, with the arch resolved (PTX: its own .target unless overridden), and
    // the tools this kind needs. cuobjdump is never required: it only cross-checks resources.
    BuildInput resolved = input;
    resolved.path = path.string();
    BuildOptions& options = resolved.options;
    std::vector<const ToolInfo*> required{&toolchain.nvdisasm};
    std::string compiler;
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
    case InputKind::Cubin:
        options = BuildOptions{}; // nothing applies: the cubin is built
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
    switch (input.kind) {
    case InputKind::CudaSource: built = compileCuda(ctx, resolved.path, options, compiled); break;
    case InputKind::Ptx: built = assemblePtx(ctx, resolved.path, options.arch, options, compiled); break;
    case InputKind::Cubin: {
        std::string bytes;
        if (!readFile(resolved.path, bytes)) return setupFail("cannot read input file " + input.path);
        built = loadCubin(ctx, bytes, compiled);
        break;
    }
    }
    if (!built) {
        result.timingsMs["total"] = msSince(t0);
        if (result.compileError && control.useCache) {
            // Compile errors are as deterministic as successes: cache them too.
            std::string storeError;
            cache.store(result.cacheKey, result, &storeError);
        }
        return result;
    }
    Disassembly disassembly;
    if (!disassembleCubin(ctx, compiled.cubinPath, input.kind != InputKind::Cubin, disassembly)) {
        result.timingsMs["total"] = msSince(t0);
        return result;
    }
    collectKernels(result, disassembly, compiled.ptxasReport);
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
