// A selected launch's snapshot as an event line, and the names its files get (launch_snapshot.h).
// Compiled into the injection library too (app/CMakeLists.txt), so it uses nothing of the core but
// this header; the untrusted reading is in launch_snapshot_read.cpp.
#include "core/capture/launch_snapshot.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace lowerscope::capture {

namespace {

using nlohmann::json;

json triple(const std::array<int64_t, 3>& v) { return json::array({v[0], v[1], v[2]}); }

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace

std::string snapshotFileName(uint32_t pid, uint32_t correlationId, const char* which, uint64_t address) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(address));
    return std::to_string(pid) + "-" + std::to_string(correlationId) + "/" + which + "-" + hex + ".bin";
}

std::string snapshotAddressText(uint64_t address) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
    return hex;
}

std::string hexBytes(const uint8_t* data, size_t size) {
    static const char digits[] = "0123456789abcdef";
    std::string out(size * 2, '0');
    for (size_t i = 0; i < size; ++i) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    return out;
}

bool parseHexBytes(const std::string& text, std::vector<uint8_t>& out) {
    out.clear();
    if (text.size() % 2 != 0) return false;
    out.reserve(text.size() / 2);
    for (size_t i = 0; i < text.size(); i += 2) {
        const int hi = hexDigit(text[i]), lo = hexDigit(text[i + 1]);
        if (hi < 0 || lo < 0) {
            out.clear();
            return false;
        }
        out.push_back(static_cast<uint8_t>(hi * 16 + lo));
    }
    return true;
}

std::string snapshotEventLine(const LaunchSnapshot& s) {
    json params = json::array();
    for (const auto& p : s.params) params.push_back(json::array({p.first, p.second}));
    json regions = json::array();
    for (const SnapshotRegion& r : s.regions)
        regions.push_back({{"address", snapshotAddressText(r.address)},
                           {"bytes", r.bytes},
                           {"before", r.before},
                           {"after", r.after},
                           {"pointers", r.pointers}});
    json omitted = json::array();
    for (const SnapshotOmitted& o : s.omitted)
        omitted.push_back({{"address", snapshotAddressText(o.address)}, {"bytes", o.bytes}, {"why", o.why}});
    const json j = {{"e", "snapshot"},
                    {"pid", s.pid},
                    {"corr", s.correlationId},
                    {"name", s.name},
                    {"grid", triple(s.grid)},
                    {"block", triple(s.block)},
                    {"cluster", triple(s.cluster)},
                    {"smem", s.dynamicSmem},
                    {"params", params},
                    {"param_bytes", hexBytes(s.paramBytes.data(), s.paramBytes.size())},
                    {"regions", regions},
                    {"omitted", omitted},
                    {"error", s.error}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

} // namespace lowerscope::capture
