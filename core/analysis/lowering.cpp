#include "core/analysis/lowering.h"

#include "core/build/kernel_name.h"

#include "core/analysis/aggregate.h"
#include "core/analysis/cfg.h"
#include "core/analysis/defuse.h"
#include "core/analysis/deps.h"
#include "core/analysis/liveness.h"
#include "core/parse/ptx_parser.h"
#include "core/parse/sass_parser.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <mutex>
#include <system_error>
#include <thread>

namespace lowerscope {

const KernelModel* LoweringModel::kernel(const std::string& nameOrMangled, std::string* error) const {
    std::vector<KernelName> names;
    names.reserve(kernels.size());
    for (const auto& k : kernels) names.push_back(KernelName{k.mangled, k.name});
    const int i = findKernel(names, nameOrMangled, error);
    return i < 0 ? nullptr : &kernels[size_t(i)];
}

namespace {

// Runs body(0..n-1) on up to `threads` threads (the caller is one of them). Each index runs once;
// the first exception is rethrown in the caller after every thread has finished. A thread that
// cannot be started leaves its share to the others.
template <typename Body>
void parallelFor(size_t n, size_t threads, const Body& body) {
    std::atomic<size_t> next{0};
    std::exception_ptr error;
    std::mutex errorLock;
    auto work = [&] {
        for (size_t i = next++; i < n; i = next++) {
            try {
                body(i);
            } catch (...) {
                std::lock_guard<std::mutex> g(errorLock);
                if (!error) error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < std::min(n, threads); ++t) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {
            break;
        }
    }
    work();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

size_t workerCount() {
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 2 : std::min<size_t>(hw, 16);
}

} // namespace

LoweringModel buildLoweringModel(const BuildResult& build, const SourceContext& sources) {
    // Kernels are independent: each one's SASS is parsed and analysed on its own thread while the
    // PTX module is parsed on another; correlation, which needs both, follows. The result is the
    // same as doing it in order (the kernels keep the build's order).
    LoweringModel model;
    const size_t n = build.kernels.size();
    model.kernels.resize(n);
    std::vector<std::string> arches(n);
    std::future<PtxListing> ptxJob;
    try {
        ptxJob = std::async(std::launch::async, [&build] { return parsePtx(build.ptx); });
    } catch (const std::system_error&) {
        ptxJob = std::async(std::launch::deferred, [&build] { return parsePtx(build.ptx); });
    }
    parallelFor(n, workerCount(), [&](size_t i) {
        const KernelArtifacts& art = build.kernels[i];
        KernelModel& k = model.kernels[i];
        k.name = art.name;
        k.mangled = art.mangled;
        k.resources = art.resources;
        SassListing listing = parseSassTexts(art.sass, art.sassPtxLines, {});
        arches[i] = listing.arch;
        SassFunction* fn = nullptr;
        for (auto& f : listing.functions)
            if (f.name == art.mangled) fn = &f;
        if (!fn && listing.functions.size() == 1) fn = &listing.functions.front();
        if (fn) k.sass = std::move(*fn);
        if (k.sass.name.empty()) k.sass.name = art.mangled;

        analyseDefUse(k.sass);
        k.cfg = buildCfg(k.sass);
        k.deps = computeDependencies(k.sass, k.cfg);
    });
    // Liveness needs the module's register limits (the calling convention at CALL covers the
    // predicates and uniform registers of the whole cubin, as nvdisasm's column does).
    RegisterLimits module;
    for (const auto& k : model.kernels) module = mergeLimits(module, registerLimits(k.sass));
    model.ptx = ptxJob.get();
    parallelFor(n, workerCount(), [&](size_t i) {
        KernelModel& k = model.kernels[i];
        RegisterLimits limits = module;
        limits.gprCount = k.resources.registers; // -1 (unknown): derived from the code
        computeLiveness(k.sass, k.cfg, limits);
        k.lines = aggregateByLine(k.sass, InlineAttribution::CallSite);
        k.total = aggregateFunction(k.sass);
        for (size_t f = 0; f < model.ptx.functions.size(); ++f)
            if (model.ptx.functions[f].name == k.mangled) k.ptxFunction = static_cast<int>(f);
        k.correlation = Correlation::build(model.ptx, k.ptxFunction, k.sass);
        k.files = collectSourceFiles(PtxListing{}, {&k.sass}, sources);
    });
    {
        std::vector<const SassFunction*> all;
        for (const auto& k : model.kernels) all.push_back(&k.sass);
        model.files = collectSourceFiles(model.ptx, all, sources);
    }
    for (const auto& a : arches)
        if (model.arch.empty()) model.arch = a;
    if (model.arch.empty() && !model.ptx.target.empty()) model.arch = model.ptx.target;
    return model;
}

} // namespace lowerscope
