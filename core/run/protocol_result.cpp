// Runner protocol: results and measurements (runner → client) — kernel resources, occupancy,
// outputs, each variant's measurement (with its profile and graph costs, read in
// protocol_graph.cpp), output agreement and the whole result; each reader next to its writer.
#include "core/run/protocol.h"
#include "core/run/protocol_detail.h"

namespace lowerscope {

using nlohmann::json;
using namespace protocol_detail;

json toJson(const KernelResources& v) {
    return json{{"registers", v.registers},
                {"static_shared_bytes", v.staticSharedBytes},
                {"local_bytes", v.localBytes},
                {"const_bytes", v.constBytes},
                {"max_threads_per_block", v.maxThreadsPerBlock}};
}

void fromJson(const json& j, KernelResources& v) {
    v.registers = static_cast<int>(getI(j, "registers", 0));
    v.staticSharedBytes = static_cast<int>(getI(j, "static_shared_bytes", 0));
    v.localBytes = static_cast<int>(getI(j, "local_bytes", 0));
    v.constBytes = static_cast<int>(getI(j, "const_bytes", 0));
    v.maxThreadsPerBlock = static_cast<int>(getI(j, "max_threads_per_block", 0));
}

json toJson(const Occupancy& v) {
    return json{{"active_blocks_per_sm", v.activeBlocksPerSm},
                {"active_warps_per_sm", v.activeWarpsPerSm},
                {"max_warps_per_sm", v.maxWarpsPerSm},
                {"fraction", v.fraction},
                {"waves", v.waves}};
}

void fromJson(const json& j, Occupancy& v) {
    v.activeBlocksPerSm = static_cast<int>(getI(j, "active_blocks_per_sm", 0));
    v.activeWarpsPerSm = static_cast<int>(getI(j, "active_warps_per_sm", 0));
    v.maxWarpsPerSm = static_cast<int>(getI(j, "max_warps_per_sm", 0));
    v.fraction = getD(j, "fraction", 0);
    v.waves = getD(j, "waves", 0);
}

json toJson(const OutputReport& v) {
    json j{{"name", v.name},
           {"type", elemTypeName(v.type)},
           {"count", v.count},
           {"digest", v.digest},
           {"fully_written", v.fullyWritten},
           {"unwritten_count", v.unwrittenCount}};
    if (!v.data.empty()) {
        j["data_b64"] = toBase64(v.data);
    }
    return j;
}

void fromJson(const json& j, OutputReport& v) {
    v.name = getS(j, "name");
    v.type = getType(j, "type");
    v.count = getI(j, "count", 0);
    v.digest = getS(j, "digest");
    v.fullyWritten = getB(j, "fully_written", false);
    v.unwrittenCount = getI(j, "unwritten_count", 0);
    v.data = j.contains("data_b64") ? fromBase64(getS(j, "data_b64")) : std::vector<uint8_t>{};
}

json toJson(const VariantResult& v) {
    json outputs = json::array();
    for (const auto& o : v.outputs) {
        outputs.push_back(toJson(o));
    }
    json j{{"label", v.label},
           {"kernel", v.kernel},
           {"mode", v.mode},
           {"resources", toJson(v.resources)},
           {"occupancy", toJson(v.occupancy)},
           {"module_load_ms", v.moduleLoadMs},
           {"first_launch_ms", v.firstLaunchMs},
           {"first_launch_wall_ms", v.firstLaunchWallMs},
           {"launches_per_sample", v.launchesPerSample},
           {"warmup_runs", v.warmupRuns},
           {"warmup_ms", v.warmupMs},
           {"samples_ms", v.samplesMs},
           {"duration_clock", v.durationClock},
           {"samples_by_clock", v.samplesByClock},
           {"clock_note", v.clockNote},
           {"sample_clock_mhz", v.sampleClockMhz},
           {"throttled_samples", v.throttledSamples},
           {"gate_timeouts", v.gateTimeouts},
           {"event_overhead_us", v.eventOverheadUs},
           {"stop_reason", v.stopReason},
           {"outputs", outputs},
           {"graph", v.graph ? toJson(*v.graph) : json(nullptr)},
           {"profile", v.profile ? toJson(*v.profile) : json(nullptr)}};
    if (v.graphPath) {
        j["graph_path"] = toJson(*v.graphPath);
    }
    return j;
}

void fromJson(const json& j, VariantResult& v) {
    if (!j.is_object()) {
        throw ProtocolError("variant result: expected an object");
    }
    v.label = getS(j, "label");
    v.kernel = getS(j, "kernel");
    v.mode = getS(j, "mode");
    v.resources = {};
    if (j.contains("resources")) {
        fromJson(j["resources"], v.resources);
    }
    v.occupancy = {};
    if (j.contains("occupancy")) {
        fromJson(j["occupancy"], v.occupancy);
    }
    v.moduleLoadMs = getD(j, "module_load_ms", 0);
    v.firstLaunchMs = getD(j, "first_launch_ms", 0);
    v.firstLaunchWallMs = getD(j, "first_launch_wall_ms", 0);
    v.launchesPerSample = static_cast<int>(getI(j, "launches_per_sample", 1));
    v.warmupRuns = static_cast<int>(getI(j, "warmup_runs", 0));
    v.warmupMs = getD(j, "warmup_ms", 0);
    v.samplesMs = getDoubles(j, "samples_ms");
    v.durationClock = getS(j, "duration_clock", kClockEvents);
    v.samplesByClock.clear();
    if (j.contains("samples_by_clock") && !j["samples_by_clock"].is_null()) {
        const json& m = j["samples_by_clock"];
        if (!m.is_object()) {
            bad("samples_by_clock", "expected an object of sample arrays");
        }
        for (auto it = m.begin(); it != m.end(); ++it) {
            v.samplesByClock[it.key()] = getDoubles(m, it.key().c_str());
        }
    }
    v.clockNote = getS(j, "clock_note");
    v.sampleClockMhz = getDoubles(j, "sample_clock_mhz");
    v.throttledSamples = static_cast<int>(getI(j, "throttled_samples", 0));
    v.gateTimeouts = static_cast<int>(getI(j, "gate_timeouts", 0));
    v.eventOverheadUs = getD(j, "event_overhead_us", 0);
    v.stopReason = getS(j, "stop_reason");
    v.outputs = getObjects<OutputReport>(j, "outputs");
    v.graph.reset();
    if (j.contains("graph") && !j["graph"].is_null()) {
        GraphCosts g;
        fromJson(j["graph"], g);
        v.graph = g;
    }
    v.graphPath.reset();
    if (j.contains("graph_path") && !j["graph_path"].is_null()) {
        GraphPathResult g;
        fromJson(j["graph_path"], g);
        v.graphPath = std::move(g);
    }
    v.profile.reset();
    if (j.contains("profile") && !j["profile"].is_null()) {
        ProfileData p;
        try {
            fromJson(j["profile"], p);
        } catch (const ProfileFormatError& e) {
            throw ProtocolError(e.what());
        }
        v.profile = std::move(p);
    }
}

json toJson(const OutputAgreement& v) {
    return json{{"name", v.name},
                {"label_a", v.labelA},
                {"label_b", v.labelB},
                {"same_digest", v.sameDigest},
                {"agree", v.agree},
                {"size_mismatch", v.sizeMismatch},
                {"count", v.count},
                {"mismatches", v.mismatches},
                {"max_abs_error", v.maxAbsError},
                {"max_rel_error", v.maxRelError},
                {"first_mismatch", v.firstMismatch}};
}

void fromJson(const json& j, OutputAgreement& v) {
    v.name = getS(j, "name");
    v.labelA = getS(j, "label_a");
    v.labelB = getS(j, "label_b");
    v.sameDigest = getB(j, "same_digest", false);
    v.agree = getB(j, "agree", false);
    v.sizeMismatch = getB(j, "size_mismatch", false);
    v.count = getI(j, "count", 0);
    v.mismatches = getI(j, "mismatches", 0);
    v.maxAbsError = getD(j, "max_abs_error", 0);
    v.maxRelError = getD(j, "max_rel_error", 0);
    v.firstMismatch = getI(j, "first_mismatch", -1);
}

json toJson(const RunResult& v) {
    json variants = json::array(), agreement = json::array();
    for (const auto& x : v.variants) {
        variants.push_back(toJson(x));
    }
    for (const auto& x : v.agreement) {
        agreement.push_back(toJson(x));
    }
    return json{{"id", v.id}, {"device", toJson(v.device)}, {"variants", variants},
                {"agreement", agreement}, {"buffers_shared", v.buffersShared}, {"wall_s", v.wallS},
                {"runner_exits", v.runnerExits}, {"regions_relocated", [&] {
                     json a = json::array();
                     for (uint64_t x : v.regionsRelocated) a.push_back(addressHex(x));
                     return a;
                 }()}};
}

void fromJson(const json& j, RunResult& v) {
    if (!j.is_object()) {
        throw ProtocolError("result: expected an object");
    }
    v.id = getS(j, "id");
    v.device = {};
    if (j.contains("device")) {
        fromJson(j["device"], v.device);
    }
    v.variants = getObjects<VariantResult>(j, "variants");
    v.agreement = getObjects<OutputAgreement>(j, "agreement");
    v.buffersShared = getB(j, "buffers_shared", false);
    v.runnerExits = getB(j, "runner_exits", false);
    v.wallS = getD(j, "wall_s", 0);
    v.regionsRelocated.clear();
    if (j.contains("regions_relocated")) {
        const json& a = j["regions_relocated"];
        if (!a.is_array()) bad("regions_relocated", "expected an array of addresses");
        for (const auto& x : a) {
            const auto address = x.is_string() ? parseAddressHex(x.get<std::string>()) : std::nullopt;
            if (!address) bad("regions_relocated", "expected addresses such as 0x7ffdd7e00000");
            v.regionsRelocated.push_back(*address);
        }
    }
}

} // namespace lowerscope
