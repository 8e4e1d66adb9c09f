// The measurement procedure (../shared/design/TIMING.md) on the CUDA driver API.
#include "app/runner/gpu_session.h"

#include "core/run/buffer_data.h"
#include "core/run/output_agreement.h"
#include "core/run/stats.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstring>
#include <sched.h>
#include <thread>

namespace lowerscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Helper kernels as PTX, JIT-compiled by the driver for whatever device is present.
//  ls_spin:  the gate. Spins on a host-mapped flag so that everything queued behind it is
//            submitted before the GPU reaches it; gives up after `timeout` ns of %globaltimer
//            and records that in a status word (the sample then may include host latency).
//  ls_clock: SM clock probe. Aligns to a %globaltimer tick, reads clock64, waits until `dur` ns
//            have passed (again ending on a tick) and reads clock64 again: cycles / ns = GHz.
//  ls_empty: an empty kernel, for graph overhead.
//  ls_flush: the L2 flush. Reads (ld.global.cg) a zeroed buffer of 2× L2 and stores nothing
//            (the store hides behind a condition the data never meets, so nothing is elided).
//            A read pass, not a memset: a memset leaves L2 full of dirty lines whose write-back
//            would be charged to the timed kernel (seen on an H200: +12 % on a 57 µs saxpy, +35 %
//            on a 29 µs reduction against ncu); after reading, L2 holds clean lines only, and
//            the previous sample's dirty outputs have been written back before the timing starts.
const char* kHelperPtxBody = R"(
.address_size 64

.visible .entry ls_spin(.param .u64 p_flag, .param .u64 p_status, .param .u64 p_timeout)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_flag];
    ld.param.u64 %rd2, [p_status];
    ld.param.u64 %rd3, [p_timeout];
    mov.u64 %rd4, %globaltimer;
$L_loop:
    ld.volatile.u32 %r1, [%rd1];
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_done;
    mov.u64 %rd5, %globaltimer;
    sub.u64 %rd6, %rd5, %rd4;
    setp.lt.u64 %p2, %rd6, %rd3;
    @%p2 bra $L_loop;
    mov.u32 %r2, 1;
    st.volatile.u32 [%rd2], %r2;
$L_done:
    ret;
}

.visible .entry ls_clock(.param .u64 p_out, .param .u64 p_dur)
{
    .reg .pred %p<3>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [p_out];
    ld.param.u64 %rd2, [p_dur];
    mov.u64 %rd3, %globaltimer;
$L_edge:
    mov.u64 %rd4, %globaltimer;
    setp.eq.u64 %p1, %rd4, %rd3;
    @%p1 bra $L_edge;
    mov.u64 %rd5, %clock64;
$L_wait:
    mov.u64 %rd6, %globaltimer;
    sub.u64 %rd7, %rd6, %rd4;
    setp.lt.u64 %p2, %rd7, %rd2;
    @%p2 bra $L_wait;
    mov.u64 %rd8, %clock64;
    sub.u64 %rd9, %rd8, %rd5;
    st.volatile.u64 [%rd1], %rd7;
    st.volatile.u64 [%rd1+8], %rd9;
    ret;
}

.visible .entry ls_empty()
{
    ret;
}

.visible .entry ls_flush(.param .u64 p_buf, .param .u64 p_n16, .param .u64 p_sink)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [p_buf];
    ld.param.u64 %rd2, [p_n16];
    ld.param.u64 %rd3, [p_sink];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    cvt.u64.u32 %rd4, %r1;
    cvt.u64.u32 %rd5, %r2;
    cvt.u64.u32 %rd6, %r3;
    cvt.u64.u32 %rd7, %r4;
    mad.lo.u64 %rd8, %rd4, %rd5, %rd6;
    mul.lo.u64 %rd9, %rd7, %rd5;
    mov.u32 %r5, 0;
    setp.ge.u64 %p1, %rd8, %rd2;
    @%p1 bra $L_done;
$L_loop:
    shl.b64 %rd10, %rd8, 4;
    add.u64 %rd10, %rd1, %rd10;
    ld.global.cg.v4.u32 {%r6, %r7, %r8, %r9}, [%rd10];
    xor.b32 %r5, %r5, %r6;
    xor.b32 %r5, %r5, %r7;
    xor.b32 %r5, %r5, %r8;
    xor.b32 %r5, %r5, %r9;
    add.u64 %rd8, %rd8, %rd9;
    setp.lt.u64 %p2, %rd8, %rd2;
    @%p2 bra $L_loop;
$L_done:
    setp.ne.u32 %p1, %r5, 2143354862;
    @%p1 bra $L_end;
    st.global.u32 [%rd3], %r5;
$L_end:
    ret;
}
)";

constexpr int kMaxBatch = 2;            // launches held behind one gate ("a couple")
constexpr int kClockSlots = 16;
constexpr uint64_t kGateTimeoutNs = 200'000'000;  // 200 ms: the host is very late or blocked
constexpr double kThrottleRatio = 0.75;
constexpr double kHotThresholdMs = 0.020;         // auto mode: below 20 µs → hot
constexpr double kReplayTargetMs = 1.0;           // hot mode: a replay lasts ≥ 1 ms
constexpr int kMaxGraphLaunches = 20000;

// Itanium-mangled base name: "_Z5saxpyifPKfPf" → "saxpy"; "" when not of that simple form.
std::string mangledBase(const std::string& m) {
    if (m.rfind("_Z", 0) != 0) {
        return "";
    }
    size_t i = 2;
    if (i < m.size() && m[i] == 'L') {
        ++i;  // internal linkage
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

struct GpuSession::Variant {
    const LaunchVariant* spec = nullptr;
    Driver* d = nullptr;
    CUmodule module = nullptr;
    CUfunction fn = nullptr;
    std::vector<CUdeviceptr> buffers;
    std::vector<std::vector<uint8_t>> initData;
    std::vector<uint8_t> paramBuf;
    std::vector<void*> paramPtrs;
    CUgraph graph = nullptr;
    CUgraphExec graphExec = nullptr;
    int launchesPerGraph = 1;
    double captureMs = 0, instantiateMs = 0, uploadMs = 0;
    VariantResult result;
    std::unique_ptr<StopRule> rule;
    std::vector<std::vector<uint8_t>> firstOutputs;  // per buffer index (outputs only), after the first launch
    double estimateMs = 0;

    ~Variant() {
        // Best effort: after a fault the process exits without getting here.
        if (!d) {
            return;
        }
        if (graphExec) {
            d->cuGraphExecDestroy(graphExec);
        }
        if (graph) {
            d->cuGraphDestroy(graph);
        }
        for (CUdeviceptr p : buffers) {
            if (p) {
                d->cuMemFree(p);
            }
        }
        if (module) {
            d->cuModuleUnload(module);
        }
    }
    const std::string& label() const { return spec->label; }
};

GpuSession::~GpuSession() = default;  // the process exits right after; the driver cleans up

void GpuSession::check(CUresult r, const char* call, const std::string& stage, const std::string& variant) {
    if (r == CUDA_SUCCESS) {
        return;
    }
    RunError e;
    e.cudaError = errorName(m_d, r);
    e.cudaCode = r;
    e.stage = stage;
    e.variant = variant;
    int code = 0;
    if (isKernelFault(r)) {
        e.kind = RunErrorKind::KernelFault;
        e.message = std::string("the kernel faulted: ") + errorString(m_d, r) + " (reported by " + call +
                    " during " + stage + "); the CUDA context is unusable, the runner exits";
        e.fatal = true;
        code = kExitKernelFault;
    } else if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        e.kind = RunErrorKind::OutOfMemory;
        e.message = std::string(call) + ": out of device memory during " + stage;
    } else if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || std::string(call) == "cuLaunchKernel") {
        e.kind = RunErrorKind::LaunchError;
        e.message = std::string(call) + " failed: " + errorString(m_d, r) + " (" + e.cudaError + ")";
    } else {
        e.kind = RunErrorKind::CudaError;
        e.message = std::string(call) + " failed during " + stage + ": " + errorString(m_d, r) + " (" + e.cudaError + ")";
    }
    throw RequestFailure(e, code);
}

void GpuSession::waitEvent(CUevent ev, const std::string& stage, const std::string& variant) {
    const auto start = Clock::now();
    int spins = 0;
    for (;;) {
        CUresult r = m_d.cuEventQuery(ev);
        if (r == CUDA_SUCCESS) {
            return;
        }
        if (r != CUDA_ERROR_NOT_READY) {
            check(r, "cuEventQuery", stage, variant);
        }
        double waited = msSince(start) / 1000.0;
        if (waited > m_kernelTimeoutS) {
            RunError e;
            e.kind = RunErrorKind::KernelTimeout;
            e.stage = stage;
            e.variant = variant;
            e.fatal = true;
            e.message = "the kernel did not finish within " + std::to_string(m_kernelTimeoutS) +
                        " s (runner watchdog); the runner exits to stop it";
            throw RequestFailure(e, kExitKernelTimeout);
        }
        // Poll eagerly for the first ~2 ms (short kernels), then sleep a little: the timing comes
        // from events, so the host's wake-up latency never enters a sample.
        if (++spins < 2000) {
            sched_yield();
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    }
}

void GpuSession::progress(const std::string& stage, const std::string& variant, size_t samples, double noise,
                          bool force) {
    auto now = Clock::now();
    if (!force && now - m_lastProgress < std::chrono::milliseconds(250)) {
        return;
    }
    m_lastProgress = now;
    if (m_progress && *m_progress) {
        RunProgress p;
        p.id = m_requestId;
        p.stage = stage;
        p.variant = variant;
        p.samples = samples;
        p.noise = noise;
        p.elapsedS = std::chrono::duration<double>(now - m_requestStart).count();
        (*m_progress)(p);
    }
}

int GpuSession::open(RunError& error) {
    DriverLoad load = loadDriver(m_d);
    if (!load.ok) {
        error.kind = RunErrorKind::NoDriver;
        error.message = "no CUDA driver found (" + load.error + ")";
        error.fatal = true;
        return kExitNoDriver;
    }
    CUresult r = m_d.cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        error.kind = RunErrorKind::NoDevice;
        error.message = "no CUDA device: the driver is installed but sees no GPU (cuInit: " + errorName(m_d, r) + ")";
        error.cudaError = errorName(m_d, r);
        error.cudaCode = r;
        error.fatal = true;
        return kExitNoDevice;
    }
    if (r != CUDA_SUCCESS) {
        error.kind = RunErrorKind::DriverError;
        error.message = "the CUDA driver failed to initialise: " + errorString(m_d, r) + " (" + errorName(m_d, r) + ")";
        error.cudaError = errorName(m_d, r);
        error.cudaCode = r;
        error.fatal = true;
        return kExitNoDevice;
    }
    int count = 0;
    if (m_d.cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1) {
        error.kind = RunErrorKind::NoDevice;
        error.message = "no CUDA device: the driver reports none";
        error.fatal = true;
        return kExitNoDevice;
    }
    try {
        check(m_d.cuDeviceGet(&m_dev, 0), "cuDeviceGet", "init");
        char name[256] = {};
        check(m_d.cuDeviceGetName(name, sizeof(name) - 1, m_dev), "cuDeviceGetName", "init");
        auto attr = [&](int a) {
            int v = 0;
            check(m_d.cuDeviceGetAttribute(&v, a, m_dev), "cuDeviceGetAttribute", "init");
            return v;
        };
        m_device.name = name;
        m_device.ccMajor = attr(ATTR_COMPUTE_CAPABILITY_MAJOR);
        m_device.ccMinor = attr(ATTR_COMPUTE_CAPABILITY_MINOR);
        m_device.smCount = attr(ATTR_MULTIPROCESSOR_COUNT);
        m_device.clockMhz = attr(ATTR_CLOCK_RATE) / 1000.0;
        m_device.memClockMhz = attr(ATTR_MEMORY_CLOCK_RATE) / 1000.0;
        m_device.busWidthBits = attr(ATTR_GLOBAL_MEMORY_BUS_WIDTH);
        m_device.l2Bytes = attr(ATTR_L2_CACHE_SIZE);
        m_device.maxThreadsPerSm = attr(ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
        m_device.maxSharedPerBlockOptin = attr(ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
        size_t total = 0;
        check(m_d.cuDeviceTotalMem(&total, m_dev), "cuDeviceTotalMem", "init");
        m_device.totalMemBytes = static_cast<int64_t>(total);
        int drv = 0;
        m_d.cuDriverGetVersion(&drv);
        m_device.driverVersion = drv;
        // Double data rate: bytes/s = clock × 2 × bus width / 8.
        m_device.peakBandwidthGBs = m_device.memClockMhz * 1e6 * 2.0 * m_device.busWidthBits / 8.0 / 1e9;
        // FP32 lanes per SM: 64 on sm_60/sm_70/sm_80 (GP100/GV100/GA100), 128 elsewhere since Maxwell.
        int lanes = 128;
        int cc = m_device.ccMajor * 10 + m_device.ccMinor;
        if (cc == 60 || cc == 70 || cc == 72 || cc == 80) {
            lanes = 64;
        }
        m_device.fp32PeakGflops = m_device.smCount * lanes * 2.0 * m_device.clockMhz / 1000.0;

        check(m_d.cuDevicePrimaryCtxRetain(&m_ctx, m_dev), "cuDevicePrimaryCtxRetain", "init");
        check(m_d.cuCtxSetCurrent(m_ctx), "cuCtxSetCurrent", "init");
        check(m_d.cuStreamCreate(&m_stream, STREAM_NON_BLOCKING), "cuStreamCreate", "init");
        loadHelpers();
        void* host = nullptr;
        check(m_d.cuMemHostAlloc(&host, 4096, MEMHOSTALLOC_PORTABLE | MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc",
              "init");
        std::memset(host, 0, 4096);
        m_gate = static_cast<volatile uint32_t*>(host);
        check(m_d.cuMemHostGetDevicePointer(&m_gateDev, host, 0), "cuMemHostGetDevicePointer", "init");
        host = nullptr;
        check(m_d.cuMemHostAlloc(&host, kClockSlots * 16, MEMHOSTALLOC_PORTABLE | MEMHOSTALLOC_DEVICEMAP),
              "cuMemHostAlloc", "init");
        std::memset(host, 0, kClockSlots * 16);
        m_clockSlots = static_cast<volatile uint64_t*>(host);
        check(m_d.cuMemHostGetDevicePointer(&m_clockSlotsDev, host, 0), "cuMemHostGetDevicePointer", "init");
        // L2 flush buffer: ≥ 2× L2 (TIMING.md), written by a memset before each cold sample.
        m_flushBytes = std::max<size_t>(static_cast<size_t>(m_device.l2Bytes) * 2, 8u << 20);
        m_flushBytes = (m_flushBytes + 4095) / 4096 * 4096;
        check(m_d.cuMemAlloc(&m_flush, m_flushBytes), "cuMemAlloc", "init");
        check(m_d.cuMemsetD32Async(m_flush, 0, m_flushBytes / 4, m_stream), "cuMemsetD32Async", "init");
        check(m_d.cuStreamSynchronize(m_stream), "cuStreamSynchronize", "init");
        m_events.resize(2 * kMaxBatch + 2);
        for (auto& ev : m_events) {
            check(m_d.cuEventCreate(&ev, 0), "cuEventCreate", "init");
        }
    } catch (const RequestFailure& f) {
        error = f.error;
        error.fatal = true;
        if (error.kind == RunErrorKind::CudaError) {
            error.kind = RunErrorKind::DriverError;
        }
        return kExitNoDevice;
    }
    m_open = true;
    return 0;
}

void GpuSession::loadHelpers() {
    int cc = m_device.ccMajor * 10 + m_device.ccMinor;
    std::string target = cc >= 75 ? "sm_75" : "sm_" + std::to_string(cc);
    std::string ptx = ".version 7.0\n.target " + target + "\n" + kHelperPtxBody;
    char log[4096] = {};
    int opts[] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log) - 1))};
    CUresult r = m_d.cuModuleLoadDataEx(&m_helpers, ptx.c_str(), 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        RunError e;
        e.kind = RunErrorKind::DriverError;
        e.cudaError = errorName(m_d, r);
        e.cudaCode = r;
        e.stage = "init";
        e.message = "cannot JIT the runner's helper kernels: " + errorString(m_d, r) + " " + log;
        throw RequestFailure(e, kExitCudaError);
    }
    check(m_d.cuModuleGetFunction(&m_spin, m_helpers, "ls_spin"), "cuModuleGetFunction", "init");
    check(m_d.cuModuleGetFunction(&m_clock, m_helpers, "ls_clock"), "cuModuleGetFunction", "init");
    check(m_d.cuModuleGetFunction(&m_empty, m_helpers, "ls_empty"), "cuModuleGetFunction", "init");
    check(m_d.cuModuleGetFunction(&m_flushFn, m_helpers, "ls_flush"), "cuModuleGetFunction", "init");
}

void GpuSession::flushL2(const std::string& stage, const std::string& variant) {
    CUdeviceptr buf = m_flush;
    uint64_t n16 = m_flushBytes / 16;
    CUdeviceptr sink = m_flush;  // never written: the data is all zero
    void* args[] = {&buf, &n16, &sink};
    const unsigned blocks = static_cast<unsigned>(std::max(1, m_device.smCount) * 4);
    check(m_d.cuLaunchKernel(m_flushFn, blocks, 1, 1, 512, 1, 1, 0, m_stream, args, nullptr),
          "cuLaunchKernel(flush)", stage, variant);
}

void GpuSession::armGate(const std::string& stage) {
    m_gate[0] = 0;
    m_gate[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    CUdeviceptr flag = m_gateDev, status = m_gateDev + 4;
    uint64_t timeout = kGateTimeoutNs;
    void* args[] = {&flag, &status, &timeout};
    check(m_d.cuLaunchKernel(m_spin, 1, 1, 1, 1, 1, 1, 0, m_stream, args, nullptr), "cuLaunchKernel(spin)", stage);
}

void GpuSession::releaseGate() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    m_gate[0] = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

void GpuSession::launch(Variant& v, CUstream stream) {
    const LaunchVariant& s = *v.spec;
    check(m_d.cuLaunchKernel(v.fn, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
                             s.sharedBytes, stream, v.paramPtrs.data(), nullptr),
          "cuLaunchKernel", "launch", v.label());
}

void GpuSession::measureCopyBandwidth() {
    if (m_device.copyBandwidthGBs > 0 || !m_open) {
        return;
    }
    size_t freeBytes = 0, totalBytes = 0;
    check(m_d.cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo", "copy_bandwidth");
    size_t bytes = std::min<size_t>(size_t(512) << 20, freeBytes / 8);
    bytes = bytes / 4096 * 4096;
    if (bytes < (size_t(16) << 20)) {
        return;
    }
    CUdeviceptr a = 0, b = 0;
    check(m_d.cuMemAlloc(&a, bytes), "cuMemAlloc", "copy_bandwidth");
    CUresult rb = m_d.cuMemAlloc(&b, bytes);
    if (rb != CUDA_SUCCESS) {
        m_d.cuMemFree(a);
        check(rb, "cuMemAlloc", "copy_bandwidth");
    }
    check(m_d.cuMemsetD32Async(a, 0x3f800000u, bytes / 4, m_stream), "cuMemsetD32Async", "copy_bandwidth");
    std::vector<double> ms;
    for (int i = 0; i < 12; ++i) {
        check(m_d.cuEventRecord(m_events[0], m_stream), "cuEventRecord", "copy_bandwidth");
        check(m_d.cuMemcpyDtoDAsync(b, a, bytes, m_stream), "cuMemcpyDtoDAsync", "copy_bandwidth");
        check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", "copy_bandwidth");
        waitEvent(m_events[1], "copy_bandwidth", "");
        float t = 0;
        check(m_d.cuEventElapsedTime(&t, m_events[0], m_events[1]), "cuEventElapsedTime", "copy_bandwidth");
        if (i >= 2) {
            ms.push_back(t);
        }
    }
    m_d.cuMemFree(a);
    m_d.cuMemFree(b);
    std::sort(ms.begin(), ms.end());
    double med = quantileSorted(ms, 0.5);
    if (med > 0) {
        m_device.copyBandwidthGBs = 2.0 * static_cast<double>(bytes) / (med * 1e-3) / 1e9;
    }
}

double GpuSession::measureEventOverheadUs() {
    if (m_eventOverheadUs >= 0) {
        return m_eventOverheadUs;
    }
    std::vector<double> us;
    for (int i = 0; i < 21; ++i) {
        armGate("event_overhead");
        check(m_d.cuEventRecord(m_events[0], m_stream), "cuEventRecord", "event_overhead");
        check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", "event_overhead");
        releaseGate();
        waitEvent(m_events[1], "event_overhead", "");
        float t = 0;
        check(m_d.cuEventElapsedTime(&t, m_events[0], m_events[1]), "cuEventElapsedTime", "event_overhead");
        us.push_back(t * 1000.0);
    }
    std::sort(us.begin(), us.end());
    m_eventOverheadUs = quantileSorted(us, 0.5);
    return m_eventOverheadUs;
}

void GpuSession::setupVariant(Variant& v, const RunRequest& req) {
    (void)req;
    const LaunchVariant& s = *v.spec;
    const std::string& label = s.label;
    v.d = &m_d;
    v.result.label = label;
    if (s.cubin.empty()) {
        throw RequestFailure(RunError{RunErrorKind::BadRequest, "no module image (cubin) given", "", 0, "module_load", label, false},
                             0);
    }
    // Module load (wall time): the driver parses the image; a PTX image would be JIT-compiled here.
    std::vector<uint8_t> image = s.cubin;
    if (image.back() != 0) {
        image.push_back(0);  // PTX text must be NUL-terminated; harmless for ELF images
    }
    char log[8192] = {};
    int opts[] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log) - 1))};
    auto t0 = Clock::now();
    CUresult r = m_d.cuModuleLoadDataEx(&v.module, image.data(), 2, opts, vals);
    v.result.moduleLoadMs = msSince(t0);
    if (r != CUDA_SUCCESS) {
        if (isKernelFault(r)) {
            check(r, "cuModuleLoadDataEx", "module_load", label);
        }
        RunError e{RunErrorKind::ModuleLoad,
                   "cannot load the module: " + errorString(m_d, r) + (log[0] ? std::string(": ") + log : ""),
                   errorName(m_d, r), r, "module_load", label, false};
        throw RequestFailure(e, 0);
    }
    // Kernel lookup: the exact symbol first, then a plain name against the module's functions.
    r = m_d.cuModuleGetFunction(&v.fn, v.module, s.kernel.c_str());
    v.result.kernel = s.kernel;
    if (r == CUDA_ERROR_NOT_FOUND && m_d.cuModuleGetFunctionCount && m_d.cuModuleEnumerateFunctions &&
        m_d.cuFuncGetName) {
        unsigned n = 0;
        check(m_d.cuModuleGetFunctionCount(&n, v.module), "cuModuleGetFunctionCount", "module_load", label);
        std::vector<CUfunction> fns(n);
        if (n) {
            check(m_d.cuModuleEnumerateFunctions(fns.data(), n, v.module), "cuModuleEnumerateFunctions",
                  "module_load", label);
        }
        std::string want = s.kernel.substr(0, s.kernel.find('('));
        std::vector<std::pair<CUfunction, std::string>> matches;
        std::string available;
        for (CUfunction f : fns) {
            const char* name = nullptr;
            if (m_d.cuFuncGetName(&name, f) != CUDA_SUCCESS || !name) {
                continue;
            }
            std::string nm = name;
            available += (available.empty() ? "" : ", ") + nm;
            if (nm == want || mangledBase(nm) == want) {
                matches.emplace_back(f, nm);
            }
        }
        if (matches.size() == 1) {
            v.fn = matches[0].first;
            v.result.kernel = matches[0].second;
            r = CUDA_SUCCESS;
        } else if (matches.size() > 1) {
            std::string names;
            for (const auto& m : matches) {
                names += (names.empty() ? "" : ", ") + m.second;
            }
            throw RequestFailure(RunError{RunErrorKind::KernelNotFound,
                                          "kernel name '" + s.kernel + "' is ambiguous: " + names +
                                              " (give the mangled name)",
                                          "", 0, "module_load", label, false},
                                 0);
        } else {
            throw RequestFailure(RunError{RunErrorKind::KernelNotFound,
                                          "no kernel '" + s.kernel + "' in the module (it has: " + available + ")",
                                          "", 0, "module_load", label, false},
                                 0);
        }
    }
    if (r == CUDA_ERROR_NOT_FOUND) {
        throw RequestFailure(RunError{RunErrorKind::KernelNotFound, "no kernel '" + s.kernel + "' in the module",
                                      errorName(m_d, r), r, "module_load", label, false},
                             0);
    }
    check(r, "cuModuleGetFunction", "module_load", label);

    auto fattr = [&](int a) {
        int x = 0;
        check(m_d.cuFuncGetAttribute(&x, a, v.fn), "cuFuncGetAttribute", "module_load", label);
        return x;
    };
    v.result.resources.registers = fattr(FUNC_NUM_REGS);
    v.result.resources.staticSharedBytes = fattr(FUNC_SHARED_SIZE_BYTES);
    v.result.resources.localBytes = fattr(FUNC_LOCAL_SIZE_BYTES);
    v.result.resources.constBytes = fattr(FUNC_CONST_SIZE_BYTES);
    v.result.resources.maxThreadsPerBlock = fattr(FUNC_MAX_THREADS_PER_BLOCK);
    const uint32_t threads = s.block[0] * s.block[1] * s.block[2];
    if (static_cast<int>(threads) > v.result.resources.maxThreadsPerBlock) {
        throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                      "block of " + std::to_string(threads) + " threads exceeds this kernel's limit of " +
                                          std::to_string(v.result.resources.maxThreadsPerBlock) +
                                          " (registers: " + std::to_string(v.result.resources.registers) + ")",
                                      "", 0, "setup", label, false},
                             0);
    }
    if (s.sharedBytes > 48 * 1024) {
        check(m_d.cuFuncSetAttribute(v.fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(s.sharedBytes)),
              "cuFuncSetAttribute(max dynamic shared)", "setup", label);
    }
    int blocks = 0;
    check(m_d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.fn, static_cast<int>(threads), s.sharedBytes),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor", "setup", label);
    int warpsPerBlock = static_cast<int>((threads + 31) / 32);
    v.result.occupancy.activeBlocksPerSm = blocks;
    v.result.occupancy.activeWarpsPerSm = blocks * warpsPerBlock;
    v.result.occupancy.maxWarpsPerSm = m_device.maxThreadsPerSm / 32;
    v.result.occupancy.fraction = v.result.occupancy.maxWarpsPerSm
                                      ? static_cast<double>(v.result.occupancy.activeWarpsPerSm) /
                                            v.result.occupancy.maxWarpsPerSm
                                      : 0;
    double totalBlocks = double(s.grid[0]) * s.grid[1] * s.grid[2];
    v.result.occupancy.waves = blocks > 0 ? totalBlocks / (double(blocks) * m_device.smCount) : 0;
    if (blocks == 0) {
        throw RequestFailure(RunError{RunErrorKind::LaunchError,
                                      "no block of this configuration fits on an SM (registers " +
                                          std::to_string(v.result.resources.registers) + "/thread, shared " +
                                          std::to_string(v.result.resources.staticSharedBytes + s.sharedBytes) +
                                          " bytes)",
                                      "", 0, "setup", label, false},
                             0);
    }

    // Buffers: allocate, fill with the declared data (kept on the host to restore later).
    v.buffers.assign(s.buffers.size(), 0);
    v.initData.resize(s.buffers.size());
    for (size_t i = 0; i < s.buffers.size(); ++i) {
        const BufferSpec& b = s.buffers[i];
        size_t bytes = static_cast<size_t>(b.count) * elemSize(b.type);
        progress("allocate", label, 0, 0, false);
        check(m_d.cuMemAlloc(&v.buffers[i], bytes), "cuMemAlloc", "allocate " + b.name, label);
        v.initData[i] = makeBufferData(b.type, b.count, b.init);
        check(m_d.cuMemcpyHtoD(v.buffers[i], v.initData[i].data(), bytes), "cuMemcpyHtoD", "initialise " + b.name,
              label);
    }
    // Parameter buffer: scalars copied in, device addresses written at buffer slots; the driver
    // gets one pointer per parameter into this buffer.
    v.paramBuf.assign(static_cast<size_t>(std::max(s.paramBytes, 8)), 0);
    v.paramPtrs.clear();
    for (const ParamSlot& p : s.params) {
        if (p.buffer >= 0) {
            CUdeviceptr addr = v.buffers[static_cast<size_t>(p.buffer)];
            std::memcpy(v.paramBuf.data() + p.offset, &addr, 8);
        } else {
            std::memcpy(v.paramBuf.data() + p.offset, p.scalar.data(), p.scalar.size());
        }
        v.paramPtrs.push_back(v.paramBuf.data() + p.offset);
    }
}

void GpuSession::restoreInputs(Variant& v) {
    for (size_t i = 0; i < v.buffers.size(); ++i) {
        check(m_d.cuMemcpyHtoD(v.buffers[i], v.initData[i].data(), v.initData[i].size()), "cuMemcpyHtoD", "restore",
              v.label());
    }
}

bool GpuSession::shareBuffers(std::vector<std::unique_ptr<Variant>>& vars) {
    if (vars.size() < 2) {
        return false;
    }
    const auto& first = vars[0]->spec->buffers;
    for (size_t k = 1; k < vars.size(); ++k) {
        const auto& other = vars[k]->spec->buffers;
        if (other.size() != first.size()) {
            return false;
        }
        for (size_t i = 0; i < first.size(); ++i) {
            if (other[i].type != first[i].type || other[i].count != first[i].count || !(other[i].init == first[i].init) ||
                other[i].output != first[i].output) {
                return false;
            }
        }
    }
    // Two allocations of the same size can still differ in speed (placement across memory
    // channels, TLB reach): timing every variant on the same buffers takes that out of the ratio.
    // Variant 0's buffers hold the declared inputs again (restored after its poison check).
    for (size_t k = 1; k < vars.size(); ++k) {
        Variant& v = *vars[k];
        for (const ParamSlot& p : v.spec->params) {
            if (p.buffer >= 0) {
                CUdeviceptr addr = vars[0]->buffers[static_cast<size_t>(p.buffer)];
                std::memcpy(v.paramBuf.data() + p.offset, &addr, 8);
            }
        }
    }
    return true;
}

void GpuSession::firstLaunchAndOutputs(Variant& v, const RunRequest& req) {
    const LaunchVariant& s = *v.spec;
    const std::string& label = s.label;
    progress("first_launch", label, 0, 0, true);
    check(m_d.cuStreamSynchronize(m_stream), "cuStreamSynchronize", "first_launch", label);
    auto t0 = Clock::now();
    check(m_d.cuEventRecord(m_events[0], m_stream), "cuEventRecord", "first_launch", label);
    launch(v, m_stream);
    check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", "first_launch", label);
    waitEvent(m_events[1], "first_launch", label);
    v.result.firstLaunchWallMs = msSince(t0);
    float ms = 0;
    check(m_d.cuEventElapsedTime(&ms, m_events[0], m_events[1]), "cuEventElapsedTime", "first_launch", label);
    v.result.firstLaunchMs = ms;
    v.estimateMs = ms;

    // Outputs of the run on the declared inputs: digests, and the bytes for comparisons.
    v.firstOutputs.assign(s.buffers.size(), {});
    for (size_t i = 0; i < s.buffers.size(); ++i) {
        if (!s.buffers[i].output) {
            continue;
        }
        std::vector<uint8_t> data(v.initData[i].size());
        check(m_d.cuMemcpyDtoH(data.data(), v.buffers[i], data.size()), "cuMemcpyDtoH", "read_outputs", label);
        OutputReport o;
        o.name = s.buffers[i].name;
        o.type = s.buffers[i].type;
        o.count = s.buffers[i].count;
        o.digest = digestHex(data.data(), data.size());
        v.firstOutputs[i] = std::move(data);
        v.result.outputs.push_back(o);
    }
    // Poison check: two launches over outputs filled with two byte patterns; an element still
    // holding the pattern after both was never written.
    std::vector<std::vector<bool>> still(s.buffers.size());
    for (uint8_t pattern : {kPoisonA, kPoisonB}) {
        progress("poison_check", label, 0, 0, false);
        restoreInputs(v);
        for (size_t i = 0; i < s.buffers.size(); ++i) {
            if (s.buffers[i].output) {
                check(m_d.cuMemsetD8Async(v.buffers[i], pattern, v.initData[i].size(), m_stream), "cuMemsetD8Async",
                      "poison_check", label);
            }
        }
        launch(v, m_stream);
        check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", "poison_check", label);
        waitEvent(m_events[1], "poison_check", label);
        for (size_t i = 0; i < s.buffers.size(); ++i) {
            if (!s.buffers[i].output) {
                continue;
            }
            std::vector<uint8_t> data(v.initData[i].size());
            check(m_d.cuMemcpyDtoH(data.data(), v.buffers[i], data.size()), "cuMemcpyDtoH", "poison_check", label);
            countPoisoned(data, elemSize(s.buffers[i].type), pattern, &still[i]);
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < s.buffers.size(); ++i) {
        if (!s.buffers[i].output) {
            continue;
        }
        int64_t unwritten = std::count(still[i].begin(), still[i].end(), true);
        v.result.outputs[k].unwrittenCount = unwritten;
        v.result.outputs[k].fullyWritten = unwritten == 0;
        if (req.returnOutputs) {
            v.result.outputs[k].data = v.firstOutputs[i];
        }
        ++k;
    }
    restoreInputs(v);
}

void GpuSession::coldSamples(Variant& v, int count, std::vector<std::pair<double, double>>& out,
                             const std::string& stage) {
    count = std::clamp(count, 1, kMaxBatch);
    const std::string& label = v.label();
    armGate(stage);
    for (int g = 0; g < count; ++g) {
        // Flush L2 outside the timed interval (a read pass: see ls_flush).
        flushL2(stage, label);
        check(m_d.cuEventRecord(m_events[2 * g], m_stream), "cuEventRecord", stage, label);
        launch(v, m_stream);
        check(m_d.cuEventRecord(m_events[2 * g + 1], m_stream), "cuEventRecord", stage, label);
        CUdeviceptr slot = m_clockSlotsDev + static_cast<CUdeviceptr>(16 * g);
        uint64_t dur = m_clockProbeNs;
        void* cargs[] = {&slot, &dur};
        check(m_d.cuLaunchKernel(m_clock, 1, 1, 1, 1, 1, 1, 0, m_stream, cargs, nullptr), "cuLaunchKernel(clock)",
              stage, label);
    }
    CUevent done = m_events[2 * kMaxBatch];
    check(m_d.cuEventRecord(done, m_stream), "cuEventRecord", stage, label);
    releaseGate();
    waitEvent(done, stage, label);
    bool late = m_gate[1] != 0;
    for (int g = 0; g < count; ++g) {
        float ms = 0;
        check(m_d.cuEventElapsedTime(&ms, m_events[2 * g], m_events[2 * g + 1]), "cuEventElapsedTime", stage, label);
        double ns = static_cast<double>(m_clockSlots[2 * g]);
        double cycles = static_cast<double>(m_clockSlots[2 * g + 1]);
        out.emplace_back(ms, ns > 0 ? cycles / ns * 1000.0 : 0.0);
    }
    if (late) {
        ++v.result.gateTimeouts;
    }
}

double GpuSession::gatedReplayMs(CUgraphExec exec, const std::string& stage) {
    armGate(stage);
    check(m_d.cuEventRecord(m_events[0], m_stream), "cuEventRecord", stage);
    check(m_d.cuGraphLaunch(exec, m_stream), "cuGraphLaunch", stage);
    check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", stage);
    releaseGate();
    waitEvent(m_events[1], stage, "");
    float ms = 0;
    check(m_d.cuEventElapsedTime(&ms, m_events[0], m_events[1]), "cuEventElapsedTime", stage);
    return ms;
}

std::pair<double, double> GpuSession::hotSample(Variant& v, const std::string& stage) {
    const std::string& label = v.label();
    armGate(stage);
    check(m_d.cuEventRecord(m_events[0], m_stream), "cuEventRecord", stage, label);
    check(m_d.cuGraphLaunch(v.graphExec, m_stream), "cuGraphLaunch", stage, label);
    check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", stage, label);
    CUdeviceptr slot = m_clockSlotsDev;
    uint64_t dur = m_clockProbeNs;
    void* cargs[] = {&slot, &dur};
    check(m_d.cuLaunchKernel(m_clock, 1, 1, 1, 1, 1, 1, 0, m_stream, cargs, nullptr), "cuLaunchKernel(clock)", stage,
          label);
    CUevent done = m_events[2 * kMaxBatch];
    check(m_d.cuEventRecord(done, m_stream), "cuEventRecord", stage, label);
    releaseGate();
    waitEvent(done, stage, label);
    if (m_gate[1] != 0) {
        ++v.result.gateTimeouts;
    }
    float ms = 0;
    check(m_d.cuEventElapsedTime(&ms, m_events[0], m_events[1]), "cuEventElapsedTime", stage, label);
    double ns = static_cast<double>(m_clockSlots[0]);
    double cycles = static_cast<double>(m_clockSlots[1]);
    return {ms / v.launchesPerGraph, ns > 0 ? cycles / ns * 1000.0 : 0.0};
}

void GpuSession::buildGraph(Variant& v, int launches) {
    const std::string& label = v.label();
    v.launchesPerGraph = launches;
    auto t0 = Clock::now();
    check(m_d.cuStreamBeginCapture(m_stream, STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture", "graph",
          label);
    for (int i = 0; i < launches; ++i) {
        CUresult r = m_d.cuLaunchKernel(v.fn, v.spec->grid[0], v.spec->grid[1], v.spec->grid[2], v.spec->block[0],
                                        v.spec->block[1], v.spec->block[2], v.spec->sharedBytes, m_stream,
                                        v.paramPtrs.data(), nullptr);
        if (r != CUDA_SUCCESS) {
            CUgraph g = nullptr;
            m_d.cuStreamEndCapture(m_stream, &g);
            if (g) {
                m_d.cuGraphDestroy(g);
            }
            check(r, "cuLaunchKernel(capture)", "graph", label);
        }
    }
    check(m_d.cuStreamEndCapture(m_stream, &v.graph), "cuStreamEndCapture", "graph", label);
    v.captureMs = msSince(t0);
    t0 = Clock::now();
    check(m_d.cuGraphInstantiateWithFlags(&v.graphExec, v.graph, 0), "cuGraphInstantiate", "graph", label);
    v.instantiateMs = msSince(t0);
    t0 = Clock::now();
    check(m_d.cuGraphUpload(v.graphExec, m_stream), "cuGraphUpload", "graph", label);
    check(m_d.cuStreamSynchronize(m_stream), "cuStreamSynchronize", "graph", label);
    v.uploadMs = msSince(t0);
}

double GpuSession::medianReplayPerNodeUs(CUgraph graph, int nodes, const std::string& label) {
    CUgraphExec exec = nullptr;
    check(m_d.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiate", "graph_costs", label);
    check(m_d.cuGraphUpload(exec, m_stream), "cuGraphUpload", "graph_costs", label);
    std::vector<double> t;
    for (int i = 0; i < 5; ++i) {
        t.push_back(gatedReplayMs(exec, "graph_costs") * 1000.0 / nodes);
    }
    std::sort(t.begin(), t.end());
    m_d.cuGraphExecDestroy(exec);
    m_d.cuGraphDestroy(graph);
    return quantileSorted(t, 0.5);
}

void GpuSession::measureGraphCosts(Variant& v) {
    const std::string& label = v.label();
    if (!v.graphExec) {
        int k = static_cast<int>(std::clamp(std::ceil(kReplayTargetMs / std::max(v.estimateMs, 1e-4)), 1.0,
                                            double(kMaxGraphLaunches)));
        buildGraph(v, k);
    }
    progress("graph_costs", label, 0, 0, true);
    const int k = v.launchesPerGraph;
    GraphCosts g;
    g.launchesPerGraph = k;
    g.captureMs = v.captureMs;
    g.instantiateMs = v.instantiateMs;
    g.uploadMs = v.uploadMs;
    std::vector<double> replay, stream;
    for (int i = 0; i < 5; ++i) {
        replay.push_back(gatedReplayMs(v.graphExec, "graph_costs") / k);
        // The same K launches from the stream, back to back, ungated: the host's launch rate
        // shows up here exactly as it would in an application.
        check(m_d.cuEventRecord(m_events[0], m_stream), "cuEventRecord", "graph_costs", label);
        for (int j = 0; j < k; ++j) {
            launch(v, m_stream);
        }
        check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", "graph_costs", label);
        waitEvent(m_events[1], "graph_costs", label);
        float ms = 0;
        check(m_d.cuEventElapsedTime(&ms, m_events[0], m_events[1]), "cuEventElapsedTime", "graph_costs", label);
        stream.push_back(ms / k);
        progress("graph_costs", label, 0, 0, false);
    }
    std::sort(replay.begin(), replay.end());
    std::sort(stream.begin(), stream.end());
    g.replayPerLaunchUs = quantileSorted(replay, 0.5) * 1000.0;
    g.streamPerLaunchUs = quantileSorted(stream, 0.5) * 1000.0;
    double saving = g.streamPerLaunchUs - g.replayPerLaunchUs;  // µs per launch
    if (saving > 0) {
        g.breakEvenReplays = (g.captureMs + g.instantiateMs) * 1000.0 / (saving * k);
    }

    // Graph overhead on its own: a chain of empty nodes, and a graph of empty kernels.
    const int nodes = 1000;
    {
        CUgraph graph = nullptr;
        check(m_d.cuGraphCreate(&graph, 0), "cuGraphCreate", "graph_costs", label);
        CUgraphNode prev = nullptr;
        for (int i = 0; i < nodes; ++i) {
            CUgraphNode n = nullptr;
            check(m_d.cuGraphAddEmptyNode(&n, graph, prev ? &prev : nullptr, prev ? 1 : 0), "cuGraphAddEmptyNode",
                  "graph_costs", label);
            prev = n;
        }
        g.emptyNodeUs = medianReplayPerNodeUs(graph, nodes, label);
    }
    {
        CUgraph graph = nullptr;
        check(m_d.cuStreamBeginCapture(m_stream, STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture",
              "graph_costs", label);
        for (int i = 0; i < nodes; ++i) {
            check(m_d.cuLaunchKernel(m_empty, 1, 1, 1, 1, 1, 1, 0, m_stream, nullptr, nullptr),
                  "cuLaunchKernel(empty)", "graph_costs", label);
        }
        check(m_d.cuStreamEndCapture(m_stream, &graph), "cuStreamEndCapture", "graph_costs", label);
        g.emptyKernelUs = medianReplayPerNodeUs(graph, nodes, label);
    }
    v.result.graph = g;
}

RunResult GpuSession::run(const RunRequest& req, const ProgressFn& progressFn) {
    m_progress = &progressFn;
    m_requestId = req.id;
    m_requestStart = Clock::now();
    m_lastProgress = Clock::now() - std::chrono::seconds(1);
    m_kernelTimeoutS = req.kernelTimeoutS > 0 ? req.kernelTimeoutS : 30;
    RunResult result;
    result.id = req.id;

    // Under an external profiler (profile mode) no helper kernel runs: the spin gate would stall
    // behind a profiler that serialises launches.
    if (req.profileLaunches <= 0) {
        measureCopyBandwidth();
    }
    const double eventOverheadUs = req.profileLaunches <= 0 ? measureEventOverheadUs() : 0.0;
    result.device = m_device;

    std::vector<std::unique_ptr<Variant>> vars;
    for (const auto& spec : req.variants) {
        auto v = std::make_unique<Variant>();
        v->spec = &spec;
        vars.push_back(std::move(v));
        setupVariant(*vars.back(), req);
    }
    if (req.profileLaunches > 0) {
        // Plain launches for an external profiler: flush (not in hot mode), launch, wait.
        for (auto& v : vars) {
            v->result.mode = "profile";
            for (int i = 0; i < req.profileLaunches; ++i) {
                if (req.mode != MeasureMode::Hot) {
                    flushL2("profile", v->label());
                }
                check(m_d.cuEventRecord(m_events[0], m_stream), "cuEventRecord", "profile", v->label());
                launch(*v, m_stream);
                check(m_d.cuEventRecord(m_events[1], m_stream), "cuEventRecord", "profile", v->label());
                waitEvent(m_events[1], "profile", v->label());
                float ms = 0;
                check(m_d.cuEventElapsedTime(&ms, m_events[0], m_events[1]), "cuEventElapsedTime", "profile",
                      v->label());
                v->result.samplesMs.push_back(ms);
                progress("profile", v->label(), v->result.samplesMs.size(), 0, false);
            }
            v->result.stopReason = "profile";
            result.variants.push_back(std::move(v->result));
        }
        result.wallS = msSince(m_requestStart) / 1000.0;
        m_progress = nullptr;
        return result;
    }
    for (auto& v : vars) {
        firstLaunchAndOutputs(*v, req);
    }
    result.buffersShared = req.shareBuffers && shareBuffers(vars);

    // Warm-up (≥ 3 runs and ≥ 25 ms), which also gives the estimate that picks the mode.
    for (auto& v : vars) {
        auto t0 = Clock::now();
        std::vector<std::pair<double, double>> s;
        int runs = 0;
        while (runs < 3 || msSince(t0) < 25.0) {
            coldSamples(*v, 1, s, "warmup");
            ++runs;
            progress("warmup", v->label(), 0, 0, false);
            if (msSince(t0) > 5000.0) {
                break;
            }
        }
        v->result.warmupRuns = runs;
        double gpu = 0;
        std::vector<double> ms;
        for (auto& p : s) {
            gpu += p.first;
            ms.push_back(p.first);
        }
        v->result.warmupMs = gpu;
        std::sort(ms.begin(), ms.end());
        v->estimateMs = quantileSorted(ms, 0.5);
    }
    MeasureMode mode = req.mode;
    if (mode == MeasureMode::Auto) {
        // One mode for all variants, so a comparison compares like with like.
        double shortest = 1e300;
        for (auto& v : vars) {
            shortest = std::min(shortest, v->estimateMs);
        }
        mode = shortest < kHotThresholdMs ? MeasureMode::Hot : MeasureMode::Cold;
    }
    if (mode == MeasureMode::Hot) {
        for (auto& v : vars) {
            int k = static_cast<int>(std::clamp(std::ceil(kReplayTargetMs / std::max(v->estimateMs, 1e-4)), 1.0,
                                                double(kMaxGraphLaunches)));
            progress("graph_build", v->label(), 0, 0, true);
            buildGraph(*v, k);
            auto t0 = Clock::now();
            int runs = 0;
            while (runs < 3 || msSince(t0) < 25.0) {
                hotSample(*v, "warmup");
                ++runs;
                if (msSince(t0) > 5000.0) {
                    break;
                }
            }
            v->result.launchesPerSample = k;
        }
    }

    // Measure: interleaved over the variants (A B A B ...), each variant with its own stopping
    // rule; stop when every rule is satisfied, or at the wall limit.
    for (auto& v : vars) {
        v->rule = std::make_unique<StopRule>(req.stop);
        v->result.mode = modeName(mode);
        v->result.eventOverheadUs = eventOverheadUs;
    }
    const double throttleMhz = kThrottleRatio * m_device.clockMhz;
    // One batch size for all variants, so interleaved samples pair up one to one.
    double shortestEstimate = 1e300;
    for (auto& v : vars) {
        shortestEstimate = std::min(shortestEstimate, v->estimateMs);
    }
    const int coldBatch = shortestEstimate < 0.2 ? kMaxBatch : 1;
    const auto loopStart = Clock::now();
    StopReason reason = StopReason::Continue;
    std::vector<std::pair<double, double>> batch;
    std::vector<Variant*> order;
    for (auto& v : vars) {
        order.push_back(v.get());
    }
    for (size_t round = 0;; ++round) {
        bool throttled = false;
        // A B, B A, A B, ...: neither variant always runs right after the other.
        if (round > 0) {
            std::reverse(order.begin(), order.end());
        }
        for (Variant* v : order) {
            batch.clear();
            if (mode == MeasureMode::Cold) {
                coldSamples(*v, coldBatch, batch, "measure");
            } else {
                batch.push_back(hotSample(*v, "measure"));
            }
            for (const auto& [ms, mhz] : batch) {
                if (mhz > 0 && mhz < throttleMhz) {
                    ++v->result.throttledSamples;
                    throttled = true;
                    continue;
                }
                v->rule->add(ms);
                v->result.samplesMs.push_back(ms);
                v->result.sampleClockMhz.push_back(mhz);
            }
        }
        if (throttled) {
            // Back off briefly: a clock below 75 % of rated means power or thermal limits.
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        const double wall = msSince(loopStart) / 1000.0;
        bool allDone = true;
        reason = StopReason::Continue;
        for (auto& v : vars) {
            StopReason r = v->rule->decide(wall);
            if (r == StopReason::WallLimit || r == StopReason::MaxSamples) {
                reason = r;
                allDone = true;
                break;
            }
            if (r == StopReason::Continue) {
                allDone = false;
            } else if (reason == StopReason::Continue || r == StopReason::NoiseStable) {
                reason = r;
            }
        }
        if (allDone && reason != StopReason::Continue) {
            break;
        }
        progress("measure", vars.front()->label(), vars.front()->rule->count(), vars.front()->rule->noise(), false);
    }
    for (auto& v : vars) {
        v->result.stopReason = stopReasonName(v->rule->decide(msSince(loopStart) / 1000.0));
        if (v->result.stopReason == "continue") {
            v->result.stopReason = stopReasonName(reason);
        }
        if (v->result.samplesMs.empty()) {
            RunError e{RunErrorKind::Throttled, "every sample was taken below 75 % of the rated SM clock (" +
                                        std::to_string(m_device.clockMhz) + " MHz); nothing to report",
                       "", 0, "measure", v->label(), false};
            throw RequestFailure(e, 0);
        }
    }
    if (mode == MeasureMode::Hot || req.measureGraph) {
        for (auto& v : vars) {
            measureGraphCosts(*v);
        }
    }
    // Output agreement of every variant with the first one, output by output in order.
    auto outputsOf = [](const Variant& v) {
        std::vector<OutputBytes> out;
        for (size_t i = 0; i < v.spec->buffers.size(); ++i) {
            if (v.spec->buffers[i].output) {
                out.push_back(OutputBytes{v.spec->buffers[i].name, v.spec->buffers[i].type, &v.firstOutputs[i]});
            }
        }
        return out;
    };
    for (size_t k = 1; k < vars.size(); ++k) {
        for (OutputAgreement& g : agreeOutputs(vars[0]->label(), outputsOf(*vars[0]), vars[k]->label(),
                                               outputsOf(*vars[k]), req.atol, req.rtol)) {
            result.agreement.push_back(std::move(g));
        }
    }
    for (auto& v : vars) {
        result.variants.push_back(std::move(v->result));
    }
    result.wallS = msSince(m_requestStart) / 1000.0;
    m_progress = nullptr;
    return result;
}

} // namespace lowerscope::runner
