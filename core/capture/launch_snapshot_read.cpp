// Snapshots of selected launches read back as untrusted input: an event line of the injection, the
// "snapshots" of a capture document, and the saved region files (launch_snapshot.h).
#include "core/capture/launch_snapshot.h"

#include "core/bounded_json.h"
#include "core/run/protocol.h"
#include "core/untrusted.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace lowerscope::capture {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr size_t kMaxNameBytes = 64 * 1024;
constexpr size_t kMaxPathBytes = 4096;

std::optional<uint64_t> unsignedAt(const json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
    return std::nullopt;
}

std::optional<uint64_t> unsignedField(const json& j, const char* key, uint64_t max) {
    const auto it = j.find(key);
    if (it == j.end()) return std::nullopt;
    const auto v = unsignedAt(*it);
    if (!v || *v > max) return std::nullopt;
    return v;
}

bool tripleField(const json& j, const char* key, std::array<int64_t, 3>& out) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_array() || it->size() != 3) return false;
    for (size_t i = 0; i < 3; ++i) {
        const auto v = unsignedAt((*it)[i]);
        if (!v || *v > INT32_MAX) return false;
        out[i] = static_cast<int64_t>(*v);
    }
    return true;
}

// "0x" and 1 to 16 hex digits (either case): the runner protocol's address text.
std::optional<uint64_t> addressField(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return parseAddressHex(it->get_ref<const std::string&>());
}

// A folder name put before the region files in a document: plain relative components.
bool plainRelativeFolder(const std::string& folder) {
    if (folder.empty() || folder.size() > kMaxPathBytes || folder.front() == '/') return false;
    size_t from = 0;
    while (from <= folder.size()) {
        const size_t slash = std::min(folder.find('/', from), folder.size());
        const std::string part = folder.substr(from, slash - from);
        if (part.empty() || part == "." || part == "..") return false;
        for (unsigned char c : part)
            if (c < 0x20 || c == 0x7f || c == '\\') return false;
        from = slash + 1;
    }
    return true;
}

// `text` names the file `expected` (snapshotFileName): exactly it in an event line; in a document,
// it or a plain relative folder, '/', then it.
bool regionPathMatches(const std::string& text, const std::string& expected, bool document) {
    if (text == expected) return true;
    if (!document) return false;
    if (text.size() <= expected.size() + 1 || text.size() > kMaxPathBytes) return false;
    const size_t cut = text.size() - expected.size();
    if (text.compare(cut, std::string::npos, expected) != 0 || text[cut - 1] != '/') return false;
    return plainRelativeFolder(text.substr(0, cut - 1));
}

// The fields shared by an event line and a document entry. `document`: region files relative to
// the document's folder (a folder before the event line's names).
bool parseSnapshot(const json& j, LaunchSnapshot& out, std::string& error, bool document) {
    out = LaunchSnapshot{};
    if (!j.is_object()) {
        error = "a snapshot is not an object";
        return false;
    }
    const auto pid = unsignedField(j, "pid", 0xffffffffu);
    const auto corr = unsignedField(j, "corr", 0xffffffffu);
    if (!pid || !corr) {
        error = "a snapshot has no pid or correlation id";
        return false;
    }
    out.pid = static_cast<uint32_t>(*pid);
    out.correlationId = static_cast<uint32_t>(*corr);
    const std::string id = out.id();
    auto fail = [&](const std::string& why) {
        error = "snapshot " + id + ": " + why;
        return false;
    };
    if (document && jsonString(j, "id") != id) return fail("its id is not PID-CORR of its pid and corr");
    out.name = jsonString(j, "name");
    if (out.name.empty() || out.name.size() > kMaxNameBytes) return fail("it has no usable kernel name");
    if (!tripleField(j, "grid", out.grid) || !tripleField(j, "block", out.block) ||
        !tripleField(j, "cluster", out.cluster))
        return fail("grid, block or cluster is not three non-negative integers");
    const auto smem = unsignedField(j, "smem", INT32_MAX);
    if (!smem) return fail("smem is not a non-negative integer");
    out.dynamicSmem = static_cast<int64_t>(*smem);

    const auto params = j.find("params");
    if (params == j.end() || !params->is_array() || params->size() > kMaxSnapshotParams)
        return fail("params is not a list of at most " + std::to_string(kMaxSnapshotParams) + " entries");
    const auto bytes = j.find("param_bytes");
    if (bytes == j.end() || !bytes->is_string() || bytes->get_ref<const std::string&>().size() > 2 * kMaxParamBytes ||
        !parseHexBytes(bytes->get<std::string>(), out.paramBytes))
        return fail("param_bytes is not hex of at most " + std::to_string(kMaxParamBytes) + " bytes");
    for (const json& p : *params) {
        if (!p.is_array() || p.size() != 2) return fail("a parameter is not [offset, size]");
        const auto o = unsignedAt(p[0]), s = unsignedAt(p[1]);
        if (!o || !s || *s == 0 || *o + *s > out.paramBytes.size())
            return fail("a parameter lies outside the parameter bytes");
        out.params.emplace_back(static_cast<uint32_t>(*o), static_cast<uint32_t>(*s));
    }

    const auto regions = j.find("regions");
    if (regions == j.end() || !regions->is_array() || regions->size() > kMaxSnapshotRegions)
        return fail("regions is not a list of at most " + std::to_string(kMaxSnapshotRegions) + " entries");
    for (const json& r : *regions) {
        SnapshotRegion region;
        if (!r.is_object()) return fail("a region is not an object");
        const auto address = addressField(r, "address");
        const auto size = unsignedField(r, "bytes", kMaxSnapshotFileBytes);
        if (!address || !size || *size == 0)
            return fail("a region has no \"0x...\" address or a size outside 1 byte to 4 GiB");
        region.address = *address;
        region.bytes = *size;
        for (const auto& other : out.regions)
            if (other.address == region.address) return fail("a region is listed twice");
        region.before = jsonString(r, "before");
        region.after = jsonString(r, "after");
        if (!regionPathMatches(region.before,
                               snapshotFileName(out.pid, out.correlationId, "before", region.address), document))
            return fail("the file of region " + snapshotAddressText(region.address) + " is not " +
                        (document ? "FOLDER/" : "") + id + "/before-ADDRESS.bin");
        if (!region.after.empty() &&
            !regionPathMatches(region.after, snapshotFileName(out.pid, out.correlationId, "after", region.address),
                               document))
            return fail("the after-file of region " + snapshotAddressText(region.address) + " is not " +
                        (document ? "FOLDER/" : "") + id + "/after-ADDRESS.bin");
        const auto pointers = r.find("pointers");
        region.pointers = pointers != r.end() && pointers->is_boolean() && pointers->get<bool>();
        out.regions.push_back(std::move(region));
    }
    if (const auto omitted = j.find("omitted"); omitted != j.end()) {
        if (!omitted->is_array() || omitted->size() > kMaxSnapshotOmitted)
            return fail("omitted is not a list of at most " + std::to_string(kMaxSnapshotOmitted) + " entries");
        for (const json& o : *omitted) {
            SnapshotOmitted entry;
            const auto address = o.is_object() ? addressField(o, "address") : std::nullopt;
            const auto size = o.is_object() ? unsignedField(o, "bytes", UINT64_MAX) : std::nullopt;
            if (!address || !size) return fail("an omitted allocation has no \"0x...\" address or size");
            entry.address = *address;
            entry.bytes = *size;
            entry.why = boundedText(jsonString(o, "why"), 1024);
            out.omitted.push_back(std::move(entry));
        }
    }
    out.error = boundedText(jsonString(j, "error"), 4096);
    return true;
}

} // namespace

bool snapshotFromEvent(const json& event, LaunchSnapshot& out, std::string& error) {
    return parseSnapshot(event, out, error, false);
}

json snapshotDocumentEntry(const LaunchSnapshot& s, const std::string& folder, int64_t launchIndex) {
    const std::string prefix = folder.empty() ? std::string() : folder + "/";
    json params = json::array();
    for (const auto& p : s.params) params.push_back(json::array({p.first, p.second}));
    json regions = json::array();
    for (const SnapshotRegion& r : s.regions)
        regions.push_back({{"address", snapshotAddressText(r.address)},
                           {"bytes", r.bytes},
                           {"before", prefix + r.before},
                           {"after", r.after.empty() ? std::string() : prefix + r.after},
                           {"pointers", r.pointers}});
    json omitted = json::array();
    for (const SnapshotOmitted& o : s.omitted)
        omitted.push_back({{"address", snapshotAddressText(o.address)}, {"bytes", o.bytes}, {"why", o.why}});
    return {{"id", s.id()},
            {"pid", s.pid},
            {"corr", s.correlationId},
            {"launch", launchIndex},
            {"name", s.name},
            {"grid", json::array({s.grid[0], s.grid[1], s.grid[2]})},
            {"block", json::array({s.block[0], s.block[1], s.block[2]})},
            {"cluster", json::array({s.cluster[0], s.cluster[1], s.cluster[2]})},
            {"smem", s.dynamicSmem},
            {"params", params},
            {"param_bytes", hexBytes(s.paramBytes.data(), s.paramBytes.size())},
            {"regions", regions},
            {"omitted", omitted},
            {"error", s.error}};
}

bool readSnapshots(const json& doc, std::vector<LaunchSnapshot>& out, std::string& error) {
    const auto launches = doc.is_object() ? doc.find("launches") : doc.end();
    const size_t launchCount = launches != doc.end() && launches->is_array() ? launches->size() : 0;
    return readSnapshots(doc, launchCount, out, error);
}

bool readSnapshots(const json& doc, size_t launchCount, std::vector<LaunchSnapshot>& out, std::string& error) {
    out.clear();
    if (!doc.is_object()) {
        error = "the capture document is not an object";
        return false;
    }
    const auto list = doc.find("snapshots");
    if (list == doc.end()) return true;
    if (!list->is_array() || list->size() > kMaxSnapshots) {
        error = "the capture document's snapshots are not a list of at most " + std::to_string(kMaxSnapshots);
        return false;
    }
    for (const json& j : *list) {
        LaunchSnapshot s;
        if (!parseSnapshot(j, s, error, true)) {
            out.clear();
            return false;
        }
        const auto launch = j.find("launch");
        if (launch == j.end() || !launch->is_number_integer() || launch->get<int64_t>() < -1 ||
            launch->get<int64_t>() >= static_cast<int64_t>(launchCount)) {
            error = "snapshot " + s.id() + ": its launch is not an index into the document's launches (or -1)";
            out.clear();
            return false;
        }
        s.launchIndex = launch->get<int64_t>();
        for (const LaunchSnapshot& other : out)
            if (other.pid == s.pid && other.correlationId == s.correlationId) {
                error = "snapshot " + s.id() + " is listed twice";
                out.clear();
                return false;
            }
        out.push_back(std::move(s));
    }
    return true;
}

bool readSnapshotFile(const std::string& documentPath, const std::string& relative, uint64_t bytes,
                      std::vector<uint8_t>& out, std::string& error) {
    out.clear();
    const std::string shown = escapeControl(boundedText(relative, 300));
    if (relative.empty() || relative.front() == '/' || relative.size() > kMaxPathBytes) {
        error = "the saved launch memory '" + shown + "' is not a relative path";
        return false;
    }
    {
        const size_t slash = relative.rfind('/');
        if (slash == std::string::npos || !plainRelativeFolder(relative.substr(0, slash)) ||
            !plainRelativeFolder(relative.substr(slash + 1))) {
            error = "the saved launch memory '" + shown + "' is not a plain path inside the document's folder";
            return false;
        }
    }
    if (bytes > kMaxSnapshotFileBytes) {
        error = "the saved launch memory " + shown + " is larger than 4 GiB (limit)";
        return false;
    }
    const fs::path parent = fs::path(documentPath).parent_path();
    const std::string folder = parent.empty() ? std::string(".") : parent.string();
    std::string resolved;
    if (!resolveDocumentPath(relative, {folder}, "the saved launch memory", resolved, error)) return false;
    if (!checkInputFile(resolved, static_cast<size_t>(kMaxSnapshotFileBytes), "a saved launch region", error))
        return false;
    const int fd = ::open(resolved.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot read " + shown + ": " + std::strerror(errno);
        return false;
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != bytes) {
        ::close(fd);
        error = "the saved launch memory " + shown + " does not hold the " + std::to_string(bytes) +
                " bytes the capture recorded";
        return false;
    }
    try {
        out.resize(static_cast<size_t>(bytes));
    } catch (const std::bad_alloc&) {
        ::close(fd);
        error = "not enough memory to read " + shown;
        return false;
    }
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::read(fd, out.data() + done, std::min<size_t>(out.size() - done, size_t(1) << 30));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    if (done != out.size()) {
        out.clear();
        error = "the saved launch memory " + shown + " ended before its " + std::to_string(bytes) + " bytes";
        return false;
    }
    return true;
}

} // namespace lowerscope::capture
