// Build one kernel and resolve its launch (built_launch.h).
#include "core/run/built_launch.h"

#include "core/build/demangle.h"
#include "core/build/kernel_name.h"
#include "core/parse/diagnostics.h"
#include "core/parse/ptx_parser.h"
#include "core/run/argspec.h"

#include <filesystem>

namespace lowerscope {

BuiltLaunch buildKernelLaunch(const Toolchain& tc, const std::string& file, const BuildOptions& options,
                              const LaunchSpec& spec, const std::string& label,
                              const std::function<void(const std::string&)>& warn,
                              const BuildControl& control) {
    auto say = [&](const std::string& line) {
        if (warn) warn(line);
    };
    BuiltLaunch b;
    b.spec = spec;
    BuildResult r = buildFile(tc, file, options, control);
    for (const auto& d : r.diagnostics) {
        if (d.severity == Severity::Error || d.severity == Severity::Warning) say(formatDiagnostic(d));
    }
    if (r.setupError) throw LaunchBuildError(2, r.error);
    if (r.compileError) throw LaunchBuildError(1, file + ": compilation failed");
    if (r.cubin.empty() || r.ptx.empty()) throw LaunchBuildError(1, file + ": build failed: " + r.error);
    if (!r.ok) say("warning: " + r.error + " (the cubin was built; measuring anyway)");
    // "saxpy", "scaled_gemm<8>", "ns::kern" or "kern", the demangled or the mangled name.
    std::vector<KernelName> names;
    for (const auto& ka : r.kernels) names.push_back(KernelName{ka.mangled, ka.name});
    std::string why;
    const int found = findKernel(names, b.spec.kernel, &why);
    if (found < 0) throw LaunchBuildError(2, file + ": " + why);
    const KernelArtifacts* k = &r.kernels[size_t(found)];
    MeasureSide side;
    side.label = label;
    side.mangled = k->mangled;
    side.signature = k->name.empty() ? demangle(k->mangled) : k->name;
    side.spec = b.spec;
    side.file = file;
    side.buildOptions = shellQuote(toNvccArgs(options));
    PtxListing ptx = parsePtx(r.ptx);
    const PtxFunction* fn = nullptr;
    for (const auto& f : ptx.functions) {
        if (f.isEntry && f.name == side.mangled) fn = &f;
    }
    if (!fn) throw LaunchBuildError(1, "kernel " + side.mangled + " not found in the PTX");
    side.params = fn->params;
    side.cubin = std::move(r.cubin);
    b.mangled = side.mangled;
    try {
        b.side = prepareSide(side);
    } catch (const ArgSpecError& e) {
        throw LaunchBuildError(2, e.what());
    }
    for (const auto& w : b.side.warnings) say("warning: " + w);
    b.build = std::move(r);
    return b;
}

LaunchProfileTarget profileTargetFor(const BuiltLaunch& b, const std::string& file,
                                     const BuildOptions& options) {
    LaunchProfileTarget s;
    s.model = std::make_unique<LoweringModel>(buildLoweringModel(b.build));
    for (const auto& k : s.model->kernels) {
        if (k.mangled == b.mangled) s.target.sass = &k.sass;
    }
    if (!s.target.sass) throw LaunchBuildError(1, "kernel " + b.mangled + " has no SASS in this build");
    s.target.variant = b.side.variant;
    s.target.mangled = b.mangled;
    s.target.signature = b.side.launch.kernelName;
    s.target.file = std::filesystem::path(file).filename().string();
    s.target.arch = s.model->arch;
    s.target.buildOptions = shellQuote(toNvccArgs(options));
    s.target.args = b.spec.args;
    return s;
}

} // namespace lowerscope
