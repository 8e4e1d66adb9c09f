// The device context (device_context.h): driver, context, stream, helper kernels and checks.
#include "app/runner/device_context.h"

#include "core/run/stats.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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

constexpr uint64_t kGateTimeoutNs = 200'000'000; // 200 ms: the host is very late or blocked

} // namespace

DeviceContext::~DeviceContext() = default;

const Cupti* DeviceContext::cupti() {
    if (!m_cuptiTried) {
        // Tried once: a missing library stays missing for the life of the process.
        m_cuptiTried = true;
        auto c = std::make_unique<Cupti>();
        CuptiLoad load = loadCupti(*c);
        if (load.ok) {
            m_cupti = std::move(c);
        } else {
            m_cuptiError = load.error;
        }
    }
    return m_cupti.get();
}

void DeviceContext::check(CUresult r, const char* call, const std::string& stage,
                          const std::string& variant) {
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
    } else if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || std::string(call) == "cuLaunchKernel" ||
               std::string(call) == "cuLaunchKernelEx") {
        e.kind = RunErrorKind::LaunchError;
        e.message = std::string(call) + " failed: " + errorString(m_d, r) + " (" + e.cudaError + ")";
    } else {
        e.kind = RunErrorKind::CudaError;
        e.message = std::string(call) + " failed during " + stage + ": " + errorString(m_d, r) + " (" +
                    e.cudaError + ")";
    }
    throw RequestFailure(e, code);
}

void DeviceContext::waitEvent(CUevent ev, const std::string& stage, const std::string& variant) {
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

int DeviceContext::open(RunError& error) {
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
        error.message =
            "no CUDA device: the driver is installed but sees no GPU (cuInit: " + errorName(m_d, r) + ")";
        error.cudaError = errorName(m_d, r);
        error.cudaCode = r;
        error.fatal = true;
        return kExitNoDevice;
    }
    if (r != CUDA_SUCCESS) {
        error.kind = RunErrorKind::DriverError;
        error.message =
            "the CUDA driver failed to initialise: " + errorString(m_d, r) + " (" + errorName(m_d, r) + ")";
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
        if (!m_fixedAddresses) {
            initHelpers();
        }
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

void DeviceContext::ensureHelpers() {
    if (!m_helpersReady) {
        initHelpers();
    }
}

// The helper kernels and the memory they use: after the context, or (with --fixed-addresses)
// after a replay's regions took their addresses.
void DeviceContext::initHelpers() {
    loadHelpers();
    void* host = nullptr;
    check(m_d.cuMemHostAlloc(&host, 4096, MEMHOSTALLOC_PORTABLE | MEMHOSTALLOC_DEVICEMAP),
          "cuMemHostAlloc", "init");
    std::memset(host, 0, 4096);
    m_gate = static_cast<volatile uint32_t*>(host);
    check(m_d.cuMemHostGetDevicePointer(&m_gateDev, host, 0), "cuMemHostGetDevicePointer", "init");
    host = nullptr;
    check(m_d.cuMemHostAlloc(&host, kClockSlots * 16, MEMHOSTALLOC_PORTABLE | MEMHOSTALLOC_DEVICEMAP),
          "cuMemHostAlloc", "init");
    std::memset(host, 0, kClockSlots * 16);
    m_clockSlots = static_cast<volatile uint64_t*>(host);
    check(m_d.cuMemHostGetDevicePointer(&m_clockSlotsDev, host, 0), "cuMemHostGetDevicePointer", "init");
    // L2 flush buffer: ≥ 2× L2 (TIMING.md), zeroed once here; ls_flush reads it before each
    // cold sample.
    m_flushBytes = std::max<size_t>(static_cast<size_t>(m_device.l2Bytes) * 2, 8u << 20);
    m_flushBytes = (m_flushBytes + 4095) / 4096 * 4096;
    check(m_d.cuMemAlloc(&m_flush, m_flushBytes), "cuMemAlloc", "init");
    check(m_d.cuMemsetD32Async(m_flush, 0, m_flushBytes / 4, m_stream), "cuMemsetD32Async", "init");
    check(m_d.cuStreamSynchronize(m_stream), "cuStreamSynchronize", "init");
    m_helpersReady = true;
}

void DeviceContext::loadHelpers() {
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

void DeviceContext::flushL2(const std::string& stage, const std::string& variant) {
    CUdeviceptr buf = m_flush;
    uint64_t n16 = m_flushBytes / 16;
    CUdeviceptr sink = m_flush; // never written: the data is all zero
    void* args[] = {&buf, &n16, &sink};
    const unsigned blocks = static_cast<unsigned>(std::max(1, m_device.smCount) * 4);
    check(m_d.cuLaunchKernel(m_flushFn, blocks, 1, 1, 512, 1, 1, 0, m_stream, args, nullptr),
          "cuLaunchKernel(flush)", stage, variant);
}

void DeviceContext::armGate(const std::string& stage) {
    m_gate[0] = 0;
    m_gate[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    CUdeviceptr flag = m_gateDev, status = m_gateDev + 4;
    uint64_t timeout = kGateTimeoutNs;
    void* args[] = {&flag, &status, &timeout};
    check(m_d.cuLaunchKernel(m_spin, 1, 1, 1, 1, 1, 1, 0, m_stream, args, nullptr), "cuLaunchKernel(spin)",
          stage);
}

void DeviceContext::releaseGate() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    m_gate[0] = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

void DeviceContext::measureCopyBandwidth() {
    ensureHelpers();
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

double DeviceContext::eventOverheadUs() {
    ensureHelpers();
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

float DeviceContext::elapsedMs(CUevent from, CUevent to, const std::string& stage,
                               const std::string& variant) {
    float ms = 0;
    check(m_d.cuEventElapsedTime(&ms, from, to), "cuEventElapsedTime", stage, variant);
    return ms;
}

void DeviceContext::queueClockProbe(int slot, const std::string& stage, const std::string& variant) {
    CUdeviceptr out = m_clockSlotsDev + static_cast<CUdeviceptr>(16 * slot);
    uint64_t dur = m_clockProbeNs;
    void* args[] = {&out, &dur};
    check(m_d.cuLaunchKernel(m_clock, 1, 1, 1, 1, 1, 1, 0, m_stream, args, nullptr), "cuLaunchKernel(clock)",
          stage, variant);
}

double DeviceContext::clockMhz(int slot) const {
    const double ns = static_cast<double>(m_clockSlots[2 * slot]);
    const double cycles = static_cast<double>(m_clockSlots[2 * slot + 1]);
    return ns > 0 ? cycles / ns * 1000.0 : 0.0;
}

} // namespace lowerscope::runner
