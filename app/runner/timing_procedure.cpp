// The timing procedure (timing_procedure.h).
#include "app/runner/timing_procedure.h"

#include "app/runner/graph_costs.h"
#include "app/runner/graph_path.h"
#include "app/runner/loaded_variant.h"
#include "core/run/duration_clock.h"
#include "core/run/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace lowerscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

constexpr double kThrottleRatio = 0.75;
constexpr double kHotThresholdMs = 0.020; // auto mode: below 20 µs → hot
constexpr size_t kNodeReplays = 50;        // hot mode: replays of the node-timestamp pass

} // namespace

void TimingProcedure::prepare(RequestContext& rc) {
    rc.device.measureCopyBandwidth();
    m_eventOverheadUs = rc.device.eventOverheadUs();
}

void TimingProcedure::coldSamples(DeviceContext& ctx, LoadedVariant& v, int count, std::vector<Sample>& out,
                                  const std::string& stage) {
    Driver& d = ctx.driver();
    count = std::clamp(count, 1, DeviceContext::kMaxBatch);
    const std::string& label = v.label();
    DurationClocks* clocks = m_clocks.get();
    if (clocks) {
        // Before the gate: the Range Profiler's pass starts on the host, and nothing of the GPU
        // clocks may run between arming the gate and releasing it except the marks below.
        clocks->beginBatch();
    }
    ctx.armGate(stage);
    for (int g = 0; g < count; ++g) {
        // Flush L2 outside the timed interval (a read pass: see ls_flush).
        ctx.flushL2(stage, label);
        ctx.check(d.cuEventRecord(ctx.event(2 * g), ctx.stream()), "cuEventRecord", stage, label);
        v.launch(ctx.stream());
        if (clocks) {
            // Host-side only (the correlation id and launch number CUPTI's callback just stored);
            // the flush, the gate and the clock probe stay unmarked and their records are dropped.
            clocks->markTimed(g);
        }
        ctx.check(d.cuEventRecord(ctx.event(2 * g + 1), ctx.stream()), "cuEventRecord", stage, label);
        ctx.queueClockProbe(g, stage, label);
    }
    CUevent done = ctx.doneEvent();
    ctx.check(d.cuEventRecord(done, ctx.stream()), "cuEventRecord", stage, label);
    ctx.releaseGate();
    ctx.waitEvent(done, stage, label);
    const bool late = ctx.gateTimedOut();
    std::vector<double> timestampMs, gpuDurationMs;
    if (clocks) {
        clocks->endBatch(count, timestampMs, gpuDurationMs);
        if (late && clocks->gpuDuration()) {
            // Automatic ranges serialise launches; if that held the queued launches back until the
            // gate gave up, every batch would cost the gate's timeout: keep the other clocks.
            clocks->stopGpuDuration("gpu__time_duration per sample stopped: the Range Profiler held the "
                                    "batch behind the spin gate until the gate timed out");
        }
    }
    for (int g = 0; g < count; ++g) {
        Sample sample;
        sample.ms = ctx.elapsedMs(ctx.event(2 * g), ctx.event(2 * g + 1), stage, label);
        sample.mhz = ctx.clockMhz(g);
        if (clocks) {
            sample.timestampMs = timestampMs[static_cast<size_t>(g)];
            sample.gpuDurationMs = gpuDurationMs[static_cast<size_t>(g)];
        }
        out.push_back(sample);
    }
    if (late) {
        ++v.result.gateTimeouts;
    }
}

void TimingProcedure::startClocks(RequestContext& rc) {
    if (rc.request.clock == kClockEvents) {
        m_clockNote = "the request asked for CUDA events only (clock: events)";
        return;
    }
    DeviceContext& ctx = rc.device;
    const Cupti* cupti = ctx.cupti();
    if (!cupti) {
        m_clockNote = cuptiFailureMessage(CuptiFailure::Missing, "Timing on the GPU's own clocks", ctx.cuptiError());
        return;
    }
    m_clocks = std::make_unique<DurationClocks>(cupti, ctx.context(), ctx.deviceIndex());
    m_clocks->enable(true);
    if (!m_clocks->timestamps() && !m_clocks->gpuDuration()) {
        m_clockNote = m_clocks->note();
        m_clocks.reset();
    }
}

TimingProcedure::Sample TimingProcedure::hotSample(DeviceContext& ctx, LoadedVariant& v,
                                                     const std::string& stage) {
    Driver& d = ctx.driver();
    const std::string& label = v.label();
    ctx.armGate(stage);
    ctx.check(d.cuEventRecord(ctx.event(0), ctx.stream()), "cuEventRecord", stage, label);
    ctx.check(d.cuGraphLaunch(v.graph->exec(), ctx.stream()), "cuGraphLaunch", stage, label);
    ctx.check(d.cuEventRecord(ctx.event(1), ctx.stream()), "cuEventRecord", stage, label);
    ctx.queueClockProbe(0, stage, label);
    CUevent done = ctx.doneEvent();
    ctx.check(d.cuEventRecord(done, ctx.stream()), "cuEventRecord", stage, label);
    ctx.releaseGate();
    ctx.waitEvent(done, stage, label);
    if (ctx.gateTimedOut()) {
        ++v.result.gateTimeouts;
    }
    // float ÷ int, as the events give it (the samples stay bit-identical to the one-class runner).
    const float ms = ctx.elapsedMs(ctx.event(0), ctx.event(1), stage, label);
    return {ms / v.graph->launches(), ctx.clockMhz(0)};
}

void TimingProcedure::run(RequestContext& rc, const std::vector<LoadedVariant*>& vars, RunResult& result) {
    (void)result;
    DeviceContext& ctx = rc.device;
    warmUp(ctx, vars, rc.progress);
    const MeasureMode mode = chooseMode(rc.request.mode, vars);
    if (mode == MeasureMode::Hot) {
        buildGraphs(ctx, vars, rc.progress);
    } else {
        // After the warm-up, which picks the mode: the warm-up stays as it was without CUPTI.
        startClocks(rc);
    }
    measure(rc, vars, mode);
    // Off before the graph costs: their launches are not samples.
    m_clocks.reset();
    if (mode == MeasureMode::Hot) {
        nodeTimestamps(rc, vars);
    }
    if (mode == MeasureMode::Hot || rc.request.measureGraph) {
        for (LoadedVariant* v : vars) {
            v->result.graph = measureGraphCosts(ctx, *v, rc.progress);
        }
    }
    if (rc.request.graphPath && !vars.empty()) {
        // Last: its thousands of launches must not sit between the samples and the graph costs.
        vars.front()->result.graphPath =
            measureGraphPath(ctx, *vars.front(), *rc.request.graphPath, rc.progress);
    }
}

void TimingProcedure::nodeTimestamps(RequestContext& rc, const std::vector<LoadedVariant*>& vars) {
    DeviceContext& ctx = rc.device;
    auto noteAll = [&](const std::string& why) {
        for (LoadedVariant* v : vars) {
            v->result.clockNote = why;
        }
    };
    if (rc.request.clock == kClockEvents) {
        noteAll("the request asked for CUDA events only (clock: events): no node timestamps");
        return;
    }
    const Cupti* cupti = ctx.cupti();
    if (!cupti) {
        noteAll(cuptiFailureMessage(CuptiFailure::Missing, "Graph node timestamps", ctx.cuptiError()));
        return;
    }
    DurationClocks clocks(cupti, ctx.context(), ctx.deviceIndex());
    clocks.enable(false);
    if (!clocks.timestamps()) {
        noteAll(clocks.note().empty() ? "graph node timestamps are not available" : clocks.note());
        return;
    }
    clocks.discard();
    for (LoadedVariant* v : vars) {
        std::vector<double> series;
        const size_t replays = std::min(kNodeReplays, v->result.samplesMs.size());
        // These replays are not samples: a gate that timed out here is not the samples' business.
        const int gateTimeouts = v->result.gateTimeouts;
        for (size_t i = 0; i < replays; ++i) {
            hotSample(ctx, *v, "node_timestamps");
            const double ms = clocks.graphNodeMedianMs();
            if (!std::isnan(ms)) {
                series.push_back(ms);
            }
        }
        v->result.gateTimeouts = gateTimeouts;
        if (series.empty()) {
            v->result.clockNote = "CUPTI delivered no records for the graph's kernel nodes";
        } else {
            v->result.samplesByClock[kClockNodeTimestamps] = std::move(series);
        }
    }
    clocks.disable();
}

void TimingProcedure::warmUp(DeviceContext& ctx, const std::vector<LoadedVariant*>& vars,
                             RequestProgress& progress) {
    // ≥ 3 runs and ≥ 25 ms, which also gives the estimate that picks the mode.
    for (LoadedVariant* v : vars) {
        auto t0 = Clock::now();
        std::vector<Sample> s;
        int runs = 0;
        while (runs < 3 || msSince(t0) < 25.0) {
            coldSamples(ctx, *v, 1, s, "warmup");
            ++runs;
            progress.report("warmup", v->label(), 0, 0, false);
            if (msSince(t0) > 5000.0) {
                break;
            }
        }
        v->result.warmupRuns = runs;
        double gpu = 0;
        std::vector<double> ms;
        for (const Sample& c : s) {
            gpu += c.ms;
            ms.push_back(c.ms);
        }
        v->result.warmupMs = gpu;
        std::sort(ms.begin(), ms.end());
        v->estimateMs = quantileSorted(ms, 0.5);
    }
}

MeasureMode TimingProcedure::chooseMode(MeasureMode requested,
                                        const std::vector<LoadedVariant*>& vars) const {
    if (requested != MeasureMode::Auto) {
        return requested;
    }
    // One mode for all variants, so a comparison compares like with like.
    double shortest = 1e300;
    for (LoadedVariant* v : vars) {
        shortest = std::min(shortest, v->estimateMs);
    }
    return shortest < kHotThresholdMs ? MeasureMode::Hot : MeasureMode::Cold;
}

void TimingProcedure::buildGraphs(DeviceContext& ctx, const std::vector<LoadedVariant*>& vars,
                                  RequestProgress& progress) {
    for (LoadedVariant* v : vars) {
        const int k = launchesPerReplay(v->estimateMs);
        progress.report("graph_build", v->label(), 0, 0, true);
        v->graph = std::make_unique<ReplayGraph>(ctx, *v, k);
        auto t0 = Clock::now();
        int runs = 0;
        while (runs < 3 || msSince(t0) < 25.0) {
            hotSample(ctx, *v, "warmup");
            ++runs;
            if (msSince(t0) > 5000.0) {
                break;
            }
        }
        v->result.launchesPerSample = k;
    }
}

void TimingProcedure::measure(RequestContext& rc, const std::vector<LoadedVariant*>& vars, MeasureMode mode) {
    DeviceContext& ctx = rc.device;
    // Interleaved over the variants (A B A B ...), each variant with its own stopping rule; stop
    // when every rule is satisfied, or at the wall limit.
    std::vector<StopRule> rules(vars.size(), StopRule(rc.request.stop));
    for (LoadedVariant* v : vars) {
        v->result.mode = modeName(mode);
        v->result.eventOverheadUs = m_eventOverheadUs;
    }
    const double throttleMhz = kThrottleRatio * ctx.device().clockMhz;
    // One batch size for all variants, so interleaved samples pair up one to one.
    double shortestEstimate = 1e300;
    for (LoadedVariant* v : vars) {
        shortestEstimate = std::min(shortestEstimate, v->estimateMs);
    }
    const int coldBatch = shortestEstimate < 0.2 ? DeviceContext::kMaxBatch : 1;
    const auto loopStart = Clock::now();
    StopReason reason = StopReason::Continue;
    std::vector<Sample> batch;
    // The kept samples on the GPU's own clocks, parallel to each variant's samplesMs.
    std::vector<std::vector<double>> keptTimestamps(vars.size()), keptGpuDuration(vars.size());
    if (m_clocks) {
        m_clocks->discard();
    }
    std::vector<size_t> order;
    for (size_t i = 0; i < vars.size(); ++i) {
        order.push_back(i);
    }
    for (size_t round = 0;; ++round) {
        bool throttled = false;
        // A B, B A, A B, ...: neither variant always runs right after the other.
        if (round > 0) {
            std::reverse(order.begin(), order.end());
        }
        for (size_t i : order) {
            LoadedVariant& v = *vars[i];
            batch.clear();
            if (mode == MeasureMode::Cold) {
                coldSamples(ctx, v, coldBatch, batch, "measure");
            } else {
                batch.push_back(hotSample(ctx, v, "measure"));
            }
            for (const Sample& sample : batch) {
                if (sample.mhz > 0 && sample.mhz < throttleMhz) {
                    ++v.result.throttledSamples;
                    throttled = true;
                    continue;
                }
                // The stop rule follows the event times (there for every sample, whatever clock
                // is chosen at the end).
                rules[i].add(sample.ms);
                v.result.samplesMs.push_back(sample.ms);
                v.result.sampleClockMhz.push_back(sample.mhz);
                keptTimestamps[i].push_back(sample.timestampMs);
                keptGpuDuration[i].push_back(sample.gpuDurationMs);
            }
        }
        if (throttled) {
            // Back off briefly: a clock below 75 % of rated means power or thermal limits.
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        const double wall = msSince(loopStart) / 1000.0;
        bool allDone = true;
        reason = StopReason::Continue;
        for (const StopRule& rule : rules) {
            StopReason r = rule.decide(wall);
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
        rc.progress.report("measure", vars.front()->label(), rules.front().count(), rules.front().noise(),
                           false);
    }
    for (size_t i = 0; i < vars.size(); ++i) {
        LoadedVariant& v = *vars[i];
        v.result.stopReason = stopReasonName(rules[i].decide(msSince(loopStart) / 1000.0));
        if (v.result.stopReason == "continue") {
            v.result.stopReason = stopReasonName(reason);
        }
        if (v.result.samplesMs.empty()) {
            RunError e{RunErrorKind::Throttled,
                       "every sample was taken below 75 % of the rated SM clock (" +
                           std::to_string(ctx.device().clockMhz) + " MHz); nothing to report",
                       "",
                       0,
                       "measure",
                       v.label(),
                       false};
            throw RequestFailure(e, 0);
        }
    }
    if (mode == MeasureMode::Hot) {
        for (LoadedVariant* v : vars) {
            v->result.durationClock = kClockGraphReplay;
            v->result.samplesByClock = {{kClockGraphReplay, v->result.samplesMs}};
        }
        return;
    }
    // Cold: every clock taken, then one headline clock for all variants alike.
    // A clock's series joins when it ran at all (also when it was stopped part way: then it has
    // gaps, which settleDurationClock() notes and drops).
    bool anyGpuDuration = m_clocks && m_clocks->gpuDuration();
    for (const auto& series : keptGpuDuration) {
        for (double x : series) {
            anyGpuDuration = anyGpuDuration || !std::isnan(x);
        }
    }
    std::vector<VariantResult*> results;
    for (size_t i = 0; i < vars.size(); ++i) {
        VariantResult& r = vars[i]->result;
        r.samplesByClock = {{kClockEvents, r.samplesMs}};
        if (m_clocks && m_clocks->timestamps()) {
            r.samplesByClock[kClockKernelTimestamps] = keptTimestamps[i];
        }
        if (anyGpuDuration) {
            r.samplesByClock[kClockGpuTimeDuration] = keptGpuDuration[i];
        }
        results.push_back(&r);
    }
    std::string note = m_clockNote;
    if (m_clocks && !m_clocks->note().empty() && note.find(m_clocks->note()) == std::string::npos) {
        note += (note.empty() ? "" : "; ") + m_clocks->note();
    }
    settleDurationClock(results, note);
}

} // namespace lowerscope::runner
