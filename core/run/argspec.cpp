// Argument specs: parsing `name=...`, sidecar files, and matching against PTX parameters.
#include "core/run/argspec.h"

#include "core/bounded_json.h"
#include "core/untrusted.h"

#include "core/run/buffer_data.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace lowerscope {

int elemSize(ElemType type) {
    switch (type) {
    case ElemType::F16:
    case ElemType::BF16: return 2;
    case ElemType::F32:
    case ElemType::I32:
    case ElemType::U32: return 4;
    case ElemType::F64:
    case ElemType::I64:
    case ElemType::U64: return 8;
    case ElemType::I8:
    case ElemType::U8: return 1;
    }
    return 1;
}

std::string elemTypeName(ElemType type) {
    switch (type) {
    case ElemType::F16: return "f16";
    case ElemType::BF16: return "bf16";
    case ElemType::F32: return "f32";
    case ElemType::F64: return "f64";
    case ElemType::I8: return "i8";
    case ElemType::U8: return "u8";
    case ElemType::I32: return "i32";
    case ElemType::U32: return "u32";
    case ElemType::I64: return "i64";
    case ElemType::U64: return "u64";
    }
    return "?";
}

std::optional<ElemType> parseElemType(const std::string& name) {
    static const std::map<std::string, ElemType> types = {
        {"f16", ElemType::F16}, {"bf16", ElemType::BF16}, {"f32", ElemType::F32}, {"f64", ElemType::F64},
        {"i8", ElemType::I8},   {"u8", ElemType::U8},     {"i32", ElemType::I32}, {"u32", ElemType::U32},
        {"i64", ElemType::I64}, {"u64", ElemType::U64}};
    auto it = types.find(name);
    if (it == types.end()) {
        return std::nullopt;
    }
    return it->second;
}

bool isFloatType(ElemType type) {
    return type == ElemType::F16 || type == ElemType::BF16 || type == ElemType::F32 || type == ElemType::F64;
}

std::string initToString(const BufferInit& init) {
    switch (init.kind) {
    case InitKind::Random:
        return "random(seed=" + std::to_string(init.seed) + (init.run > 1 ? ", run=" + std::to_string(init.run) : "") +
               ")";
    case InitKind::Zeros: return "zeros";
    case InitKind::Ones: return "ones";
    case InitKind::Iota: return "iota";
    case InitKind::Const: return "const(" + ExprValue::real(init.value).toString() + ")";
    }
    return "?";
}

namespace {

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) {
        return "";
    }
    size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

bool isIdentifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
        return false;
    }
    for (char c : s) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
            return false;
        }
    }
    return true;
}

[[noreturn]] void argFail(const std::string& text, const std::string& what) {
    throw ArgSpecError("argument '" + text + "': " + what);
}

BufferInit parseInit(const std::string& text, const std::string& initText, bool& seedGiven) {
    BufferInit init;
    std::string s = trim(initText);
    std::string head = s, inner;
    size_t open = s.find('(');
    if (open != std::string::npos) {
        if (s.back() != ')') {
            argFail(text, "expected ')' at the end of '" + s + "'");
        }
        head = trim(s.substr(0, open));
        inner = trim(s.substr(open + 1, s.size() - open - 2));
    }
    if (head == "zeros") {
        init.kind = InitKind::Zeros;
    } else if (head == "ones") {
        init.kind = InitKind::Ones;
    } else if (head == "iota") {
        init.kind = InitKind::Iota;
    } else if (head == "const") {
        init.kind = InitKind::Const;
        if (inner.empty()) {
            argFail(text, "const() needs a value, e.g. const(3)");
        }
        try {
            init.value = evaluateConstant(inner).asDouble();
        } catch (const ExprError& e) {
            argFail(text, e.what());
        }
        return init;
    } else if (head == "random") {
        init.kind = InitKind::Random;
        // random(N), random(seed=N), random(run=R), random(seed=N, run=R)
        size_t start = 0;
        while (!inner.empty() && start <= inner.size()) {
            size_t comma = inner.find(',', start);
            const std::string item = trim(inner.substr(start, comma == std::string::npos ? std::string::npos
                                                                                         : comma - start));
            start = comma == std::string::npos ? inner.size() + 1 : comma + 1;
            std::string key = "seed", value = item;
            if (size_t eq = item.find('='); eq != std::string::npos) {
                key = trim(item.substr(0, eq));
                value = trim(item.substr(eq + 1));
            } else if (item.rfind("seed", 0) == 0 || item.rfind("run", 0) == 0) {
                argFail(text, "expected random(seed=N) or random(seed=N, run=R)");
            }
            try {
                if (key == "seed") {
                    int64_t seed = evaluateConstant(value).asInt("the seed");
                    init.seed = static_cast<uint64_t>(seed);
                    seedGiven = true;
                } else if (key == "run") {
                    const int64_t run = evaluateConstant(value).asInt("the run length");
                    if (run < 1 || run > (int64_t(1) << 30)) {
                        argFail(text, "run=R needs 1 <= R <= 2^30");
                    }
                    init.run = run;
                } else {
                    argFail(text, "random() takes seed=N and run=R, not '" + key + "'");
                }
            } catch (const ExprError& e) {
                argFail(text, e.what());
            }
        }
        return init;
    } else {
        argFail(text, "unknown initialiser '" + head + "' (known: random, random(seed=N), random(seed=N, run=R), zeros, ones, iota, const(V))");
    }
    if (!inner.empty()) {
        argFail(text, head + " takes no arguments");
    }
    return init;
}

} // namespace

ArgSpec parseArgSpec(const std::string& textIn) {
    ArgSpec a;
    a.text = textIn;
    std::string text = trim(textIn);
    size_t eq = text.find('=');
    if (eq == std::string::npos) {
        argFail(textIn, "expected name=value (e.g. n=1<<20 or x=f32[n]:random)");
    }
    a.name = trim(text.substr(0, eq));
    if (!isIdentifier(a.name)) {
        argFail(textIn, "'" + a.name + "' is not a valid name");
    }
    if (a.name == "grid" || a.name == "block" || a.name.rfind("grid_", 0) == 0 || a.name.rfind("block_", 0) == 0) {
        argFail(textIn, "'" + a.name + "' is reserved for the launch configuration");
    }
    std::string value = trim(text.substr(eq + 1));
    if (value.empty()) {
        argFail(textIn, "missing value");
    }
    // tensormap(...) and bytes(...): their contents are parsed in tensor_map.cpp.
    for (const char* head : {"tensormap", "bytes"}) {
        const std::string h = head;
        if (value.rfind(h, 0) == 0 && trim(value.substr(h.size())).rfind('(', 0) == 0) {
            const size_t open = value.find('(');
            if (value.back() != ')') {
                argFail(textIn, "expected ')' at the end of " + h + "(...)");
            }
            const std::string inner = value.substr(open + 1, value.size() - open - 2);
            if (h == "tensormap") {
                a.isTensorMap = true;
                a.tensorMap = parseTensorMapArg(inner, textIn);
            } else {
                a.isBytes = true;
                a.bytes = parseBytesArg(inner, textIn);
            }
            return a;
        }
    }
    // A buffer is `type[count]` optionally followed by `:init`.
    size_t bracket = value.find('[');
    if (bracket != std::string::npos && bracket > 0 && isIdentifier(trim(value.substr(0, bracket)))) {
        std::string typeName = trim(value.substr(0, bracket));
        auto type = parseElemType(typeName);
        if (!type) {
            argFail(textIn, "unknown element type '" + typeName + "' (known: f16 bf16 f32 f64 i8 u8 i32 u32 i64 u64)");
        }
        // Find the matching ']' (counts may contain brackets only in error, but be exact anyway).
        int depth = 0;
        size_t close = std::string::npos;
        for (size_t i = bracket; i < value.size(); ++i) {
            if (value[i] == '[') {
                ++depth;
            } else if (value[i] == ']' && --depth == 0) {
                close = i;
                break;
            }
        }
        if (close == std::string::npos) {
            argFail(textIn, "missing ']'");
        }
        a.isBuffer = true;
        a.type = *type;
        try {
            a.count = Expr::parse(value.substr(bracket + 1, close - bracket - 1));
        } catch (const ExprError& e) {
            argFail(textIn, e.what());
        }
        std::string rest = trim(value.substr(close + 1));
        if (!rest.empty()) {
            if (rest[0] != ':') {
                argFail(textIn, "expected ':init' after the buffer size, got '" + rest + "'");
            }
            a.init = parseInit(textIn, rest.substr(1), a.seedGiven);
        }
        return a;
    }
    try {
        a.value = Expr::parse(value);
    } catch (const ExprError& e) {
        argFail(textIn, e.what());
    }
    return a;
}

// ------------------------------------------------------------------------------------- sidecars

namespace {

std::vector<std::string> dimList(const nlohmann::json& j, const std::string& what, const std::string& kernel) {
    std::vector<std::string> out;
    auto one = [&](const nlohmann::json& v) {
        if (v.is_number_integer()) {
            out.push_back(std::to_string(v.get<int64_t>()));
        } else if (v.is_string()) {
            out.push_back(v.get<std::string>());
        } else {
            throw ArgSpecError("sidecar kernel '" + kernel + "': " + what + " entries must be numbers or strings");
        }
    };
    if (j.is_array()) {
        if (j.empty() || j.size() > 3) {
            throw ArgSpecError("sidecar kernel '" + kernel + "': " + what + " needs 1 to 3 dimensions");
        }
        for (const auto& v : j) {
            one(v);
        }
    } else {
        one(j);
    }
    return out;
}

std::string exprField(const nlohmann::json& k, const char* key, const std::string& kernel) {
    if (!k.contains(key)) {
        return "";
    }
    const auto& v = k.at(key);
    if (v.is_string()) {
        return v.get<std::string>();
    }
    if (v.is_number_integer()) {
        return std::to_string(v.get<int64_t>());
    }
    if (v.is_number()) {
        return ExprValue::real(v.get<double>()).toString();
    }
    throw ArgSpecError("sidecar kernel '" + kernel + "': '" + key + "' must be a number or an expression string");
}

} // namespace

std::vector<LaunchSpec> parseSidecar(const std::string& jsonText) {
    nlohmann::json j;
    try {
        j = parseJsonBounded(jsonText); // sidecars come with other people's kernels
    } catch (const JsonLimitError& e) {
        throw ArgSpecError(std::string("sidecar refused: ") + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw ArgSpecError(std::string("sidecar is not valid JSON: ") + e.what());
    }
    if (!j.is_object() || !j.contains("kernels") || !j["kernels"].is_array()) {
        throw ArgSpecError("sidecar must be an object with a \"kernels\" array");
    }
    std::string description = j.value("description", "");
    std::vector<LaunchSpec> out;
    for (const auto& k : j["kernels"]) {
        if (!k.is_object() || !k.contains("name") || !k["name"].is_string()) {
            throw ArgSpecError("every sidecar kernel needs a \"name\" string");
        }
        LaunchSpec s;
        s.kernel = k["name"].get<std::string>();
        s.description = k.contains("description") && k["description"].is_string() ? k["description"].get<std::string>()
                                                                                   : description;
        if (!k.contains("grid") || !k.contains("block")) {
            throw ArgSpecError("sidecar kernel '" + s.kernel + "' needs \"grid\" and \"block\"");
        }
        s.grid = dimList(k["grid"], "grid", s.kernel);
        s.block = dimList(k["block"], "block", s.kernel);
        if (k.contains("args")) {
            if (!k["args"].is_array()) {
                throw ArgSpecError("sidecar kernel '" + s.kernel + "': \"args\" must be an array of strings");
            }
            for (const auto& a : k["args"]) {
                if (!a.is_string()) {
                    throw ArgSpecError("sidecar kernel '" + s.kernel + "': \"args\" must be an array of strings");
                }
                s.args.push_back(a.get<std::string>());
            }
        }
        if (k.contains("lets")) {
            if (!k["lets"].is_array()) {
                throw ArgSpecError("sidecar kernel '" + s.kernel + "': \"lets\" must be an array of strings");
            }
            for (const auto& a : k["lets"]) {
                if (!a.is_string()) {
                    throw ArgSpecError("sidecar kernel '" + s.kernel + "': \"lets\" must be an array of strings");
                }
                s.lets.push_back(a.get<std::string>());
            }
        }
        if (k.contains("cluster")) {
            s.cluster = dimList(k["cluster"], "cluster", s.kernel);
        }
        if (k.contains("outputs")) {
            if (!k["outputs"].is_array()) {
                throw ArgSpecError("sidecar kernel '" + s.kernel + "': \"outputs\" must be an array of names");
            }
            for (const auto& a : k["outputs"]) {
                if (!a.is_string()) {
                    throw ArgSpecError("sidecar kernel '" + s.kernel + "': \"outputs\" must be an array of names");
                }
                s.outputs.push_back(a.get<std::string>());
            }
        }
        s.bytes = exprField(k, "bytes", s.kernel);
        s.flops = exprField(k, "flops", s.kernel);
        s.sharedBytes = exprField(k, "shared", s.kernel);
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<LaunchSpec> loadSidecar(const std::string& path) {
    // The one input rule (core/untrusted.h): a regular file, never blocking, the size checked first.
    std::string text, error;
    if (!readInputFile(path, kMaxDocumentBytes, "a sidecar", text, error)) {
        throw ArgSpecError("cannot read sidecar: " + error);
    }
    try {
        return parseSidecar(text);
    } catch (const ArgSpecError& e) {
        throw ArgSpecError(path + ": " + e.what());
    }
}

std::string sidecarPathFor(const std::string& sourcePath) {
    size_t slash = sourcePath.find_last_of('/');
    size_t dot = sourcePath.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
        return sourcePath + ".json";
    }
    return sourcePath.substr(0, dot) + ".json";
}

// -------------------------------------------------------------------------------------- resolve

std::optional<std::vector<bool>> nonConstPointerParams(const std::string& signature) {
    size_t open = signature.find('(');
    size_t close = signature.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) {
        return std::nullopt;
    }
    std::string inner = signature.substr(open + 1, close - open - 1);
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : inner) {
        if (c == '<' || c == '(' || c == '[') {
            ++depth;
        } else if (c == '>' || c == ')' || c == ']') {
            --depth;
        }
        if (c == ',' && depth == 0) {
            parts.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) {
        parts.push_back(trim(cur));
    }
    if (parts.size() == 1 && parts[0] == "void") {
        parts.clear();
    }
    std::vector<bool> out;
    for (const auto& p : parts) {
        size_t star = p.rfind('*');
        if (star == std::string::npos) {
            out.push_back(false);
            continue;
        }
        // The pointee's qualifiers are what precedes the last '*': "float const*", "const float*".
        std::string pointee = p.substr(0, star);
        bool isConst = (" " + pointee + " ").find(" const ") != std::string::npos ||
                       pointee.find("const") != std::string::npos;
        out.push_back(!isConst);
    }
    return out;
}

namespace {

void putLE(std::vector<uint8_t>& out, uint64_t v, int size) {
    out.resize(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i) {
        out[static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
    }
}

// Packs a scalar into `size` bytes following the PTX type: floats for .f*, integers with a range
// check for .s*/.u*, and the literal's own kind for untyped .b* parameters.
std::vector<uint8_t> packScalar(const ExprValue& v, const PtxParam& p, const std::string& argText, int index) {
    std::vector<uint8_t> out;
    const std::string& t = p.type;
    const std::string where = "argument " + std::to_string(index + 1) + " '" + argText + "' for parameter " +
                              p.name + " (." + t + ", " + std::to_string(p.size) + " bytes)";
    char kind = t.empty() ? 'b' : t[0];
    if (kind == 'b') {
        kind = v.isInt ? 'u' : 'f';
        if (kind == 'u' && v.i < 0) {
            kind = 's';
        }
    }
    if (kind == 'f') {
        double d = v.asDouble();
        if (p.size == 4) {
            float f = static_cast<float>(d);
            uint32_t bits;
            std::memcpy(&bits, &f, 4);
            putLE(out, bits, 4);
        } else if (p.size == 8) {
            uint64_t bits;
            std::memcpy(&bits, &d, 8);
            putLE(out, bits, 8);
        } else if (p.size == 2) {
            putLE(out, floatToHalf(static_cast<float>(d)), 2);
        } else {
            throw ArgSpecError(where + ": unsupported float size");
        }
        return out;
    }
    int64_t i = 0;
    try {
        i = v.asInt(where);
    } catch (const ExprError& e) {
        throw ArgSpecError(e.what());
    }
    const int bits = p.size * 8;
    if (kind == 's') {
        if (bits < 64) {
            int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
            if (i < lo || i > hi) {
                throw ArgSpecError(where + ": value " + std::to_string(i) + " out of range [" + std::to_string(lo) +
                                   ", " + std::to_string(hi) + "]");
            }
        }
    } else {
        // PTX declares C `int` parameters as .u32, so unsigned slots take the signed range too
        // (two's complement), from -2^(bits-1) to 2^bits - 1.
        if (bits < 64 && i < -(int64_t(1) << (bits - 1))) {
            throw ArgSpecError(where + ": value " + std::to_string(i) + " out of range for " + std::to_string(bits) +
                               " bits");
        }
        if (bits < 64 && i > 0 && static_cast<uint64_t>(i) >= (uint64_t(1) << bits)) {
            throw ArgSpecError(where + ": value " + std::to_string(i) + " does not fit in " + std::to_string(bits) +
                               " bits");
        }
    }
    putLE(out, static_cast<uint64_t>(i), p.size);
    return out;
}

std::string signatureText(const std::vector<PtxParam>& params) {
    std::string s = "(";
    for (size_t i = 0; i < params.size(); ++i) {
        s += (i ? ", ." : ".") + params[i].type + (params[i].isPointer ? "*" : "") + " " + params[i].name;
    }
    return s + ")";
}

} // namespace

std::vector<uint8_t> ResolvedLaunch::packedParams() const {
    std::vector<uint8_t> out(static_cast<size_t>(paramBytes), 0);
    for (const auto& p : params) {
        if (p.buffer < 0 && p.tensorMap < 0 && static_cast<int>(p.scalar.size()) == p.size &&
            p.offset + p.size <= paramBytes) {
            std::memcpy(out.data() + p.offset, p.scalar.data(), p.scalar.size());
        }
    }
    return out;
}

ResolvedLaunch resolveLaunch(const LaunchSpec& spec, const std::vector<PtxParam>& params, const std::string& signature) {
    ResolvedLaunch r;
    r.kernel = spec.kernel;
    // args (passed by position) then lets (defined only); names are unique across both.
    std::vector<ArgSpec> all;
    for (const auto& a : spec.args) {
        all.push_back(parseArgSpec(a));
    }
    const size_t argCount = all.size();
    for (const auto& l : spec.lets) {
        ArgSpec a = parseArgSpec(l);
        if (a.isTensorMap || a.isBytes) {
            throw ArgSpecError("let '" + l + "': only scalars and buffers can be defined without passing them");
        }
        all.push_back(std::move(a));
    }
    const std::vector<ArgSpec>& args = all;
    std::map<std::string, size_t> byName;
    for (size_t i = 0; i < args.size(); ++i) {
        if (!byName.emplace(args[i].name, i).second) {
            throw ArgSpecError("argument '" + args[i].name + "' is given twice");
        }
    }
    if (argCount != params.size()) {
        throw ArgSpecError("kernel " + spec.kernel + " takes " + std::to_string(params.size()) + " parameter" +
                           (params.size() == 1 ? "" : "s") + " " + signatureText(params) + " but " +
                           std::to_string(argCount) + " argument" + (argCount == 1 ? " was" : "s were") +
                           " given");
    }
    if (spec.grid.empty() || spec.grid.size() > 3 || spec.block.empty() || spec.block.size() > 3) {
        throw ArgSpecError("grid and block need 1 to 3 dimensions each");
    }

    // Names are evaluated on demand (any order), with cycle detection.
    std::vector<Expr> gridExpr, blockExpr;
    auto parseDim = [](const std::string& text, const char* what) {
        try {
            return Expr::parse(text);
        } catch (const ExprError& e) {
            throw ArgSpecError(std::string(what) + ": " + e.what());
        }
    };
    for (const auto& g : spec.grid) {
        gridExpr.push_back(parseDim(g, "grid"));
    }
    for (const auto& b : spec.block) {
        blockExpr.push_back(parseDim(b, "block"));
    }
    std::map<std::string, ExprValue> cache;
    std::set<std::string> active;
    std::function<ExprValue(const std::string&)> lookup;
    auto dimValue = [&](const std::vector<Expr>& dims, size_t axis, const std::string& what) -> ExprValue {
        if (axis >= dims.size()) {
            return ExprValue::integer(1);
        }
        int64_t v = dims[axis].evaluate(lookup).asInt(what);
        if (v < 1) {
            throw ArgSpecError(what + " = " + std::to_string(v) + ": must be at least 1");
        }
        return ExprValue::integer(v);
    };
    static const char* axes[] = {"x", "y", "z"};
    lookup = [&](const std::string& name) -> ExprValue {
        auto hit = cache.find(name);
        if (hit != cache.end()) {
            return hit->second;
        }
        if (!active.insert(name).second) {
            throw ArgSpecError("'" + name + "' is defined in terms of itself");
        }
        // Each name defined through another recurses once more: a chain of 50 000 definitions
        // must fail cleanly, not overflow the stack.
        if (active.size() > 256) {
            throw ArgSpecError("'" + name + "': names defined through more than 256 other names in a chain");
        }
        ExprValue v;
        if (name == "grid" || name == "block") {
            const auto& dims = name == "grid" ? gridExpr : blockExpr;
            int64_t total = 1;
            for (size_t a = 0; a < 3; ++a) {
                total *= dimValue(dims, a, name + "_" + axes[a]).i;
            }
            v = ExprValue::integer(total);
        } else if (name.size() == 6 && (name.rfind("grid_", 0) == 0) && name[5] >= 'x' && name[5] <= 'z') {
            v = dimValue(gridExpr, static_cast<size_t>(name[5] - 'x'), name);
        } else if (name.size() == 7 && (name.rfind("block_", 0) == 0) && name[6] >= 'x' && name[6] <= 'z') {
            v = dimValue(blockExpr, static_cast<size_t>(name[6] - 'x'), name);
        } else {
            auto it = byName.find(name);
            if (it == byName.end()) {
                throw ArgSpecError("unknown name '" + name + "' (define it as an argument, e.g. " + name + "=1024)");
            }
            const ArgSpec& a = args[it->second];
            if (a.isBuffer) {
                throw ArgSpecError("'" + name + "' is a buffer, not a number");
            }
            if (a.isTensorMap || a.isBytes) {
                throw ArgSpecError("'" + name + "' is a " + (a.isTensorMap ? "tensor map" : "byte aggregate") +
                                   ", not a number");
            }
            v = a.value.evaluate(lookup);
        }
        active.erase(name);
        cache[name] = v;
        return v;
    };

    auto evalWith = [&](const std::function<ExprValue()>& f, const std::string& context) -> ExprValue {
        try {
            return f();
        } catch (const ExprError& e) {
            throw ArgSpecError(context + ": " + e.what());
        }
    };

    for (size_t a = 0; a < 3; ++a) {
        r.grid[a] = static_cast<uint32_t>(std::min<int64_t>(
            evalWith([&] { return lookup(std::string("grid_") + axes[a]); }, "grid").i, 0xffffffffLL));
        r.block[a] = static_cast<uint32_t>(std::min<int64_t>(
            evalWith([&] { return lookup(std::string("block_") + axes[a]); }, "block").i, 0xffffffffLL));
    }
    {
        int64_t gx = evalWith([&] { return lookup("grid_x"); }, "grid").i;
        int64_t gy = lookup("grid_y").i, gz = lookup("grid_z").i;
        if (gx > 0x7fffffffLL || gy > 65535 || gz > 65535) {
            throw ArgSpecError("grid (" + std::to_string(gx) + ", " + std::to_string(gy) + ", " + std::to_string(gz) +
                               ") exceeds the limits (2^31-1, 65535, 65535)");
        }
        int64_t threads = int64_t(r.block[0]) * r.block[1] * r.block[2];
        if (threads > 1024 || r.block[2] > 64) {
            throw ArgSpecError("block (" + std::to_string(r.block[0]) + ", " + std::to_string(r.block[1]) + ", " +
                               std::to_string(r.block[2]) + ") has " + std::to_string(threads) +
                               " threads; at most 1024 (and z ≤ 64)");
        }
    }
    if (!trim(spec.sharedBytes).empty()) {
        Expr e = parseDim(spec.sharedBytes, "dynamic shared memory");
        int64_t s = evalWith([&] { return ExprValue::integer(e.evaluate(lookup).asInt("dynamic shared memory")); },
                             "dynamic shared memory")
                        .i;
        if (s < 0 || s > (1 << 30)) {
            throw ArgSpecError("dynamic shared memory " + std::to_string(s) + " bytes is out of range");
        }
        r.sharedBytes = static_cast<uint32_t>(s);
    }

    if (!spec.cluster.empty()) {
        if (spec.cluster.size() > 3) {
            throw ArgSpecError("cluster needs 1 to 3 dimensions");
        }
        int64_t blocks = 1;
        for (size_t axis = 0; axis < 3; ++axis) {
            int64_t c = 1;
            if (axis < spec.cluster.size()) {
                Expr e = parseDim(spec.cluster[axis], "cluster");
                c = evalWith([&] { return ExprValue::integer(e.evaluate(lookup).asInt("cluster")); }, "cluster").i;
            }
            if (c < 1 || c > 16) {
                throw ArgSpecError(std::string("cluster ") + axes[axis] + " = " + std::to_string(c) +
                                   ": must be 1..16");
            }
            if (r.grid[axis] % c != 0) {
                throw ArgSpecError(std::string("cluster ") + axes[axis] + " = " + std::to_string(c) +
                                   " does not divide grid " + axes[axis] + " = " + std::to_string(r.grid[axis]));
            }
            blocks *= c;
            r.cluster[axis] = static_cast<uint32_t>(c);
        }
        if (blocks > 16) {
            throw ArgSpecError("a cluster of " + std::to_string(blocks) +
                               " blocks is larger than any GPU allows (8 portable, 16 on Hopper with opt-in)");
        }
        if (blocks > 8) {
            r.warnings.push_back("a cluster of " + std::to_string(blocks) +
                                 " blocks is not portable (more than 8); the runner allows it on the kernel");
        }
    }

    auto defaultOutputs = nonConstPointerParams(signature);
    if (defaultOutputs && defaultOutputs->size() != params.size()) {
        defaultOutputs.reset();
    }
    std::set<std::string> outputNames(spec.outputs.begin(), spec.outputs.end());
    for (const auto& o : spec.outputs) {
        auto it = byName.find(o);
        if (it == byName.end() || !args[it->second].isBuffer) {
            throw ArgSpecError("output '" + o + "' is not a buffer argument or let");
        }
    }

    std::map<std::string, int> bufferIndex; // buffer name → index into r.buffers
    auto resolveBuffer = [&](size_t i, const std::string& where) -> int {
        const ArgSpec& a = args[i];
        ResolvedBuffer b;
        b.name = a.name;
        b.type = a.type;
        b.init = a.init;
        if (b.init.kind == InitKind::Random && !a.seedGiven) {
            b.init.seed = i + 1;  // distinct default seeds, stable across runs
        }
        int64_t count = evalWith([&] { return ExprValue::integer(a.count.evaluate(lookup).asInt("buffer size")); },
                                 where)
                            .i;
        if (count < 1) {
            throw ArgSpecError(where + ": buffer size " + std::to_string(count) + " must be at least 1");
        }
        if (count > (int64_t(1) << 40) / elemSize(b.type)) {
            throw ArgSpecError(where + ": buffer of " + std::to_string(count) + " elements is too large");
        }
        b.count = count;
        if (!spec.outputs.empty()) {
            b.output = outputNames.count(a.name) > 0;
        } else if (i < argCount) {
            b.output = defaultOutputs ? (*defaultOutputs)[i] : true;
        } else {
            b.output = false;  // a let's buffer is an input unless listed in outputs
        }
        const int index = static_cast<int>(r.buffers.size());
        bufferIndex[a.name] = index;
        r.buffers.push_back(b);
        return index;
    };
    std::vector<std::pair<size_t, size_t>> pendingMaps; // (param index, arg index)

    int offset = 0;
    for (size_t i = 0; i < argCount; ++i) {
        const ArgSpec& a = args[i];
        const PtxParam& p = params[i];
        ResolvedParam rp;
        rp.name = a.name;
        rp.ptxName = p.name;
        rp.ptxType = p.type;
        rp.size = p.size;
        rp.align = p.align > 0 ? p.align : std::max(1, p.size);
        if (p.size <= 0 || (rp.align & (rp.align - 1)) != 0) {
            throw ArgSpecError("parameter " + p.name + " has an invalid size/alignment (" + std::to_string(p.size) + "/" +
                               std::to_string(rp.align) + ")");
        }
        offset = (offset + rp.align - 1) / rp.align * rp.align;
        rp.offset = offset;
        offset += p.size;
        const std::string where = "argument " + std::to_string(i + 1) + " '" + a.text + "'";
        if (a.isBuffer) {
            if (p.size != 8 || p.arrayCount != 1) {
                throw ArgSpecError(where + " is a buffer but parameter " + p.name + " is ." + p.type + " (" +
                                   std::to_string(p.size) + " bytes), not a 64-bit pointer");
            }
            rp.buffer = resolveBuffer(i, where);
            const ResolvedBuffer& b = r.buffers[static_cast<size_t>(rp.buffer)];
            rp.valueText = elemTypeName(b.type) + "[" + std::to_string(b.count) + "]";
        } else if (a.isTensorMap) {
            // By value: `const __grid_constant__ CUtensorMap` is `.param .align 64 .b8 p[128]`;
            // by pointer: `const CUtensorMap*` is a 64-bit parameter (the runner passes a device copy).
            if (p.size != 128 && !(p.size == 8 && p.arrayCount == 1)) {
                throw ArgSpecError(where + " is a tensor map but parameter " + p.name + " has " +
                                   std::to_string(p.size) +
                                   " bytes: it goes to a const __grid_constant__ CUtensorMap (128 bytes) or a "
                                   "const CUtensorMap* (8 bytes)");
            }
            if (p.size == 128 && rp.align < 64) {
                throw ArgSpecError(where + ": parameter " + p.name + " is 128 bytes but aligned to " +
                                   std::to_string(rp.align) + ", not 64 as CUtensorMap is");
            }
            pendingMaps.emplace_back(r.params.size(), i);
        } else if (a.isBytes) {
            rp.scalar = evaluateBytes(a.bytes, p.size, lookup, a.text);
            std::string hex;
            static const char* digits = "0123456789abcdef";
            for (size_t k = 0; k < rp.scalar.size() && k < 16; ++k) {
                hex += digits[rp.scalar[k] >> 4];
                hex += digits[rp.scalar[k] & 15];
            }
            rp.valueText = "bytes(hex:" + hex + (rp.scalar.size() > 16 ? "...)" : ")");
        } else {
            if (p.arrayCount != 1 || (p.size != 1 && p.size != 2 && p.size != 4 && p.size != 8)) {
                throw ArgSpecError(where + ": parameter " + p.name + " is an aggregate of " + std::to_string(p.size) +
                                   " bytes: give it as tensormap(BUFFER, TYPE, dims=[...], box=[...]) if it is a "
                                   "CUtensorMap, else as raw bytes, e.g. bytes(i32:1,2 f32:0.5) or bytes(hex:...)");
            }
            ExprValue v = evalWith([&] { return lookup(a.name); }, where);
            rp.scalar = packScalar(v, p, a.text, static_cast<int>(i));
            rp.valueText = v.toString();
            if (p.isPointer) {
                r.warnings.push_back(where + ": parameter " + p.name +
                                     " looks like a pointer but a number was given (it is passed as is)");
            }
        }
        r.params.push_back(std::move(rp));
    }
    for (size_t i = argCount; i < args.size(); ++i) {
        if (args[i].isBuffer) {
            resolveBuffer(i, "let " + std::to_string(i - argCount + 1) + " '" + args[i].text + "'");
        }
    }
    for (const auto& [paramIndex, argIndex] : pendingMaps) {
        const ArgSpec& a = args[argIndex];
        const TensorMapArg& t = a.tensorMap;
        ResolvedParam& rp = r.params[paramIndex];
        const std::string where = "argument " + std::to_string(argIndex + 1) + " '" + a.text + "'";
        auto buf = bufferIndex.find(t.buffer);
        if (buf == bufferIndex.end()) {
            throw ArgSpecError(where + ": '" + t.buffer + "' is not a buffer argument or let");
        }
        TensorMapSpec m;
        m.buffer = buf->second;
        m.type = t.type;
        m.rank = static_cast<int>(t.dims.size());
        auto value = [&](const Expr& e, const char* key, int64_t lo, int64_t hi) -> int64_t {
            const int64_t v = evalWith([&] { return ExprValue::integer(e.evaluate(lookup).asInt(key)); }, where).i;
            if (v < lo || v > hi) {
                throw ArgSpecError(where + ": " + key + " entry '" + e.text() + "' = " + std::to_string(v) +
                                   " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
            }
            return v;
        };
        for (const Expr& e : t.dims) m.dims.push_back(static_cast<uint64_t>(value(e, "dims", 1, int64_t(1) << 32)));
        for (const Expr& e : t.box) m.box.push_back(static_cast<uint32_t>(value(e, "box", 1, 256)));
        if (t.strides.empty()) {
            uint64_t st = static_cast<uint64_t>(tensorMapTypeSize(m.type));
            for (size_t k = 0; k + 1 < m.dims.size(); ++k) {
                st *= m.dims[k];  // ≤ 2^(32·4 + 3) would overflow: bounded by the extent check below
                if (st > (uint64_t(1) << 40)) {
                    throw ArgSpecError(where + ": the packed stride of dimension " + std::to_string(k + 1) +
                                       " exceeds 2^40 bytes");
                }
                m.strides.push_back(st);
            }
        } else {
            for (const Expr& e : t.strides) {
                m.strides.push_back(static_cast<uint64_t>(value(e, "strides", 1, (int64_t(1) << 40) - 1)));
            }
        }
        if (t.elementStrides.empty()) {
            m.elementStrides.assign(m.dims.size(), 1);
        } else {
            for (const Expr& e : t.elementStrides) m.elementStrides.push_back(static_cast<uint32_t>(value(e, "elem_strides", 1, 8)));
        }
        m.interleave = t.interleave;
        m.swizzle = t.swizzle;
        m.l2Promotion = t.l2Promotion;
        m.oobFill = t.oobFill;
        const ResolvedBuffer& b = r.buffers[static_cast<size_t>(m.buffer)];
        const std::string why = checkTensorMap(m, b.bytes());
        if (!why.empty()) {
            throw ArgSpecError(where + ": " + why);
        }
        if (tensorMapTypeSize(m.type) != elemSize(b.type)) {
            r.warnings.push_back(where + ": the tensor map's elements (" + tensorMapTypeName(m.type) +
                                 ") differ in size from buffer " + b.name + "'s (" + elemTypeName(b.type) + ")");
        }
        rp.tensorMap = static_cast<int>(r.tensorMaps.size());
        rp.valueText = tensorMapToString(m, b.name) + (rp.size == 8 ? " by pointer" : "");
        r.tensorMaps.push_back(std::move(m));
    }
    r.paramBytes = offset;
    if (r.paramBytes > 32764) {
        throw ArgSpecError("the parameters take " + std::to_string(r.paramBytes) + " bytes; at most 32764");
    }
    if (!trim(spec.bytes).empty()) {
        Expr e = parseDim(spec.bytes, "bytes");
        r.bytes = evalWith([&] { return e.evaluate(lookup); }, "bytes").asDouble();
    }
    if (!trim(spec.flops).empty()) {
        Expr e = parseDim(spec.flops, "flops");
        r.flops = evalWith([&] { return e.evaluate(lookup); }, "flops").asDouble();
    }
    return r;
}

} // namespace lowerscope
