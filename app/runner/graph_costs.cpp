// CUDA graphs of a variant (graph_costs.h).
#include "app/runner/graph_costs.h"

#include "app/runner/loaded_variant.h"
#include "core/run/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace lowerscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

constexpr double kReplayTargetMs = 1.0; // hot mode: a replay lasts ≥ 1 ms
constexpr int kMaxGraphLaunches = 20000;

// Instantiates and uploads `graph` (taking ownership), replays it 5 times behind the gate and
// returns the median time per node in µs; the graph and its instance are destroyed.
double medianReplayPerNodeUs(DeviceContext& ctx, CUgraph graph, int nodes, const std::string& label) {
    Driver& d = ctx.driver();
    CUgraphExec exec = nullptr;
    ctx.check(d.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiate", "graph_costs", label);
    ctx.check(d.cuGraphUpload(exec, ctx.stream()), "cuGraphUpload", "graph_costs", label);
    std::vector<double> t;
    for (int i = 0; i < 5; ++i) {
        t.push_back(gatedReplayMs(ctx, exec, "graph_costs") * 1000.0 / nodes);
    }
    std::sort(t.begin(), t.end());
    d.cuGraphExecDestroy(exec);
    d.cuGraphDestroy(graph);
    return quantileSorted(t, 0.5);
}

} // namespace

int launchesPerReplay(double estimateMs) {
    return static_cast<int>(
        std::clamp(std::ceil(kReplayTargetMs / std::max(estimateMs, 1e-4)), 1.0, double(kMaxGraphLaunches)));
}

ReplayGraph::ReplayGraph(DeviceContext& ctx, LoadedVariant& v, int launches, bool waitForUpload,
                         const std::string& stage)
    : m_ctx(ctx), m_launches(launches) {
    Driver& d = ctx.driver();
    const CUstream stream = ctx.stream();
    const std::string& label = v.label();
    try {
        auto t0 = Clock::now();
        ctx.check(d.cuStreamBeginCapture(stream, STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture",
                  stage, label);
        for (int i = 0; i < launches; ++i) {
            CUresult r = v.launchAsync(stream);
            if (r != CUDA_SUCCESS) {
                CUgraph g = nullptr;
                d.cuStreamEndCapture(stream, &g);
                if (g) {
                    d.cuGraphDestroy(g);
                }
                ctx.check(r, "cuLaunchKernel(capture)", stage, label);
            }
        }
        ctx.check(d.cuStreamEndCapture(stream, &m_graph), "cuStreamEndCapture", stage, label);
        m_captureMs = msSince(t0);
        t0 = Clock::now();
        ctx.check(d.cuGraphInstantiateWithFlags(&m_exec, m_graph, 0), "cuGraphInstantiate", stage, label);
        m_instantiateMs = msSince(t0);
        t0 = Clock::now();
        ctx.check(d.cuGraphUpload(m_exec, stream), "cuGraphUpload", stage, label);
        if (waitForUpload) {
            ctx.check(d.cuStreamSynchronize(stream), "cuStreamSynchronize", stage, label);
        }
        m_uploadMs = msSince(t0);
    } catch (...) {
        // A failed build must not leave a graph behind (the runner keeps serving requests).
        release();
        throw;
    }
}

ReplayGraph::~ReplayGraph() {
    release();
}

void ReplayGraph::release() {
    Driver& d = m_ctx.driver();
    if (m_exec) {
        d.cuGraphExecDestroy(m_exec);
        m_exec = nullptr;
    }
    if (m_graph) {
        d.cuGraphDestroy(m_graph);
        m_graph = nullptr;
    }
}

double gatedReplayMs(DeviceContext& ctx, CUgraphExec exec, const std::string& stage) {
    Driver& d = ctx.driver();
    ctx.armGate(stage);
    ctx.check(d.cuEventRecord(ctx.event(0), ctx.stream()), "cuEventRecord", stage);
    ctx.check(d.cuGraphLaunch(exec, ctx.stream()), "cuGraphLaunch", stage);
    ctx.check(d.cuEventRecord(ctx.event(1), ctx.stream()), "cuEventRecord", stage);
    ctx.releaseGate();
    ctx.waitEvent(ctx.event(1), stage, "");
    return ctx.elapsedMs(ctx.event(0), ctx.event(1), stage);
}

GraphCosts measureGraphCosts(DeviceContext& ctx, LoadedVariant& v, RequestProgress& progress) {
    Driver& d = ctx.driver();
    const CUstream stream = ctx.stream();
    const std::string& label = v.label();
    if (!v.graph) {
        v.graph = std::make_unique<ReplayGraph>(ctx, v, launchesPerReplay(v.estimateMs));
    }
    progress.report("graph_costs", label, 0, 0, true);
    const ReplayGraph& graph = *v.graph;
    const int k = graph.launches();
    GraphCosts g;
    g.launchesPerGraph = k;
    g.captureMs = graph.captureMs();
    g.instantiateMs = graph.instantiateMs();
    g.uploadMs = graph.uploadMs();
    std::vector<double> replay, fromStream;
    for (int i = 0; i < 5; ++i) {
        replay.push_back(gatedReplayMs(ctx, graph.exec(), "graph_costs") / k);
        // The same K launches from the stream, back to back, ungated: the host's launch rate
        // shows up here exactly as it would in an application.
        ctx.check(d.cuEventRecord(ctx.event(0), stream), "cuEventRecord", "graph_costs", label);
        for (int j = 0; j < k; ++j) {
            v.launch(stream);
        }
        ctx.check(d.cuEventRecord(ctx.event(1), stream), "cuEventRecord", "graph_costs", label);
        ctx.waitEvent(ctx.event(1), "graph_costs", label);
        fromStream.push_back(ctx.elapsedMs(ctx.event(0), ctx.event(1), "graph_costs", label) / k);
        progress.report("graph_costs", label, 0, 0, false);
    }
    std::sort(replay.begin(), replay.end());
    std::sort(fromStream.begin(), fromStream.end());
    g.replayPerLaunchUs = quantileSorted(replay, 0.5) * 1000.0;
    g.streamPerLaunchUs = quantileSorted(fromStream, 0.5) * 1000.0;
    const double saving = g.streamPerLaunchUs - g.replayPerLaunchUs; // µs per launch
    if (saving > 0) {
        g.breakEvenReplays = (g.captureMs + g.instantiateMs) * 1000.0 / (saving * k);
    }

    // Graph overhead on its own: a chain of empty nodes, and a graph of empty kernels.
    const int nodes = 1000;
    {
        CUgraph empty = nullptr;
        ctx.check(d.cuGraphCreate(&empty, 0), "cuGraphCreate", "graph_costs", label);
        CUgraphNode prev = nullptr;
        for (int i = 0; i < nodes; ++i) {
            CUgraphNode n = nullptr;
            ctx.check(d.cuGraphAddEmptyNode(&n, empty, prev ? &prev : nullptr, prev ? 1 : 0),
                      "cuGraphAddEmptyNode", "graph_costs", label);
            prev = n;
        }
        g.emptyNodeUs = medianReplayPerNodeUs(ctx, empty, nodes, label);
    }
    {
        CUgraph kernels = nullptr;
        ctx.check(d.cuStreamBeginCapture(stream, STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture",
                  "graph_costs", label);
        for (int i = 0; i < nodes; ++i) {
            ctx.check(d.cuLaunchKernel(ctx.emptyKernel(), 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr),
                      "cuLaunchKernel(empty)", "graph_costs", label);
        }
        ctx.check(d.cuStreamEndCapture(stream, &kernels), "cuStreamEndCapture", "graph_costs", label);
        g.emptyKernelUs = medianReplayPerNodeUs(ctx, kernels, nodes, label);
    }
    return g;
}

} // namespace lowerscope::runner
