#include "core/bounded_json.h"

#include "core/untrusted.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lowerscope {

namespace {

std::string sizeText(size_t bytes) {
    if (bytes >= (size_t(1) << 20) && bytes % (size_t(1) << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " bytes";
}

} // namespace

void checkJsonLimits(std::string_view text, const JsonLimits& limits) {
    if (text.size() > limits.maxBytes)
        throw JsonLimitError(JsonLimitError::Limit::Bytes,
                             "JSON document too large: " + std::to_string(text.size()) +
                                 " bytes, more than " + sizeText(limits.maxBytes) + " (limit)");
    int depth = 0;
    size_t values = 0;
    bool inString = false;
    const char* p = text.data();
    const char* const end = p + text.size();
    for (; p < end; ++p) {
        const char c = *p;
        if (inString) {
            if (c == '\\')
                ++p; // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
            break;
        case '[':
        case '{':
            if (++depth > limits.maxDepth)
                throw JsonLimitError(JsonLimitError::Limit::Depth, "JSON document too deep: more than " +
                                                                       std::to_string(limits.maxDepth) +
                                                                       " nested arrays/objects (limit)");
            ++values;
            break;
        case ']':
        case '}':
            --depth;
            break;
        case ',':
            ++values;
            break;
        default:
            break;
        }
        if (values > limits.maxValues)
            throw JsonLimitError(JsonLimitError::Limit::Values, "JSON document too big: more than " +
                                                                    std::to_string(limits.maxValues) +
                                                                    " values (limit)");
    }
}

std::string jsonErrorWithoutText(const std::string& what) {
    const size_t quote = what.find("; last read:");
    return quote == std::string::npos ? what : what.substr(0, quote);
}

nlohmann::json parseJsonBounded(std::string_view text, const JsonLimits& limits) {
    checkJsonLimits(text, limits);
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        throw JsonSyntaxError(e.id, jsonErrorWithoutText(e.what()));
    }
}

std::optional<nlohmann::json> parseJsonBounded(std::string_view text, std::string& error,
                                               const JsonLimits& limits) {
    try {
        return parseJsonBounded(text, limits);
    } catch (const JsonLimitError& e) {
        error = e.what();
    } catch (const nlohmann::json::exception& e) {
        // nlohmann's message carries the byte offset and what it expected.
        error = std::string("not valid JSON (") + e.what() + ")";
    }
    return std::nullopt;
}

bool readFileBounded(const std::string& path, std::string& text, std::string& error,
                     const JsonLimits& limits) {
    // One rule for every input file (core/untrusted.h): regular files only, never blocking, the size
    // checked before reading and never more than the limit plus one byte held.
    return readInputFile(path, limits.maxBytes, "a JSON document", text, error);
}

std::optional<nlohmann::json> readJsonFileBounded(const std::string& path, std::string& error,
                                                  const JsonLimits& limits) {
    std::string text;
    if (!readFileBounded(path, text, error, limits)) return std::nullopt;
    auto j = parseJsonBounded(text, error, limits);
    if (!j) error = path + ": " + error;
    return j;
}

std::string jsonString(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key); // end() unless an object
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> jsonFiniteNumber(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

} // namespace lowerscope
