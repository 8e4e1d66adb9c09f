#pragma once
// Hardware metrics of kernel launches through CUPTI's Range Profiler (collection on the device)
// and profiler host (scheduling into passes, evaluation to values). Ranges are automatic, one per
// kernel launch, exactly the unit Nsight Compute measures; replay is the caller's: a metric set
// that needs N passes needs the same launch N times between beginPass()/endPass(), with whatever
// state the caller wants restored (inputs, a flushed L2) in between.
//
// Usage: open() → configure(metrics, maxRanges) → { beginPass() → launches → endPass() }
// until endPass says all passes are done → decode() → values of range i. Everything is released
// by close() or the destructor; a failed call leaves nothing enabled.

#include "app/runner/cupti_api.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lowerscope::runner {

// What CUPTI says of one metric name.
struct MetricInfo {
    std::string name;
    std::string unit; // dimension ("byte", "nanosecond", "percent", "instruction/gpc_cycle", ...)
    std::string description;
    bool valid = false; // false: the chip does not know the name
};

class RangeProfiler {
public:
    RangeProfiler(const Cupti& cupti, CUcontext ctx, int deviceIndex)
        : m_cupti(cupti), m_ctx(ctx), m_device(deviceIndex) {}
    ~RangeProfiler();
    RangeProfiler(const RangeProfiler&) = delete;
    RangeProfiler& operator=(const RangeProfiler&) = delete;

    // Initialises the profiler, reads the chip name and counter availability, creates the host
    // object. `detail` gets CUPTI's error on failure.
    CuptiFailure open(std::string& detail);
    const std::string& chip() const { return m_chip; }
    // Looks a metric name up on this chip (after open()).
    MetricInfo describe(const std::string& metric) const;
    // Schedules `metrics` (all must be valid) for collection over up to `maxRanges` launches per
    // pass and enables the range profiler on the context (automatic ranges, user replay). With
    // `allowKernelReplay`, a CUPTI that refuses user replay with automatic ranges gets kernel
    // replay instead (CUPTI replays each launch itself, without the caller's flush in between):
    // kernelReplay() then says so.
    CuptiFailure configure(const std::vector<std::string>& metrics, size_t maxRanges, std::string& detail,
                           bool allowKernelReplay = false);
    bool kernelReplay() const { return m_kernelReplay; }
    // Passes the configured metrics need (1 for gpu__time_duration alone).
    size_t passes() const { return m_passes; }
    CuptiFailure beginPass(std::string& detail);
    // `allDone`: every pass has been submitted; decode next.
    CuptiFailure endPass(bool& allDone, std::string& detail);
    // Decodes the collected passes and evaluates every range: values[range][metric], in the order
    // of configure(). Resets the counter data so that the next passes start a new set of ranges.
    CuptiFailure decode(std::vector<std::vector<double>>& values, std::string& detail);
    void close();

private:
    CuptiFailure fail(CUptiResult r, const char* call, std::string& detail);
    CuptiFailure resetCounterData(std::string& detail);

    const Cupti& m_cupti;
    CUcontext m_ctx;
    int m_device;
    std::string m_chip;
    std::vector<uint8_t> m_availability;
    CUpti_Profiler_Host_Object* m_host = nullptr;
    CUpti_RangeProfiler_Object* m_object = nullptr;
    std::vector<std::string> m_metrics;
    std::vector<const char*> m_metricPtrs;
    std::vector<uint8_t> m_config;
    std::vector<uint8_t> m_counterData;
    size_t m_maxRanges = 0;
    size_t m_passes = 0;
    bool m_inPass = false;
    bool m_kernelReplay = false;
};

} // namespace lowerscope::runner
