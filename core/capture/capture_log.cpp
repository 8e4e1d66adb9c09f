// The injection's event lines read back (capture_events.h).
#include "core/capture/capture_events.h"

#include "core/bounded_json.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace lowerscope::capture {

namespace {

using nlohmann::json;

constexpr int64_t kU32 = 0xffffffffLL;

// An integer of an event line as the JSON parser types it: nlohmann's number_unsigned for one >= 0,
// number_integer for a negative one (and for -0). Fractions, exponents and integers past 64 bits
// are floats, not integers.
struct LineInteger {
    bool isUnsigned = true;
    uint64_t bits = 0;                                              // the value, or an int64_t's bits
    int64_t asSigned() const { return static_cast<int64_t>(bits); } // as get<int64_t>() reads it
};

template <size_t N>
using LineIntegers = std::array<LineInteger, N>;

std::optional<LineInteger> lineInteger(const json& v) {
    if (v.is_number_unsigned()) return LineInteger{true, v.get<uint64_t>()};
    if (v.is_number_integer()) return LineInteger{false, static_cast<uint64_t>(v.get<int64_t>())};
    return std::nullopt;
}

std::optional<LineInteger> lineInteger(const json& j, const char* key) {
    const auto it = j.find(key);
    return it == j.end() ? std::nullopt : lineInteger(*it);
}

// A list of exactly N integers.
template <size_t N>
std::optional<LineIntegers<N>> lineIntegers(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_array() || it->size() != N) return std::nullopt;
    LineIntegers<N> out;
    for (size_t i = 0; i < N; ++i) {
        const auto v = lineInteger((*it)[i]);
        if (!v) return std::nullopt;
        out[i] = *v;
    }
    return out;
}

// The value in [lo, hi], else nullopt.
std::optional<int64_t> inRange(const std::optional<LineInteger>& v, int64_t lo, int64_t hi) {
    if (!v || (v->isUnsigned && v->bits > static_cast<uint64_t>(INT64_MAX))) return std::nullopt;
    const int64_t x = v->asSigned();
    if (x < lo || x > hi) return std::nullopt;
    return x;
}

std::optional<int64_t> integer(const json& j, const char* key, int64_t lo, int64_t hi) {
    return inRange(lineInteger(j, key), lo, hi);
}

std::optional<uint64_t> nonNegative(const std::optional<LineInteger>& v) {
    if (!v || (!v->isUnsigned && v->asSigned() < 0)) return std::nullopt;
    return v->bits;
}

std::optional<uint64_t> unsignedField(const json& j, const char* key) { return nonNegative(lineInteger(j, key)); }

// A grid, block or cluster: three integers in [0, INT32_MAX] (larger unsigned ones clamped to it).
bool dimensions(const std::optional<LineIntegers<3>>& v, std::array<int64_t, 3>& out) {
    if (!v) return false;
    for (size_t i = 0; i < 3; ++i) {
        const LineInteger& d = (*v)[i];
        const int64_t x = d.isUnsigned ? static_cast<int64_t>(std::min<uint64_t>(d.bits, INT32_MAX)) : d.asSigned();
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

// The fields of a kernel event (capture_events.h), read from the line either way below.
struct KernelFields {
    std::optional<LineInteger> pid, corr, device, context, stream, regs, start, end, graph, graphNode;
    std::string_view name; // "" when missing or not a string
    std::optional<LineIntegers<3>> grid, block, cluster;
    std::optional<LineIntegers<2>> smem;
};

KernelFields kernelFields(const json& j) {
    KernelFields f;
    f.pid = lineInteger(j, "pid");
    f.corr = lineInteger(j, "corr");
    f.device = lineInteger(j, "device");
    f.context = lineInteger(j, "context");
    f.stream = lineInteger(j, "stream");
    f.regs = lineInteger(j, "regs");
    f.start = lineInteger(j, "start");
    f.end = lineInteger(j, "end");
    f.graph = lineInteger(j, "graph");
    f.graphNode = lineInteger(j, "graph_node");
    if (const auto name = j.find("name"); name != j.end() && name->is_string())
        f.name = name->get_ref<const std::string&>();
    f.grid = lineIntegers<3>(j, "grid");
    f.block = lineIntegers<3>(j, "block");
    f.cluster = lineIntegers<3>(j, "cluster");
    f.smem = lineIntegers<2>(j, "smem");
    return f;
}

// The launch a kernel event describes; nullptr, else why the event is skipped.
const char* launchFrom(const KernelFields& f, CapturedLaunch& k) {
    const auto pid = inRange(f.pid, 0, kU32);
    if (!pid) return "an event without a pid";
    const auto corr = inRange(f.corr, 0, kU32);
    const auto device = inRange(f.device, 0, kU32);
    const auto context = inRange(f.context, 0, kU32);
    const auto stream = inRange(f.stream, 0, kU32);
    const auto regs = inRange(f.regs, 0, 1 << 16);
    const auto start = nonNegative(f.start);
    const auto end = nonNegative(f.end);
    if (!corr || !device || !context || !stream || !regs || !start || !end || f.name.empty() ||
        !dimensions(f.grid, k.grid) || !dimensions(f.block, k.block) || !dimensions(f.cluster, k.cluster) || !f.smem)
        return "a malformed kernel event";
    if (*end < *start) return "a kernel event that ends before it starts";
    k.pid = static_cast<uint32_t>(*pid);
    k.correlationId = static_cast<uint32_t>(*corr);
    k.name = f.name;
    k.device = static_cast<uint32_t>(*device);
    k.context = static_cast<uint32_t>(*context);
    k.stream = static_cast<uint32_t>(*stream);
    k.registers = *regs;
    k.startNs = *start;
    k.endNs = *end;
    k.dynamicSmem = std::max<int64_t>(0, (*f.smem)[0].asSigned());
    k.staticSmem = std::max<int64_t>(0, (*f.smem)[1].asSigned());
    k.graphId = nonNegative(f.graph).value_or(0);
    k.graphNodeId = nonNegative(f.graphNode).value_or(0);
    return nullptr;
}

// The kernel event's keys, in kernelEventLine's order ("e" first), and where each value goes.
enum class KernelValue { Event, Name, Integer, Triple, Pair };
struct KernelKey {
    std::string_view name;
    KernelValue kind;
    std::optional<LineInteger> KernelFields::*integer = nullptr;
    std::optional<LineIntegers<3>> KernelFields::*triple = nullptr;
};
constexpr std::array<KernelKey, 16> kKernelKeys{{
    {"e", KernelValue::Event},
    {"pid", KernelValue::Integer, &KernelFields::pid},
    {"corr", KernelValue::Integer, &KernelFields::corr},
    {"name", KernelValue::Name},
    {"device", KernelValue::Integer, &KernelFields::device},
    {"context", KernelValue::Integer, &KernelFields::context},
    {"stream", KernelValue::Integer, &KernelFields::stream},
    {"grid", KernelValue::Triple, nullptr, &KernelFields::grid},
    {"block", KernelValue::Triple, nullptr, &KernelFields::block},
    {"cluster", KernelValue::Triple, nullptr, &KernelFields::cluster},
    {"smem", KernelValue::Pair},
    {"regs", KernelValue::Integer, &KernelFields::regs},
    {"start", KernelValue::Integer, &KernelFields::start},
    {"end", KernelValue::Integer, &KernelFields::end},
    {"graph", KernelValue::Integer, &KernelFields::graph},
    {"graph_node", KernelValue::Integer, &KernelFields::graphNode},
}};

// Reads a kernel line without building a JSON value: most lines of a capture are kernel lines as
// kernelEventLine writes them, and parsing each into a nlohmann object cost more than everything
// else `capture` does after the program. Takes a JSON object of the kernel event's keys only (in
// any order, each at most once, "e" being "kernel", whitespace anywhere JSON allows it) whose values
// are of the form the writer writes: integers >= 0 without fraction or exponent that fit 64 bits,
// strings of printable ASCII without escapes, lists of N such integers where the field has N.
// A line it takes it reads exactly as the JSON parser would (and a missing field stays missing, for
// launchFrom to refuse). False for anything else, valid JSON or not: the caller parses that line.
class KernelLineScanner {
public:
    explicit KernelLineScanner(std::string_view text) : m_p(text.data()), m_end(text.data() + text.size()) {}

    bool read(KernelFields& f) {
        if (!eat('{')) return false;
        uint32_t seen = 0;
        size_t next = 0; // the writer's key order is tried first
        do {
            std::string_view key;
            if (!string(key) || !eat(':')) return false;
            size_t k = next;
            while (kKernelKeys[k].name != key) {
                k = (k + 1) % kKernelKeys.size();
                if (k == next) return false; // not a key of the kernel event
            }
            if (seen & (1u << k)) return false; // twice
            seen |= 1u << k;
            next = (k + 1) % kKernelKeys.size();
            if (!value(kKernelKeys[k], f)) return false;
        } while (eat(','));
        if (!eat('}')) return false;
        space();
        return m_p == m_end && (seen & 1u); // kKernelKeys[0]: "e"
    }

private:
    bool value(const KernelKey& key, KernelFields& f) {
        switch (key.kind) {
        case KernelValue::Event: {
            std::string_view e;
            return string(e) && e == "kernel";
        }
        case KernelValue::Name:
            return string(f.name);
        case KernelValue::Integer: {
            LineInteger v;
            if (!integer(v)) return false;
            f.*key.integer = v;
            return true;
        }
        case KernelValue::Triple:
            return integers(f.*key.triple);
        case KernelValue::Pair:
            return integers(f.smem);
        }
        return false;
    }

    void space() {
        while (m_p != m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r')) ++m_p;
    }
    bool eat(char c) {
        space();
        if (m_p == m_end || *m_p != c) return false;
        ++m_p;
        return true;
    }
    bool string(std::string_view& out) {
        if (!eat('"')) return false;
        const char* from = m_p;
        while (m_p != m_end && *m_p != '"') {
            const auto c = static_cast<unsigned char>(*m_p);
            if (c < 0x20 || c > 0x7e || c == '\\') return false;
            ++m_p;
        }
        if (m_p == m_end) return false;
        out = std::string_view(from, static_cast<size_t>(m_p - from));
        ++m_p;
        return true;
    }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    bool integer(LineInteger& out) {
        space();
        if (m_p == m_end || !digit(*m_p)) return false;
        if (*m_p == '0' && m_p + 1 != m_end && digit(m_p[1])) return false; // a leading zero: not JSON
        uint64_t v = 0;
        const auto [end, error] = std::from_chars(m_p, m_end, v); // digits only
        if (error != std::errc()) return false;                  // past 64 bits: a float to the parser
        m_p = end;
        if (m_p != m_end && (*m_p == '.' || *m_p == 'e' || *m_p == 'E')) return false;
        out = LineInteger{true, v};
        return true;
    }
    template <size_t N>
    bool integers(std::optional<LineIntegers<N>>& out) {
        if (!eat('[')) return false;
        LineIntegers<N> list;
        for (size_t i = 0; i < N; ++i)
            if ((i > 0 && !eat(',')) || !integer(list[i])) return false;
        if (!eat(']')) return false;
        out = list;
        return true;
    }

    const char* m_p;
    const char* m_end;
};

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
    auto kernel = [&](const KernelFields& f) {
        CapturedLaunch k;
        if (const char* why = launchFrom(f, k)) return skip(why);
        process(k.pid);
        launches.push_back(std::move(k));
        return true;
    };
    // Nearly every line is a kernel line of our own writer: read without a JSON value when it can be.
    if (KernelFields f; KernelLineScanner(text).read(f)) return kernel(f);
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
    if (e == "kernel") return kernel(kernelFields(j));
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
    // Room for the kernel lines the file can hold (each at least ~200 bytes): growing the list
    // line by line moved every launch again at each doubling.
    if (std::fseek(f, 0, SEEK_END) == 0) {
        const long size = std::ftell(f);
        if (size > 0) launches.reserve(launches.size() + static_cast<size_t>(size) / 200);
        std::rewind(f);
    }
    std::string pending;
    bool overlong = false;
    char buf[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        const char* from = buf;
        const char* const end = buf + n;
        while (const char* eol = static_cast<const char*>(std::memchr(from, '\n', static_cast<size_t>(end - from)))) {
            const std::string_view piece(from, static_cast<size_t>(eol - from));
            if (overlong) {
                if (skippedLines++ == 0) firstSkipReason = "a line over 1 MiB";
            } else if (pending.empty()) {
                addLine(piece); // the whole line is in the buffer
            } else {
                pending.append(piece);
                addLine(pending);
            }
            pending.clear();
            overlong = false;
            from = eol + 1;
        }
        if (!overlong) {
            pending.append(from, static_cast<size_t>(end - from));
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

std::vector<size_t> CaptureLog::launchOrder() const {
    std::unordered_map<uint32_t, size_t> rank;
    for (size_t i = 0; i < processes.size(); ++i) rank[processes[i].pid] = i;
    // Sorted as keys (the arrival index last, for a stable order): moving whole launches about took
    // longer, and the launches mostly arrive in order already.
    struct Key {
        size_t rank;
        uint32_t correlationId;
        uint64_t startNs;
        size_t index;
        bool operator<(const Key& o) const {
            return std::tie(rank, correlationId, startNs, index) <
                   std::tie(o.rank, o.correlationId, o.startNs, o.index);
        }
    };
    std::vector<Key> keys;
    keys.reserve(launches.size());
    for (size_t i = 0; i < launches.size(); ++i)
        keys.push_back({rank[launches[i].pid], launches[i].correlationId, launches[i].startNs, i});
    if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());
    std::vector<size_t> out;
    out.reserve(keys.size());
    for (const Key& k : keys) out.push_back(k.index);
    return out;
}

} // namespace lowerscope::capture
