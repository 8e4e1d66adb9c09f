#pragma once
// Warp stall samples per SASS instruction through CUPTI's PC Sampling API: at a fixed interval of
// SM cycles each SM's sampler picks a warp and records its program counter and why it is (or is
// not) issuing. Counts are statistical: a kernel is launched as often as needed to gather enough
// samples. Records are keyed like the SASS metrics (module CRC, function, offset).
//
// PC sampling must be enabled before the profiled module is loaded (CUPTI learns the module's
// functions as it loads).

#include "app/runner/cupti_api.h"
#include "core/run/profile_data.h"

#include <map>
#include <string>
#include <vector>

namespace lowerscope::runner {

class PcSampler {
public:
    // Defaults: continuous collection, no start/stop control. On an H200 with CUDA 13.0 (driver
    // 580) sampling with start/stop control delivered no samples at all (serialized or continuous);
    // without it, sampling runs while enabled and the caller keeps the profiled function's rows.
    struct Options {
        bool serialized = false; // kernel-serialized collection (else continuous)
        bool startStop = false;  // sample only between start() and stop()
        int periodLog2 = 0;      // 2^n cycles between samples, 5..31; 0: CUPTI's default
        size_t hardwareBufferBytes = size_t(64) << 20; // 0: CUPTI's default (512 MB)
    };

    PcSampler(const Cupti& cupti, CUcontext ctx, int deviceIndex)
        : m_cupti(cupti), m_ctx(ctx), m_device(deviceIndex) {}
    ~PcSampler();
    PcSampler(const PcSampler&) = delete;
    PcSampler& operator=(const PcSampler&) = delete;

    // Options from $LOWERSCOPE_PCSAMPLING ("serialized" | "continuous" (both with start/stop) |
    // "continuous-always", optionally ",period=N"), else the defaults: a knob for trying
    // collection modes on a device.
    static Options optionsFromEnvironment();

    // Enables sampling on the context, reads the stall reason names and configures collection.
    CuptiFailure begin(const Options& options, std::string& detail);
    CuptiFailure start(std::string& detail);
    CuptiFailure stop(std::string& detail);
    // Reads every sample collected so far: per function (mangled) and ascending offset, samples by
    // stall reason (short names, see profile_data.h). Adds to the totals.
    CuptiFailure collect(std::map<std::string, std::vector<InstructionProfile>>& byFunction, uint64_t& crc,
                         uint64_t& totalSamples, uint64_t& droppedSamples, std::string& detail);
    int periodLog2() const { return m_periodLog2; }
    const std::string& chip() const { return m_chip; }
    // How often CUPTI's workers hand decoded samples over (ms): what a reader waits for.
    int workerSleepMs() const { return m_workerSleepMs; }
    static constexpr uint32_t kWorkerSleepMs = 5;
    // Disables sampling; CUPTI then writes what it still holds into the configured buffer.
    void end();
    // After end(): the rows CUPTI wrote into the buffer when it was disabled.
    void parseBuffer(std::map<std::string, std::vector<InstructionProfile>>& byFunction);

private:
    const Cupti& m_cupti;
    CUcontext m_ctx;
    int m_device;
    Options m_options;
    bool m_enabled = false;
    bool m_running = false;
    int m_periodLog2 = 0;
    int m_workerSleepMs = 100; // CUPTI's default
    std::string m_chip;
    std::map<uint32_t, std::string> m_reasons; // stall reason index → short name
    std::vector<CUpti_PCSamplingPCData> m_pcs;
    std::vector<CUpti_PCSamplingStallReason> m_reasonSlots;
    CUpti_PCSamplingData m_buffer{};
    void addRows(std::map<std::string, std::map<uint64_t, InstructionProfile>>& merged, uint64_t& crc);
};

} // namespace lowerscope::runner
