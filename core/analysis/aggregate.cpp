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
    std::map<std::pair<std::string_view, int>, LineAggregate> byLine;
    LineAggregate* last = nullptr;
    std::pair<std::string_view, int> lastKey;
    for (const auto& ins : fn.instructions) {
        if (!ins.source.valid()) continue;
        const bool outer = attribution == InlineAttribution::CallSite && !ins.source.inlinedAt.empty();
        const std::pair<std::string_view, int> key =
            outer ? std::pair<std::string_view, int>{ins.source.inlinedAt.back().file, ins.source.inlinedAt.back().line}
                  : std::pair<std::string_view, int>{ins.source.file, ins.source.line};
        if (!last || key != lastKey) {
            auto [it, added] = byLine.try_emplace(key);
            if (added) {
                it->second.file = std::string(key.first);
                it->second.line = key.second;
            }
            last = &it->second;
            lastKey = key;
        }
        accumulate(*last, ins);
    }
    std::vector<LineAggregate> out;
    out.reserve(byLine.size());
    for (auto& [k, v] : byLine) out.push_back(std::move(v));
    return out;
}

LineAggregate aggregateFunction(const SassFunction& fn) {
    LineAggregate total;
    for (const auto& ins : fn.instructions) accumulate(total, ins);
    return total;
}

} // namespace lowerscope
