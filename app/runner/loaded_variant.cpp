// A request's variant on the device (loaded_variant.h).
#include "app/runner/loaded_variant.h"

#include "app/runner/restored_memory.h"

#include "app/runner/graph_costs.h"
#include "core/run/buffer_data.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace lowerscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Itanium-mangled base name: "_Z5saxpyifPKfPf" → "saxpy"; "" when not of that simple form.
std::string mangledBase(const std::string& m) {
    if (m.rfind("_Z", 0) != 0) {
        return "";
    }
    size_t i = 2;
    if (i < m.size() && m[i] == 'L') {
        ++i; // internal linkage
    }
    size_t len = 0;
    size_t start = i;
    while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) {
        len = len * 10 + static_cast<size_t>(m[i] - '0');
        ++i;
        if (len > m.size()) {
            return "";
        }
    }
    if (i == start || i + len > m.size()) {
        return "";
    }
    return m.substr(i, len);
}

} // namespace

LoadedVariant::LoadedVariant(DeviceContext& ctx, const LaunchVariant& spec, RestoredMemory* memory)
    : m_ctx(ctx), m_spec(spec), m_memory(memory) {
    result.label = spec.label;
}

LoadedVariant::~LoadedVariant() {
    // Best effort: after a fault the process exits without getting here. The graph goes first: it
    // holds launches of this module over these buffers.
    graph.reset();
    Driver& d = m_ctx.driver();
    for (CUdeviceptr p : m_mapCopies) {
        if (p) {
            d.cuMemFree(p);
        }
    }
    for (CUdeviceptr p : m_buffers) {
        if (p) {
            d.cuMemFree(p);
        }
    }
    if (m_module) {
        d.cuModuleUnload(m_module);
    }
}

void LoadedVariant::load(RequestProgress& progress) {
    const LaunchVariant& s = m_spec;
    Driver& d = m_ctx.driver();
    const std::string& label = s.label;
    result.label = label;
    if (s.cubin.empty()) {
        throw RequestFailure(RunError{RunErrorKind::BadRequest, "no module image (cubin) given", "", 0,
                                      "module_load", label, false},
                             0);
    }
    // Module load (wall time): the driver parses the image; a PTX image would be JIT-compiled here.
    std::vector<uint8_t> image = s.cubin;
    if (image.back() != 0) {
        image.push_back(0); // PTX text must be NUL-terminated; harmless for ELF images
    }
    char log[8192] = {};
    int opts[] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log) - 1))};
    auto t0 = Clock::now();
    CUresult r = d.cuModuleLoadDataEx(&m_module, image.data(), 2, opts, vals);
    result.moduleLoadMs = msSince(t0);
    if (r != CUDA_SUCCESS) {
        if (isKernelFault(r)) {
            m_ctx.check(r, "cuModuleLoadDataEx", "module_load", label);
        }
        RunError e{RunErrorKind::ModuleLoad,
                   "cannot load the module: " + errorString(d, r) + (log[0] ? std::string(": ") + log : ""),
                   errorName(d, r),
                   r,
                   "module_load",
                   label,
                   false};
        throw RequestFailure(e, 0);
    }
    // Kernel lookup: the exact symbol first, then a plain name against the module's functions.
    r = d.cuModuleGetFunction(&m_fn, m_module, s.kernel.c_str());
    result.kernel = s.kernel;
    if (r == CUDA_ERROR_NOT_FOUND && d.cuModuleGetFunctionCount && d.cuModuleEnumerateFunctions &&
        d.cuFuncGetName) {
        unsigned n = 0;
        m_ctx.check(d.cuModuleGetFunctionCount(&n, m_module), "cuModuleGetFunctionCount", "module_load",
                    label);
        std::vector<CUfunction> fns(n);
        if (n) {
            m_ctx.check(d.cuModuleEnumerateFunctions(fns.data(), n, m_module), "cuModuleEnumerateFunctions",
                        "module_load", label);
        }
        std::string want = s.kernel.substr(0, s.kernel.find('('));
        std::vector<std::pair<CUfunction, std::string>> matches;
        std::string available;
        for (CUfunction f : fns) {
            const char* name = nullptr;
            if (d.cuFuncGetName(&name, f) != CUDA_SUCCESS || !name) {
                continue;
            }
            std::string nm = name;
            available += (available.empty() ? "" : ", ") + nm;
            if (nm == want || mangledBase(nm) == want) {
                matches.emplace_back(f, nm);
            }
        }
        if (matches.size() == 1) {
            m_fn = matches[0].first;
            result.kernel = matches[0].second;
            r = CUDA_SUCCESS;
        } else if (matches.size() > 1) {
            std::string names;
            for (const auto& m : matches) {
                names += (names.empty() ? "" : ", ") + m.second;
            }
            throw RequestFailure(
                RunError{RunErrorKind::KernelNotFound,
                         "kernel name '" + s.kernel + "' is ambiguous: " + names + " (give the mangled name)",
                         "", 0, "module_load", label, false},
                0);
        } else {
            throw RequestFailure(
                RunError{RunErrorKind::KernelNotFound,
                         "no kernel '" + s.kernel + "' in the module (it has: " + available + ")", "", 0,
                         "module_load", label, false},
                0);
        }
    }
    if (r == CUDA_ERROR_NOT_FOUND) {
        throw RequestFailure(RunError{RunErrorKind::KernelNotFound,
                                      "no kernel '" + s.kernel + "' in the module", errorName(d, r), r,
                                      "module_load", label, false},
                             0);
    }
    m_ctx.check(r, "cuModuleGetFunction", "module_load", label);

    auto fattr = [&](int a) {
        int x = 0;
        m_ctx.check(d.cuFuncGetAttribute(&x, a, m_fn), "cuFuncGetAttribute", "module_load", label);
        return x;
    };
    result.resources.registers = fattr(FUNC_NUM_REGS);
    result.resources.staticSharedBytes = fattr(FUNC_SHARED_SIZE_BYTES);
    result.resources.localBytes = fattr(FUNC_LOCAL_SIZE_BYTES);
    result.resources.constBytes = fattr(FUNC_CONST_SIZE_BYTES);
    result.resources.maxThreadsPerBlock = fattr(FUNC_MAX_THREADS_PER_BLOCK);
    const uint32_t threads = s.block[0] * s.block[1] * s.block[2];
    if (static_cast<int>(threads) > result.resources.maxThreadsPerBlock) {
        throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                      "block of " + std::to_string(threads) +
                                          " threads exceeds this kernel's limit of " +
                                          std::to_string(result.resources.maxThreadsPerBlock) +
                                          " (registers: " + std::to_string(result.resources.registers) + ")",
                                      "", 0, "setup", label, false},
                             0);
    }
    // Dynamic shared memory above the default 48 KiB needs the kernel's opt-in, up to what the
    // device gives one block (static shared memory included).
    const int64_t optin = m_ctx.device().maxSharedPerBlockOptin;
    const int64_t sharedTotal = int64_t(s.sharedBytes) + result.resources.staticSharedBytes;
    if (s.sharedBytes > 48 * 1024 && optin > 0 && sharedTotal > optin) {
        throw RequestFailure(
            RunError{RunErrorKind::LaunchError,
                     "dynamic shared memory of " + std::to_string(s.sharedBytes) + " bytes (+ " +
                         std::to_string(result.resources.staticSharedBytes) + " static) exceeds this device's " +
                         std::to_string(optin) + " bytes per block (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)",
                     "", 0, "setup", label, false},
            0);
    }
    if (s.sharedBytes > 48 * 1024) {
        const int dynamicMax = static_cast<int>(s.sharedBytes);
        m_ctx.check(d.cuFuncSetAttribute(m_fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamicMax),
                    "cuFuncSetAttribute(max dynamic shared)", "setup", label);
    }
    const bool hasCluster = s.cluster[0] && s.cluster[1] && s.cluster[2];
    if (hasCluster) {
        if (!d.cuLaunchKernelEx) {
            throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                          "a cluster launch needs cuLaunchKernelEx (CUDA 12 driver or newer)", "", 0,
                                          "setup", label, false},
                                 0);
        }
        if (m_ctx.device().ccMajor > 0 && m_ctx.device().ccMajor < 9) {
            throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                          "thread block clusters need compute capability 9.0 or newer (this device is " +
                                              std::to_string(m_ctx.device().ccMajor) + "." +
                                              std::to_string(m_ctx.device().ccMinor) + ")",
                                          "", 0, "setup", label, false},
                                 0);
        }
        if (uint64_t(s.cluster[0]) * s.cluster[1] * s.cluster[2] > 8) {
            m_ctx.check(d.cuFuncSetAttribute(m_fn, FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                        "cuFuncSetAttribute(non-portable cluster size)", "setup", label);
        }
        m_clusterAttr = CUlaunchAttribute{};
        m_clusterAttr.id = LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        m_clusterAttr.value.clusterDim.x = s.cluster[0];
        m_clusterAttr.value.clusterDim.y = s.cluster[1];
        m_clusterAttr.value.clusterDim.z = s.cluster[2];
    }
    int blocks = 0;
    m_ctx.check(d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, m_fn, static_cast<int>(threads),
                                                              s.sharedBytes),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor", "setup", label);
    int warpsPerBlock = static_cast<int>((threads + 31) / 32);
    result.occupancy.activeBlocksPerSm = blocks;
    result.occupancy.activeWarpsPerSm = blocks * warpsPerBlock;
    result.occupancy.maxWarpsPerSm = m_ctx.device().maxThreadsPerSm / 32;
    result.occupancy.fraction =
        result.occupancy.maxWarpsPerSm
            ? static_cast<double>(result.occupancy.activeWarpsPerSm) / result.occupancy.maxWarpsPerSm
            : 0;
    double totalBlocks = double(s.grid[0]) * s.grid[1] * s.grid[2];
    result.occupancy.waves = blocks > 0 ? totalBlocks / (double(blocks) * m_ctx.device().smCount) : 0;
    if (blocks == 0) {
        throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                      "no block of this configuration fits on an SM (registers " +
                                          std::to_string(result.resources.registers) + "/thread, shared " +
                                          std::to_string(result.resources.staticSharedBytes + s.sharedBytes) +
                                          " bytes)",
                                      "", 0, "setup", label, false},
                             0);
    }

    // Buffers: allocate, fill with the declared data (kept on the host to restore later).
    m_buffers.assign(s.buffers.size(), 0);
    m_initData.resize(s.buffers.size());
    for (size_t i = 0; i < s.buffers.size(); ++i) {
        const BufferSpec& b = s.buffers[i];
        size_t bytes = static_cast<size_t>(b.count) * elemSize(b.type);
        progress.report("allocate", label, 0, 0, false);
        m_ctx.check(d.cuMemAlloc(&m_buffers[i], bytes), "cuMemAlloc", "allocate " + b.name, label);
        m_initData[i] = makeBufferData(b.type, b.count, b.init);
        m_ctx.check(d.cuMemcpyHtoD(m_buffers[i], m_initData[i].data(), bytes), "cuMemcpyHtoD",
                    "initialise " + b.name, label);
    }
    if (!m_buffers.empty()) {
        // Landed before anything launches on the runner's non-blocking stream (see restoreInputs).
        m_ctx.check(d.cuCtxSynchronize(), "cuCtxSynchronize", "initialise", label);
    }
    // Restored before each profiled pass, sample launch and poison launch: from device copies.
    m_copies.keep(restorable(), "initialise", label);
    // Parameter buffer: scalars copied in, device addresses written at buffer slots; the driver
    // gets one pointer per parameter into this buffer.
    m_paramBuf.assign(static_cast<size_t>(std::max(s.paramBytes, 8)), 0);
    m_paramPtrs.clear();
    for (const ParamSlot& p : s.params) {
        if (p.buffer >= 0) {
            CUdeviceptr addr = m_buffers[static_cast<size_t>(p.buffer)];
            std::memcpy(m_paramBuf.data() + p.offset, &addr, 8);
        } else if (p.tensorMap < 0) {
            std::memcpy(m_paramBuf.data() + p.offset, p.scalar.data(), p.scalar.size());
        }
        m_paramPtrs.push_back(m_paramBuf.data() + p.offset);
    }
    // A replay's parameters hold the captured program's device addresses: those into regions the
    // driver would not give back at their address move with them.
    if (m_memory && !m_memory->relocated().empty()) {
        int moved = 0;
        for (const ParamSlot& p : s.params)
            if (p.buffer < 0 && p.tensorMap < 0 && p.offset >= 0 && size_t(p.offset) + size_t(p.size) <= m_paramBuf.size())
                moved += m_memory->relocateParameter(m_paramBuf.data() + p.offset, size_t(p.size));
        std::fprintf(stderr, "lowerscope-runner: replay: %d parameter words of %s relocated\n", moved,
                     label.empty() ? "the launch" : label.c_str());
    }
    // Tensor maps: a device copy for each one passed by pointer, then every map encoded over the
    // buffers just allocated.
    m_mapCopies.assign(s.tensorMaps.size(), 0);
    for (const ParamSlot& p : s.params) {
        if (p.tensorMap >= 0 && p.size == 8 && !m_mapCopies[static_cast<size_t>(p.tensorMap)]) {
            m_ctx.check(d.cuMemAlloc(&m_mapCopies[static_cast<size_t>(p.tensorMap)], sizeof(CUtensorMap)),
                        "cuMemAlloc", "allocate tensor map " + p.name, label);
        }
    }
    encodeTensorMaps(m_buffers);
}

void LoadedVariant::encodeTensorMaps(const std::vector<CUdeviceptr>& buffers) {
    const LaunchVariant& s = m_spec;
    if (s.tensorMaps.empty()) {
        return;
    }
    Driver& d = m_ctx.driver();
    const std::string& label = s.label;
    if (!d.cuTensorMapEncodeTiled) {
        throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                      "tensor map arguments need cuTensorMapEncodeTiled (CUDA 12 driver or newer)",
                                      "", 0, "setup", label, false},
                             0);
    }
    std::vector<CUtensorMap> maps(s.tensorMaps.size());
    for (size_t i = 0; i < s.tensorMaps.size(); ++i) {
        const TensorMapSpec& m = s.tensorMaps[i];
        const BufferSpec& b = s.buffers.at(static_cast<size_t>(m.buffer));
        std::vector<unsigned long long> dims(m.dims.begin(), m.dims.end());
        std::vector<unsigned long long> strides(m.strides.begin(), m.strides.end());
        std::vector<unsigned> box(m.box.begin(), m.box.end()), elementStrides(m.elementStrides.begin(),
                                                                              m.elementStrides.end());
        void* address = reinterpret_cast<void*>(static_cast<uintptr_t>(buffers.at(static_cast<size_t>(m.buffer))));
        CUresult r = d.cuTensorMapEncodeTiled(&maps[i], static_cast<int>(m.type), static_cast<unsigned>(m.rank),
                                              address, dims.data(), strides.empty() ? nullptr : strides.data(),
                                              box.data(), elementStrides.data(), static_cast<int>(m.interleave),
                                              static_cast<int>(m.swizzle), static_cast<int>(m.l2Promotion),
                                              static_cast<int>(m.oobFill));
        if (r != CUDA_SUCCESS) {
            throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                          "cuTensorMapEncodeTiled refused " + tensorMapToString(m, b.name) + ": " +
                                              errorString(d, r),
                                          errorName(d, r), r, "setup", label, false},
                                 0);
        }
    }
    for (const ParamSlot& p : s.params) {
        if (p.tensorMap < 0) {
            continue;
        }
        const CUtensorMap& map = maps.at(static_cast<size_t>(p.tensorMap));
        if (p.size == static_cast<int>(sizeof(CUtensorMap))) {
            std::memcpy(m_paramBuf.data() + p.offset, &map, sizeof(CUtensorMap));
        } else {
            const CUdeviceptr copy = m_mapCopies.at(static_cast<size_t>(p.tensorMap));
            m_ctx.check(d.cuMemcpyHtoD(copy, &map, sizeof(CUtensorMap)), "cuMemcpyHtoD", "tensor map " + p.name,
                        label);
            std::memcpy(m_paramBuf.data() + p.offset, &copy, 8);
        }
    }
}

CUresult LoadedVariant::launchAsync(CUstream stream) {
    const LaunchVariant& s = m_spec;
    Driver& d = m_ctx.driver();
    if (s.cluster[0] && s.cluster[1] && s.cluster[2]) {
        CUlaunchConfig c;
        c.gridDimX = s.grid[0];
        c.gridDimY = s.grid[1];
        c.gridDimZ = s.grid[2];
        c.blockDimX = s.block[0];
        c.blockDimY = s.block[1];
        c.blockDimZ = s.block[2];
        c.sharedMemBytes = s.sharedBytes;
        c.hStream = stream;
        c.attrs = &m_clusterAttr;
        c.numAttrs = 1;
        return d.cuLaunchKernelEx(&c, m_fn, m_paramPtrs.data(), nullptr);
    }
    return d.cuLaunchKernel(m_fn, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], s.sharedBytes,
                            stream, m_paramPtrs.data(), nullptr);
}

void LoadedVariant::launch(CUstream stream) {
    const bool cluster = m_spec.cluster[0] && m_spec.cluster[1] && m_spec.cluster[2];
    m_ctx.check(launchAsync(stream), cluster ? "cuLaunchKernelEx" : "cuLaunchKernel", "launch", label());
}

std::vector<RestorableBuffer> LoadedVariant::restorable() const {
    std::vector<RestorableBuffer> out;
    for (size_t i = 0; i < m_buffers.size(); ++i) out.push_back({m_buffers[i], &m_initData[i]});
    return out;
}

void LoadedVariant::restoreInputs() {
    m_copies.restore(restorable(), "restore", label());
    if (m_memory) {
        m_memory->restore();
    } else if (!m_buffers.empty()) {
        // The copies are staged, not landed, when cuMemcpyHtoD returns, and the runner's stream
        // does not wait for the legacy stream they use (see RestoredMemory::restore).
        m_ctx.check(m_ctx.driver().cuCtxSynchronize(), "cuCtxSynchronize", "restore", label());
    }
}

void LoadedVariant::firstLaunchAndOutputs(bool returnOutputs, RequestProgress& progress) {
    const LaunchVariant& s = m_spec;
    Driver& d = m_ctx.driver();
    const CUstream stream = m_ctx.stream();
    const std::string& label = s.label;
    progress.report("first_launch", label, 0, 0, true);
    m_ctx.check(d.cuStreamSynchronize(stream), "cuStreamSynchronize", "first_launch", label);
    if (m_memory) {
        m_memory->restore(); // the previous variant's first launch changed it
    }
    auto t0 = Clock::now();
    m_ctx.check(d.cuEventRecord(m_ctx.event(0), stream), "cuEventRecord", "first_launch", label);
    launch(stream);
    m_ctx.check(d.cuEventRecord(m_ctx.event(1), stream), "cuEventRecord", "first_launch", label);
    m_ctx.waitEvent(m_ctx.event(1), "first_launch", label);
    result.firstLaunchWallMs = msSince(t0);
    const float ms = m_ctx.elapsedMs(m_ctx.event(0), m_ctx.event(1), "first_launch", label);
    result.firstLaunchMs = ms;
    estimateMs = ms;

    // Outputs of the run on the declared inputs: digests, and the bytes for comparisons.
    m_firstOutputs.assign(s.buffers.size(), {});
    for (size_t i = 0; i < s.buffers.size(); ++i) {
        if (!s.buffers[i].output) {
            continue;
        }
        std::vector<uint8_t> data(m_initData[i].size());
        m_ctx.check(d.cuMemcpyDtoH(data.data(), m_buffers[i], data.size()), "cuMemcpyDtoH", "read_outputs",
                    label);
        OutputReport o;
        o.name = s.buffers[i].name;
        o.type = s.buffers[i].type;
        o.count = s.buffers[i].count;
        o.digest = digestHex(data.data(), data.size());
        m_firstOutputs[i] = std::move(data);
        result.outputs.push_back(o);
    }
    // A replay's memory as the launch left it. No poison launches over it: it is the program's
    // own input and output at once; "fully written" does not apply (reported as written).
    m_regionOutputs.clear();
    for (size_t i = 0; m_memory && i < m_memory->size(); ++i) {
        m_regionOutputs.push_back(m_memory->read(i));
    }
    // Poison check: two launches over outputs filled with two byte patterns; an element still
    // holding the pattern after both was never written.
    std::vector<std::vector<bool>> still(s.buffers.size());
    for (uint8_t pattern : {kPoisonA, kPoisonB}) {
        progress.report("poison_check", label, 0, 0, false);
        restoreInputs();
        for (size_t i = 0; i < s.buffers.size(); ++i) {
            if (s.buffers[i].output) {
                m_ctx.check(d.cuMemsetD8Async(m_buffers[i], pattern, m_initData[i].size(), stream),
                            "cuMemsetD8Async", "poison_check", label);
            }
        }
        launch(stream);
        m_ctx.check(d.cuEventRecord(m_ctx.event(1), stream), "cuEventRecord", "poison_check", label);
        m_ctx.waitEvent(m_ctx.event(1), "poison_check", label);
        for (size_t i = 0; i < s.buffers.size(); ++i) {
            if (!s.buffers[i].output) {
                continue;
            }
            std::vector<uint8_t> data(m_initData[i].size());
            m_ctx.check(d.cuMemcpyDtoH(data.data(), m_buffers[i], data.size()), "cuMemcpyDtoH",
                        "poison_check", label);
            countPoisoned(data, elemSize(s.buffers[i].type), pattern, &still[i]);
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < s.buffers.size(); ++i) {
        if (!s.buffers[i].output) {
            continue;
        }
        int64_t unwritten = std::count(still[i].begin(), still[i].end(), true);
        result.outputs[k].unwrittenCount = unwritten;
        result.outputs[k].fullyWritten = unwritten == 0;
        if (returnOutputs) {
            result.outputs[k].data = m_firstOutputs[i];
        }
        ++k;
    }
    for (size_t i = 0; i < m_regionOutputs.size(); ++i) {
        const MemoryRegion& r = m_memory->region(i);
        OutputReport o;
        o.name = regionOutputName(r.address);
        o.type = r.type;
        o.count = static_cast<int64_t>(r.data.size() / static_cast<size_t>(elemSize(r.type)));
        o.digest = digestHex(m_regionOutputs[i].data(), m_regionOutputs[i].size());
        o.fullyWritten = true;
        if (returnOutputs) {
            o.data = m_regionOutputs[i];
        }
        result.outputs.push_back(std::move(o));
    }
    restoreInputs();
}

bool LoadedVariant::sameBuffersAs(const LoadedVariant& other) const {
    const auto& mine = m_spec.buffers;
    const auto& theirs = other.m_spec.buffers;
    if (mine.size() != theirs.size()) {
        return false;
    }
    for (size_t i = 0; i < mine.size(); ++i) {
        if (mine[i].type != theirs[i].type || mine[i].count != theirs[i].count ||
            !(mine[i].init == theirs[i].init) || mine[i].output != theirs[i].output) {
            return false;
        }
    }
    return true;
}

void LoadedVariant::useBuffersOf(const LoadedVariant& other) {
    for (const ParamSlot& p : m_spec.params) {
        if (p.buffer >= 0) {
            CUdeviceptr addr = other.m_buffers[static_cast<size_t>(p.buffer)];
            std::memcpy(m_paramBuf.data() + p.offset, &addr, 8);
        }
    }
    // Tensor maps hold their buffer's address: encode them again over the shared buffers.
    encodeTensorMaps(other.m_buffers);
}

std::vector<OutputBytes> LoadedVariant::outputs() const {
    std::vector<OutputBytes> out;
    for (size_t i = 0; i < m_spec.buffers.size() && i < m_firstOutputs.size(); ++i) {
        if (m_spec.buffers[i].output) {
            out.push_back(OutputBytes{m_spec.buffers[i].name, m_spec.buffers[i].type, &m_firstOutputs[i]});
        }
    }
    for (size_t i = 0; i < m_regionOutputs.size(); ++i) {
        const MemoryRegion& r = m_memory->region(i);
        out.push_back(OutputBytes{regionOutputName(r.address), r.type, &m_regionOutputs[i]});
    }
    return out;
}

bool shareBuffers(const std::vector<LoadedVariant*>& vars) {
    if (vars.size() < 2) {
        return false;
    }
    for (size_t k = 1; k < vars.size(); ++k) {
        if (!vars[k]->sameBuffersAs(*vars[0])) {
            return false;
        }
    }
    // Two allocations of the same size can still differ in speed (placement across memory
    // channels, TLB reach): timing every variant on the same buffers takes that out of the ratio.
    // Variant 0's buffers hold the declared inputs again (restored after its poison check).
    for (size_t k = 1; k < vars.size(); ++k) {
        vars[k]->useBuffersOf(*vars[0]);
    }
    return true;
}

} // namespace lowerscope::runner
