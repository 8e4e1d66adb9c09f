#include "core/parse/opcodes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace lowerscope {

namespace {

// Hash for lookups by string_view without building a std::string (one per instruction analysed).
struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct Table {
    std::unordered_map<std::string, OpcodeInfo, StringHash, std::equal_to<>> sass;
    std::unordered_map<std::string, std::string> ptx;
    std::unordered_map<std::string, std::string> modifiers;
};

DefRule defRuleFrom(const std::string& s) {
    if (s == "none") return DefRule::None;
    if (s == "predicates") return DefRule::Predicates;
    if (s == "allButLast") return DefRule::AllButLast;
    if (s == "tex") return DefRule::Texture;
    return DefRule::First;
}

SizeRule sizeRuleFrom(const std::string& s) {
    if (s == "dst") return SizeRule::Dst;
    if (s == "src") return SizeRule::Src;
    if (s == "both") return SizeRule::Both;
    if (s == "all") return SizeRule::All;
    return SizeRule::None;
}

ConvertRule convertRuleFrom(const std::string& s) {
    if (s == "f2i") return ConvertRule::F2I;
    if (s == "i2f") return ConvertRule::I2F;
    if (s == "f2f") return ConvertRule::F2F;
    if (s == "i2i") return ConvertRule::I2I;
    if (s == "frnd") return ConvertRule::Frnd;
    return ConvertRule::None;
}

FlowKind flowFrom(const std::string& s) {
    if (s == "branch") return FlowKind::Branch;
    if (s == "indirect") return FlowKind::Indirect;
    if (s == "call") return FlowKind::Call;
    if (s == "return") return FlowKind::Return;
    if (s == "exit") return FlowKind::Exit;
    return FlowKind::None;
}

Table loadTable() {
    Table t;
    // The JSON is compiled in and checked by tests; a broken edit must not crash the program, so
    // parse without exceptions and fall back to an empty table.
    const nlohmann::json doc = nlohmann::json::parse(kOpcodesJson, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) return t;
    if (auto it = doc.find("modifiers"); it != doc.end() && it->is_object())
        for (auto& [k, v] : it->items())
            if (v.is_string()) t.modifiers.emplace(k, v.get<std::string>());
    if (auto it = doc.find("ptx"); it != doc.end() && it->is_object())
        for (auto& [k, v] : it->items())
            if (v.is_string()) t.ptx.emplace(k, v.get<std::string>());
    if (auto it = doc.find("sass"); it != doc.end() && it->is_object()) {
        for (auto& [k, v] : it->items()) {
            if (!v.is_object()) continue;
            OpcodeInfo info;
            info.mnemonic = k;
            info.category = categoryFromName(v.value("category", std::string("Misc")));
            info.description = v.value("description", std::string());
            info.space = v.value("space", std::string());
            info.defs = defRuleFrom(v.value("defs", std::string("first")));
            info.dstWidth = v.value("dstWidth", 1);
            info.srcWidth = v.value("srcWidth", 1);
            info.size = sizeRuleFrom(v.value("size", std::string()));
            info.convert = convertRuleFrom(v.value("convert", std::string()));
            info.hgmma = v.value("hgmma", false);
            info.countModifier = v.value("countModifier", false);
            info.tmem = v.value("tmem", false);
            info.p2r = v.value("p2r", false);
            info.r2p = v.value("r2p", false);
            info.flow = flowFrom(v.value("flow", std::string()));
            if (auto s = v.find("shapes"); s != v.end() && s->is_array()) {
                for (const auto& e : *s) {
                    if (!e.is_object()) continue;
                    OperandShape shape;
                    for (const auto& m : e.value("match", nlohmann::json::array()))
                        if (m.is_string()) shape.match.push_back(m.get<std::string>());
                    for (const auto& w : e.value("widths", nlohmann::json::array()))
                        if (w.is_number_integer()) shape.widths.push_back(w.get<int>());
                    info.shapes.push_back(std::move(shape));
                }
            }
            if (auto m = v.find("modifiers"); m != v.end() && m->is_object())
                for (auto& [mk, mv] : m->items())
                    if (mv.is_string()) info.modifiers.emplace(mk, mv.get<std::string>());
            t.sass.emplace(k, std::move(info));
        }
    }
    return t;
}

const Table& table() {
    static const Table t = loadTable(); // thread-safe initialisation (C++11 magic statics)
    return t;
}

bool allDigits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

const OpcodeInfo* lookupSassOpcode(std::string_view mnemonic) {
    const auto& t = table();
    auto it = t.sass.find(mnemonic);
    return it == t.sass.end() ? nullptr : &it->second;
}

const std::string* lookupPtxInstruction(std::string_view opcode) {
    const auto& t = table();
    std::string key(opcode);
    // Strip a guard ("@%p1 bra") if the caller passed the whole statement head.
    while (true) {
        auto it = t.ptx.find(key);
        if (it != t.ptx.end()) return &it->second;
        const size_t dot = key.rfind('.');
        if (dot == std::string::npos || dot == 0) return nullptr;
        key.resize(dot);
    }
}

std::string explainModifier(std::string_view mnemonic, std::string_view modifier) {
    const auto& t = table();
    const std::string mod(modifier);
    if (const OpcodeInfo* info = lookupSassOpcode(mnemonic)) {
        auto it = info->modifiers.find(mod);
        if (it != info->modifiers.end()) return it->second;
    }
    auto it = t.modifiers.find(mod);
    if (it != t.modifiers.end()) return it->second;
    // Shapes printed as MxNxK (HGMMA.64x128x16, DMMA.8x8x4) or .xN counts (LDTM.x4).
    const size_t x1 = mod.find('x');
    if (x1 != std::string::npos && x1 > 0) {
        const size_t x2 = mod.find('x', x1 + 1);
        if (x2 != std::string::npos && allDigits(mod.substr(0, x1)) &&
            allDigits(mod.substr(x1 + 1, x2 - x1 - 1)) && allDigits(mod.substr(x2 + 1)))
            return "Tile shape M×N×K = " + mod.substr(0, x1) + "×" + mod.substr(x1 + 1, x2 - x1 - 1) + "×" +
                   mod.substr(x2 + 1) + ".";
        if (mod.find('b') != std::string::npos)
            return "Tensor-memory access shape " + mod + " (lanes × bits).";
    }
    if (mod.size() > 1 && mod[0] == 'x' && allDigits(mod.substr(1)))
        return "Repeat count: " + mod.substr(1) + " times the base shape (registers per thread).";
    return {};
}

std::vector<std::string> sassMnemonics() {
    std::vector<std::string> out;
    for (const auto& [k, v] : table().sass) out.push_back(k);
    std::sort(out.begin(), out.end());
    return out;
}

const char* categoryName(InstrCategory category) {
    switch (category) {
    case InstrCategory::Memory: return "Memory";
    case InstrCategory::FP32: return "FP32";
    case InstrCategory::FP64: return "FP64";
    case InstrCategory::FP16: return "FP16";
    case InstrCategory::Integer: return "Integer";
    case InstrCategory::Tensor: return "Tensor";
    case InstrCategory::Control: return "Control";
    case InstrCategory::Conversion: return "Conversion";
    case InstrCategory::SpecialFunction: return "SpecialFunction";
    case InstrCategory::Uniform: return "Uniform";
    case InstrCategory::Synchronisation: return "Synchronisation";
    case InstrCategory::Move: return "Move";
    case InstrCategory::Predicate: return "Predicate";
    case InstrCategory::Misc: return "Misc";
    }
    return "Misc";
}

const char* categoryLabel(InstrCategory category) {
    return category == InstrCategory::SpecialFunction ? "Special function" : categoryName(category);
}

InstrCategory categoryFromName(std::string_view name) {
    for (int c = 0; c <= static_cast<int>(InstrCategory::Misc); ++c)
        if (name == categoryName(static_cast<InstrCategory>(c))) return static_cast<InstrCategory>(c);
    return InstrCategory::Misc;
}

std::string memorySpace(const SassInstruction& instruction) {
    const OpcodeInfo* info = lookupSassOpcode(instruction.mnemonic);
    if (!info || info->category != InstrCategory::Memory) return {};
    return info->space;
}

} // namespace lowerscope
