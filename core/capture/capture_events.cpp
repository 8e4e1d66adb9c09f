// The injection's event lines, written (capture_events.h); capture_log.cpp reads them. This file
// is compiled into the injection library too, so it uses nothing of the core but this header.
#include "core/capture/capture_events.h"

#include <nlohmann/json.hpp>

namespace lowerscope::capture {

namespace {

using nlohmann::json;

std::string line(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

json triple(const std::array<int64_t, 3>& v) { return json::array({v[0], v[1], v[2]}); }

} // namespace

std::string processEventLine(uint32_t pid, const std::string& cuptiVersion, const std::string& error) {
    return line({{"e", "process"}, {"pid", pid}, {"cupti", cuptiVersion}, {"error", error}});
}

std::string deviceEventLine(const CapturedDevice& d) {
    return line({{"e", "device"}, {"pid", d.pid}, {"id", d.id}, {"name", d.name}, {"cc", {d.ccMajor, d.ccMinor}}});
}

std::string moduleEventLine(const CapturedModule& m) {
    return line({{"e", "module"}, {"pid", m.pid}, {"module", m.moduleId}, {"hash", m.hash}, {"bytes", m.bytes}});
}

std::string kernelEventLine(const CapturedLaunch& k) {
    return line({{"e", "kernel"},
                 {"pid", k.pid},
                 {"corr", k.correlationId},
                 {"name", k.name},
                 {"device", k.device},
                 {"context", k.context},
                 {"stream", k.stream},
                 {"grid", triple(k.grid)},
                 {"block", triple(k.block)},
                 {"cluster", triple(k.cluster)},
                 {"smem", {k.dynamicSmem, k.staticSmem}},
                 {"regs", k.registers},
                 {"start", k.startNs},
                 {"end", k.endNs},
                 {"graph", k.graphId},
                 {"graph_node", k.graphNodeId}});
}

std::string endEventLine(uint32_t pid, uint64_t dropped) {
    return line({{"e", "end"}, {"pid", pid}, {"dropped", dropped}});
}

} // namespace lowerscope::capture
