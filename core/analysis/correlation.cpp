// Correlation (declared in core/analysis/lowering.h): source line ↔ PTX lines ↔ SASS addresses.
#include "core/analysis/lowering.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace lowerscope {

namespace {

// Calls f(file, line) for each frame of `s` that the attribution looks at: the outermost (call
// site), the innermost (callee), or every frame of the chain (any frame; a frame repeated in the
// chain, as in a recursion inlined into itself, is reported each time).
template <typename F>
void forEachFrame(const SourceLoc& s, InlineAttribution a, const F& f) {
    switch (a) {
    case InlineAttribution::CallSite: {
        const SourceFrame c = s.callSite();
        f(c.file, c.line);
        return;
    }
    case InlineAttribution::Callee: f(s.file, s.line); return;
    case InlineAttribution::AnyFrame:
        f(s.file, s.line);
        for (const auto& fr : s.inlinedAt) f(fr.file, fr.line);
        return;
    }
}

// True when a frame of `s` that the attribution looks at is `line` of one of `files`.
bool matches(const SourceLoc& s, InlineAttribution a, const std::set<std::string>& files, int line) {
    bool hit = false;
    forEachFrame(s, a, [&](const std::string& file, int l) { hit = hit || (l == line && files.count(file)); });
    return hit;
}

std::string canonicalForm(const std::string& path) {
    std::error_code ec;
    auto p = std::filesystem::weakly_canonical(std::filesystem::path(path), ec);
    if (ec) return std::filesystem::path(path).lexically_normal().string();
    return p.string();
}

std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The recorded file names that `query` refers to: exact matches, else those with the same
// canonical form, else those with the same file name.
std::set<std::string> resolveFiles(const std::set<std::string>& recorded, const std::string& query) {
    std::set<std::string> out;
    if (recorded.count(query)) {
        out.insert(query);
        return out;
    }
    const std::string cq = canonicalForm(query);
    for (const auto& r : recorded)
        if (canonicalForm(r) == cq) out.insert(r);
    if (!out.empty()) return out;
    const std::string fq = fileName(query);
    for (const auto& r : recorded)
        if (fileName(r) == fq) out.insert(r);
    return out;
}

std::set<std::string> recordedFiles(const Correlation& c, InlineAttribution a) {
    std::set<std::string> files;
    auto add = [&](const std::string& file, int) { files.insert(file); };
    for (const auto& e : c.sassEntries)
        if (e.source.valid()) forEachFrame(e.source, a, add);
    for (const auto& [line, src] : c.ptxEntries)
        if (src.valid()) forEachFrame(src, a, add);
    return files;
}

} // namespace

const char* attributionName(InlineAttribution a) {
    switch (a) {
    case InlineAttribution::CallSite: return "call-site";
    case InlineAttribution::Callee: return "callee";
    case InlineAttribution::AnyFrame: return "any";
    }
    return "call-site";
}

std::optional<InlineAttribution> parseAttribution(const std::string& name) {
    for (auto a : {InlineAttribution::CallSite, InlineAttribution::Callee, InlineAttribution::AnyFrame})
        if (name == attributionName(a)) return a;
    return std::nullopt;
}

Correlation Correlation::build(const PtxListing& ptx, int function, const SassFunction& sass) {
    Correlation c;
    c.sassEntries.reserve(sass.instructions.size());
    for (const auto& ins : sass.instructions) c.sassEntries.push_back(Entry{ins.address, ins.ptxLine, ins.source});
    // The kernel's .entry, plus every .func of the module: a function that is not inlined
    // (__noinline__, recursion) is compiled into the kernel's text as a subroutine, so its PTX
    // lines belong to this kernel's correlation too. Ranges are visited in line order.
    std::vector<std::pair<int, int>> ranges;
    const int total = static_cast<int>(ptx.lines.size());
    if (function >= 0 && static_cast<size_t>(function) < ptx.functions.size()) {
        for (size_t i = 0; i < ptx.functions.size(); ++i) {
            const PtxFunction& f = ptx.functions[i];
            if (static_cast<int>(i) == function || !f.isEntry) ranges.emplace_back(std::max(1, f.firstLine), std::min(total, f.lastLine));
        }
        std::sort(ranges.begin(), ranges.end());
    } else {
        ranges.emplace_back(1, total);
    }
    for (const auto& [first, last] : ranges)
        for (int l = first; l <= last; ++l) {
            const PtxLine& pl = ptx.lines[static_cast<size_t>(l - 1)];
            if (pl.isInstruction && pl.source && pl.source->valid()) c.ptxEntries.emplace_back(pl.line, *pl.source);
        }
    return c;
}

std::vector<int> Correlation::ptxLinesForSource(const std::string& sourceFile, int line, InlineAttribution a) const {
    const auto files = resolveFiles(recordedFiles(*this, a), sourceFile);
    std::vector<int> out;
    for (const auto& [pl, src] : ptxEntries)
        if (matches(src, a, files, line)) out.push_back(pl);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<uint32_t> Correlation::sassForSource(const std::string& sourceFile, int line, InlineAttribution a) const {
    const auto files = resolveFiles(recordedFiles(*this, a), sourceFile);
    std::vector<uint32_t> out;
    for (const auto& e : sassEntries)
        if (e.source.valid() && matches(e.source, a, files, line)) out.push_back(e.address);
    return out; // already in address order
}

std::optional<SourceLoc> Correlation::sourceForSass(uint32_t address) const {
    const SourceLoc* s = findSourceForSass(address);
    if (!s) return std::nullopt;
    return *s;
}

const SourceLoc* Correlation::findSourceForSass(uint32_t address) const {
    auto it = std::lower_bound(sassEntries.begin(), sassEntries.end(), address,
                               [](const Entry& e, uint32_t a) { return e.address < a; });
    if (it == sassEntries.end() || it->address != address || !it->source.valid()) return nullptr;
    return &it->source;
}

int Correlation::ptxLineForSass(uint32_t address) const {
    auto it = std::lower_bound(sassEntries.begin(), sassEntries.end(), address,
                               [](const Entry& e, uint32_t a) { return e.address < a; });
    if (it == sassEntries.end() || it->address != address) return 0;
    return it->ptxLine;
}

std::optional<SourceLoc> Correlation::sourceForPtx(int ptxLine) const {
    auto it = std::lower_bound(ptxEntries.begin(), ptxEntries.end(), ptxLine,
                               [](const std::pair<int, SourceLoc>& e, int l) { return e.first < l; });
    if (it == ptxEntries.end() || it->first != ptxLine) return std::nullopt;
    return it->second;
}

std::vector<uint32_t> Correlation::sassForPtx(int ptxLine) const {
    std::vector<uint32_t> out;
    for (const auto& e : sassEntries)
        if (e.ptxLine == ptxLine && ptxLine > 0) out.push_back(e.address);
    return out;
}

std::vector<SourceFrame> Correlation::sourceLines(InlineAttribution a) const {
    std::set<std::pair<std::string, int>> seen;
    auto add = [&](const std::string& file, int line) { seen.insert({file, line}); };
    for (const auto& e : sassEntries)
        if (e.source.valid()) forEachFrame(e.source, a, add);
    for (const auto& [pl, src] : ptxEntries) forEachFrame(src, a, add);
    std::vector<SourceFrame> out;
    for (const auto& [file, line] : seen) out.push_back(SourceFrame{file, line, 0});
    return out;
}

} // namespace lowerscope
