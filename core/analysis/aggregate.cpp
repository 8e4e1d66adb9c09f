#include "core/analysis/aggregate.h"

#include "core/parse/opcodes.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace lowerscope {

void accumulate(LineAggregate& a, const SassInstruction& ins) {
    ++a.instructions;
    const OpcodeInfo* info = lookupSassOpcode(ins.mnemonic);
    a.mix[info ? info->category : InstrCategory::Misc] += 1;
    if (ins.live.gpr > a.maxLiveGpr) a.maxLiveGpr = ins.live.gpr;
    if (ins.hasEncoding) a.stallCycles += ins.control.stall;
    if (info && info->category == InstrCategory::Memory && !info->space.empty()) a.memoryBySpace[info->space] += 1;
}

std::vector<LineAggregate> aggregateByLine(const SassFunction& fn, InlineAttribution attribution) {
    // Keyed by views of the instructions' own file strings (no copy per instruction); consecutive
    // instructions mostly share a line, so the last entry is tried before the map.
    using Key = std::pair<std::string_view, int>;
    std::map<Key, LineAggregate> byLine;
    LineAggregate* last = nullptr;
    Key lastKey;
    auto at = [&](const Key& key) -> LineAggregate& {
        if (!last || key != lastKey) {
            auto [it, added] = byLine.try_emplace(key);
            if (added) {
                it->second.file = std::string(key.first);
                it->second.line = key.second;
            }
            last = &it->second;
            lastKey = key;
        }
        return *last;
    };
    std::vector<Key> chain;
    for (const auto& ins : fn.instructions) {
        if (!ins.source.valid()) continue;
        if (attribution == InlineAttribution::AnyFrame) {
            // Each distinct line of the chain once (a recursion inlined into itself repeats one).
            chain.clear();
            chain.emplace_back(ins.source.file, ins.source.line);
            for (const auto& f : ins.source.inlinedAt) chain.emplace_back(f.file, f.line);
            for (size_t i = 0; i < chain.size(); ++i)
                if (std::find(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(i), chain[i]) == chain.begin() + static_cast<std::ptrdiff_t>(i))
                    accumulate(at(chain[i]), ins);
            continue;
        }
        const bool outer = attribution == InlineAttribution::CallSite && !ins.source.inlinedAt.empty();
        accumulate(at(outer ? Key{ins.source.inlinedAt.back().file, ins.source.inlinedAt.back().line}
                            : Key{ins.source.file, ins.source.line}),
                   ins);
    }
    std::vector<LineAggregate> out;
    out.reserve(byLine.size());
    for (auto& [k, v] : byLine) out.push_back(std::move(v));
    return out;
}

std::vector<LineAttribution> lineTable(const SassFunction& fn) {
    std::map<std::pair<std::string, int>, LineAttribution> table;
    auto merge = [&](std::vector<LineAggregate> v, LineAggregate LineAttribution::*slot) {
        for (auto& a : v) {
            LineAttribution& row = table[{a.file, a.line}];
            row.file = a.file;
            row.line = a.line;
            row.*slot = std::move(a);
        }
    };
    merge(aggregateByLine(fn, InlineAttribution::CallSite), &LineAttribution::callSite);
    merge(aggregateByLine(fn, InlineAttribution::Callee), &LineAttribution::callee);
    merge(aggregateByLine(fn, InlineAttribution::AnyFrame), &LineAttribution::anyFrame);
    std::vector<LineAttribution> out;
    out.reserve(table.size());
    for (auto& [k, v] : table) {
        // Parts a line has no instruction in still name it.
        for (LineAggregate* p : {&v.callSite, &v.callee, &v.anyFrame}) {
            p->file = v.file;
            p->line = v.line;
        }
        out.push_back(std::move(v));
    }
    return out;
}

LineAggregate aggregateFunction(const SassFunction& fn) {
    LineAggregate total;
    for (const auto& ins : fn.instructions) accumulate(total, ins);
    return total;
}

} // namespace lowerscope
