#include "core/analysis/defuse.h"

#include "core/parse/opcodes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string_view>

namespace lowerscope {

extern const char kOperandWidthsJson[];

namespace {

// ---- The operand-width table (resources/operand_widths.json). Per opcode, `forms` in order;
// the first whose `match` modifiers are all present (and whose `values`, when given, equals the
// number of non-predicate operands) applies. `operands` gives, per non-predicate operand in order,
// "<width> <role>" (an entry here wins over `prefixes`): width a number, "acc" (HGMMA accumulator, from the MxNxK shape) or "tmem"
// (LDTM/STTM, from the shape and .xN); role "u" read, "d" written, "du" both. `prefixes` gives
// the same for operands written `gdesc[...]`, `tmem[...]`, `idesc[...]` wherever they stand;
// `predicates` the roles of the predicate operands in order (default: read). An opcode of the
// table whose form is not listed keeps the default rule and is flagged widthGuessed.

enum : int { kWidthAccumulator = -1, kWidthTmem = -2 };

struct OperandSpec {
    int width = 1;
    bool def = false, use = true;
};

struct WidthForm {
    std::vector<std::string> match;
    int values = -1;
    std::vector<OperandSpec> operands;
    std::vector<OperandSpec> predicates;
};

struct WidthEntry {
    std::vector<WidthForm> forms;
    std::map<std::string, OperandSpec, std::less<>> prefixes;
};

OperandSpec specFrom(const std::string& s) {
    OperandSpec o;
    const size_t sp = s.find(' ');
    const std::string w = s.substr(0, sp);
    const std::string role = sp == std::string::npos ? "u" : s.substr(sp + 1);
    if (w == "acc") o.width = kWidthAccumulator;
    else if (w == "tmem") o.width = kWidthTmem;
    else o.width = std::clamp(std::atoi(w.c_str()), 1, 256);
    o.def = role.find('d') != std::string::npos;
    o.use = role.find('u') != std::string::npos;
    return o;
}

const std::map<std::string, WidthEntry, std::less<>>& widthTable() {
    static const std::map<std::string, WidthEntry, std::less<>> table = [] {
        std::map<std::string, WidthEntry, std::less<>> t;
        const auto j = nlohmann::json::parse(kOperandWidthsJson, nullptr, false);
        if (!j.is_object() || !j.contains("opcodes") || !j["opcodes"].is_object()) return t;
        for (const auto& [name, v] : j["opcodes"].items()) {
            WidthEntry e;
            if (v.contains("prefixes") && v["prefixes"].is_object())
                for (const auto& [pre, spec] : v["prefixes"].items())
                    if (spec.is_string()) e.prefixes[pre] = specFrom(spec.get<std::string>());
            if (v.contains("forms") && v["forms"].is_array())
                for (const auto& f : v["forms"]) {
                    WidthForm form;
                    if (f.contains("match") && f["match"].is_array())
                        for (const auto& m : f["match"])
                            if (m.is_string()) form.match.push_back(m.get<std::string>());
                    if (f.contains("values") && f["values"].is_number_integer()) form.values = f["values"].get<int>();
                    if (f.contains("operands") && f["operands"].is_array())
                        for (const auto& o : f["operands"])
                            if (o.is_string()) form.operands.push_back(specFrom(o.get<std::string>()));
                    if (f.contains("predicates") && f["predicates"].is_array())
                        for (const auto& o : f["predicates"])
                            if (o.is_string()) form.predicates.push_back(specFrom("1 " + o.get<std::string>()));
                    e.forms.push_back(std::move(form));
                }
            t.emplace(name, std::move(e));
        }
        return t;
    }();
    return table;
}

bool isPredicateKind(OperandKind k) { return k == OperandKind::Predicate || k == OperandKind::UniformPredicate; }
bool isRegisterKind(OperandKind k) { return k == OperandKind::Register || k == OperandKind::UniformRegister; }

bool hasModifier(const SassInstruction& ins, std::string_view m) {
    for (const auto& x : ins.modifiers)
        if (x == m) return true;
    return false;
}

// Register count implied by a size/type modifier (.64, .128, .F64, ...); 0 when none.
int sizeFromModifiers(const SassInstruction& ins) {
    int w = 0;
    for (const auto& m : ins.modifiers) {
        if (m == "64" || m == "F64" || m == "S64" || m == "U64" || m == "F32x2") w = std::max(w, 2);
        else if (m == "128" || m == "256" || m == "F32x4") w = std::max(w, 4);
    }
    return w;
}

int typeWidth(std::string_view t) { return (t == "F64" || t == "S64" || t == "U64") ? 2 : 1; }
bool isFloatType(std::string_view t) { return t == "F16" || t == "BF16" || t == "F32" || t == "F64" || t == "TF32"; }
bool isIntType(std::string_view t) {
    return t == "S8" || t == "U8" || t == "S16" || t == "U16" || t == "S32" || t == "U32" || t == "S64" || t == "U64";
}

// Destination / source widths of a conversion from its type modifiers.
void conversionWidths(const SassInstruction& ins, ConvertRule rule, int& dst, int& src) {
    std::vector<std::string_view> floats, ints, all;
    for (const auto& m : ins.modifiers) {
        if (isFloatType(m)) { floats.push_back(m); all.push_back(m); }
        else if (isIntType(m)) { ints.push_back(m); all.push_back(m); }
    }
    dst = src = 1;
    switch (rule) {
    case ConvertRule::F2I:
        if (!ints.empty()) dst = typeWidth(ints.front());
        if (!floats.empty()) src = typeWidth(floats.front());
        break;
    case ConvertRule::I2F:
        if (!floats.empty()) dst = typeWidth(floats.front());
        if (!ints.empty()) src = typeWidth(ints.front());
        break;
    case ConvertRule::F2F:
    case ConvertRule::I2I:
        if (all.size() >= 1) dst = typeWidth(all[0]);
        if (all.size() >= 2) src = typeWidth(all[1]);
        break;
    case ConvertRule::Frnd:
        if (!floats.empty()) dst = src = typeWidth(floats.front());
        break;
    case ConvertRule::None: break;
    }
}

// N of an MxNxK shape modifier such as "64x128x16"; 0 when absent.
int gmmaN(const SassInstruction& ins) {
    for (const auto& m : ins.modifiers) {
        const size_t x1 = m.find('x');
        if (x1 == std::string::npos) continue;
        const size_t x2 = m.find('x', x1 + 1);
        if (x2 == std::string::npos) continue;
        int n = 0;
        for (size_t i = x1 + 1; i < x2; ++i) {
            if (m[i] < '0' || m[i] > '9') { n = 0; break; }
            n = n * 10 + (m[i] - '0');
            if (n > 4096) break;
        }
        if (n > 0) return n;
    }
    return 0;
}

// Registers per thread of LDTM/STTM: .xN repeats of the base shape.
int tmemCount(const SassInstruction& ins) {
    int reps = 1, per = 1;
    for (const auto& m : ins.modifiers) {
        if (m.size() > 1 && m[0] == 'x' && std::all_of(m.begin() + 1, m.end(), [](char c) { return c >= '0' && c <= '9'; }))
            reps = std::min(128, std::atoi(m.c_str() + 1));
        else if (m == "16x128b" || m == "16dp128bit") per = 2;
        else if (m == "16x256b" || m == "16dp256bit") per = 4;
    }
    return std::max(1, reps * per);
}

// A register named at the start of an operand the parser could not classify, e.g. BRX's
// "R4 -0xbc0 (*\"BRANCH_TARGETS ...\"*)".
bool leadingRegister(std::string_view s, RegRange& out) {
    size_t i = 0;
    RegClass cls = RegClass::R;
    if (i < s.size() && s[i] == 'U') { cls = RegClass::UR; ++i; }
    if (i >= s.size() || s[i] != 'R') return false;
    ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    int n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && n < 1000) n = n * 10 + (s[i++] - '0');
    if (i < s.size() && s[i] != ' ' && s[i] != '\t') return false;
    out = RegRange{cls, n, 1};
    return true;
}

void addRange(std::vector<RegRange>& v, RegRange r) {
    if (r.count < 1) r.count = 1;
    // Keep ranges inside the register file (R0..R254, P0..P6, UR0..UR62, UP0..UP6).
    const int limit = (r.cls == RegClass::R) ? 255 : (r.cls == RegClass::UR ? 63 : 7);
    if (r.first < 0 || r.first >= limit) return;
    r.count = std::min(r.count, limit - r.first);
    for (const auto& x : v)
        if (x == r) return;
    v.push_back(r);
}

// The predicate mask of P2R/R2P: the last immediate operand, 0x7f when there is none.
int predicateMask(const SassInstruction& ins) {
    for (auto it = ins.operands.rbegin(); it != ins.operands.rend(); ++it) {
        if (it->kind != OperandKind::Immediate) continue;
        const std::string& t = it->text;
        const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
        const long v = std::strtol(t.c_str() + (hex ? 2 : 0), nullptr, hex ? 16 : 10);
        return static_cast<int>(v & 0x7f);
    }
    return 0x7f;
}

// Pre-Hopper nvdisasm leaves the global-memory descriptor out of the text: sm_80's
// `LDG.E R2, [R2.64]` reads the 64-bit descriptor in UR4..UR5 (loaded by `ULDC.64 UR4, c[0x0][0x118]`)
// exactly as sm_90's `LDG.E R2, desc[UR4][R2.64]` does, and nvdisasm's own live counts include the
// pair. The index is in the encoding, at the same place on both generations: bits 32..37 of the
// low word for loads (LDG, LD: that slot holds a source register otherwise), bits 0..5 of the high
// word for stores, reductions, atomics and LDGSTS (their data register takes bits 32..39). Checked
// on every sm_90 instruction that prints `desc[URn]`. Only for a 64-bit register address
// (`[R2.64]`): the 32-bit form (`ATOMG.E.CAS ... [R4]`) has no descriptor on sm_90 either.
void implicitDescriptor(const SassInstruction& ins, std::vector<RegRange>& uses) {
    if (!ins.hasEncoding) return;
    const std::string_view mn = ins.mnemonic;
    const bool loadSlot = mn == "LDG" || mn == "LD";
    const bool highSlot = mn == "STG" || mn == "ST" || mn == "RED" || mn == "REDG" || mn == "ATOMG" || mn == "LDGSTS";
    if (!loadSlot && !highSlot) return;
    if (!hasModifier(ins, "E")) return;
    bool wideAddress = false;
    for (const auto& o : ins.operands) {
        if (o.kind != OperandKind::Memory) continue;
        if (o.text.find("desc[") != std::string::npos) return; // printed: already a use
        for (const auto& r : o.regs)
            if (r.cls == RegClass::R && r.count == 2) wideAddress = true;
    }
    if (!wideAddress) return;
    const int index = static_cast<int>(loadSlot ? (ins.encodingLo >> 32) & 0x3f : ins.encodingHi & 0x3f);
    // URZ (63) is no register; descriptors are 64-bit, so an odd index is not one.
    if (index >= 62 || index % 2 != 0) return;
    addRange(uses, RegRange{RegClass::UR, index, 2});
}

bool isPredicateKindOf(const Operand& o) { return isPredicateKind(o.kind); }

// The table's reading of one instruction; false (nothing changed) when the opcode is not in the
// table. `guessed` is set when it is but no form matches.
bool applyWidthTable(SassInstruction& ins, bool& guessed) {
    const auto& table = widthTable();
    const auto it = table.find(ins.mnemonic);
    if (it == table.end()) return false;
    const WidthEntry& e = it->second;
    int values = 0; // register, uniform, memory and constant operands (not `gsb0` and the like)
    for (const auto& o : ins.operands)
        if (!isPredicateKindOf(o) && o.kind != OperandKind::Other) ++values;
    const WidthForm* form = nullptr;
    for (const auto& f : e.forms) {
        if (f.values >= 0 && f.values != values) continue;
        if (std::all_of(f.match.begin(), f.match.end(), [&](const std::string& m) { return hasModifier(ins, m); })) {
            form = &f;
            break;
        }
    }
    if (!form) {
        guessed = true;
        return false;
    }
    // Keep the guard (the first use, when there is one), rebuild the rest.
    std::vector<RegRange> guard;
    if (!ins.uses.empty() && ins.predicate.size() >= 2) guard.push_back(ins.uses.front());
    ins.defs.clear();
    ins.uses = guard;
    int accum = 1;
    {
        const int nn = gmmaN(ins);
        accum = std::max(1, hasModifier(ins, "F16") ? nn / 4 : nn / 2);
    }
    int vi = 0, pi = 0;
    for (const Operand& o : ins.operands) {
        if (isPredicateKindOf(o)) {
            OperandSpec spec;
            if (static_cast<size_t>(pi) < form->predicates.size()) spec = form->predicates[static_cast<size_t>(pi)];
            ++pi;
            for (const RegRange& r : o.regs) {
                if (spec.use) addRange(ins.uses, r);
                if (spec.def) addRange(ins.defs, r);
            }
            continue;
        }
        // The form's own entry for this position first, then the prefix's.
        const OperandSpec* spec = nullptr;
        if (static_cast<size_t>(vi) < form->operands.size()) spec = &form->operands[static_cast<size_t>(vi)];
        for (const auto& [pre, ps] : e.prefixes)
            if (!spec && o.text.size() > pre.size() && o.text.compare(0, pre.size(), pre) == 0 && o.text[pre.size()] == '[') spec = &ps;
        ++vi;
        bool first = true;
        for (RegRange r : o.regs) {
            if (first && spec) {
                r.count = spec->width == kWidthAccumulator ? accum : spec->width == kWidthTmem ? tmemCount(ins) : spec->width;
                if (spec->use) addRange(ins.uses, r);
                if (spec->def) addRange(ins.defs, r);
            } else {
                addRange(ins.uses, r); // further registers of an address: read
            }
            first = false;
        }
    }
    return true;
}

} // namespace

bool operandWidthsListed(std::string_view mnemonic) { return widthTable().count(mnemonic) > 0; }

std::string registerName(RegClass cls, int index) {
    const char* p = cls == RegClass::R ? "R" : cls == RegClass::P ? "P" : cls == RegClass::UR ? "UR" : "UP";
    return p + std::to_string(index);
}

void analyseDefUse(SassInstruction& ins) {
    ins.defs.clear();
    ins.uses.clear();
    ins.widthGuessed = false;
    const OpcodeInfo* info = lookupSassOpcode(ins.mnemonic);
    static const OpcodeInfo kDefault;
    const OpcodeInfo& op = info ? *info : kDefault;

    // Guard predicate: "@P0", "@!P0", "@UP1"; PT/UPT are not dependencies.
    if (ins.predicate.size() >= 2 && ins.predicate[0] == '@') {
        std::string_view g(ins.predicate);
        g.remove_prefix(1);
        if (!g.empty() && g[0] == '!') g.remove_prefix(1);
        RegClass cls = RegClass::P;
        if (!g.empty() && g[0] == 'U') { cls = RegClass::UP; g.remove_prefix(1); }
        if (g.size() >= 2 && g[0] == 'P' && g[1] >= '0' && g[1] <= '9') addRange(ins.uses, RegRange{cls, g[1] - '0', 1});
    }

    const size_t n = ins.operands.size();
    std::vector<char> isDef(n, 0);
    auto defOk = [&](size_t i) { return !ins.operands[i].negated && !ins.operands[i].absolute; };
    switch (op.defs) {
    case DefRule::None: break;
    case DefRule::Predicates:
        // At most two: ISETP/FSETP/PLOP3 write two predicates; later predicates are inputs.
        for (size_t i = 0; i < n && i < 2 && isPredicateKind(ins.operands[i].kind) && defOk(i); ++i) isDef[i] = 1;
        break;
    case DefRule::AllButLast:
        for (size_t i = 0; i + 1 < n; ++i)
            if ((isPredicateKind(ins.operands[i].kind) || isRegisterKind(ins.operands[i].kind)) && defOk(i)) isDef[i] = 1;
        break;
    case DefRule::Texture: {
        int regs = 0;
        for (size_t i = 0; i < n && regs < 2 && isRegisterKind(ins.operands[i].kind); ++i, ++regs) isDef[i] = 1;
        break;
    }
    case DefRule::First: {
        size_t i = 0;
        while (i < n && isPredicateKind(ins.operands[i].kind) && defOk(i)) isDef[i++] = 1;
        if (i < n && isRegisterKind(ins.operands[i].kind) && defOk(i)) {
            isDef[i++] = 1;
            while (i < n && isPredicateKind(ins.operands[i].kind) && defOk(i)) isDef[i++] = 1;
        }
        break;
    }
    }

    // Widths of register operands.
    int dstW = op.dstWidth, srcW = op.srcWidth;
    const int sizeW = sizeFromModifiers(ins);
    if (sizeW > 0) {
        if (op.size == SizeRule::Dst || op.size == SizeRule::Both || op.size == SizeRule::All) dstW = std::max(dstW, sizeW);
        if (op.size == SizeRule::Src || op.size == SizeRule::Both || op.size == SizeRule::All) srcW = std::max(srcW, sizeW);
    }
    if (op.convert != ConvertRule::None) conversionWidths(ins, op.convert, dstW, srcW);
    if (op.countModifier) {
        int c = 1;
        for (const auto& m : ins.modifiers)
            if (m == "1" || m == "2" || m == "4") c = m[0] - '0';
        if (op.defs == DefRule::None) srcW = c; else dstW = c;
    }
    if (op.tmem) {
        if (op.defs == DefRule::None) srcW = tmemCount(ins); else dstW = tmemCount(ins);
    }
    const OperandShape* shape = nullptr;
    for (const auto& s : op.shapes) {
        if (std::all_of(s.match.begin(), s.match.end(), [&](const std::string& m) { return hasModifier(ins, m); })) {
            shape = &s;
            break;
        }
    }
    int accum = 0;
    if (op.hgmma) {
        const int nn = gmmaN(ins);
        accum = hasModifier(ins, "F16") ? nn / 4 : nn / 2;
        if (accum < 1) accum = 1;
    }

    int valueIndex = 0; // index among non-predicate operands (shape widths)
    for (size_t i = 0; i < n; ++i) {
        const Operand& o = ins.operands[i];
        const int vi = isPredicateKind(o.kind) ? -1 : valueIndex++;
        if (isRegisterKind(o.kind)) {
            for (RegRange r : o.regs) {
                int w = isDef[i] ? dstW : srcW;
                if (shape && vi >= 0 && static_cast<size_t>(vi) < shape->widths.size()) w = shape->widths[static_cast<size_t>(vi)];
                if (op.hgmma) w = (vi == 0 || vi == 2) ? accum : (vi == 1 ? 4 : 1);
                r.count = std::max(r.count, w);
                addRange(isDef[i] ? ins.defs : ins.uses, r);
            }
        } else if (isPredicateKind(o.kind)) {
            for (const RegRange& r : o.regs) addRange(isDef[i] ? ins.defs : ins.uses, r);
        } else if (o.kind == OperandKind::Memory || o.kind == OperandKind::Constant) {
            // `ATOMG.E.CAS PT, R18, [R4], R10, R11`: the compare-and-swap form prints its 64-bit
            // address without `.64`; it is R4..R5 (nvdisasm -lrm narrow marks both as read).
            const bool wideCas = o.kind == OperandKind::Memory && hasModifier(ins, "E") && hasModifier(ins, "CAS");
            for (RegRange r : o.regs) {
                if (wideCas && r.cls == RegClass::R) r.count = std::max(r.count, 2);
                addRange(ins.uses, r);
            }
        } else if (o.kind == OperandKind::Other) {
            RegRange r;
            if (leadingRegister(o.text, r)) {
                r.count = std::max(r.count, srcW); // `BRX R4 -0x140 (*...*)`: a 64-bit target
                addRange(ins.uses, r);
            }
            else if ((op.p2r || op.r2p) && o.text == "PR") {
                // `P2R R0, PR, RZ, 0x1` / `R2P PR, R0, 0x7e`: the immediate mask selects the
                // predicates (bit n = Pn); without one, all of P0..P6.
                const int mask = predicateMask(ins);
                for (int p = 0; p < 7; ++p)
                    if (mask & (1 << p)) addRange(op.r2p ? ins.defs : ins.uses, RegRange{RegClass::P, p, 1});
            }
        }
    }
    implicitDescriptor(ins, ins.uses);
    bool guessed = false;
    applyWidthTable(ins, guessed);
    ins.widthGuessed = guessed;
}

void analyseDefUse(SassFunction& function) {
    for (auto& ins : function.instructions) analyseDefUse(ins);
}

} // namespace lowerscope
