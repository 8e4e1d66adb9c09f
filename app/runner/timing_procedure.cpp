// The timing procedure (timing_procedure.h).
#include "app/runner/timing_procedure.h"

#include "app/runner/graph_costs.h"
#include "app/runner/loaded_variant.h"
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
    ctx.armGate(stage);
    for (int g = 0; g < count; ++g) {
        // Flush L2 outside the timed interval (a read pass: see ls_flush).
        ctx.flushL2(stage, label);
        ctx.check(d.cuEventRecord(ctx.event(2 * g), ctx.stream()), "cuEventRecord", stage, label);
        v.launch(ctx.stream());
        ctx.check(d.cuEventRecord(ctx.event(2 * g + 1), ctx.stream()), "cuEventRecord", stage, label);
        ctx.queueClockProbe(g, stage, label);
    }
    CUevent done = ctx.doneEvent();
    ctx.check(d.cuEventRecord(done, ctx.stream()), "cuEventRecord", stage, label);
    ctx.releaseGate();
    ctx.waitEvent(done, stage, label);
    const bool late = ctx.gateTimedOut();
    for (int g = 0; g < count; ++g) {
        const float ms = ctx.elapsedMs(ctx.event(2 * g), ctx.event(2 * g + 1), stage, label);
        out.emplace_back(ms, ctx.clockMhz(g));
    }
    if (late) {
        ++v.result.gateTimeouts;
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
    }
    measure(rc, vars, mode);
    if (mode == MeasureMode::Hot || rc.request.measureGraph) {
        for (LoadedVariant* v : vars) {
            v->result.graph = measureGraphCosts(ctx, *v, rc.progress);
        }
    }
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
            gpu += c.first;
            ms.push_back(c.first);
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
            for (const auto& [ms, mhz] : batch) {
                if (mhz > 0 && mhz < throttleMhz) {
                    ++v.result.throttledSamples;
                    throttled = true;
                    continue;
                }
                rules[i].add(ms);
                v.result.samplesMs.push_back(ms);
                v.result.sampleClockMhz.push_back(mhz);
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
}

} // namespace lowerscope::runner
