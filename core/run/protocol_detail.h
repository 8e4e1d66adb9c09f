#pragma once
// Private to the protocol's .cpp files (protocol*.cpp): the checked JSON getters every reader
// uses. Each throws ProtocolError with a message naming the field (the runner's answers are
// untrusted). Not for use outside core/run/protocol*.cpp.

#include "core/run/protocol.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lowerscope::protocol_detail {

using nlohmann::json;

[[noreturn]] void bad(const std::string& key, const std::string& what);

// The member `key` of the object `j`; throws when `j` is not an object or has no `key`.
const json& need(const json& j, const char* key);

// Typed getters: required (as*) and optional with a default (get*). Doubles accept null as NaN
// (nlohmann writes non-finite numbers as null).
double asDouble(const json& v, const char* key);
double getD(const json& j, const char* key, double dflt);
int64_t asInt(const json& v, const char* key);
int64_t getI(const json& j, const char* key, int64_t dflt);
std::string getS(const json& j, const char* key, const std::string& dflt = "");
bool getB(const json& j, const char* key, bool dflt);
std::optional<double> getOptD(const json& j, const char* key);
json optD(const std::optional<double>& v);

std::vector<double> getDoubles(const json& j, const char* key);
ElemType getType(const json& j, const char* key);

// The optional array `key` of objects, each read with fromJson.
template <typename T>
std::vector<T> getObjects(const json& j, const char* key) {
    std::vector<T> out;
    auto it = j.find(key);
    if (it == j.end()) {
        return out;
    }
    if (!it->is_array()) {
        bad(key, "expected an array");
    }
    for (const auto& v : *it) {
        T t;
        fromJson(v, t);
        out.push_back(std::move(t));
    }
    return out;
}

} // namespace lowerscope::protocol_detail
