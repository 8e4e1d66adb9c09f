// Tensor maps and raw byte aggregates as launch arguments (tensor_map.h).
#include "core/run/tensor_map.h"

#include "core/run/argspec.h"
#include "core/run/buffer_data.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace lowerscope {

namespace {

constexpr size_t kMaxArgText = 64 * 1024;
constexpr int kMaxAggregateBytes = 32764;
constexpr size_t kMaxItems = 4096;

[[noreturn]] void fail(const std::string& argText, const std::string& what) {
    // Quote a bounded part of untrusted text.
    const std::string shown = argText.size() > 200 ? argText.substr(0, 200) + "..." : argText;
    throw ArgSpecError("argument '" + shown + "': " + what);
}

std::string trimmed(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    const size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string bounded(const std::string& s) { return s.size() > 64 ? s.substr(0, 64) + "..." : s; }

Expr parseExpr(const std::string& text, const std::string& argText, const std::string& what) {
    try {
        return Expr::parse(text);
    } catch (const ExprError& e) {
        fail(argText, what + ": " + e.what());
    }
}

// "[a, b, c]" → expressions.
std::vector<Expr> parseList(const std::string& value, const std::string& argText, const std::string& key) {
    const std::string v = trimmed(value);
    if (v.size() < 2 || v.front() != '[' || v.back() != ']') {
        fail(argText, key + " needs a list in brackets, e.g. " + key + "=[64,128]");
    }
    std::vector<Expr> out;
    for (const std::string& item : splitTopLevel(v.substr(1, v.size() - 2), argText)) {
        if (item.empty()) fail(argText, key + " has an empty entry");
        out.push_back(parseExpr(item, argText, key));
    }
    if (out.empty() || out.size() > 5) fail(argText, key + " needs 1 to 5 entries");
    return out;
}

bool isIdent(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    }
    return true;
}

int hexNibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int valueTypeSize(const std::string& t) {
    if (t == "i8" || t == "u8") return 1;
    if (t == "i16" || t == "u16" || t == "f16" || t == "bf16") return 2;
    if (t == "i32" || t == "u32" || t == "f32") return 4;
    if (t == "i64" || t == "u64" || t == "f64") return 8;
    return 0;
}

bool isItemType(const std::string& t) { return valueTypeSize(t) > 0 || t == "hex" || t == "pad"; }

} // namespace

int tensorMapTypeSize(TensorMapType t) {
    switch (t) {
    case TensorMapType::U8: return 1;
    case TensorMapType::U16:
    case TensorMapType::F16:
    case TensorMapType::BF16: return 2;
    case TensorMapType::U32:
    case TensorMapType::I32:
    case TensorMapType::F32:
    case TensorMapType::F32Ftz:
    case TensorMapType::TF32:
    case TensorMapType::TF32Ftz: return 4;
    case TensorMapType::U64:
    case TensorMapType::I64:
    case TensorMapType::F64: return 8;
    }
    return 1;
}

namespace {
struct TypeName {
    TensorMapType type;
    const char* name;
};
constexpr TypeName kTypeNames[] = {
    {TensorMapType::U8, "u8"},       {TensorMapType::U16, "u16"},         {TensorMapType::U32, "u32"},
    {TensorMapType::I32, "i32"},     {TensorMapType::U64, "u64"},         {TensorMapType::I64, "i64"},
    {TensorMapType::F16, "f16"},     {TensorMapType::F32, "f32"},         {TensorMapType::F64, "f64"},
    {TensorMapType::BF16, "bf16"},   {TensorMapType::F32Ftz, "f32ftz"},   {TensorMapType::TF32, "tf32"},
    {TensorMapType::TF32Ftz, "tf32ftz"}};
} // namespace

std::string tensorMapTypeName(TensorMapType t) {
    for (const auto& n : kTypeNames) {
        if (n.type == t) return n.name;
    }
    return "?";
}

std::optional<TensorMapType> parseTensorMapType(const std::string& name) {
    for (const auto& n : kTypeNames) {
        if (name == n.name) return n.type;
    }
    return std::nullopt;
}

std::string interleaveName(TensorMapInterleave v) {
    return v == TensorMapInterleave::B16 ? "16B" : v == TensorMapInterleave::B32 ? "32B" : "none";
}
std::string swizzleName(TensorMapSwizzle v) {
    return v == TensorMapSwizzle::B32 ? "32B" : v == TensorMapSwizzle::B64 ? "64B" : v == TensorMapSwizzle::B128 ? "128B" : "none";
}
std::string l2PromotionName(TensorMapL2Promotion v) {
    return v == TensorMapL2Promotion::B64 ? "64B" : v == TensorMapL2Promotion::B128 ? "128B"
         : v == TensorMapL2Promotion::B256 ? "256B" : "none";
}
std::string oobFillName(TensorMapOobFill v) { return v == TensorMapOobFill::NanRequestZeroFma ? "nan" : "zeros"; }

std::optional<TensorMapInterleave> parseInterleave(const std::string& s) {
    const std::string l = lower(s);
    if (l == "none") return TensorMapInterleave::None;
    if (l == "16b") return TensorMapInterleave::B16;
    if (l == "32b") return TensorMapInterleave::B32;
    return std::nullopt;
}
std::optional<TensorMapSwizzle> parseSwizzle(const std::string& s) {
    const std::string l = lower(s);
    if (l == "none") return TensorMapSwizzle::None;
    if (l == "32b") return TensorMapSwizzle::B32;
    if (l == "64b") return TensorMapSwizzle::B64;
    if (l == "128b") return TensorMapSwizzle::B128;
    return std::nullopt;
}
std::optional<TensorMapL2Promotion> parseL2Promotion(const std::string& s) {
    const std::string l = lower(s);
    if (l == "none") return TensorMapL2Promotion::None;
    if (l == "64b") return TensorMapL2Promotion::B64;
    if (l == "128b") return TensorMapL2Promotion::B128;
    if (l == "256b") return TensorMapL2Promotion::B256;
    return std::nullopt;
}
std::optional<TensorMapOobFill> parseOobFill(const std::string& s) {
    const std::string l = lower(s);
    if (l == "zeros" || l == "zero" || l == "none") return TensorMapOobFill::Zeros;
    if (l == "nan") return TensorMapOobFill::NanRequestZeroFma;
    return std::nullopt;
}

std::vector<std::string> splitTopLevel(const std::string& text, const std::string& argText) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : text) {
        if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0) fail(argText, "unbalanced brackets");
        }
        if (c == ',' && depth == 0) {
            out.push_back(trimmed(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (depth != 0) fail(argText, "unbalanced brackets");
    if (!trimmed(cur).empty() || !out.empty()) out.push_back(trimmed(cur));
    return out;
}

// ------------------------------------------------------------------------------- tensor maps

uint64_t tensorMapExtentBytes(const TensorMapSpec& m) {
    const uint64_t elem = static_cast<uint64_t>(tensorMapTypeSize(m.type));
    if (m.rank < 1 || m.dims.size() != static_cast<size_t>(m.rank) || m.strides.size() + 1 != m.dims.size()) {
        return 0;
    }
    // Dims ≤ 2^32 and strides < 2^40 (checked before use) keep every product below 2^72: use
    // long double-free saturation instead.
    auto mulSat = [](uint64_t a, uint64_t b) -> uint64_t {
        if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return std::numeric_limits<uint64_t>::max();
        return a * b;
    };
    auto addSat = [](uint64_t a, uint64_t b) -> uint64_t {
        return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
    };
    uint64_t end = elem;
    for (int i = 0; i < m.rank; ++i) {
        const uint64_t stride = i == 0 ? elem : m.strides[static_cast<size_t>(i - 1)];
        const uint64_t d = m.dims[static_cast<size_t>(i)];
        if (d == 0) return 0;
        end = addSat(end, mulSat(d - 1, stride));
    }
    return end;
}

std::string checkTensorMap(const TensorMapSpec& m, int64_t bufferBytes) {
    const auto r = static_cast<size_t>(m.rank);
    if (m.rank < 1 || m.rank > 5) return "rank " + std::to_string(m.rank) + " is not 1..5";
    if (m.interleave != TensorMapInterleave::None && m.rank < 3) return "an interleaved tensor map needs rank 3..5";
    if (m.dims.size() != r || m.box.size() != r || m.elementStrides.size() != r || m.strides.size() + 1 != r) {
        return "dims, box and elem_strides need " + std::to_string(m.rank) + " entries and strides " +
               std::to_string(m.rank - 1);
    }
    const int elem = tensorMapTypeSize(m.type);
    for (size_t i = 0; i < r; ++i) {
        if (m.dims[i] < 1 || m.dims[i] > (uint64_t(1) << 32)) {
            return "dims[" + std::to_string(i) + "] = " + std::to_string(m.dims[i]) + " is not 1..2^32";
        }
        if (m.box[i] < 1 || m.box[i] > 256) {
            return "box[" + std::to_string(i) + "] = " + std::to_string(m.box[i]) + " is not 1..256";
        }
        if (m.elementStrides[i] < 1 || m.elementStrides[i] > 8) {
            return "elem_strides[" + std::to_string(i) + "] = " + std::to_string(m.elementStrides[i]) + " is not 1..8";
        }
    }
    const uint64_t strideAlign = m.interleave == TensorMapInterleave::B32 ? 32 : 16;
    for (size_t i = 0; i < m.strides.size(); ++i) {
        if (m.strides[i] % strideAlign != 0 || m.strides[i] >= (uint64_t(1) << 40) || m.strides[i] == 0) {
            return "the byte stride of dimension " + std::to_string(i + 1) + " is " + std::to_string(m.strides[i]) +
                   "; strides must be non-zero multiples of " + std::to_string(strideAlign) +
                   " below 2^40 (give strides=[...] when the packed layout is not)";
        }
    }
    const uint64_t innerBytes = uint64_t(m.box[0]) * static_cast<uint64_t>(elem);
    if (m.interleave == TensorMapInterleave::None) {
        if (innerBytes % 16 != 0) {
            return "box[0] × element size = " + std::to_string(innerBytes) + " bytes is not a multiple of 16";
        }
        const uint64_t span = m.swizzle == TensorMapSwizzle::B32   ? 32
                            : m.swizzle == TensorMapSwizzle::B64   ? 64
                            : m.swizzle == TensorMapSwizzle::B128  ? 128
                                                                   : 0;
        if (span && innerBytes > span) {
            return "box[0] × element size = " + std::to_string(innerBytes) + " bytes exceeds the " +
                   swizzleName(m.swizzle) + " swizzle span";
        }
    }
    if (m.interleave == TensorMapInterleave::B32 && m.swizzle != TensorMapSwizzle::B32) {
        return "interleave=32B needs swizzle=32B";
    }
    const bool isFloat = m.type == TensorMapType::F16 || m.type == TensorMapType::F32 || m.type == TensorMapType::F64 ||
                         m.type == TensorMapType::BF16 || m.type == TensorMapType::F32Ftz ||
                         m.type == TensorMapType::TF32 || m.type == TensorMapType::TF32Ftz;
    if (m.oobFill == TensorMapOobFill::NanRequestZeroFma && !isFloat) {
        return "oobfill=nan needs a floating-point element type";
    }
    const uint64_t extent = tensorMapExtentBytes(m);
    if (bufferBytes < 0 || extent > static_cast<uint64_t>(bufferBytes)) {
        return "it addresses " + std::to_string(extent) + " bytes but its buffer has " + std::to_string(bufferBytes);
    }
    return "";
}

std::string tensorMapToString(const TensorMapSpec& m, const std::string& bufferName) {
    auto list = [](const auto& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
        return s + "]";
    };
    std::string s = "tensormap(" + bufferName + ", " + tensorMapTypeName(m.type) + ", dims=" + list(m.dims);
    // Strides only when not packed.
    std::vector<uint64_t> packed;
    uint64_t st = static_cast<uint64_t>(tensorMapTypeSize(m.type));
    for (size_t i = 0; i + 1 < m.dims.size(); ++i) packed.push_back(st *= m.dims[i]);
    if (m.strides != packed) s += ", strides=" + list(m.strides);
    s += ", box=" + list(m.box);
    bool unit = true;
    for (uint32_t e : m.elementStrides) unit = unit && e == 1;
    if (!unit) s += ", elem_strides=" + list(m.elementStrides);
    if (m.interleave != TensorMapInterleave::None) s += ", interleave=" + interleaveName(m.interleave);
    if (m.swizzle != TensorMapSwizzle::None) s += ", swizzle=" + swizzleName(m.swizzle);
    if (m.l2Promotion != TensorMapL2Promotion::None) s += ", l2promotion=" + l2PromotionName(m.l2Promotion);
    if (m.oobFill != TensorMapOobFill::Zeros) s += ", oobfill=" + oobFillName(m.oobFill);
    return s + ")";
}

TensorMapArg parseTensorMapArg(const std::string& inner, const std::string& argText) {
    if (inner.size() > kMaxArgText) fail(argText, "tensormap(...) is longer than 64 KiB");
    const std::vector<std::string> parts = splitTopLevel(inner, argText);
    if (parts.size() < 2) {
        fail(argText, "expected tensormap(BUFFER, TYPE, dims=[...], box=[...], ...)");
    }
    TensorMapArg t;
    t.buffer = parts[0];
    if (!isIdent(t.buffer)) fail(argText, "tensormap's first entry must name a buffer argument, not '" + bounded(t.buffer) + "'");
    auto type = parseTensorMapType(lower(parts[1]));
    if (!type) {
        fail(argText, "unknown tensor map element type '" + bounded(parts[1]) +
                          "' (known: u8 u16 u32 i32 u64 i64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz)");
    }
    t.type = *type;
    bool haveDims = false, haveBox = false;
    for (size_t i = 2; i < parts.size(); ++i) {
        const std::string& p = parts[i];
        const size_t eq = p.find('=');
        if (eq == std::string::npos) fail(argText, "expected key=value, got '" + bounded(p) + "'");
        const std::string key = lower(trimmed(p.substr(0, eq)));
        const std::string value = trimmed(p.substr(eq + 1));
        auto once = [&](bool& seen) {
            if (seen) fail(argText, key + " given twice");
            seen = true;
        };
        if (key == "dims") {
            once(haveDims);
            t.dims = parseList(value, argText, key);
        } else if (key == "box") {
            once(haveBox);
            t.box = parseList(value, argText, key);
        } else if (key == "strides") {
            if (!t.strides.empty()) fail(argText, "strides given twice");
            t.strides = parseList(value, argText, key);
        } else if (key == "elem_strides" || key == "element_strides") {
            if (!t.elementStrides.empty()) fail(argText, key + " given twice");
            t.elementStrides = parseList(value, argText, key);
        } else if (key == "swizzle") {
            auto v = parseSwizzle(value);
            if (!v) fail(argText, "swizzle must be none, 32B, 64B or 128B, not '" + bounded(value) + "'");
            t.swizzle = *v;
        } else if (key == "interleave") {
            auto v = parseInterleave(value);
            if (!v) fail(argText, "interleave must be none, 16B or 32B, not '" + bounded(value) + "'");
            t.interleave = *v;
        } else if (key == "l2promotion" || key == "l2_promotion") {
            auto v = parseL2Promotion(value);
            if (!v) fail(argText, "l2promotion must be none, 64B, 128B or 256B, not '" + bounded(value) + "'");
            t.l2Promotion = *v;
        } else if (key == "oobfill" || key == "oob_fill") {
            auto v = parseOobFill(value);
            if (!v) fail(argText, "oobfill must be zeros or nan, not '" + bounded(value) + "'");
            t.oobFill = *v;
        } else {
            fail(argText, "unknown tensormap key '" + bounded(key) +
                              "' (known: dims, strides, box, elem_strides, interleave, swizzle, l2promotion, oobfill)");
        }
    }
    if (!haveDims || !haveBox) fail(argText, "tensormap needs dims=[...] and box=[...]");
    if (t.box.size() != t.dims.size()) {
        fail(argText, "box has " + std::to_string(t.box.size()) + " entries but dims " + std::to_string(t.dims.size()));
    }
    if (!t.strides.empty() && t.strides.size() + 1 != t.dims.size()) {
        fail(argText, "strides gives the byte strides of dimensions 1.." + std::to_string(t.dims.size() - 1) + ": " +
                          std::to_string(t.dims.size() - 1) + " entries, not " + std::to_string(t.strides.size()));
    }
    if (!t.elementStrides.empty() && t.elementStrides.size() != t.dims.size()) {
        fail(argText, "elem_strides needs " + std::to_string(t.dims.size()) + " entries");
    }
    return t;
}

// ------------------------------------------------------------------------------- raw bytes

BytesArg parseBytesArg(const std::string& innerIn, const std::string& argText) {
    if (innerIn.size() > kMaxArgText) fail(argText, "bytes(...) is longer than 64 KiB");
    BytesArg b;
    const std::string inner = trimmed(innerIn);
    if (inner == "zeros") {
        b.zeros = true;
        return b;
    }
    if (inner.empty()) fail(argText, "bytes() needs items, e.g. bytes(i32:1,2 f32:0.5), bytes(hex:00ff) or bytes(zeros)");
    // Item starts: TYPE: at depth 0, at the start or after a blank or a comma.
    std::vector<size_t> starts;
    int depth = 0;
    for (size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth != 0 || !std::isalpha(static_cast<unsigned char>(c))) continue;
        if (i > 0 && !(std::isspace(static_cast<unsigned char>(inner[i - 1])) || inner[i - 1] == ',')) continue;
        size_t j = i;
        while (j < inner.size() && std::isalnum(static_cast<unsigned char>(inner[j]))) ++j;
        if (j < inner.size() && inner[j] == ':' && isItemType(inner.substr(i, j - i))) {
            starts.push_back(i);
            if (starts.size() > kMaxItems) fail(argText, "bytes() has more than 4096 items");
        }
        i = j > i ? j - 1 : i;
    }
    if (starts.empty() || trimmed(inner.substr(0, starts[0])).size() > 0) {
        fail(argText, "bytes() items are TYPE:values (i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64), hex:DIGITS or "
                      "pad:N; got '" + bounded(inner) + "'");
    }
    int64_t total = 0;
    for (size_t k = 0; k < starts.size(); ++k) {
        const size_t end = k + 1 < starts.size() ? starts[k + 1] : inner.size();
        std::string item = trimmed(inner.substr(starts[k], end - starts[k]));
        while (!item.empty() && item.back() == ',') item = trimmed(item.substr(0, item.size() - 1));
        const size_t colon = item.find(':');
        ByteItem it;
        it.type = item.substr(0, colon);
        const std::string rest = trimmed(item.substr(colon + 1));
        if (it.type == "hex") {
            it.kind = ByteItem::Kind::Hex;
            std::string digits;
            for (char c : rest) {
                if (c == '_' || std::isspace(static_cast<unsigned char>(c))) continue;
                if (hexNibble(c) < 0) fail(argText, "hex: takes hex digits only, not '" + std::string(1, c) + "'");
                digits += c;
            }
            if (digits.empty() || digits.size() % 2) fail(argText, "hex: needs an even, non-zero number of digits");
            for (size_t i = 0; i < digits.size(); i += 2) {
                it.hex.push_back(static_cast<uint8_t>(hexNibble(digits[i]) * 16 + hexNibble(digits[i + 1])));
            }
            total += static_cast<int64_t>(it.hex.size());
        } else if (it.type == "pad") {
            it.kind = ByteItem::Kind::Pad;
            try {
                it.pad = evaluateConstant(rest).asInt("pad");
            } catch (const ExprError& e) {
                fail(argText, std::string("pad: ") + e.what());
            }
            if (it.pad < 1 || it.pad > kMaxAggregateBytes) fail(argText, "pad:N needs 1 <= N <= 32764");
            total += it.pad;
        } else {
            it.kind = ByteItem::Kind::Value;
            for (const std::string& v : splitTopLevel(rest, argText)) {
                if (v.empty()) fail(argText, it.type + ": has an empty value");
                it.values.push_back(parseExpr(v, argText, it.type));
                if (it.values.size() > kMaxAggregateBytes) fail(argText, "bytes() is larger than 32764 bytes");
            }
            if (it.values.empty()) fail(argText, it.type + ": needs at least one value");
            total += static_cast<int64_t>(it.values.size()) * valueTypeSize(it.type);
        }
        if (total > kMaxAggregateBytes) fail(argText, "bytes() is larger than 32764 bytes");
        b.items.push_back(std::move(it));
    }
    return b;
}

std::vector<uint8_t> evaluateBytes(const BytesArg& b, int paramSize,
                                   const std::function<ExprValue(const std::string&)>& lookup,
                                   const std::string& argText) {
    std::vector<uint8_t> out;
    if (b.zeros) {
        out.assign(static_cast<size_t>(std::max(paramSize, 0)), 0);
        return out;
    }
    auto put = [&](uint64_t v, int size) {
        for (int i = 0; i < size; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    };
    for (const ByteItem& it : b.items) {
        if (it.kind == ByteItem::Kind::Hex) {
            out.insert(out.end(), it.hex.begin(), it.hex.end());
            continue;
        }
        if (it.kind == ByteItem::Kind::Pad) {
            out.insert(out.end(), static_cast<size_t>(it.pad), 0);
            continue;
        }
        const int size = valueTypeSize(it.type);
        const char kind = it.type[0];
        for (const Expr& e : it.values) {
            ExprValue v;
            try {
                v = e.evaluate(lookup);
            } catch (const ExprError& err) {
                fail(argText, it.type + ": " + err.what());
            }
            if (it.type == "f32") {
                const float f = static_cast<float>(v.asDouble());
                uint32_t bits;
                std::memcpy(&bits, &f, 4);
                put(bits, 4);
            } else if (it.type == "f64") {
                const double d = v.asDouble();
                uint64_t bits;
                std::memcpy(&bits, &d, 8);
                put(bits, 8);
            } else if (it.type == "f16") {
                put(floatToHalf(static_cast<float>(v.asDouble())), 2);
            } else if (it.type == "bf16") {
                put(floatToBfloat16(static_cast<float>(v.asDouble())), 2);
            } else {
                int64_t i = 0;
                try {
                    i = v.asInt(it.type + " value '" + e.text() + "'");
                } catch (const ExprError& err) {
                    fail(argText, err.what());
                }
                const int bits = size * 8;
                if (bits < 64) {
                    const int64_t lo = kind == 'i' ? -(int64_t(1) << (bits - 1)) : 0;
                    const int64_t hi = kind == 'i' ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
                    if (i < lo || i > hi) {
                        fail(argText, it.type + " value " + std::to_string(i) + " out of range [" + std::to_string(lo) +
                                          ", " + std::to_string(hi) + "]");
                    }
                } else if (kind == 'u' && i < 0) {
                    fail(argText, "u64 value " + std::to_string(i) + " is negative");
                }
                put(static_cast<uint64_t>(i), size);
            }
        }
    }
    if (static_cast<int>(out.size()) != paramSize) {
        fail(argText, "bytes() gives " + std::to_string(out.size()) + " bytes but the parameter has " +
                          std::to_string(paramSize) + " (write pad:N where the struct has padding)");
    }
    return out;
}

} // namespace lowerscope
