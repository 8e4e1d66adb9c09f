// Runner protocol, the pieces every message shares: base64 and the checked JSON getters
// (protocol_detail.h). The messages themselves are written and read, each reader next to its
// writer, in protocol_request.cpp (run requests), protocol_result.cpp (results and measurements),
// protocol_graph.cpp (graph costs and the graph path) and protocol_messages.cpp (hello, device,
// progress, errors and the message lines).
#include "core/run/protocol.h"
#include "core/run/protocol_detail.h"

#include <cmath>
#include <limits>

namespace lowerscope {

// ----------------------------------------------------------------------------------- base64

std::string toBase64(const std::vector<uint8_t>& in) {
    static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        uint32_t v = (uint32_t(in[i]) << 16) | (uint32_t(in[i + 1]) << 8) | in[i + 2];
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += tbl[v & 63];
    }
    if (i + 1 == in.size()) {
        uint32_t v = uint32_t(in[i]) << 16;
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += "==";
    } else if (i + 2 == in.size()) {
        uint32_t v = (uint32_t(in[i]) << 16) | (uint32_t(in[i + 1]) << 8);
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::vector<uint8_t> fromBase64(const std::string& s) {
    auto val = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    if (s.size() % 4 != 0) {
        throw ProtocolError("base64 text length is not a multiple of 4");
    }
    std::vector<uint8_t> out;
    out.reserve(s.size() / 4 * 3);
    for (size_t i = 0; i < s.size(); i += 4) {
        int pad = 0;
        uint32_t v = 0;
        for (size_t k = 0; k < 4; ++k) {
            char c = s[i + k];
            int d = 0;
            if (c == '=') {
                if (i + 4 != s.size() || k < 2) {
                    throw ProtocolError("misplaced '=' in base64 text");
                }
                ++pad;
            } else {
                if (pad) {
                    throw ProtocolError("data after '=' in base64 text");
                }
                d = val(c);
                if (d < 0) {
                    throw ProtocolError("invalid character in base64 text");
                }
            }
            v = (v << 6) | static_cast<uint32_t>(d);
        }
        out.push_back(static_cast<uint8_t>(v >> 16));
        if (pad < 2) {
            out.push_back(static_cast<uint8_t>(v >> 8));
        }
        if (pad < 1) {
            out.push_back(static_cast<uint8_t>(v));
        }
    }
    return out;
}

// ------------------------------------------------------------------------------- JSON helpers

namespace protocol_detail {

[[noreturn]] void bad(const std::string& key, const std::string& what) {
    throw ProtocolError("field '" + key + "': " + what);
}

const json& need(const json& j, const char* key) {
    if (!j.is_object()) {
        bad(key, "expected an object around it");
    }
    auto it = j.find(key);
    if (it == j.end()) {
        bad(key, "missing");
    }
    return *it;
}

double asDouble(const json& v, const char* key) {
    if (v.is_null()) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (!v.is_number()) {
        bad(key, "expected a number");
    }
    return v.get<double>();
}
double getD(const json& j, const char* key, double dflt) {
    auto it = j.find(key);
    return it == j.end() ? dflt : asDouble(*it, key);
}
int64_t asInt(const json& v, const char* key) {
    if (!v.is_number_integer()) {
        if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
            std::fabs(v.get<double>()) < 9e18) {
            return static_cast<int64_t>(v.get<double>());
        }
        bad(key, "expected an integer");
    }
    return v.get<int64_t>();
}
int64_t getI(const json& j, const char* key, int64_t dflt) {
    auto it = j.find(key);
    return it == j.end() ? dflt : asInt(*it, key);
}
std::string getS(const json& j, const char* key, const std::string& dflt) {
    auto it = j.find(key);
    if (it == j.end()) {
        return dflt;
    }
    if (!it->is_string()) {
        bad(key, "expected a string");
    }
    return it->get<std::string>();
}
bool getB(const json& j, const char* key, bool dflt) {
    auto it = j.find(key);
    if (it == j.end()) {
        return dflt;
    }
    if (!it->is_boolean()) {
        bad(key, "expected true or false");
    }
    return it->get<bool>();
}
std::optional<double> getOptD(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        return std::nullopt;
    }
    return asDouble(*it, key);
}
json optD(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::vector<double> getDoubles(const json& j, const char* key) {
    std::vector<double> out;
    auto it = j.find(key);
    if (it == j.end()) {
        return out;
    }
    if (!it->is_array()) {
        bad(key, "expected an array of numbers");
    }
    for (const auto& v : *it) {
        out.push_back(asDouble(v, key));
    }
    return out;
}

ElemType getType(const json& j, const char* key) {
    std::string s = getS(j, key, "f32");
    auto t = parseElemType(s);
    if (!t) {
        bad(key, "unknown element type '" + s + "'");
    }
    return *t;
}

} // namespace protocol_detail

} // namespace lowerscope
