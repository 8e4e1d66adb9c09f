#include "core/parse/listing_json.h"

#include "core/parse/control.h"

namespace lowerscope {

using nlohmann::json;

void to_json(json& j, const SourceFrame& f) {
    j = json{{"file", f.file}, {"line", f.line}};
}

void to_json(json& j, const SourceLoc& s) {
    json chain = json::array();
    for (const auto& f : s.inlinedAt) chain.push_back(f);
    j = json{{"file", s.file}, {"line", s.line}, {"inlined_at", std::move(chain)}};
}

void to_json(json& j, const PtxLine& l) {
    j = json{{"line", l.line}, {"text", l.text}, {"source", nullptr}};
    if (l.source && l.source->valid()) j["source"] = *l.source;
}

void to_json(json& j, const PtxParam& p) {
    j = json{{"name", p.name}, {"type", p.type}, {"size", p.size}, {"align", p.align},
             {"array_count", p.arrayCount}, {"pointer", p.isPointer}};
}

void to_json(json& j, const PtxLaunchBounds& b) {
    auto dims = [](const int (&d)[3]) { return d[0] > 0 ? json::array({d[0], d[1], d[2]}) : json(nullptr); };
    auto one = [](int v) { return v > 0 ? json(v) : json(nullptr); };
    j = json{{"maxntid", dims(b.maxntid)}, {"reqntid", dims(b.reqntid)}, {"minnctapersm", one(b.minnctapersm)},
             {"maxnreg", one(b.maxnreg)}, {"maxclusterrank", one(b.maxclusterrank)}};
}

void to_json(json& j, const PtxFunction& f) {
    j = json{{"name", f.name}, {"entry", f.isEntry}, {"params", f.params}, {"launch_bounds", f.launchBounds},
             {"first_line", f.firstLine}, {"last_line", f.lastLine}};
}

void to_json(json& j, const PtxListing& l) {
    json files = json::object();
    for (const auto& [index, path] : l.files) files[std::to_string(index)] = path;
    j = json{{"version", l.version}, {"target", l.target}, {"address_size", l.addressSize},
             {"files", std::move(files)}, {"functions", l.functions}, {"lines", l.lines}};
}

namespace {
json barrierJson(int b) { return b < 0 ? json(nullptr) : json(b); }
json countJson(int v) { return v < 0 ? json(nullptr) : json(v); }
} // namespace

void to_json(json& j, const Control& c) {
    j = json{{"stall", c.stall}, {"yield_hint", c.yieldHint}, {"write_barrier", barrierJson(c.writeBarrier)},
             {"read_barrier", barrierJson(c.readBarrier)}, {"wait_mask", c.waitMask}, {"reuse", c.reuse},
             {"text", controlText(c)}};
}

void to_json(json& j, const LiveCounts& l) {
    j = json{{"gpr", countJson(l.gpr)}, {"pred", countJson(l.pred)}, {"ugpr", countJson(l.ugpr)}, {"upred", countJson(l.upred)}};
}

const char* regClassName(RegClass cls) {
    switch (cls) {
    case RegClass::R: return "R";
    case RegClass::P: return "P";
    case RegClass::UR: return "UR";
    case RegClass::UP: return "UP";
    }
    return "?";
}

const char* operandKindName(OperandKind kind) {
    switch (kind) {
    case OperandKind::Register: return "Register";
    case OperandKind::Predicate: return "Predicate";
    case OperandKind::UniformRegister: return "UniformRegister";
    case OperandKind::UniformPredicate: return "UniformPredicate";
    case OperandKind::Constant: return "Constant";
    case OperandKind::Memory: return "Memory";
    case OperandKind::Immediate: return "Immediate";
    case OperandKind::Label: return "Label";
    case OperandKind::Special: return "Special";
    case OperandKind::Other: return "Other";
    }
    return "Other";
}

void to_json(json& j, const RegRange& r) {
    std::string s = regClassName(r.cls) + std::to_string(r.first);
    if (r.count > 1) s += ".." + std::string(regClassName(r.cls)) + std::to_string(r.first + r.count - 1);
    j = s;
}

void appendRegisterNames(const RegRange& r, json& array) {
    // Bounded: a malformed range must not produce millions of names.
    const int count = r.count < 0 ? 0 : (r.count > 256 ? 256 : r.count);
    for (int k = 0; k < count; ++k) array.push_back(regClassName(r.cls) + std::to_string(r.first + k));
}

std::string encodingHex(uint64_t hi, uint64_t lo) {
    static const char* digits = "0123456789abcdef";
    std::string s = "0x";
    s.reserve(34);
    for (int shift = 60; shift >= 0; shift -= 4) s += digits[(hi >> shift) & 0xf];
    for (int shift = 60; shift >= 0; shift -= 4) s += digits[(lo >> shift) & 0xf];
    return s;
}

void to_json(json& j, const Operand& o) {
    j = json{{"text", o.text}, {"kind", operandKindName(o.kind)}, {"regs", o.regs},
             {"reuse", o.reuse}, {"negated", o.negated}, {"absolute", o.absolute}};
    if (o.target) j["target"] = *o.target;
}

void to_json(json& j, const SassInstruction& i) {
    json defs = json::array(), uses = json::array();
    for (const auto& r : i.defs) appendRegisterNames(r, defs);
    for (const auto& r : i.uses) appendRegisterNames(r, uses);
    j = json{{"address", i.address},
             {"predicate", i.predicate},
             {"opcode", i.opcode},
             {"operands", i.operands},
             {"encoding", i.hasEncoding ? json(encodingHex(i.encodingHi, i.encodingLo)) : json(nullptr)},
             {"control", i.hasEncoding ? json(i.control) : json(nullptr)},
             {"source", i.source.valid() ? json(i.source) : json(nullptr)},
             {"ptx_line", i.ptxLine > 0 ? json(i.ptxLine) : json(nullptr)},
             {"live", i.live},
             {"defs", std::move(defs)},
             {"uses", std::move(uses)},
             {"branch_target", i.branchTarget ? json(*i.branchTarget) : json(nullptr)}};
    if (i.widthGuessed) j["width_guessed"] = true; // operand widths not from the table (defuse.h)
}

void to_json(json& j, const SassFunction& f) {
    json labels = json::object();
    for (const auto& [name, address] : f.labels) labels[name] = address;
    j = json{{"name", f.name}, {"labels", std::move(labels)}, {"instructions", f.instructions}};
}

void to_json(json& j, const SassListing& l) {
    j = json{{"arch", l.arch}, {"functions", l.functions}};
}

} // namespace lowerscope
