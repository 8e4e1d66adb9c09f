#include "core/aggregate.h"

#include "core/opcodes.h"

#include <algorithm>
#include <map>

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
    std::map<std::pair<std::string, int>, LineAggregate> byLine;
    for (const auto& ins : fn.instructions) {
        if (!ins.source.valid()) continue;
        const SourceFrame f = attribution == InlineAttribution::CallSite
                                  ? ins.source.callSite()
                                  : SourceFrame{ins.source.file, ins.source.line, ins.source.column};
        auto& a = byLine[{f.file, f.line}];
        a.file = f.file;
        a.line = f.line;
        accumulate(a, ins);
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
