#pragma once
// The measurement procedure of ../shared/design/TIMING.md for the variants of one request:
// warm-up (≥ 3 runs and ≥ 25 ms, giving each launch's estimate), one mode for all variants (auto:
// hot below 20 µs a launch, else cold), then samples interleaved A B, B A, ... until every
// variant's stop rule is met or the wall limit passes, with the SM clock probed per sample
// (samples below 75 % of the rated clock are discarded and counted), the graph costs in hot
// mode or when asked, and last the graph-path measurement of variant 0 when the request has one
// (graph_path.h).
//
//   cold: per sample, L2 flushed, then one launch between a CUDA event pair, up to
//         DeviceContext::kMaxBatch launches held behind one spin gate. Where CUPTI loads (and the
//         request does not ask for "events"), each timed launch is also timed on the GPU's own
//         clocks (gpu_clocks.h: kernel timestamps, gpu__time_duration), which change nothing in
//         what is launched or in which order; after the loop one clock is chosen for all variants
//         alike (core/run/duration_clock.h) and samplesMs is that clock's series;
//   hot:  per sample, one gated replay of a graph of K launches (graph_costs.h), ÷ K, by events
//         (duration clock "graph_replay"; no CUPTI during the loop). After the loop, where CUPTI
//         loads, a separate pass of up to kNodeReplays replays with activity records on gives
//         "node_timestamps": per replay, the median span of its kernel nodes (a different quantity:
//         see docs/PERFORMANCE.md, "Duration clocks"). It is a pass of its own so that the records
//         cannot change the replay times the samples come from.

#include "app/runner/gpu_clocks.h"
#include "app/runner/procedure.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace lowerscope::runner {

class TimingProcedure : public Procedure {
public:
    TimingProcedure() = default;
    const char* name() const override { return "timing"; }
    bool checksOutputs() const override { return true; }
    // Measures the copy ceiling and the event overhead (once per runner) before anything is loaded.
    void prepare(RequestContext& rc) override;
    void run(RequestContext& rc, const std::vector<LoadedVariant*>& variants, RunResult& result) override;

private:
    // One sample: GPU time by events (ms), SM clock (MHz; 0 when the probe measured nothing), and
    // the same launch on the GPU's own clocks (ms; NaN when not taken).
    struct Sample {
        double ms = 0;
        double mhz = 0;
        double timestampMs = std::numeric_limits<double>::quiet_NaN();
        double gpuDurationMs = std::numeric_limits<double>::quiet_NaN();
    };
    // One gated batch of `count` (1 .. kMaxBatch) cold launches of `v`; appends one sample each
    // (on the GPU clocks too while m_clocks is set).
    void coldSamples(DeviceContext& ctx, LoadedVariant& v, int count, std::vector<Sample>& out,
                     const std::string& stage);
    void warmUp(DeviceContext& ctx, const std::vector<LoadedVariant*>& vars, RequestProgress& progress);
    MeasureMode chooseMode(MeasureMode requested, const std::vector<LoadedVariant*>& vars) const;
    // Hot mode: each variant's replay graph, warmed up.
    void buildGraphs(DeviceContext& ctx, const std::vector<LoadedVariant*>& vars, RequestProgress& progress);
    // The interleaved sampling loop with its stop rules.
    void measure(RequestContext& rc, const std::vector<LoadedVariant*>& vars, MeasureMode mode);
    // One gated replay of `v`'s graph: per-launch ms and clock MHz.
    Sample hotSample(DeviceContext& ctx, LoadedVariant& v, const std::string& stage);

    // Cold mode: turns the GPU clocks on (sets m_clockNote where one cannot run).
    void startClocks(RequestContext& rc);
    // Hot mode, after the loop: samplesByClock["node_timestamps"] of every variant from a pass of
    // its own, or a clockNote saying why there is none.
    void nodeTimestamps(RequestContext& rc, const std::vector<LoadedVariant*>& vars);

    double m_eventOverheadUs = 0;
    std::unique_ptr<DurationClocks> m_clocks; // only during the cold sampling loop
    std::string m_clockNote;                  // why a GPU clock is missing
};

} // namespace lowerscope::runner
