// The graph-path measurement of experiment 4 (graph_path.h).
#include "app/runner/graph_path.h"

#include "app/runner/graph_costs.h"
#include "app/runner/loaded_variant.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

namespace lowerscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

constexpr double kSteadyTargetMs = 5.0; // a steady-state batch from the stream lasts about this long
constexpr int kCalibrationPaths = 16;   // the batch that sizes M
constexpr int kMaxSteadyPaths = 4096;
constexpr long kMaxSteadyLaunches = 1 << 18; // M × N at most (bounds a batch of long paths)
const std::string kStage = "graph_path";

class GraphPath {
public:
    GraphPath(DeviceContext& ctx, LoadedVariant& v, const GraphPathOptions& o, RequestProgress& progress)
        : m_ctx(ctx), m_d(ctx.driver()), m_v(v), m_o(o), m_progress(progress), m_start(Clock::now()) {}

    GraphPathResult run() {
        GraphPathResult r;
        r.repetitions = m_o.repetitions;
        for (int n : m_o.pathLengths) {
            if (overBudget()) {
                stop(r, "before N = " + std::to_string(n));
                break;
            }
            r.paths.push_back(GraphPathEntry{});
            GraphPathEntry& e = r.paths.back();
            e.pathLength = n;
            if (!measure(e)) {
                stop(r, "at N = " + std::to_string(n));
                break;
            }
        }
        return r;
    }

private:
    bool overBudget() const { return msSince(m_start) > m_o.wallLimitS * 1000.0; }

    void stop(GraphPathResult& r, const std::string& where) {
        r.note = "stopped " + where + ": the graph-path measurement passed its wall limit of " +
                 std::to_string(m_o.wallLimitS) + " s";
    }

    void tick(size_t done) { m_progress.report(kStage, m_v.label(), done, 0, false); }

    // Queues `paths` paths of `n` launches from the stream.
    void queueStreamPaths(int n, long paths) {
        for (long p = 0; p < paths; ++p) {
            for (int i = 0; i < n; ++i) {
                m_v.launch(m_ctx.stream());
            }
            tick(m_done);
        }
    }

    void queueReplays(CUgraphExec exec, long replays) {
        for (long p = 0; p < replays; ++p) {
            m_ctx.check(m_d.cuGraphLaunch(exec, m_ctx.stream()), "cuGraphLaunch", kStage, m_v.label());
            tick(m_done);
        }
    }

    // Records an event behind the queued work and waits for it (with the watchdog).
    void waitIdle() {
        CUevent done = m_ctx.doneEvent();
        m_ctx.check(m_d.cuEventRecord(done, m_ctx.stream()), "cuEventRecord", kStage, m_v.label());
        m_ctx.waitEvent(done, kStage, m_v.label());
    }

    // Host wall ms of `queue()` + wait, and the GPU ms between events around the queued work.
    template <typename Queue> std::pair<double, double> batch(Queue queue) {
        const auto t0 = Clock::now();
        m_ctx.check(m_d.cuEventRecord(m_ctx.event(0), m_ctx.stream()), "cuEventRecord", kStage, m_v.label());
        queue();
        m_ctx.check(m_d.cuEventRecord(m_ctx.event(1), m_ctx.stream()), "cuEventRecord", kStage, m_v.label());
        m_ctx.waitEvent(m_ctx.event(1), kStage, m_v.label());
        const double wall = msSince(t0);
        return {wall, m_ctx.elapsedMs(m_ctx.event(0), m_ctx.event(1), kStage, m_v.label())};
    }

    double streamTotalMs(int n, int replays) {
        const auto t0 = Clock::now();
        queueStreamPaths(n, replays);
        waitIdle();
        return msSince(t0);
    }

    double graphTotalMs(int n, int replays) {
        const auto t0 = Clock::now();
        double ms = 0;
        {
            ReplayGraph g(m_ctx, m_v, n, false, kStage);
            queueReplays(g.exec(), replays);
            waitIdle();
            ms = msSince(t0);
        } // destroyed after the clock stopped: an application keeps its graph
        return ms;
    }

    // Fills `e`; false when the wall limit stopped it part way.
    bool measure(GraphPathEntry& e) {
        const int n = e.pathLength;
        const int reps = m_o.repetitions;
        // Warm-up: the first capture and the first replay of a shape pay one-time costs.
        {
            ReplayGraph g(m_ctx, m_v, n, true, kStage);
            queueReplays(g.exec(), 1);
            queueStreamPaths(n, 1);
            waitIdle();
        }
        for (int i = 0; i < reps; ++i) {
            ReplayGraph g(m_ctx, m_v, n, true, kStage);
            e.captureMs.push_back(g.captureMs());
            e.instantiateMs.push_back(g.instantiateMs());
            e.uploadMs.push_back(g.uploadMs());
            tick(++m_done);
        }
        if (overBudget()) {
            return false;
        }

        // Steady state: M sized so a batch from the stream lasts about kSteadyTargetMs.
        const double calibrationMs = batch([&] { queueStreamPaths(n, kCalibrationPaths); }).first;
        const double perPathMs = std::max(calibrationMs / kCalibrationPaths, 1e-4);
        const long cap = std::max<long>(1, std::min<long>(kMaxSteadyPaths, kMaxSteadyLaunches / n));
        const long m = std::clamp<long>(static_cast<long>(std::ceil(kSteadyTargetMs / perPathMs)),
                                        std::min<long>(kCalibrationPaths, cap), cap);
        e.steadyPaths = static_cast<int>(m);
        {
            ReplayGraph g(m_ctx, m_v, n, true, kStage);
            for (int i = 0; i < reps; ++i) {
                auto streamSide = [&] {
                    const auto [wall, gpu] = batch([&] { queueStreamPaths(n, m); });
                    e.streamPathUs.push_back(wall * 1000.0 / double(m));
                    e.streamPathGpuUs.push_back(gpu * 1000.0 / double(m));
                };
                auto graphSide = [&] {
                    const auto [wall, gpu] = batch([&] { queueReplays(g.exec(), m); });
                    e.graphPathUs.push_back(wall * 1000.0 / double(m));
                    e.graphPathGpuUs.push_back(gpu * 1000.0 / double(m));
                };
                if (i % 2 == 0) {
                    streamSide();
                    graphSide();
                } else {
                    graphSide();
                    streamSide();
                }
                tick(++m_done);
            }
        }
        if (overBudget()) {
            return false;
        }

        // End to end for every R, rounds over all R so drift touches every R alike.
        for (int r : m_o.replays) {
            e.points.push_back(GraphPathPoint{r, {}, {}});
        }
        // Every round starts with an untimed graph built, replayed and destroyed, and the rounds run
        // the R values forwards and backwards in turn: a graph's teardown finishes asynchronously, and
        // with a fixed order the first R paid for the previous round's largest graph (R = 1 measured
        // up to 2x R = 2 on an H200, run to run).
        const size_t count = e.points.size();
        for (int round = 0; round < reps; ++round) {
            {
                ReplayGraph settle(m_ctx, m_v, n, false, kStage);
                queueReplays(settle.exec(), 1);
                waitIdle();
            }
            for (size_t i = 0; i < count; ++i) {
                if (overBudget()) {
                    return false;
                }
                const size_t k = round % 2 == 0 ? i : count - 1 - i;
                GraphPathPoint& p = e.points[k];
                if ((round + static_cast<int>(k)) % 2 == 0) {
                    p.streamMs.push_back(streamTotalMs(n, p.replays));
                    p.graphMs.push_back(graphTotalMs(n, p.replays));
                } else {
                    p.graphMs.push_back(graphTotalMs(n, p.replays));
                    p.streamMs.push_back(streamTotalMs(n, p.replays));
                }
                tick(++m_done);
            }
        }
        return true;
    }

    DeviceContext& m_ctx;
    Driver& m_d;
    LoadedVariant& m_v;
    const GraphPathOptions& m_o;
    RequestProgress& m_progress;
    Clock::time_point m_start;
    size_t m_done = 0; // timings taken (progress lines)
};

} // namespace

GraphPathResult measureGraphPath(DeviceContext& ctx, LoadedVariant& variant, const GraphPathOptions& options,
                                 RequestProgress& progress) {
    progress.report(kStage, variant.label(), 0, 0, true);
    return GraphPath(ctx, variant, options, progress).run();
}

} // namespace lowerscope::runner
