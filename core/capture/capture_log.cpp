// The injection's event lines read back (capture_events.h).
#include "core/capture/capture_events.h"

#include "core/bounded_json.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

namespace lowerscope::capture {

namespace {

using nlohmann::json;

// An integer field in [lo, hi], else nullopt.
std::optional<int64_t> integer(const json& j, const char* key, int64_t lo, int64_t hi) {
    const auto it = j.find(key);
    if (it == j.end()) return std::nullopt;
    int64_t v = 0;
    if (it->is_number_unsigned()) {
        const uint64_t u = it->get<uint64_t>();
        if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
        v = static_cast<int64_t>(u);
    } else if (it->is_number_integer()) {
        v = it->get<int64_t>();
    } else {
        return std::nullopt;
    }
    if (v < lo || v > hi) return std::nullopt;
    return v;
}

std::optional<uint64_t> unsignedField(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned()) {
        if (it != j.end() && it->is_number_integer() && it->get<int64_t>() >= 0)
            return static_cast<uint64_t>(it->get<int64_t>());
        return std::nullopt;
    }
    return it->get<uint64_t>();
}

bool tripleField(const json& j, const char* key, std::array<int64_t, 3>& out) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_array() || it->size() != 3) return false;
    for (size_t i = 0; i < 3; ++i) {
        const json& v = (*it)[i];
        if (!v.is_number_integer()) return false;
        const int64_t x = v.is_number_unsigned() ? static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), INT32_MAX))
                                                 : v.get<int64_t>();
        if (x < 0 || x > INT32_MAX) return false;
        out[i] = x;
    }
    return true;
}

bool isHashText(const std::string& s) {
    return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

constexpr int64_t kU32 = 0xffffffffLL;

} // namespace

CapturedProcess& CaptureLog::process(uint32_t pid) {
    for (auto& p : processes)
        if (p.pid == pid) return p;
    processes.push_back(CapturedProcess{pid, {}, {}, false, 0});
    return processes.back();
}

bool CaptureLog::addLine(std::string_view text) {
    auto skip = [&](const std::string& why) {
        if (skippedLines++ == 0) firstSkipReason = why;
        return false;
    };
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    if (text.empty()) return skip("an empty line");
    if (text.size() > kMaxEventLineBytes) return skip("a line over 1 MiB");
    std::string error;
    const auto parsed = parseJsonBounded(text, error, JsonLimits{kMaxEventLineBytes, 8, 16384});
    if (!parsed || !parsed->is_object()) return skip("a line that is not a JSON object");
    const json& j = *parsed;
    const std::string e = jsonString(j, "e");
    const auto pid = integer(j, "pid", 0, kU32);
    if (!pid) return skip("an event without a pid");
    const uint32_t p = static_cast<uint32_t>(*pid);
    if (e == "process") {
        CapturedProcess& proc = process(p);
        proc.cuptiVersion = jsonString(j, "cupti");
        proc.error = jsonString(j, "error");
        return true;
    }
    if (e == "end") {
        CapturedProcess& proc = process(p);
        proc.flushed = true;
        proc.dropped += unsignedField(j, "dropped").value_or(0);
        return true;
    }
    if (e == "device") {
        const auto id = integer(j, "id", 0, 1 << 16);
        const auto cc = j.find("cc");
        if (!id || cc == j.end() || !cc->is_array() || cc->size() != 2 || !(*cc)[0].is_number_integer() ||
            !(*cc)[1].is_number_integer())
            return skip("a malformed device event");
        CapturedDevice d;
        d.pid = p;
        d.id = static_cast<uint32_t>(*id);
        d.name = jsonString(j, "name").substr(0, 256);
        d.ccMajor = static_cast<int>(std::clamp<int64_t>((*cc)[0].get<int64_t>(), 0, 99));
        d.ccMinor = static_cast<int>(std::clamp<int64_t>((*cc)[1].get<int64_t>(), 0, 99));
        process(p);
        for (const auto& known : devices)
            if (known.id == d.id && known.name == d.name) return true;
        devices.push_back(std::move(d));
        return true;
    }
    if (e == "module") {
        CapturedModule m;
        m.pid = p;
        const auto id = integer(j, "module", 0, kU32);
        const auto bytes = unsignedField(j, "bytes");
        m.hash = jsonString(j, "hash");
        if (!id || !bytes || !isHashText(m.hash)) return skip("a malformed module event");
        m.moduleId = static_cast<uint32_t>(*id);
        m.bytes = *bytes;
        process(p);
        modules.push_back(std::move(m));
        return true;
    }
    if (e == "kernel") {
        CapturedLaunch k;
        k.pid = p;
        const auto corr = integer(j, "corr", 0, kU32);
        const auto device = integer(j, "device", 0, kU32);
        const auto context = integer(j, "context", 0, kU32);
        const auto stream = integer(j, "stream", 0, kU32);
        const auto regs = integer(j, "regs", 0, 1 << 16);
        const auto start = unsignedField(j, "start");
        const auto end = unsignedField(j, "end");
        const auto smem = j.find("smem");
        k.name = jsonString(j, "name");
        if (!corr || !device || !context || !stream || !regs || !start || !end || k.name.empty() ||
            !tripleField(j, "grid", k.grid) || !tripleField(j, "block", k.block) ||
            !tripleField(j, "cluster", k.cluster) || smem == j.end() || !smem->is_array() || smem->size() != 2 ||
            !(*smem)[0].is_number_integer() || !(*smem)[1].is_number_integer())
            return skip("a malformed kernel event");
        if (*end < *start) return skip("a kernel event that ends before it starts");
        k.correlationId = static_cast<uint32_t>(*corr);
        k.device = static_cast<uint32_t>(*device);
        k.context = static_cast<uint32_t>(*context);
        k.stream = static_cast<uint32_t>(*stream);
        k.registers = *regs;
        k.startNs = *start;
        k.endNs = *end;
        k.dynamicSmem = std::max<int64_t>(0, (*smem)[0].get<int64_t>());
        k.staticSmem = std::max<int64_t>(0, (*smem)[1].get<int64_t>());
        k.graphId = unsignedField(j, "graph").value_or(0);
        k.graphNodeId = unsignedField(j, "graph_node").value_or(0);
        process(p);
        launches.push_back(std::move(k));
        return true;
    }
    if (e == "snapshot") {
        LaunchSnapshot snap;
        std::string why;
        if (!snapshotFromEvent(j, snap, why)) return skip("a malformed snapshot event (" + why + ")");
        if (snapshots.size() >= kMaxSnapshots) return skip("a snapshot event past the first 4096");
        process(p);
        snapshots.push_back(std::move(snap));
        return true;
    }
    return skip("an unknown event");
}

bool CaptureLog::addFile(const std::string& path, std::string& error) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        error = "cannot read " + path;
        return false;
    }
    std::string pending;
    bool overlong = false;
    char buf[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        size_t from = 0;
        for (size_t i = 0; i < n; ++i) {
            if (buf[i] != '\n') continue;
            if (!overlong) {
                pending.append(buf + from, i - from);
                addLine(pending);
            } else {
                if (skippedLines++ == 0) firstSkipReason = "a line over 1 MiB";
            }
            pending.clear();
            overlong = false;
            from = i + 1;
        }
        if (!overlong) {
            pending.append(buf + from, n - from);
            if (pending.size() > kMaxEventLineBytes) {
                overlong = true;
                pending.clear();
            }
        }
    }
    std::fclose(f);
    // A last line without '\n' was cut off by the process ending mid-write: skipped, as a torn line.
    if (!pending.empty() || overlong) {
        if (skippedLines++ == 0) firstSkipReason = overlong ? "a line over 1 MiB" : "a last line cut off";
    }
    return true;
}

std::vector<CapturedLaunch> CaptureLog::orderedLaunches() const {
    std::unordered_map<uint32_t, size_t> rank;
    for (size_t i = 0; i < processes.size(); ++i) rank[processes[i].pid] = i;
    std::vector<CapturedLaunch> out = launches;
    std::stable_sort(out.begin(), out.end(), [&](const CapturedLaunch& a, const CapturedLaunch& b) {
        const size_t ra = rank[a.pid], rb = rank[b.pid];
        if (ra != rb) return ra < rb;
        if (a.correlationId != b.correlationId) return a.correlationId < b.correlationId;
        return a.startNs < b.startNs;
    });
    return out;
}

} // namespace lowerscope::capture
