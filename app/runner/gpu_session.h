#pragma once
// The runner's GPU side: one CUDA context on device 0, helper kernels (spin gate, clock probe,
// empty kernel) JIT-loaded from PTX text, and the measurement procedure of
// ../shared/design/TIMING.md for one request.

#include "app/runner/cuda_api.h"
#include "core/run/protocol.h"

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope::runner {

// An error that ends the request. `exitCode` != 0: the runner must exit after reporting it (the
// CUDA context is unusable).
struct RequestFailure : std::runtime_error {
    RunError error;
    int exitCode = 0;
    RequestFailure(RunError e, int code) : std::runtime_error(e.message), error(std::move(e)), exitCode(code) {}
};

// Runner exit codes (see core/run/protocol.h).
enum ExitCode : int {
    kExitOk = 0,
    kExitUsage = 2,
    kExitNoDriver = 3,
    kExitNoDevice = 4,
    kExitKernelFault = 5,
    kExitKernelTimeout = 6,
    kExitCudaError = 7,
};

class GpuSession {
public:
    using ProgressFn = std::function<void(const RunProgress&)>;

    GpuSession() = default;
    ~GpuSession();
    GpuSession(const GpuSession&) = delete;
    GpuSession& operator=(const GpuSession&) = delete;

    // Loads the driver, initialises device 0 and the helpers. On failure fills `error` (kind
    // no_driver / no_device / driver_error) and returns the exit code; 0 on success.
    int open(RunError& error);
    const DeviceInfo& device() const { return m_device; }
    // Measures the device-to-device copy ceiling once (cached in device().copyBandwidthGBs).
    void measureCopyBandwidth();
    // Runs one request. Throws RequestFailure.
    RunResult run(const RunRequest& request, const ProgressFn& progress);

    struct Variant;  // per-variant state (module, buffers, graph), defined in the .cpp

private:
    // Checks a driver result; throws RequestFailure (fatal for kernel faults) on error.
    void check(CUresult r, const char* call, const std::string& stage, const std::string& variant = "");
    // Polls `ev` until it completes, the kernel faults, or the watchdog expires.
    void waitEvent(CUevent ev, const std::string& stage, const std::string& variant);
    void launch(Variant& v, CUstream stream);
    void loadHelpers();
    void setupVariant(Variant& v, const RunRequest& req);
    void firstLaunchAndOutputs(Variant& v, const RunRequest& req);
    void restoreInputs(Variant& v);
    // Points every variant's buffer parameters at variant 0's device buffers when all variants
    // declare the same buffers (type, count, initial data, output flag, in order); returns whether
    // it did. Called after each variant's outputs were read from its own buffers.
    bool shareBuffers(std::vector<std::unique_ptr<Variant>>& vars);
    // One gated cold sample batch: times `count` launches each after an L2 flush. Appends
    // (ms, clock MHz) pairs.
    void coldSamples(Variant& v, int count, std::vector<std::pair<double, double>>& out, const std::string& stage);
    // One gated graph replay: per-launch ms and clock MHz.
    std::pair<double, double> hotSample(Variant& v, const std::string& stage);
    void buildGraph(Variant& v, int launches);
    void measureGraphCosts(Variant& v);
    // Instantiates and uploads `graph` (taking ownership), replays it 5 times behind the gate and
    // returns the median time per node in µs; the graph and its instance are destroyed.
    double medianReplayPerNodeUs(CUgraph graph, int nodes, const std::string& label);
    double measureEventOverheadUs();
    double gatedReplayMs(CUgraphExec exec, const std::string& stage);
    void releaseGate();
    // Queues the L2 flush (ls_flush over m_flush) on the stream.
    void flushL2(const std::string& stage, const std::string& variant);
    void armGate(const std::string& stage);

    Driver m_d;
    bool m_open = false;
    CUdevice m_dev = 0;
    CUcontext m_ctx = nullptr;
    CUstream m_stream = nullptr;
    CUmodule m_helpers = nullptr;
    CUfunction m_spin = nullptr, m_clock = nullptr, m_empty = nullptr, m_flushFn = nullptr;
    volatile uint32_t* m_gate = nullptr;   // host-mapped: [0] flag, [1] timed-out status
    CUdeviceptr m_gateDev = 0;
    volatile uint64_t* m_clockSlots = nullptr; // host-mapped: pairs (ns, cycles)
    CUdeviceptr m_clockSlotsDev = 0;
    CUdeviceptr m_flush = 0;
    size_t m_flushBytes = 0;
    std::vector<CUevent> m_events;
    DeviceInfo m_device;
    double m_eventOverheadUs = -1;
    double m_kernelTimeoutS = 30;
    uint64_t m_clockProbeNs = 20000;
    const ProgressFn* m_progress = nullptr;
    std::string m_requestId;
    std::chrono::steady_clock::time_point m_lastProgress;
    std::chrono::steady_clock::time_point m_requestStart;
    void progress(const std::string& stage, const std::string& variant, size_t samples, double noise, bool force);
};

} // namespace lowerscope::runner
