#include "core/analysis/diff.h"
#include "core/parse/opcodes.h"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

namespace lowerscope {

namespace {

// Strings → small ints, so dtl compares ints and A and B share one key space.
class Interner {
public:
    int id(const std::string& s) {
        auto [it, inserted] = m_ids.emplace(s, static_cast<int>(m_ids.size()));
        return it->second;
    }

private:
    std::unordered_map<std::string, int> m_ids;
};

enum class Edit { Common, Delete, Add };
struct EditStep {
    Edit edit;
    int a; // 0-based index into the A sequence (valid for Common / Delete)
    int b; // 0-based index into the B sequence (valid for Common / Add)
};

// Shortest edit script between two int sequences. dtl handles the O((N+M)D) work; the trivial
// cases are answered here because dtl's bookkeeping expects non-empty input.
std::vector<EditStep> editScript(const std::vector<int>& a, const std::vector<int>& b) {
    std::vector<EditStep> out;
    if (a.empty() || b.empty()) {
        for (size_t i = 0; i < a.size(); ++i) out.push_back({Edit::Delete, int(i), -1});
        for (size_t j = 0; j < b.size(); ++j) out.push_back({Edit::Add, -1, int(j)});
        return out;
    }
    dtl::Diff<int, std::vector<int>> d(a, b);
    d.compose();
    for (const auto& [elem, info] : d.getSes().getSequence()) {
        (void)elem;
        switch (info.type) {
        case dtl::SES_COMMON: out.push_back({Edit::Common, int(info.beforeIdx - 1), int(info.afterIdx - 1)}); break;
        case dtl::SES_DELETE: out.push_back({Edit::Delete, int(info.beforeIdx - 1), -1}); break;
        case dtl::SES_ADD: out.push_back({Edit::Add, -1, int(info.afterIdx - 1)}); break;
        }
    }
    return out;
}

SourceFrame lineOf(const SassInstruction& ins, InlineAttribution attribution) {
    if (!ins.source.valid()) return {};
    if (attribution == InlineAttribution::CallSite) {
        SourceFrame f = ins.source.callSite();
        f.column = 0;
        return f;
    }
    return SourceFrame{ins.source.file, ins.source.line, 0};
}

std::string stripReuse(std::string text) {
    static const std::string kReuse = ".reuse";
    for (size_t p = text.find(kReuse); p != std::string::npos; p = text.find(kReuse, p)) text.erase(p, kReuse.size());
    return text;
}

bool isWordChar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::string fullKey(const SassInstruction& ins, RegisterRenaming* renaming) {
    std::string key = renaming ? renaming->apply(ins.predicate) : ins.predicate;
    key += ' ';
    key += ins.opcode;
    for (size_t i = 0; i < ins.operands.size(); ++i) {
        key += i ? ", " : " ";
        std::string text = stripReuse(ins.operands[i].text);
        key += renaming ? renaming->apply(text) : text;
    }
    return key;
}

class Aligner {
public:
    Aligner(const SassFunction& a, const SassFunction& b, const DiffOptions& options)
        : m_a(a), m_b(b), m_options(options) {
        for (const auto& ins : a.instructions) m_linesA.push_back(lineOf(ins, options.attribution));
        for (const auto& ins : b.instructions) m_linesB.push_back(lineOf(ins, options.attribution));
        if (options.naming == RegisterNaming::PerFunction) {
            m_keysA = keys(a, 0, int(a.instructions.size()), true);
            m_keysB = keys(b, 0, int(b.instructions.size()), true);
        } else if (options.naming == RegisterNaming::Exact) {
            m_keysA = keys(a, 0, int(a.instructions.size()), false);
            m_keysB = keys(b, 0, int(b.instructions.size()), false);
        }
        for (const auto& ins : a.instructions) m_mnemonicA.push_back(m_interner.id("m:" + ins.mnemonic));
        for (const auto& ins : b.instructions) m_mnemonicB.push_back(m_interner.id("m:" + ins.mnemonic));
    }

    SassDiff run() {
        const int na = int(m_a.instructions.size());
        const int nb = int(m_b.instructions.size());
        if (!m_options.alignBySource) {
            group(0, na, 0, nb);
        } else {
            // Level 1: an LCS over the per-instruction source-line keys (weighted by instruction
            // count, unlike an LCS over runs, where one short run matching can block a long one).
            // Maximal stretches of matched instructions with one line are the anchors.
            Interner lineKeys;
            std::vector<int> ka, kb;
            for (const auto& f : m_linesA) ka.push_back(lineKeys.id(f.file + '\n' + std::to_string(f.line)));
            for (const auto& f : m_linesB) kb.push_back(lineKeys.id(f.file + '\n' + std::to_string(f.line)));
            int pa = 0, pb = 0;            // next unaligned instruction of A / B
            int anchorA = -1, anchorB = -1; // start of the open anchor, -1 when none
            int lastA = -1, lastB = -1;
            auto closeAnchor = [&]() {
                if (anchorA < 0) return;
                // Level 2 (gap then anchor): instruction sequence inside each region.
                group(pa, anchorA, pb, anchorB);
                group(anchorA, lastA + 1, anchorB, lastB + 1);
                ++m_diff.summary.anchors;
                pa = lastA + 1;
                pb = lastB + 1;
                anchorA = anchorB = -1;
            };
            for (const EditStep& step : editScript(ka, kb)) {
                if (step.edit != Edit::Common) {
                    closeAnchor();
                    continue;
                }
                if (anchorA >= 0 && (step.a != lastA + 1 || step.b != lastB + 1 || ka[size_t(step.a)] != ka[size_t(lastA)]))
                    closeAnchor();
                if (anchorA < 0) {
                    anchorA = step.a;
                    anchorB = step.b;
                }
                lastA = step.a;
                lastB = step.b;
            }
            closeAnchor();
            group(pa, na, pb, nb);
            realignHunks();
        }
        finish();
        return std::move(m_diff);
    }

private:
    std::vector<int> keys(const SassFunction& f, int begin, int end, bool rename) {
        std::vector<int> out;
        RegisterRenaming renaming;
        for (int i = begin; i < end; ++i) {
            const SassInstruction& ins = f.instructions[size_t(i)];
            const std::string key = m_options.mode == DiffMode::Opcode ? instructionKey(ins, DiffMode::Opcode)
                                                                       : fullKey(ins, rename ? &renaming : nullptr);
            out.push_back(m_interner.id(key));
        }
        return out;
    }

    void emit(int a, int b, DiffStatus status) {
        DiffRow row;
        row.a = a;
        row.b = b;
        row.status = status;
        row.source = a >= 0 ? m_linesA[size_t(a)] : m_linesB[size_t(b)];
        m_diff.rows.push_back(std::move(row));
    }

    // Aligns A[a0, a1) with B[b0, b1) by instruction sequence.
    void group(int a0, int a1, int b0, int b1) {
        if (a0 >= a1 && b0 >= b1) return;
        std::vector<int> ka, kb;
        if (m_options.naming == RegisterNaming::PerAnchor && m_options.mode == DiffMode::Full) {
            ka = keys(m_a, a0, a1, true);
            kb = keys(m_b, b0, b1, true);
        } else {
            ka.assign(m_keysA.begin() + a0, m_keysA.begin() + a1);
            kb.assign(m_keysB.begin() + b0, m_keysB.begin() + b1);
        }
        std::vector<int> dels, adds;
        for (const EditStep& step : editScript(ka, kb)) {
            if (step.edit == Edit::Common) {
                flush(dels, adds);
                emit(a0 + step.a, b0 + step.b, DiffStatus::Equal);
            } else if (step.edit == Edit::Delete) {
                dels.push_back(a0 + step.a);
            } else {
                adds.push_back(b0 + step.b);
            }
        }
        flush(dels, adds);
    }

    // A block of removed and added instructions between two equal ones: pair up instructions as
    // "changed" where they share a mnemonic, preferring pairs with the very same opcode (MUFU.EX2
    // with MUFU.EX2 rather than with MUFU.SIN), keeping the pairing monotonic; the rest stay
    // removed / added, in an order that keeps both columns in listing order.
    void flush(std::vector<int>& dels, std::vector<int>& adds) {
        if (dels.empty() && adds.empty()) return;
        std::vector<EditStep> steps;
        const size_t n = dels.size(), m = adds.size();
        if (n * m <= 250000) {
            // Weighted LCS: 2 for the same opcode, 1 for the same mnemonic only.
            auto score = [&](size_t i, size_t j) {
                const SassInstruction& x = m_a.instructions[size_t(dels[i])];
                const SassInstruction& y = m_b.instructions[size_t(adds[j])];
                if (x.mnemonic != y.mnemonic) return 0;
                return x.opcode == y.opcode ? 2 : 1;
            };
            std::vector<int> table((n + 1) * (m + 1), 0);
            auto at = [&](size_t i, size_t j) -> int& { return table[i * (m + 1) + j]; };
            for (size_t i = n; i-- > 0;) {
                for (size_t j = m; j-- > 0;) {
                    int best = std::max(at(i + 1, j), at(i, j + 1));
                    const int s = score(i, j);
                    if (s > 0) best = std::max(best, s + at(i + 1, j + 1));
                    at(i, j) = best;
                }
            }
            size_t i = 0, j = 0;
            while (i < n || j < m) {
                if (i < n && j < m) {
                    const int s = score(i, j);
                    if (s > 0 && at(i, j) == s + at(i + 1, j + 1)) {
                        steps.push_back({Edit::Common, int(i++), int(j++)});
                        continue;
                    }
                    // Removed before added on ties, like a unified diff.
                    if (at(i, j) == at(i + 1, j)) steps.push_back({Edit::Delete, int(i++), -1});
                    else steps.push_back({Edit::Add, -1, int(j++)});
                } else if (i < n) {
                    steps.push_back({Edit::Delete, int(i++), -1});
                } else {
                    steps.push_back({Edit::Add, -1, int(j++)});
                }
            }
        } else {
            // Very large blocks (whole functions replaced): an unweighted LCS on mnemonics.
            std::vector<int> ma, mb;
            for (int i : dels) ma.push_back(m_mnemonicA[size_t(i)]);
            for (int j : adds) mb.push_back(m_mnemonicB[size_t(j)]);
            steps = editScript(ma, mb);
        }
        for (const EditStep& step : steps) {
            if (step.edit == Edit::Common)
                emit(dels[size_t(step.a)], adds[size_t(step.b)], DiffStatus::Changed);
            else if (step.edit == Edit::Delete)
                emit(dels[size_t(step.a)], -1, DiffStatus::Removed);
            else
                emit(-1, adds[size_t(step.b)], DiffStatus::Added);
        }
        dels.clear();
        adds.clear();
    }

    // Cleanup across anchor boundaries: when the compilers attributed the same instructions to
    // different (neighbouring) lines, level 1 leaves them as "removed" in one region and "added"
    // in the next. Each run of non-equal rows covers contiguous index ranges of A and B (rows are
    // monotonic), so it can be re-aligned by instruction sequence alone; the result is kept only
    // when that finds equal instructions, or more changed pairs, than the source-line alignment.
    void realignHunks() {
        std::vector<DiffRow> rows = std::move(m_diff.rows);
        m_diff.rows.clear();
        size_t r = 0;
        while (r < rows.size()) {
            if (rows[r].status == DiffStatus::Equal) {
                m_diff.rows.push_back(rows[r++]);
                continue;
            }
            size_t end = r;
            int a0 = INT_MAX, a1 = -1, b0 = INT_MAX, b1 = -1;
            while (end < rows.size() && rows[end].status != DiffStatus::Equal) {
                if (rows[end].a >= 0) a0 = std::min(a0, rows[end].a), a1 = std::max(a1, rows[end].a);
                if (rows[end].b >= 0) b0 = std::min(b0, rows[end].b), b1 = std::max(b1, rows[end].b);
                ++end;
            }
            const size_t before = m_diff.rows.size();
            if (a1 >= 0 && b1 >= 0) group(a0, a1 + 1, b0, b1 + 1);
            auto count = [](auto first, auto last, DiffStatus st) {
                return std::count_if(first, last, [st](const DiffRow& x) { return x.status == st; });
            };
            const long equalNow = count(m_diff.rows.begin() + long(before), m_diff.rows.end(), DiffStatus::Equal);
            const long changedNow = count(m_diff.rows.begin() + long(before), m_diff.rows.end(), DiffStatus::Changed);
            const long changedBefore = count(rows.begin() + long(r), rows.begin() + long(end), DiffStatus::Changed);
            if (equalNow == 0 && changedNow <= changedBefore) {
                m_diff.rows.resize(before);
                m_diff.rows.insert(m_diff.rows.end(), rows.begin() + long(r), rows.begin() + long(end));
            }
            r = end;
        }
    }

    void finish() {
        SassDiff& d = m_diff;
        d.summary.instructionsA = int(m_a.instructions.size());
        d.summary.instructionsB = int(m_b.instructions.size());
        d.rowOfA.assign(m_a.instructions.size(), -1);
        d.rowOfB.assign(m_b.instructions.size(), -1);
        for (size_t r = 0; r < d.rows.size(); ++r) {
            const DiffRow& row = d.rows[r];
            if (row.a >= 0) d.rowOfA[size_t(row.a)] = int(r);
            if (row.b >= 0) d.rowOfB[size_t(row.b)] = int(r);
            switch (row.status) {
            case DiffStatus::Equal: ++d.summary.equal; break;
            case DiffStatus::Changed: ++d.summary.changed; break;
            case DiffStatus::Added: ++d.summary.added; break;
            case DiffStatus::Removed: ++d.summary.removed; break;
            }
            if (row.status == DiffStatus::Equal) continue;
            if (!d.hunks.empty() && d.hunks.back().lastRow == int(r) - 1)
                d.hunks.back().lastRow = int(r);
            else
                d.hunks.push_back({int(r), int(r)});
        }
    }

    const SassFunction& m_a;
    const SassFunction& m_b;
    DiffOptions m_options;
    Interner m_interner;
    std::vector<SourceFrame> m_linesA, m_linesB;
    std::vector<int> m_keysA, m_keysB;
    std::vector<int> m_mnemonicA, m_mnemonicB;
    SassDiff m_diff;
};

std::string fileName(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string rowSide(const SassFunction& f, int index) {
    if (index < 0 || size_t(index) >= f.instructions.size()) return "";
    char addr[16];
    std::snprintf(addr, sizeof addr, "/*%04x*/ ", f.instructions[size_t(index)].address);
    return addr + f.instructions[size_t(index)].text;
}

char statusMark(DiffStatus s) {
    switch (s) {
    case DiffStatus::Equal: return '=';
    case DiffStatus::Changed: return '~';
    case DiffStatus::Added: return '+';
    case DiffStatus::Removed: return '-';
    }
    return '?';
}

} // namespace

const char* diffStatusName(DiffStatus status) {
    switch (status) {
    case DiffStatus::Equal: return "equal";
    case DiffStatus::Changed: return "changed";
    case DiffStatus::Added: return "added";
    case DiffStatus::Removed: return "removed";
    }
    return "?";
}

std::string instructionKey(const SassInstruction& instruction, DiffMode mode) {
    if (mode == DiffMode::Opcode) return instruction.opcode;
    return fullKey(instruction, nullptr);
}

std::string RegisterRenaming::apply(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    auto lookup = [&](const std::string& name, int counterIndex) {
        for (const auto& [n, id] : names)
            if (n == name) return id;
        const int id = counters[counterIndex]++;
        names.emplace_back(name, id);
        return id;
    };
    while (i < text.size()) {
        const bool boundary = i == 0 || !isWordChar(text[i - 1]);
        // Branch labels: `.L_x_12` (any `.L_` name).
        if (text.compare(i, 3, ".L_") == 0 && (i == 0 || !isWordChar(text[i - 1]))) {
            size_t e = i + 3;
            while (e < text.size() && isWordChar(text[e])) ++e;
            out += ".L_" + std::to_string(lookup(text.substr(i, e - i), 4));
            i = e;
            continue;
        }
        if (boundary) {
            // R<n>, P<n>, UR<n>, UP<n>; RZ, PT, URZ, UPT carry no number and stay as they are.
            size_t p = i;
            int cls = -1;
            std::string prefix;
            if (text[p] == 'U' && p + 1 < text.size() && (text[p + 1] == 'R' || text[p + 1] == 'P')) {
                prefix = text.substr(p, 2);
                cls = text[p + 1] == 'R' ? 2 : 3;
                p += 2;
            } else if (text[p] == 'R' || text[p] == 'P') {
                prefix = text.substr(p, 1);
                cls = text[p] == 'R' ? 0 : 1;
                p += 1;
            }
            if (cls >= 0 && p < text.size() && isDigit(text[p])) {
                size_t e = p;
                while (e < text.size() && isDigit(text[e])) ++e;
                if (e == text.size() || !isWordChar(text[e])) {
                    out += prefix + std::to_string(lookup(text.substr(i, e - i), cls));
                    i = e;
                    continue;
                }
            }
        }
        out += text[i++];
    }
    return out;
}

SassDiff diffSass(const SassFunction& a, const SassFunction& b, const DiffOptions& options) {
    return Aligner(a, b, options).run();
}

int SassDiff::nextDifference(int row) const {
    for (const DiffHunk& h : hunks)
        if (h.firstRow > row) return h.firstRow;
    return -1;
}

int SassDiff::previousDifference(int row) const {
    for (auto it = hunks.rbegin(); it != hunks.rend(); ++it)
        if (it->firstRow < row) return it->firstRow;
    return -1;
}

std::vector<double> SassDiff::heat(int bins) const {
    std::vector<double> out;
    if (bins <= 0) return out;
    out.assign(size_t(bins), 0.0);
    const size_t n = rows.size();
    if (n == 0) return out;
    for (int i = 0; i < bins; ++i) {
        const size_t lo = size_t(i) * n / size_t(bins);
        size_t hi = size_t(i + 1) * n / size_t(bins);
        if (hi <= lo) hi = std::min(n, lo + 1); // more bins than rows: each bin shows its row
        int different = 0;
        for (size_t r = lo; r < hi; ++r) different += rows[r].status != DiffStatus::Equal;
        out[size_t(i)] = double(different) / double(hi - lo);
    }
    return out;
}

std::string formatDiffRows(const SassDiff& diff, const SassFunction& a, const SassFunction& b, int firstRow,
                           int lastRow, int width) {
    std::string out;
    firstRow = std::max(firstRow, 0);
    lastRow = std::min(lastRow, int(diff.rows.size()) - 1);
    for (int r = firstRow; r <= lastRow; ++r) {
        const DiffRow& row = diff.rows[size_t(r)];
        std::string line(1, statusMark(row.status));
        line += ' ';
        std::string where = row.source.line > 0 ? fileName(row.source.file) + ":" + std::to_string(row.source.line)
                                                : std::string("?");
        where.resize(std::max<size_t>(where.size(), 18), ' ');
        line += where;
        line += ' ';
        std::string left = rowSide(a, row.a);
        left.resize(std::max<size_t>(left.size(), size_t(std::max(width, 0))), ' ');
        line += left;
        line += " | ";
        line += rowSide(b, row.b);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line;
        out += '\n';
    }
    return out;
}

std::string formatDiffExcerpt(const SassDiff& diff, const SassFunction& a, const SassFunction& b, int maxHunks,
                              int context, int width, int maxRunRows) {
    if (diff.hunks.empty() || maxHunks <= 0) return "";
    std::vector<int> order(diff.hunks.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return diff.hunks[size_t(x)].size() > diff.hunks[size_t(y)].size(); });
    order.resize(std::min(order.size(), size_t(maxHunks)));
    std::sort(order.begin(), order.end());
    // Merge overlapping context windows so no row prints twice.
    std::vector<std::pair<int, int>> windows;
    context = std::max(context, 0);
    for (int h : order) {
        const int lo = std::max(0, diff.hunks[size_t(h)].firstRow - context);
        const int hi = std::min(int(diff.rows.size()) - 1, diff.hunks[size_t(h)].lastRow + context);
        if (!windows.empty() && lo <= windows.back().second + 1)
            windows.back().second = std::max(windows.back().second, hi);
        else
            windows.emplace_back(lo, hi);
    }
    // Rows elided from the middle of long runs of one status.
    const int keep = std::max(maxRunRows, 2) / 2;
    std::vector<std::pair<int, int>> elided; // [first, last] rows not printed
    for (size_t r = 0; r < diff.rows.size();) {
        size_t e = r;
        while (e < diff.rows.size() && diff.rows[e].status == diff.rows[r].status) ++e;
        const int len = int(e - r);
        if (maxRunRows > 0 && diff.rows[r].status != DiffStatus::Equal && len > maxRunRows)
            elided.emplace_back(int(r) + keep, int(e) - 1 - keep);
        r = e;
    }

    std::string out;
    for (size_t w = 0; w < windows.size(); ++w) {
        if (w > 0 || windows[w].first > 0) out += "  ...\n";
        int r = windows[w].first;
        const int end = windows[w].second;
        while (r <= end) {
            const auto cut = std::find_if(elided.begin(), elided.end(), [&](const auto& e) {
                return e.first <= end && e.second >= r && e.first >= r;
            });
            const int stop = cut == elided.end() ? end : cut->first - 1;
            out += formatDiffRows(diff, a, b, r, stop, width);
            if (cut == elided.end()) break;
            out += "  ... " + std::to_string(cut->second - cut->first + 1) + " more " +
                   diffStatusName(diff.rows[size_t(cut->first)].status) + " rows\n";
            r = cut->second + 1;
        }
    }
    if (windows.back().second < int(diff.rows.size()) - 1) out += "  ...\n";
    return out;
}

// ------------------------------------------------------------------------- per-line deltas

std::vector<LineDelta> lineDeltas(const SassFunction& a, const SassFunction& b, InlineAttribution attribution) {
    std::map<std::pair<std::string, int>, LineDelta> byLine;
    auto add = [&](const SassFunction& f, bool isA) {
        for (const auto& ins : f.instructions) {
            const SourceFrame line = lineOf(ins, attribution);
            LineDelta& d = byLine[{line.file, line.line}];
            d.source = line;
            LineStats& s = isA ? d.a : d.b;
            ++s.instructions;
            if (ins.hasEncoding) s.stallCycles += ins.control.stall;
            if (ins.live.gpr >= 0) s.maxLiveGpr = std::max(s.maxLiveGpr, ins.live.gpr);
        }
    };
    add(a, true);
    add(b, false);
    std::vector<LineDelta> out;
    out.reserve(byLine.size());
    for (auto& [key, d] : byLine) out.push_back(std::move(d));
    return out;
}

std::vector<LineDelta> lineDeltas(const std::vector<LineAggregate>& a, const std::vector<LineAggregate>& b) {
    std::map<std::pair<std::string, int>, LineDelta> byLine;
    auto add = [&](const std::vector<LineAggregate>& lines, bool isA) {
        for (const auto& agg : lines) {
            LineDelta& d = byLine[{agg.file, agg.line}];
            d.source = SourceFrame{agg.file, agg.line, 0};
            LineStats& s = isA ? d.a : d.b;
            s.instructions += agg.instructions;
            s.stallCycles += agg.stallCycles;
            s.maxLiveGpr = std::max(s.maxLiveGpr, agg.maxLiveGpr);
        }
    };
    add(a, true);
    add(b, false);
    std::vector<LineDelta> out;
    for (auto& [key, d] : byLine) out.push_back(std::move(d));
    return out;
}

// ----------------------------------------------------------------------- resource deltas

namespace {

struct ArchLimits {
    int maxWarps;        // resident warps per SM
    int maxBlocks;       // resident blocks per SM
    int sharedPerSm;     // bytes, the largest carveout
    int sharedPerBlock;  // bytes, the opt-in maximum per block
    int reservedPerBlock;// bytes the driver keeps per block (sm_80+)
};

// Values from the CUDA C++ Programming Guide's "Technical Specifications per Compute Capability".
ArchLimits limitsFor(const std::string& arch) {
    int cc = 0;
    if (arch.rfind("sm_", 0) == 0) {
        size_t i = 3;
        while (i < arch.size() && isDigit(arch[i])) cc = cc * 10 + (arch[i++] - '0');
    }
    switch (cc) {
    case 70:
    case 72: return {64, 32, 96 * 1024, 96 * 1024, 0};
    case 75: return {32, 16, 64 * 1024, 64 * 1024, 0};
    case 80: return {64, 32, 164 * 1024, 163 * 1024, 1024};
    case 86: return {48, 16, 100 * 1024, 99 * 1024, 1024};
    case 87: return {48, 16, 164 * 1024, 163 * 1024, 1024};
    case 89: return {48, 24, 100 * 1024, 99 * 1024, 1024};
    case 100:
    case 101:
    case 103:
    case 110: return {64, 32, 228 * 1024, 227 * 1024, 1024};
    case 120:
    case 121: return {48, 32, 100 * 1024, 99 * 1024, 1024};
    case 90:
    default: return {64, 32, 228 * 1024, 227 * 1024, 1024};
    }
}

} // namespace

OccupancyEstimate estimateOccupancy(const std::string& arch, int registers, int sharedBytes, int blockThreads) {
    const ArchLimits lim = limitsFor(arch);
    OccupancyEstimate occ;
    occ.maxWarps = lim.maxWarps;
    const int warpsPerBlock = (blockThreads + 31) / 32;
    if (blockThreads <= 0 || blockThreads > 1024 || registers > 255 || sharedBytes > lim.sharedPerBlock ||
        warpsPerBlock > lim.maxWarps) {
        occ.limiter = "invalid";
        return occ;
    }
    // Candidates in tie-break order: when the hardware's own warp or block cap binds as tightly
    // as a resource, the cap is the honest answer (no resource change would help).
    const int byWarps = lim.maxWarps / warpsPerBlock;
    const int byBlocks = lim.maxBlocks;
    int byRegisters = byBlocks;
    if (registers > 0) {
        // Registers are allocated per warp in units of 256 (8 per thread).
        const int perWarp = ((registers * 32 + 255) / 256) * 256;
        byRegisters = (65536 / perWarp) / warpsPerBlock;
    }
    const int sharedPerBlock = ((std::max(sharedBytes, 0) + 127) / 128) * 128 + lim.reservedPerBlock;
    const int byShared = sharedPerBlock > 0 ? lim.sharedPerSm / sharedPerBlock : byBlocks;
    const std::pair<int, const char*> candidates[] = {
        {byWarps, "warps"}, {byBlocks, "blocks"}, {byRegisters, "registers"}, {byShared, "shared memory"}};
    occ.blocksPerSm = byWarps;
    occ.limiter = "warps";
    for (const auto& [blocks, name] : candidates) {
        if (blocks < occ.blocksPerSm) {
            occ.blocksPerSm = blocks;
            occ.limiter = name;
        }
    }
    if (occ.blocksPerSm <= 0) {
        occ.blocksPerSm = 0;
        occ.limiter = "invalid";
        return occ;
    }
    occ.activeWarps = occ.blocksPerSm * warpsPerBlock;
    occ.fraction = double(occ.activeWarps) / double(lim.maxWarps);
    return occ;
}

std::vector<ResourceDelta> resourceDeltas(const Resources& a, const Resources& b, const std::string& arch,
                                          int blockThreads, int dynamicSharedBytes) {
    auto v = [](int x) { return x < 0 ? -1.0 : double(x); };
    std::vector<ResourceDelta> out{
        {"registers", v(a.registers), v(b.registers)},
        {"spill stores (bytes)", v(a.spillStores), v(b.spillStores)},
        {"spill loads (bytes)", v(a.spillLoads), v(b.spillLoads)},
        {"shared (bytes)", v(a.sharedBytes), v(b.sharedBytes)},
        {"local (bytes)", v(a.localBytes), v(b.localBytes)},
        {"stack (bytes)", v(a.stackBytes), v(b.stackBytes)},
    };
    if (blockThreads > 0) {
        auto occ = [&](const Resources& r) -> std::pair<double, double> {
            if (r.registers < 0) return {-1, -1};
            const OccupancyEstimate o =
                estimateOccupancy(arch, r.registers, std::max(r.sharedBytes, 0) + dynamicSharedBytes, blockThreads);
            return {100.0 * o.fraction, double(o.blocksPerSm)};
        };
        const auto oa = occ(a), ob = occ(b);
        out.push_back({"occupancy (%)", oa.first, ob.first});
        out.push_back({"blocks per SM", oa.second, ob.second});
    }
    return out;
}

// ------------------------------------------------------------------------- instruction mix

std::vector<MixRow> mnemonicMix(const SassFunction& a, const SassFunction& b) {
    std::map<std::string, MixRow> rows;
    for (const auto& ins : a.instructions) ++rows[ins.mnemonic].a;
    for (const auto& ins : b.instructions) ++rows[ins.mnemonic].b;
    std::vector<MixRow> out;
    for (auto& [name, row] : rows) {
        row.name = name;
        out.push_back(row);
    }
    std::stable_sort(out.begin(), out.end(), [](const MixRow& x, const MixRow& y) {
        const int dx = std::abs(x.delta()), dy = std::abs(y.delta());
        if (dx != dy) return dx > dy;
        return x.a + x.b > y.a + y.b;
    });
    return out;
}

std::vector<MixRow> categoryMix(const LineAggregate& a, const LineAggregate& b) {
    std::map<InstrCategory, MixRow> rows;
    for (const auto& [c, n] : a.mix) rows[c].a += n;
    for (const auto& [c, n] : b.mix) rows[c].b += n;
    std::vector<MixRow> out;
    for (auto& [c, row] : rows) {
        if (row.a == 0 && row.b == 0) continue;
        row.name = categoryLabel(c);
        out.push_back(row);
    }
    return out;
}

} // namespace lowerscope
