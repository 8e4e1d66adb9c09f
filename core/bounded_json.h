#pragma once
// The one reader of JSON documents that come from files or other processes (sessions, experiment
// cards, compare and result documents, sidecars, cache entries, tool memos, runner messages).
// nlohmann::json::parse alone accepts any nesting and size: 400 KB of `[[[[...` parses into
// 200 000 levels, and dumping that back with indentation writes gigabytes. Here a linear pre-scan
// (no allocation) refuses a document before parsing when it is larger, deeper or has more values
// than the limits, with an error that names the limit.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lowerscope {

struct JsonLimits {
    size_t maxBytes = size_t(64) << 20; // whole document, bytes
    int maxDepth = 64;                  // nested arrays/objects (a scalar or [] at the top = 1)
    size_t maxValues = 4'000'000;       // array elements + object members, all levels
};

// Limits for one runner protocol line (measure's runner client and the runner use these).
inline constexpr JsonLimits kRunnerMessageLimits{size_t(16) << 20, 32, 1'000'000};

// A limit of JsonLimits was passed. what() names it: "JSON document too deep: more than 64 nested
// arrays/objects (limit)".
class JsonLimitError : public std::runtime_error {
public:
    enum class Limit { Bytes, Depth, Values };
    JsonLimitError(Limit limit, const std::string& message) : std::runtime_error(message), m_limit(limit) {}
    Limit limit() const { return m_limit; }

private:
    Limit m_limit;
};

// The parser's error for text that is not JSON, with the position and what was expected but never
// the text it read (nlohmann's "; last read: '...'" quotes the document: a file someone pointed a
// reader at, /etc/passwd say, must not appear in an error message). A nlohmann::json::exception.
class JsonSyntaxError : public nlohmann::json::exception {
public:
    JsonSyntaxError(int id, const std::string& message) : nlohmann::json::exception(id, message.c_str()) {}
};

// nlohmann's message without the text it quotes.
std::string jsonErrorWithoutText(const std::string& what);

// Checks `text` against `limits` without parsing it. Throws JsonLimitError. Invalid JSON is not
// reported here (the parser does that); the scan only counts brackets and commas outside strings.
void checkJsonLimits(std::string_view text, const JsonLimits& limits = {});

// checkJsonLimits, then nlohmann::json::parse. Throws JsonLimitError or JsonSyntaxError.
nlohmann::json parseJsonBounded(std::string_view text, const JsonLimits& limits = {});

// Non-throwing: the document, or nullopt with `error` set to one sentence (a limit, or the parser's
// message with the byte offset).
std::optional<nlohmann::json> parseJsonBounded(std::string_view text, std::string& error,
                                               const JsonLimits& limits = {});

// Reads at most limits.maxBytes + 1 bytes of `path` (a larger file is refused without being read
// whole; directories, devices and FIFOs are refused too) into `text`. False with `error` set
// ("cannot read X: ...", "X is larger than 64 MiB (limit)").
bool readFileBounded(const std::string& path, std::string& text, std::string& error,
                     const JsonLimits& limits = {});

// readFileBounded + parseJsonBounded. nullopt with `error` naming the file.
std::optional<nlohmann::json> readJsonFileBounded(const std::string& path, std::string& error,
                                                  const JsonLimits& limits = {});

// A field of a JSON object someone else wrote, read without throwing: absent when `object` is not
// an object, `key` is missing or its value has another type. A string ("" when absent), a finite
// number (none when absent, NaN or infinite).
std::string jsonString(const nlohmann::json& object, const char* key);
std::optional<double> jsonFiniteNumber(const nlohmann::json& object, const char* key);

} // namespace lowerscope
