// Runner protocol: CUDA Graph costs (hot mode and measure_graph) and the graph-path measurement of
// experiment 4 — its options in a request and its result; each reader next to its writer.
#include "core/run/protocol.h"
#include "core/run/protocol_detail.h"

#include <algorithm>
#include <cmath>

namespace lowerscope {

using nlohmann::json;
using namespace protocol_detail;

json toJson(const GraphCosts& v) {
    return json{{"launches_per_graph", v.launchesPerGraph},
                {"capture_ms", v.captureMs},
                {"instantiate_ms", v.instantiateMs},
                {"upload_ms", v.uploadMs},
                {"replay_per_launch_us", v.replayPerLaunchUs},
                {"stream_per_launch_us", v.streamPerLaunchUs},
                {"empty_node_us", v.emptyNodeUs},
                {"empty_kernel_us", v.emptyKernelUs},
                {"break_even_replays", optD(v.breakEvenReplays)}};
}

void fromJson(const json& j, GraphCosts& v) {
    v.launchesPerGraph = static_cast<int>(getI(j, "launches_per_graph", 0));
    v.captureMs = getD(j, "capture_ms", 0);
    v.instantiateMs = getD(j, "instantiate_ms", 0);
    v.uploadMs = getD(j, "upload_ms", 0);
    v.replayPerLaunchUs = getD(j, "replay_per_launch_us", 0);
    v.streamPerLaunchUs = getD(j, "stream_per_launch_us", 0);
    v.emptyNodeUs = getD(j, "empty_node_us", 0);
    v.emptyKernelUs = getD(j, "empty_kernel_us", 0);
    v.breakEvenReplays = getOptD(j, "break_even_replays");
}

std::string checkGraphPathOptions(const GraphPathOptions& o) {
    if (o.pathLengths.empty() || o.pathLengths.size() > 16) {
        return "path_lengths: give 1 to 16 path lengths";
    }
    for (size_t i = 0; i < o.pathLengths.size(); ++i) {
        if (o.pathLengths[i] < 1 || o.pathLengths[i] > 4096) {
            return "path_lengths: " + std::to_string(o.pathLengths[i]) + " is not in 1 .. 4096";
        }
        if (std::find(o.pathLengths.begin(), o.pathLengths.begin() + static_cast<long>(i),
                      o.pathLengths[i]) != o.pathLengths.begin() + static_cast<long>(i)) {
            return "path_lengths: " + std::to_string(o.pathLengths[i]) + " is given twice";
        }
    }
    if (o.replays.empty() || o.replays.size() > 64) {
        return "replays: give 1 to 64 replay counts";
    }
    for (size_t i = 0; i < o.replays.size(); ++i) {
        if (o.replays[i] < 1 || o.replays[i] > 100000) {
            return "replays: " + std::to_string(o.replays[i]) + " is not in 1 .. 100000";
        }
        if (i > 0 && o.replays[i] <= o.replays[i - 1]) {
            return "replays: the counts must increase";
        }
    }
    // One end-to-end total is timed whole (the wall limit is checked between totals): keep the
    // longest, max N × max R launches, to seconds rather than hours.
    const long long longest =
        static_cast<long long>(*std::max_element(o.pathLengths.begin(), o.pathLengths.end())) *
        *std::max_element(o.replays.begin(), o.replays.end());
    if (longest > (1LL << 24)) {
        return "replays: the longest path length times the most replays is " + std::to_string(longest) +
               " launches, more than 16777216";
    }
    if (o.repetitions < 3 || o.repetitions > 101) {
        return "repetitions: " + std::to_string(o.repetitions) + " is not in 3 .. 101";
    }
    if (!(o.wallLimitS > 0 && o.wallLimitS <= 3600)) {
        return "wall_limit_s: not in (0, 3600] s";
    }
    return "";
}

namespace {

std::vector<int> getInts(const json& j, const char* key, int64_t lo, int64_t hi) {
    std::vector<int> out;
    const json& a = need(j, key);
    if (!a.is_array()) {
        bad(key, "expected an array of integers");
    }
    for (const auto& x : a) {
        const int64_t v = asInt(x, key);
        if (v < lo || v > hi) {
            bad(key, std::to_string(v) + " is out of range");
        }
        out.push_back(static_cast<int>(v));
    }
    return out;
}

// The required integer `key`, within lo .. hi.
int intIn(const json& j, const char* key, int lo, int hi) {
    const int64_t v = asInt(need(j, key), key);
    if (v < lo || v > hi) {
        bad(key, "not in " + std::to_string(lo) + " .. " + std::to_string(hi));
    }
    return static_cast<int>(v);
}

// The required array `key` of at most `most` objects.
const json& objectsUpTo(const json& j, const char* key, size_t most) {
    const json& a = need(j, key);
    if (!a.is_array() || a.size() > most) {
        bad(key, "expected an array of at most " + std::to_string(most) + " objects");
    }
    for (const json& x : a) {
        if (!x.is_object()) {
            bad(key, "expected objects");
        }
    }
    return a;
}

// Times of the graph path: finite and not negative (a runner's answer is untrusted).
std::vector<double> getTimes(const json& j, const char* key) {
    std::vector<double> out = getDoubles(j, key);
    for (double x : out) {
        if (!std::isfinite(x) || x < 0) {
            bad(key, "expected finite, non-negative times");
        }
    }
    return out;
}

} // namespace

json toJson(const GraphPathOptions& v) {
    return json{{"path_lengths", v.pathLengths},
                {"replays", v.replays},
                {"repetitions", v.repetitions},
                {"wall_limit_s", v.wallLimitS}};
}

void fromJson(const json& j, GraphPathOptions& v) {
    if (!j.is_object()) {
        throw ProtocolError("graph_path: expected an object");
    }
    v.pathLengths = getInts(j, "path_lengths", 1, 4096);
    v.replays = getInts(j, "replays", 1, 100000);
    v.repetitions = static_cast<int>(getI(j, "repetitions", 9));
    v.wallLimitS = getD(j, "wall_limit_s", 120);
    const std::string problem = checkGraphPathOptions(v);
    if (!problem.empty()) {
        throw ProtocolError("graph_path: " + problem);
    }
}

json toJson(const GraphPathResult& v) {
    json paths = json::array();
    for (const GraphPathEntry& e : v.paths) {
        json points = json::array();
        for (const GraphPathPoint& p : e.points) {
            points.push_back(
                json{{"replays", p.replays}, {"stream_ms", p.streamMs}, {"graph_ms", p.graphMs}});
        }
        paths.push_back(json{{"path_length", e.pathLength},
                             {"capture_ms", e.captureMs},
                             {"instantiate_ms", e.instantiateMs},
                             {"upload_ms", e.uploadMs},
                             {"steady_paths", e.steadyPaths},
                             {"stream_path_us", e.streamPathUs},
                             {"graph_path_us", e.graphPathUs},
                             {"stream_path_gpu_us", e.streamPathGpuUs},
                             {"graph_path_gpu_us", e.graphPathGpuUs},
                             {"points", points}});
    }
    return json{{"repetitions", v.repetitions}, {"paths", paths}, {"note", v.note}};
}

void fromJson(const json& j, GraphPathResult& v) {
    if (!j.is_object()) {
        throw ProtocolError("graph_path: expected an object");
    }
    v.repetitions = static_cast<int>(getI(j, "repetitions", 0));
    if (v.repetitions < 0 || v.repetitions > 101) {
        bad("repetitions", "out of range");
    }
    v.note = getS(j, "note");
    v.paths.clear();
    for (const json& p : objectsUpTo(j, "paths", 16)) {
        GraphPathEntry e;
        e.pathLength = intIn(p, "path_length", 1, 4096);
        e.captureMs = getTimes(p, "capture_ms");
        e.instantiateMs = getTimes(p, "instantiate_ms");
        e.uploadMs = getTimes(p, "upload_ms");
        e.steadyPaths = static_cast<int>(getI(p, "steady_paths", 0));
        if (e.steadyPaths < 0 || e.steadyPaths > 1000000) {
            bad("steady_paths", "out of range");
        }
        e.streamPathUs = getTimes(p, "stream_path_us");
        e.graphPathUs = getTimes(p, "graph_path_us");
        e.streamPathGpuUs = getTimes(p, "stream_path_gpu_us");
        e.graphPathGpuUs = getTimes(p, "graph_path_gpu_us");
        for (const json& q : objectsUpTo(p, "points", 64)) {
            GraphPathPoint pt;
            pt.replays = intIn(q, "replays", 1, 100000);
            pt.streamMs = getTimes(q, "stream_ms");
            pt.graphMs = getTimes(q, "graph_ms");
            if (pt.streamMs.size() != pt.graphMs.size()) {
                bad("graph_ms", "not as many repetitions as stream_ms");
            }
            e.points.push_back(std::move(pt));
        }
        v.paths.push_back(std::move(e));
    }
}

} // namespace lowerscope
