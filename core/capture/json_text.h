#pragma once
// JSON text appended by hand where building a nlohmann value for each launch would cost more than
// the rest of the work (the injection's kernel event lines, the capture document's launches). The
// same text nlohmann's dump writes for the same value. Header-only: the injection library compiles
// capture_events.cpp without the core.

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace lowerscope::capture {

// An integer in decimal, as dump writes one, written at `at` (room for 20 characters) up to the
// pointer returned.
template <class Integer>
char* writeJsonInteger(char* at, Integer v) {
    static_assert(std::is_integral_v<Integer> && !std::is_same_v<Integer, bool> && sizeof(Integer) <= 8);
    return std::to_chars(at, at + 20, v).ptr;
}

// The same integer appended.
template <class Integer>
void appendJsonInteger(std::string& out, Integer v) {
    char buf[20];
    out.append(buf, writeJsonInteger(buf, v));
}

// A string, quoted and escaped by dump itself (invalid UTF-8 written as U+FFFD).
inline void appendJsonString(std::string& out, const std::string& s) {
    out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace lowerscope::capture
