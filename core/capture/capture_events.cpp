// The injection's event lines, written (capture_events.h); capture_log.cpp reads them. This file
// is compiled into the injection library too, so it uses nothing of the core but this header and
// json_text.h.
#include "core/capture/capture_events.h"

#include "core/capture/json_text.h"

#include <nlohmann/json.hpp>

namespace lowerscope::capture {

namespace {

using nlohmann::json;

std::string line(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}


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

// Written field by field: the injection writes one of these per kernel execution when CUPTI
// hands over its activity buffers (at the program's exit, 10,000 of them took 54 ms as JSON
// objects on the H100's host). The same document as a JSON object would dump, keys in any order.
std::string kernelEventLine(const CapturedLaunch& k) {
    std::string out;
    out.reserve(256 + k.name.size());
    auto key = [&](const char* name) {
        out += '"';
        out += name;
        out += "\":";
    };
    auto number = [&](const char* name, auto v) {
        key(name);
        appendJsonInteger(out, v);
        out += ',';
    };
    auto list = [&](const char* name, std::initializer_list<int64_t> vs) {
        key(name);
        out += '[';
        for (int64_t v : vs) {
            appendJsonInteger(out, v);
            out += ',';
        }
        out.back() = ']';
        out += ',';
    };
    out += "{\"e\":\"kernel\",";
    number("pid", k.pid);
    number("corr", k.correlationId);
    key("name");
    appendJsonString(out, k.name);
    out += ',';
    number("device", k.device);
    number("context", k.context);
    number("stream", k.stream);
    list("grid", {k.grid[0], k.grid[1], k.grid[2]});
    list("block", {k.block[0], k.block[1], k.block[2]});
    list("cluster", {k.cluster[0], k.cluster[1], k.cluster[2]});
    list("smem", {k.dynamicSmem, k.staticSmem});
    number("regs", k.registers);
    number("start", k.startNs);
    number("end", k.endNs);
    number("graph", k.graphId);
    number("graph_node", k.graphNodeId);
    out.back() = '}';
    out += '\n';
    return out;
}

std::string endEventLine(uint32_t pid, uint64_t dropped) {
    return line({{"e", "end"}, {"pid", pid}, {"dropped", dropped}});
}

} // namespace lowerscope::capture
