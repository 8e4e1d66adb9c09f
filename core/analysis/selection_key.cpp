#include "core/analysis/selection_key.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace lowerscope {

namespace {

bool sameFrame(const SourceLoc& s, const std::string& file, int line) {
    return s.valid() ? (s.line == line && s.file == file) : (line == 0 && file.empty());
}

std::string_view trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
    return s.substr(b, e - b);
}

// Index of the PTX function whose body holds 1-based `line`, or -1.
int functionOfLine(const PtxListing& ptx, int line) {
    for (size_t i = 0; i < ptx.functions.size(); ++i)
        if (line >= ptx.functions[i].firstLine && line <= ptx.functions[i].lastLine) return static_cast<int>(i);
    return -1;
}

// The line range [first, last] of a function (the whole module for -1).
std::pair<int, int> rangeOf(const PtxListing& ptx, int function) {
    if (function < 0) return {1, static_cast<int>(ptx.lines.size())};
    const PtxFunction& f = ptx.functions[static_cast<size_t>(function)];
    return {std::max(1, f.firstLine), std::min(static_cast<int>(ptx.lines.size()), f.lastLine)};
}

} // namespace

SassKey sassKey(const KernelModel& kernel, uint32_t address) {
    SassKey key;
    const int at = kernel.sass.indexOf(address);
    if (at < 0) return key;
    const SassInstruction& target = kernel.sass.instructions[static_cast<size_t>(at)];
    key.kernel = kernel.mangled;
    key.address = address;
    key.mnemonic = target.mnemonic;
    if (target.source.valid()) {
        key.file = target.source.file;
        key.line = target.source.line;
    }
    for (int i = 0; i < at; ++i)
        if (sameFrame(kernel.sass.instructions[static_cast<size_t>(i)].source, key.file, key.line)) ++key.ordinal;
    return key;
}

std::optional<SassMatch> findSass(const LoweringModel& model, const SassKey& key) {
    if (!key.valid()) return std::nullopt;
    int k = -1;
    for (size_t i = 0; i < model.kernels.size(); ++i)
        if (model.kernels[i].mangled == key.kernel) k = static_cast<int>(i);
    if (k < 0) return std::nullopt;
    const auto& ins = model.kernels[static_cast<size_t>(k)].sass.instructions;
    SassMatch m;
    m.kernel = k;

    if (key.line == 0) {
        // No line information to go by: the address, if it is still an instruction.
        const int at = model.kernels[static_cast<size_t>(k)].sass.indexOf(key.address);
        if (at < 0) return std::nullopt;
        m.address = key.address;
        m.exact = ins[static_cast<size_t>(at)].mnemonic == key.mnemonic;
        return m;
    }

    std::vector<size_t> onLine;
    for (size_t i = 0; i < ins.size(); ++i)
        if (sameFrame(ins[i].source, key.file, key.line)) onLine.push_back(i);
    if (!onLine.empty()) {
        const size_t want = static_cast<size_t>(std::max(0, key.ordinal));
        if (want < onLine.size() && ins[onLine[want]].mnemonic == key.mnemonic) {
            m.address = ins[onLine[want]].address;
            m.exact = true;
            return m;
        }
        // The line's code changed: the same mnemonic nearest the old position, else the position
        // itself (clamped to the line's last instruction).
        size_t best = onLine.size();
        size_t bestDistance = SIZE_MAX;
        for (size_t j = 0; j < onLine.size(); ++j) {
            if (ins[onLine[j]].mnemonic != key.mnemonic) continue;
            const size_t d = j > want ? j - want : want - j;
            if (d < bestDistance) {
                bestDistance = d;
                best = j;
            }
        }
        if (best == onLine.size()) best = std::min(want, onLine.size() - 1);
        m.address = ins[onLine[best]].address;
        return m;
    }

    // The line has no code any more: the nearest line of the same file that has some (the later
    // one on a tie), its first instruction.
    int bestLine = 0, bestDistance = INT_MAX;
    size_t first = 0;
    for (size_t i = 0; i < ins.size(); ++i) {
        const SourceLoc& s = ins[i].source;
        if (!s.valid() || s.file != key.file) continue;
        const int d = std::abs(s.line - key.line);
        if (d < bestDistance || (d == bestDistance && s.line > bestLine)) {
            bestDistance = d;
            bestLine = s.line;
            first = i; // iterating in address order: the line's first instruction
        }
    }
    if (bestLine == 0) return std::nullopt;
    m.address = ins[first].address;
    return m;
}

PtxKey ptxKey(const PtxListing& ptx, int ptxLine) {
    PtxKey key;
    if (ptxLine < 1 || static_cast<size_t>(ptxLine) > ptx.lines.size()) return key;
    key.ptxLine = ptxLine;
    const int f = functionOfLine(ptx, ptxLine);
    if (f >= 0) key.function = ptx.functions[static_cast<size_t>(f)].name;
    const PtxLine& target = ptx.lines[static_cast<size_t>(ptxLine - 1)];
    key.text = std::string(trim(target.text));
    const bool located = target.isInstruction && target.source && target.source->valid();
    if (located) {
        key.file = target.source->file;
        key.line = target.source->line;
    }
    const auto [first, last] = rangeOf(ptx, f);
    (void)last;
    for (int l = first; l < ptxLine; ++l) {
        const PtxLine& p = ptx.lines[static_cast<size_t>(l - 1)];
        const bool pl = p.isInstruction && p.source && p.source->valid();
        if (located ? (pl && p.source->line == key.line && p.source->file == key.file) : (!pl && trim(p.text) == key.text))
            ++key.ordinal;
    }
    return key;
}

std::optional<int> findPtx(const PtxListing& ptx, const PtxKey& key) {
    if (!key.valid()) return std::nullopt;
    int f = -1;
    if (!key.function.empty()) {
        for (size_t i = 0; i < ptx.functions.size(); ++i)
            if (ptx.functions[i].name == key.function) f = static_cast<int>(i);
        if (f < 0) {
            // The function is gone: the old line number, if the text is still there.
            if (static_cast<size_t>(key.ptxLine) <= ptx.lines.size() &&
                trim(ptx.lines[static_cast<size_t>(key.ptxLine - 1)].text) == key.text)
                return key.ptxLine;
            return std::nullopt;
        }
    }
    const auto [first, last] = rangeOf(ptx, f);
    std::vector<int> matches;
    for (int l = first; l <= last; ++l) {
        const PtxLine& p = ptx.lines[static_cast<size_t>(l - 1)];
        const bool pl = p.isInstruction && p.source && p.source->valid();
        if (key.line > 0 ? (pl && p.source->line == key.line && p.source->file == key.file) : (!pl && trim(p.text) == key.text))
            matches.push_back(l);
    }
    if (!matches.empty()) {
        // Prefer the same text near the old position; else the position itself, clamped.
        const size_t want = static_cast<size_t>(std::max(0, key.ordinal));
        if (want < matches.size() && trim(ptx.lines[static_cast<size_t>(matches[want] - 1)].text) == key.text)
            return matches[want];
        for (size_t d = 1; d < matches.size(); ++d)
            for (size_t j : {want + d, want >= d ? want - d : matches.size()})
                if (j < matches.size() && trim(ptx.lines[static_cast<size_t>(matches[j] - 1)].text) == key.text)
                    return matches[j];
        return matches[std::min(want, matches.size() - 1)];
    }
    if (key.line > 0) {
        // The source line has no PTX any more: the nearest line of the same file in the function.
        int best = 0, bestDistance = INT_MAX, bestSourceLine = 0;
        for (int l = first; l <= last; ++l) {
            const PtxLine& p = ptx.lines[static_cast<size_t>(l - 1)];
            if (!(p.isInstruction && p.source && p.source->valid()) || p.source->file != key.file) continue;
            const int d = std::abs(p.source->line - key.line);
            if (d < bestDistance || (d == bestDistance && p.source->line > bestSourceLine)) {
                bestDistance = d;
                bestSourceLine = p.source->line;
                best = l;
            }
        }
        if (best > 0) return best;
    }
    return std::nullopt;
}

} // namespace lowerscope
