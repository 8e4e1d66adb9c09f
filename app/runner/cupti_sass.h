#pragma once
// Counts per SASS instruction through CUPTI's SASS Metrics API: CUPTI patches the function's
// machine code with counters (lazily, at its first launch after begin()), so the counts are exact
// (not sampled) and match Nsight Compute's Source page. Records are keyed by the module's CRC,
// the function and the instruction's offset in the function.

#include "app/runner/cupti_api.h"
#include "core/run/profile_data.h"

#include <map>
#include <string>
#include <vector>

namespace lowerscope::runner {

class SassCounters {
public:
    SassCounters(const Cupti& cupti, CUcontext ctx, int deviceIndex)
        : m_cupti(cupti), m_ctx(ctx), m_device(deviceIndex) {}
    ~SassCounters();
    SassCounters(const SassCounters&) = delete;
    SassCounters& operator=(const SassCounters&) = delete;

    // Resolves `metrics` for this chip (names it does not know go to `unknown`), configures the
    // device and enables patching on the context. Nothing stays enabled on failure.
    CuptiFailure begin(const std::vector<std::string>& metrics, std::vector<std::string>& unknown,
                       std::string& detail);
    // After the profiled launches have finished: every patched instruction's counts, summed over
    // the GPU, by function name (mangled) and ascending offset. `crc` gets the records' module CRC.
    CuptiFailure collect(std::map<std::string, std::vector<InstructionProfile>>& byFunction, uint64_t& crc,
                         std::string& detail);
    const std::string& chip() const { return m_chip; }
    // Disables patching (the function runs unpatched again) and removes the device configuration.
    void end();

private:
    const Cupti& m_cupti;
    CUcontext m_ctx;
    int m_device;
    std::string m_chip;
    std::map<uint64_t, std::string> m_names; // metric id → name
    bool m_configured = false;
    bool m_enabled = false;
};

} // namespace lowerscope::runner
