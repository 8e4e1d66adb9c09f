#pragma once
// The runner's device context: the CUDA driver (loaded at run time), one context and one stream on
// device 0, the helper kernels JIT-loaded from PTX (spin gate, SM clock probe, empty kernel, L2
// flush), the events procedures time with, and the checks every driver call goes through; CUPTI,
// loaded at its first use. One per runner process; what a procedure needs from the GPU beyond its
// own variants comes from here.
//
// Every failing call throws RequestFailure (runner_error.h): fatal, with the exit code, when the
// kernel faulted or did not finish within the watchdog; a plain request error otherwise.

#include "app/runner/cuda_api.h"
#include "app/runner/cupti_api.h"
#include "app/runner/runner_error.h"
#include "core/run/protocol.h"

#include <memory>
#include <string>
#include <vector>

namespace lowerscope::runner {

class DeviceContext {
public:
    static constexpr int kMaxBatch = 2;    // launches held behind one gate ("a couple")
    static constexpr int kClockSlots = 16; // clock probe results per batch

    DeviceContext() = default;
    ~DeviceContext(); // the process exits right after; the driver cleans up
    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;

    // Loads the driver, initialises device 0 and the helpers. On failure fills `error` (kind
    // NoDriver / NoDevice / DriverError) and returns the exit code; 0 on success.
    int open(RunError& error);
    // --fixed-addresses (set before open()): the helpers and their memory are loaded only at
    // ensureHelpers(), after a replay's captured memory took its original addresses
    // (restored_memory.h). Every request calls ensureHelpers() before it measures.
    void setFixedAddresses(bool on) { m_fixedAddresses = on; }
    bool fixedAddresses() const { return m_fixedAddresses; }
    // Loads the helper kernels and allocates their memory if not done yet. Throws RequestFailure.
    void ensureHelpers();
    const DeviceInfo& device() const { return m_device; }
    Driver& driver() { return m_d; }
    CUcontext context() const { return m_ctx; }
    int deviceIndex() const { return 0; }
    CUstream stream() const { return m_stream; }
    // CUPTI, loaded (once per process) at the first call; null when it cannot be loaded, and then
    // cuptiError() says why. The runner works without it (CUDA events only).
    const Cupti* cupti();
    const std::string& cuptiError() const { return m_cuptiError; }

    // The runner's own watchdog for every wait of the current request, seconds.
    void setKernelTimeout(double seconds) { m_kernelTimeoutS = seconds > 0 ? seconds : 30; }
    // Checks a driver result; throws RequestFailure (fatal for kernel faults) on error.
    void check(CUresult r, const char* call, const std::string& stage, const std::string& variant = "");
    // Polls `ev` until it completes, the kernel faults, or the watchdog expires.
    void waitEvent(CUevent ev, const std::string& stage, const std::string& variant);
    // GPU time between two completed events, milliseconds.
    float elapsedMs(CUevent from, CUevent to, const std::string& stage, const std::string& variant = "");

    // Events: 2·kMaxBatch for the timed pairs of a batch (2g, 2g + 1), then doneEvent() that marks
    // the end of a batch.
    CUevent event(int i) const { return m_events[static_cast<size_t>(i)]; }
    CUevent doneEvent() const { return m_events[2 * kMaxBatch]; }

    // The spin gate: armGate() queues the spin kernel, so that what is queued behind it is
    // submitted before the GPU reaches it; releaseGate() lets it finish. After the wait,
    // gateTimedOut() says whether it gave up by its own timeout (the host was late).
    void armGate(const std::string& stage);
    void releaseGate();
    bool gateTimedOut() const { return m_gate[1] != 0; }
    // Queues the L2 flush (a read pass over 2× L2: see ls_flush in the .cpp).
    void flushL2(const std::string& stage, const std::string& variant);
    // Queues the SM clock probe writing into `slot` (0..kClockSlots-1); clockMhz(slot) once the
    // stream has passed it (0 when the probe measured nothing).
    void queueClockProbe(int slot, const std::string& stage, const std::string& variant);
    double clockMhz(int slot) const;
    // An empty kernel, for the graph overhead figures.
    CUfunction emptyKernel() const { return m_empty; }

    // Measures the device-to-device copy ceiling once (cached in device().copyBandwidthGBs).
    void measureCopyBandwidth();
    // A gated event pair with nothing between, median of 21, µs (measured once, then cached).
    double eventOverheadUs();

private:
    void loadHelpers();
    void initHelpers();

    Driver m_d;
    std::unique_ptr<Cupti> m_cupti;
    bool m_cuptiTried = false;
    std::string m_cuptiError;
    bool m_open = false;
    bool m_fixedAddresses = false;
    bool m_helpersReady = false;
    CUdevice m_dev = 0;
    CUcontext m_ctx = nullptr;
    CUstream m_stream = nullptr;
    CUmodule m_helpers = nullptr;
    CUfunction m_spin = nullptr, m_clock = nullptr, m_empty = nullptr, m_flushFn = nullptr;
    volatile uint32_t* m_gate = nullptr; // host-mapped: [0] flag, [1] timed-out status
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
};

} // namespace lowerscope::runner
