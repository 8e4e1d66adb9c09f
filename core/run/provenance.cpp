// Provenance and measurement guards (provenance.h).
#include "core/run/provenance.h"

#include "core/build/cache.h"
#include "core/build/json_io.h"
#include "core/run/measurement.h"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace lowerscope {

using nlohmann::json;

namespace {

json versionOf(const ToolInfo& t) {
    if (!t.found()) return nullptr;
    return t.version.empty() ? json("unknown") : json(t.version);
}

} // namespace

json buildProvenance(const Toolchain& tc, const std::string& sourcePath, const BuildOptions& options) {
    json digest = nullptr, bytes = nullptr;
    std::error_code ec;
    if (std::filesystem::is_regular_file(sourcePath, ec)) {
        std::ifstream in(sourcePath, std::ios::binary);
        const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (in.good() || in.eof()) {
            digest = "xxh3-128:" + xxh3Hex(data.data(), data.size());
            bytes = data.size();
        }
    }
    return json{{"source", sourcePath},
                {"source_digest", digest},
                {"source_bytes", bytes},
                {"options", options},
                {"nvcc_args", shellQuote(toNvccArgs(options))},
                {"toolchain",
                 {{"nvcc", versionOf(tc.nvcc)},
                  {"ptxas", versionOf(tc.ptxas)},
                  {"nvdisasm", versionOf(tc.nvdisasm)},
                  {"cuobjdump", versionOf(tc.cuobjdump)}}},
                {"toolchain_fingerprint", tc.fingerprint()},
                {"lowerscope", "0.1.0"}};
}

const char* l2StateOfMode(const std::string& mode) {
    if (mode == "cold") return "flushed";
    if (mode == "hot") return "warm";
    return "unknown";
}

json launchGuards(const VariantResult& v) {
    json unwritten = json::array();
    for (const OutputReport& o : v.outputs)
        if (!o.fullyWritten) unwritten.push_back(json{{"name", o.name}, {"unwritten", o.unwrittenCount}, {"count", o.count}});
    const bool checked = !v.outputs.empty();
    std::string refusal;
    if (!unwritten.empty()) {
        refusal = "no time is reported: the kernel left ";
        for (size_t i = 0; i < unwritten.size(); ++i) {
            const json& u = unwritten[i];
            refusal += (i ? ", " : "") + std::to_string(u["unwritten"].get<int64_t>()) + " of " +
                       std::to_string(u["count"].get<int64_t>()) + " elements of " + u["name"].get<std::string>();
        }
        refusal += " unwritten, so it did not do the work being timed (dead code, a cached result or an early exit)";
    } else if (v.samplesMs.empty()) {
        refusal = "no time is reported: there are no samples";
    }
    return json{{"outputs_checked", checked},
                {"outputs_fully_written", checked ? json(unwritten.empty()) : json(nullptr)},
                {"unwritten", unwritten},
                {"l2", l2StateOfMode(v.mode)},
                {"throttled_samples", v.throttledSamples},
                {"time_valid", refusal.empty()},
                {"refusal", refusal}};
}

json measurementProvenance(const json& builds, const MeasurementRecord& record) {
    json p{{"builds", builds}};
    if (record.result.variants.empty()) return p;
    const DeviceInfo& d = record.result.device;
    p["device"] = json{{"name", d.name},
                       {"compute_capability", std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor)},
                       {"driver_version", d.driverVersion}};
    json clocks = json::array(), modes = json::array(), l2 = json::array();
    for (const VariantResult& v : record.result.variants) {
        clocks.push_back(v.durationClock);
        modes.push_back(v.mode);
        l2.push_back(l2StateOfMode(v.mode));
    }
    p["duration_clock"] = clocks;
    p["mode"] = modes;
    p["l2"] = l2;
    return p;
}

} // namespace lowerscope
