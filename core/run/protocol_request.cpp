// Runner protocol: run requests (client → runner) — launch variants, their buffers and parameter
// slots, stop options and the request itself; each reader next to its writer.
#include "core/run/protocol.h"
#include "core/run/protocol_detail.h"

#include <algorithm>
#include <cstdio>

namespace lowerscope {

using nlohmann::json;
using namespace protocol_detail;

std::string modeName(MeasureMode mode) {
    switch (mode) {
    case MeasureMode::Auto: return "auto";
    case MeasureMode::Cold: return "cold";
    case MeasureMode::Hot: return "hot";
    }
    return "auto";
}

std::optional<MeasureMode> parseMode(const std::string& name) {
    if (name == "auto") {
        return MeasureMode::Auto;
    }
    if (name == "cold") {
        return MeasureMode::Cold;
    }
    if (name == "hot" || name == "graph") {
        return MeasureMode::Hot;
    }
    return std::nullopt;
}


LaunchVariant makeVariant(const ResolvedLaunch& launch, std::vector<uint8_t> cubin, const std::string& mangledName,
                          const std::string& label) {
    LaunchVariant v;
    v.label = label;
    v.cubin = std::move(cubin);
    v.kernel = mangledName.empty() ? launch.kernel : mangledName;
    v.grid = launch.grid;
    v.block = launch.block;
    v.sharedBytes = launch.sharedBytes;
    v.cluster = launch.cluster;
    v.paramBytes = launch.paramBytes;
    for (const auto& p : launch.params) {
        v.params.push_back(ParamSlot{p.name, p.offset, p.size, p.buffer, p.scalar, p.tensorMap});
    }
    v.tensorMaps = launch.tensorMaps;
    for (const auto& b : launch.buffers) {
        v.buffers.push_back(BufferSpec{b.name, b.type, b.count, b.init, b.output});
    }
    v.bytes = launch.bytes;
    v.flops = launch.flops;
    return v;
}

namespace {

std::array<uint32_t, 3> getDim(const json& j, const char* key) {
    const json& v = need(j, key);
    if (!v.is_array() || v.size() != 3) {
        bad(key, "expected [x, y, z]");
    }
    std::array<uint32_t, 3> d{};
    for (size_t i = 0; i < 3; ++i) {
        int64_t x = asInt(v[i], key);
        if (x < 1 || x > 0xffffffffLL) {
            bad(key, "dimension out of range");
        }
        d[i] = static_cast<uint32_t>(x);
    }
    return d;
}

std::string initKindName(InitKind k) {
    switch (k) {
    case InitKind::Random: return "random";
    case InitKind::Zeros: return "zeros";
    case InitKind::Ones: return "ones";
    case InitKind::Iota: return "iota";
    case InitKind::Const: return "const";
    }
    return "random";
}

std::string hexOf(const std::vector<uint8_t>& b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t c : b) {
        s += d[c >> 4];
        s += d[c & 15];
    }
    return s;
}

std::vector<uint8_t> unhex(const std::string& s, const char* key) {
    if (s.size() % 2) {
        bad(key, "odd number of hex digits");
    }
    std::vector<uint8_t> out;
    for (size_t i = 0; i < s.size(); i += 2) {
        auto nib = [&](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            bad(key, "invalid hex digit");
        };
        out.push_back(static_cast<uint8_t>(nib(s[i]) * 16 + nib(s[i + 1])));
    }
    return out;
}

} // namespace

json toJson(const BufferSpec& v) {
    return json{{"name", v.name},
                {"type", elemTypeName(v.type)},
                {"count", v.count},
                {"init", initToString(v.init)},
                {"init_kind", initKindName(v.init.kind)},
                {"seed", v.init.seed},
                {"run", v.init.run},
                {"value", v.init.value},
                {"output", v.output}};
}

void fromJson(const json& j, BufferSpec& v) {
    if (!j.is_object()) {
        throw ProtocolError("buffer: expected an object");
    }
    v.name = getS(j, "name");
    v.type = getType(j, "type");
    v.count = asInt(need(j, "count"), "count");
    if (v.count < 1 || v.count > (int64_t(1) << 40)) {
        bad("count", "out of range");
    }
    std::string kind = getS(j, "init_kind", "random");
    bool known = false;
    for (InitKind k : {InitKind::Random, InitKind::Zeros, InitKind::Ones, InitKind::Iota, InitKind::Const}) {
        if (initKindName(k) == kind) {
            v.init.kind = k;
            known = true;
        }
    }
    if (!known) {
        bad("init_kind", "unknown initialiser '" + kind + "'");
    }
    auto seed = j.find("seed");
    if (seed != j.end()) {
        if (!seed->is_number_integer()) {
            bad("seed", "expected an integer");
        }
        v.init.seed = seed->is_number_unsigned() ? seed->get<uint64_t>() : static_cast<uint64_t>(seed->get<int64_t>());
    }
    v.init.value = getD(j, "value", 0);
    v.init.run = getI(j, "run", 1);
    if (v.init.run < 1 || v.init.run > (int64_t(1) << 30)) {
        bad("run", "out of range (1 .. 2^30)");
    }
    v.output = getB(j, "output", false);
}

json toJson(const ParamSlot& v) {
    json j{{"name", v.name}, {"offset", v.offset}, {"size", v.size}};
    if (v.buffer >= 0) {
        j["buffer"] = v.buffer;
    } else if (v.tensorMap >= 0) {
        j["tensor_map"] = v.tensorMap;
    } else {
        j["scalar_hex"] = hexOf(v.scalar);
    }
    return j;
}

void fromJson(const json& j, ParamSlot& v) {
    if (!j.is_object()) {
        throw ProtocolError("param: expected an object");
    }
    v.name = getS(j, "name");
    v.offset = static_cast<int>(asInt(need(j, "offset"), "offset"));
    v.size = static_cast<int>(asInt(need(j, "size"), "size"));
    if (v.offset < 0 || v.size <= 0 || v.offset + v.size > 32764) {
        bad("offset", "parameter slot out of range");
    }
    v.buffer = static_cast<int>(std::clamp<int64_t>(getI(j, "buffer", -1), -1, 1 << 20));
    v.tensorMap = static_cast<int>(std::clamp<int64_t>(getI(j, "tensor_map", -1), -1, 1 << 20));
    if (v.buffer >= 0 && v.tensorMap >= 0) {
        bad("tensor_map", "a slot is a buffer or a tensor map, not both");
    }
    if (v.tensorMap >= 0 && v.size != 128 && v.size != 8) {
        bad("tensor_map", "a tensor map slot has 128 bytes (by value) or 8 (by pointer)");
    }
    if (v.tensorMap >= 0 && v.size == 128 && v.offset % 64 != 0) {
        bad("tensor_map", "a tensor map passed by value needs an offset that is a multiple of 64");
    }
    v.scalar.clear();
    if (v.buffer < 0 && v.tensorMap < 0) {
        v.scalar = unhex(getS(j, "scalar_hex"), "scalar_hex");
        if (static_cast<int>(v.scalar.size()) != v.size) {
            bad("scalar_hex", "has " + std::to_string(v.scalar.size()) + " bytes, the slot " + std::to_string(v.size));
        }
    }
}

json toJson(const TensorMapSpec& v) {
    return json{{"buffer", v.buffer},
                {"type", tensorMapTypeName(v.type)},
                {"dims", v.dims},
                {"strides", v.strides},
                {"box", v.box},
                {"element_strides", v.elementStrides},
                {"interleave", interleaveName(v.interleave)},
                {"swizzle", swizzleName(v.swizzle)},
                {"l2_promotion", l2PromotionName(v.l2Promotion)},
                {"oob_fill", oobFillName(v.oobFill)}};
}

void fromJson(const json& j, TensorMapSpec& v) {
    if (!j.is_object()) {
        throw ProtocolError("tensor map: expected an object");
    }
    v.buffer = static_cast<int>(asInt(need(j, "buffer"), "buffer"));
    if (v.buffer < 0 || v.buffer > (1 << 20)) {
        bad("buffer", "out of range");
    }
    const std::string type = getS(j, "type");
    auto t = parseTensorMapType(type);
    if (!t) {
        bad("type", "unknown tensor map element type");
    }
    v.type = *t;
    auto list = [&](const char* key, size_t lo, size_t hi) {
        const json& a = need(j, key);
        if (!a.is_array() || a.size() < lo || a.size() > hi) {
            bad(key, "expected an array of " + std::to_string(lo) + ".." + std::to_string(hi) + " numbers");
        }
        std::vector<uint64_t> out;
        for (const auto& x : a) {
            if (!x.is_number_unsigned() && !(x.is_number_integer() && x.get<int64_t>() >= 0)) {
                bad(key, "expected non-negative integers");
            }
            out.push_back(x.get<uint64_t>());
        }
        return out;
    };
    v.dims = list("dims", 1, 5);
    v.rank = static_cast<int>(v.dims.size());
    v.strides = list("strides", 0, 4);
    auto small = [&](const char* key) {
        std::vector<uint32_t> out;
        for (uint64_t x : list(key, 1, 5)) {
            if (x > 0xffffffffULL) {
                bad(key, "out of range");
            }
            out.push_back(static_cast<uint32_t>(x));
        }
        return out;
    };
    v.box = small("box");
    v.elementStrides = small("element_strides");
    auto il = parseInterleave(getS(j, "interleave", "none"));
    auto sw = parseSwizzle(getS(j, "swizzle", "none"));
    auto l2 = parseL2Promotion(getS(j, "l2_promotion", "none"));
    auto oob = parseOobFill(getS(j, "oob_fill", "zeros"));
    if (!il || !sw || !l2 || !oob) {
        bad("tensor map", "unknown interleave, swizzle, l2_promotion or oob_fill");
    }
    v.interleave = *il;
    v.swizzle = *sw;
    v.l2Promotion = *l2;
    v.oobFill = *oob;
}

json toJson(const LaunchVariant& v) {
    json params = json::array(), buffers = json::array();
    for (const auto& p : v.params) {
        params.push_back(toJson(p));
    }
    for (const auto& b : v.buffers) {
        buffers.push_back(toJson(b));
    }
    json j{{"label", v.label},
                {"cubin_b64", toBase64(v.cubin)},
                {"kernel", v.kernel},
                {"grid", v.grid},
                {"block", v.block},
                {"shared_bytes", v.sharedBytes},
                {"param_bytes", v.paramBytes},
                {"params", params},
                {"buffers", buffers},
                {"bytes", optD(v.bytes)},
                {"flops", optD(v.flops)}};
    if (v.cluster != std::array<uint32_t, 3>{0, 0, 0}) {
        j["cluster"] = v.cluster;
    }
    if (!v.tensorMaps.empty()) {
        json maps = json::array();
        for (const auto& m : v.tensorMaps) {
            maps.push_back(toJson(m));
        }
        j["tensor_maps"] = maps;
    }
    return j;
}

void fromJson(const json& j, LaunchVariant& v) {
    if (!j.is_object()) {
        throw ProtocolError("variant: expected an object");
    }
    v.label = getS(j, "label");
    v.cubin = fromBase64(getS(j, "cubin_b64"));
    v.kernel = getS(j, "kernel");
    v.grid = getDim(j, "grid");
    v.block = getDim(j, "block");
    int64_t shared = getI(j, "shared_bytes", 0);
    if (shared < 0 || shared > (1 << 30)) {
        bad("shared_bytes", "out of range");
    }
    v.sharedBytes = static_cast<uint32_t>(shared);
    v.paramBytes = static_cast<int>(getI(j, "param_bytes", 0));
    if (v.paramBytes < 0 || v.paramBytes > 32764) {
        bad("param_bytes", "out of range");
    }
    v.cluster = {0, 0, 0};
    if (j.contains("cluster") && !j["cluster"].is_null()) {
        v.cluster = getDim(j, "cluster");
        if (uint64_t(v.cluster[0]) * v.cluster[1] * v.cluster[2] > 16) {
            bad("cluster", "more than 16 blocks");
        }
        for (size_t a = 0; a < 3; ++a) {
            if (v.grid[a] % v.cluster[a] != 0) {
                bad("cluster", "does not divide the grid");
            }
        }
    }
    v.params = getObjects<ParamSlot>(j, "params");
    v.buffers = getObjects<BufferSpec>(j, "buffers");
    v.tensorMaps.clear();
    if (j.contains("tensor_maps")) {
        v.tensorMaps = getObjects<TensorMapSpec>(j, "tensor_maps");
    }
    for (const auto& m : v.tensorMaps) {
        if (m.buffer >= static_cast<int>(v.buffers.size())) {
            bad("tensor_maps", "a tensor map names a missing buffer");
        }
        const BufferSpec& b = v.buffers[static_cast<size_t>(m.buffer)];
        // The runner encodes what it is given: the map must stay inside its buffer.
        const std::string why = checkTensorMap(m, b.count * elemSize(b.type));
        if (!why.empty()) {
            bad("tensor_maps", why);
        }
    }
    for (const auto& p : v.params) {
        if (p.offset + p.size > v.paramBytes) {
            bad("params", "slot '" + p.name + "' lies outside param_bytes");
        }
        if (p.buffer >= static_cast<int>(v.buffers.size()) || (p.buffer >= 0 && p.size != 8)) {
            bad("params", "slot '" + p.name + "' names a missing buffer or is not 8 bytes");
        }
        if (p.tensorMap >= static_cast<int>(v.tensorMaps.size())) {
            bad("params", "slot '" + p.name + "' names a missing tensor map");
        }
    }
    v.bytes = getOptD(j, "bytes");
    v.flops = getOptD(j, "flops");
}

json toJson(const StopOptions& v) {
    return json{{"min_samples", v.minSamples},       {"min_gpu_time_s", v.minGpuTimeS},
                {"max_noise", v.maxNoise},           {"wall_limit_s", v.wallLimitS},
                {"max_samples", v.maxSamples},       {"stable_window", v.stableWindow},
                {"stable_tolerance", v.stableTolerance}};
}

void fromJson(const json& j, StopOptions& v) {
    if (!j.is_object()) {
        throw ProtocolError("stop: expected an object");
    }
    StopOptions d;
    v.minSamples = static_cast<size_t>(std::max<int64_t>(1, getI(j, "min_samples", static_cast<int64_t>(d.minSamples))));
    v.minGpuTimeS = getD(j, "min_gpu_time_s", d.minGpuTimeS);
    v.maxNoise = getD(j, "max_noise", d.maxNoise);
    v.wallLimitS = getD(j, "wall_limit_s", d.wallLimitS);
    v.maxSamples = static_cast<size_t>(std::max<int64_t>(1, getI(j, "max_samples", static_cast<int64_t>(d.maxSamples))));
    v.stableWindow = static_cast<size_t>(std::max<int64_t>(0, getI(j, "stable_window", static_cast<int64_t>(d.stableWindow))));
    v.stableTolerance = getD(j, "stable_tolerance", d.stableTolerance);
}

std::string addressHex(uint64_t address) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
    return buf;
}

std::string regionOutputName(uint64_t address) {
    return "mem@" + addressHex(address);
}

std::optional<uint64_t> parseAddressHex(const std::string& text) {
    if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
    uint64_t v = 0;
    for (size_t i = 2; i < text.size(); ++i) {
        const char c = text[i];
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0) return std::nullopt;
        v = v * 16 + static_cast<uint64_t>(d);
    }
    return v;
}

json toJson(const MemoryRegion& v) {
    return json{{"address", addressHex(v.address)},
                {"data_b64", toBase64(v.data)},
                {"type", elemTypeName(v.type)},
                {"require_original", v.requireOriginal},
                {"relocate_pointers", v.relocatePointers}};
}

void fromJson(const json& j, MemoryRegion& v) {
    if (!j.is_object()) {
        throw ProtocolError("region: expected an object");
    }
    const auto address = parseAddressHex(getS(j, "address"));
    if (!address || *address == 0) {
        bad("address", "expected a device address such as 0x7ffdd7e00000");
    }
    v.address = *address;
    v.data = fromBase64(getS(j, "data_b64"));
    if (v.data.empty()) {
        bad("data_b64", "a region needs at least one byte");
    }
    if (v.address + v.data.size() < v.address) {
        bad("address", "the region wraps around the address space");
    }
    v.type = j.contains("type") ? getType(j, "type") : ElemType::U8;
    if (v.data.size() % static_cast<size_t>(elemSize(v.type)) != 0) {
        bad("type", "the region's size is not a multiple of the element size");
    }
    v.requireOriginal = getB(j, "require_original", false);
    v.relocatePointers = getB(j, "relocate_pointers", false);
}

json toJson(const RunRequest& v) {
    json variants = json::array();
    for (const auto& x : v.variants) {
        variants.push_back(toJson(x));
    }
    json j{{"op", "run"},
           {"id", v.id},
           {"mode", modeName(v.mode)},
           {"stop", toJson(v.stop)},
           {"kernel_timeout_s", v.kernelTimeoutS},
           {"measure_graph", v.measureGraph},
           {"share_buffers", v.shareBuffers},
           {"return_outputs", v.returnOutputs},
           {"atol", v.atol},
           {"rtol", v.rtol},
           {"profile_launches", v.profileLaunches},
           {"profile", profileCollectionName(v.profile)},
           {"profile_metrics", v.profileMetrics},
           {"profile_sample_period_log2", v.profileSamplePeriodLog2},
           {"clock", v.clock},
           {"variants", variants}};
    if (v.graphPath) {
        j["graph_path"] = toJson(*v.graphPath);
    }
    if (!v.regions.empty()) {
        json regions = json::array();
        for (const auto& r : v.regions) {
            regions.push_back(toJson(r));
        }
        j["regions"] = regions;
    }
    return j;
}

void fromJson(const json& j, RunRequest& v) {
    if (!j.is_object()) {
        throw ProtocolError("request: expected an object");
    }
    v.id = getS(j, "id");
    std::string mode = getS(j, "mode", "auto");
    auto m = parseMode(mode);
    if (!m) {
        bad("mode", "unknown mode '" + mode + "' (auto, cold, hot)");
    }
    v.mode = *m;
    v.stop = StopOptions{};
    if (j.contains("stop")) {
        fromJson(j["stop"], v.stop);
    }
    v.kernelTimeoutS = getD(j, "kernel_timeout_s", 30);
    v.measureGraph = getB(j, "measure_graph", false);
    v.shareBuffers = getB(j, "share_buffers", true);
    v.returnOutputs = getB(j, "return_outputs", false);
    v.atol = getD(j, "atol", 1e-5);
    v.rtol = getD(j, "rtol", 1e-4);
    v.profileLaunches = static_cast<int>(std::clamp<int64_t>(getI(j, "profile_launches", 0), 0, 1000000));
    const std::string profile = getS(j, "profile", "");
    auto collection = parseProfileCollection(profile);
    if (!collection) {
        bad("profile", "unknown collection '" + profile + "' (kernel, instructions, samples)");
    }
    v.profile = *collection;
    v.profileMetrics.clear();
    if (j.contains("profile_metrics")) {
        const json& m = j["profile_metrics"];
        if (!m.is_array()) {
            bad("profile_metrics", "expected an array of metric names");
        }
        for (const auto& x : m) {
            // Metric names reach CUPTI only, never a shell; still, keep them to the characters
            // metric names have.
            if (!x.is_string() || x.get<std::string>().empty() || x.get<std::string>().size() > 200 ||
                x.get<std::string>().find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.") != std::string::npos) {
                bad("profile_metrics", "expected metric names such as dram__bytes_read.sum");
            }
            v.profileMetrics.push_back(x.get<std::string>());
        }
    }
    v.profileSamplePeriodLog2 = static_cast<int>(getI(j, "profile_sample_period_log2", 0));
    if (v.profileSamplePeriodLog2 != 0 && (v.profileSamplePeriodLog2 < 5 || v.profileSamplePeriodLog2 > 31)) {
        bad("profile_sample_period_log2", "expected 0 (the default) or 5 .. 31");
    }
    v.clock = getS(j, "clock", "auto");
    if (v.clock != "auto" && v.clock != kClockEvents) {
        bad("clock", "unknown clock '" + v.clock + "' (auto, events)");
    }
    v.graphPath.reset();
    if (j.contains("graph_path") && !j["graph_path"].is_null()) {
        GraphPathOptions g;
        fromJson(j["graph_path"], g);
        v.graphPath = std::move(g);
    }
    v.regions = getObjects<MemoryRegion>(j, "regions");
    // Regions must not overlap: each is mapped on its own pages' worth of the original range.
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const auto& r : v.regions) {
        spans.emplace_back(r.address, r.address + r.data.size());
    }
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].first < spans[i - 1].second) {
            bad("regions", "two regions overlap (" + addressHex(spans[i].first) + ")");
        }
    }
    v.variants = getObjects<LaunchVariant>(j, "variants");
    if (v.variants.empty()) {
        bad("variants", "at least one launch is needed");
    }
}

} // namespace lowerscope
