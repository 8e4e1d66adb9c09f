#pragma once
// CUDA graphs of a variant. ReplayGraph captures K back-to-back launches of it (hot mode replays
// that graph; TIMING.md); measureGraphCosts() reports what graphs cost and save (GraphCosts in
// core/run/protocol.h): capture, instantiate and upload times, the per-launch time replayed against
// launched from the stream, the overhead of empty nodes and of empty kernels, and the break-even.

#include "app/runner/cuda_api.h"
#include "app/runner/device_context.h"
#include "app/runner/request_progress.h"
#include "core/run/protocol.h"

#include <string>

namespace lowerscope::runner {

class LoadedVariant;

// K launches of a variant captured into a graph, instantiated and uploaded (host wall times kept).
// Destroys the graph and its instance with it. Throws RequestFailure.
// With `waitForUpload` the upload time runs until the stream is idle (a cost on its own); without,
// it is the host time of cuGraphUpload alone and replays queue behind the upload (an
// application's capture → instantiate → upload → launch, timed end to end by graph_path.h).
class ReplayGraph {
public:
    // `stage` names the stage in errors.
    ReplayGraph(DeviceContext& ctx, LoadedVariant& variant, int launches, bool waitForUpload = true,
                const std::string& stage = "graph");
    ~ReplayGraph();
    ReplayGraph(const ReplayGraph&) = delete;
    ReplayGraph& operator=(const ReplayGraph&) = delete;

    CUgraphExec exec() const { return m_exec; }
    int launches() const { return m_launches; }
    double captureMs() const { return m_captureMs; }
    double instantiateMs() const { return m_instantiateMs; }
    double uploadMs() const { return m_uploadMs; }

private:
    void release();

    DeviceContext& m_ctx;
    CUgraph m_graph = nullptr;
    CUgraphExec m_exec = nullptr;
    int m_launches = 0;
    double m_captureMs = 0, m_instantiateMs = 0, m_uploadMs = 0;
};

// How many launches of `estimateMs` each make one replay last at least 1 ms (1 .. 20000).
int launchesPerReplay(double estimateMs);

// One replay of `exec` behind the spin gate, GPU time in ms.
double gatedReplayMs(DeviceContext& ctx, CUgraphExec exec, const std::string& stage);

// The graph figures of a variant (builds its ReplayGraph when it has none). Throws RequestFailure.
GraphCosts measureGraphCosts(DeviceContext& ctx, LoadedVariant& variant, RequestProgress& progress);

} // namespace lowerscope::runner
