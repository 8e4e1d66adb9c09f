#include "core/parse/sass_parser.h"

#include "core/parse/control.h"

#include <unordered_map>

namespace lowerscope {

namespace {

// ---- small string_view helpers (no regex, no allocation: this runs once per listing line)

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlnum(char c) { return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string_view trimLeft(std::string_view s) {
    // nvdisasm pads with long runs of blanks (85 before every encoding's high word): test for the
    // common ' ' first.
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || isSpace(s[i]))) ++i;
    return s.substr(i);
}
std::string_view trimRight(std::string_view s) {
    size_t n = s.size();
    while (n > 0 && isSpace(s[n - 1])) --n;
    return s.substr(0, n);
}
std::string_view trim(std::string_view s) { return trimRight(trimLeft(s)); }

// Parses hex digits at the start of `s` (at most 16); returns the count consumed (0 = none).
size_t parseHex(std::string_view s, uint64_t& out) {
    out = 0;
    size_t i = 0;
    while (i < s.size() && i < 16) {
        const int v = hexValue(s[i]);
        if (v < 0) break;
        out = (out << 4) | static_cast<uint64_t>(v);
        ++i;
    }
    return i;
}

// Parses a decimal int at the start of `s`, saturating at ~1e9 so garbage cannot overflow.
size_t parseDec(std::string_view s, int& out) {
    out = 0;
    size_t i = 0;
    while (i < s.size() && isDigit(s[i])) {
        if (out < 100000000) out = out * 10 + (s[i] - '0');
        ++i;
    }
    return i;
}

// Parses `/* 0x<hex> */` at the start of `s`; returns the characters consumed, 0 when absent.
size_t parseEncodingComment(std::string_view s, uint64_t& word) {
    if (s.size() < 4 || s[0] != '/' || s[1] != '*') return 0;
    size_t i = 2;
    while (i < s.size() && s[i] == ' ') ++i;
    if (i + 2 > s.size() || s[i] != '0' || (s[i + 1] != 'x' && s[i + 1] != 'X')) return 0;
    i += 2;
    const size_t n = parseHex(s.substr(i), word);
    if (n == 0) return 0;
    i += n;
    while (i < s.size() && s[i] == ' ') ++i;
    if (i + 2 > s.size() || s[i] != '*' || s[i + 1] != '/') return 0;
    return i + 2;
}

// ---- registers

// Recognises a register name at the start of `s`: R<n>, RZ, P<n>, PT, UR<n>, URZ, UP<n>, UPT.
// On success returns the length of the name, the class, and the index (-1 for the zero/true
// registers, which are never dependencies). The name must not run into further alphanumerics.
size_t matchRegister(std::string_view s, RegClass& cls, int& index) {
    size_t i = 0;
    bool uniform = false;
    if (i < s.size() && s[i] == 'U') { uniform = true; ++i; }
    if (i >= s.size()) return 0;
    char k = s[i];
    if (k != 'R' && k != 'P') return 0;
    ++i;
    if (i >= s.size()) return 0;
    if ((k == 'R' && s[i] == 'Z') || (k == 'P' && s[i] == 'T')) {
        ++i;
        index = -1;
    } else if (isDigit(s[i])) {
        i += parseDec(s.substr(i), index);
    } else {
        return 0;
    }
    if (i < s.size() && isAlnum(s[i])) return 0;
    cls = k == 'R' ? (uniform ? RegClass::UR : RegClass::R) : (uniform ? RegClass::UP : RegClass::P);
    return i;
}

// Width suffix after a register inside an operand: `.64` → 2 registers, `.128` → 4.
size_t matchWidth(std::string_view s, int& count) {
    count = 1;
    if (s.size() >= 3 && s[0] == '.' && s[1] == '6' && s[2] == '4' && (s.size() == 3 || !isAlnum(s[3]))) {
        count = 2;
        return 3;
    }
    if (s.size() >= 4 && s.substr(0, 4) == ".128" && (s.size() == 4 || !isAlnum(s[4]))) {
        count = 4;
        return 4;
    }
    return 0;
}

// Collects every register named inside an address/constant expression such as
// "desc[UR4][R2.64+0x10]" or "cx[UR4][R2+0x4]".
void collectRegisters(std::string_view s, std::vector<RegRange>& out) {
    size_t i = 0;
    while (i < s.size()) {
        const bool boundary = i == 0 || !isAlnum(s[i - 1]);
        if (boundary && (s[i] == 'R' || s[i] == 'P' || s[i] == 'U')) {
            RegClass cls;
            int index = 0;
            const size_t n = matchRegister(s.substr(i), cls, index);
            if (n > 0) {
                // `desc[UR4]`: a memory descriptor is 64 bits, the pair UR4..UR5, although no `.64`
                // is printed (nvdisasm's live counts include both registers).
                const bool descriptor = cls == RegClass::UR && i >= 5 && s.substr(i - 5, 5) == "desc[";
                i += n;
                int count = 1;
                i += matchWidth(s.substr(i), count);
                if (descriptor && count < 2) count = 2;
                if (index >= 0) out.push_back(RegRange{cls, index, count});
                continue;
            }
        }
        ++i;
    }
}

bool isImmediate(std::string_view s) {
    if (s.empty()) return false;
    if (s[0] == '-' || s[0] == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    if (s == "INF" || s == "QNAN" || s == "NAN" || s == "SNAN" || s == "INFINITY") return true;
    if (!isDigit(s[0])) return false;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        for (size_t i = 2; i < s.size(); ++i)
            if (hexValue(s[i]) < 0) return false;
        return true;
    }
    // Decimal integer or float such as 1.847743988037109375e-06.
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (isDigit(c) || c == '.') continue;
        if ((c == 'e' || c == 'E') && i + 1 < s.size()) continue;
        if ((c == '+' || c == '-') && i > 0 && (s[i - 1] == 'e' || s[i - 1] == 'E')) continue;
        return false;
    }
    return true;
}

// Splits the operand list at top-level commas (commas inside [], (), {} belong to one operand).
void splitOperands(std::string_view s, std::vector<std::string_view>& out) {
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '[' || c == '(' || c == '{') ++depth;
        else if ((c == ']' || c == ')' || c == '}') && depth > 0) --depth;
        else if (c == ',' && depth == 0) {
            const auto piece = trim(s.substr(start, i - start));
            if (!piece.empty()) out.push_back(piece);
            start = i + 1;
        } else if (c == '`' && depth == 0 && i > start && isSpace(s[i - 1])) {
            // `RET.REL.NODEC R4 `(fn)`: the label follows the register without a comma.
            const auto piece = trim(s.substr(start, i - start));
            if (!piece.empty()) out.push_back(piece);
            start = i;
        }
    }
    const auto piece = trim(s.substr(start));
    if (!piece.empty()) out.push_back(piece);
}

// Extracts a label name from "`(.L_x_3)", "(.L_x_3)" or ".L_x_3"; empty when not a label form.
std::string_view labelName(std::string_view s) {
    if (!s.empty() && s[0] == '`') s.remove_prefix(1);
    if (!s.empty() && s[0] == '(') {
        s.remove_prefix(1);
        const size_t close = s.find(')');
        if (close == std::string_view::npos) return {};
        return trim(s.substr(0, close));
    }
    if (s.size() > 2 && s[0] == '.' && s[1] == 'L') return s;
    return {};
}

// Splits a `-lrm` table row `// | 12 |    | 3 |` into its trimmed cells.
void splitCells(std::string_view s, std::vector<std::string_view>& cells) {
    const size_t first = s.find('|');
    if (first == std::string_view::npos) return;
    s.remove_prefix(first + 1);
    while (!s.empty()) {
        const size_t bar = s.find('|');
        if (bar == std::string_view::npos) break;
        cells.push_back(trim(s.substr(0, bar)));
        s.remove_prefix(bar + 1);
    }
}

// Reads the `-lrm count` cells of one instruction row into `live`, given the column names of the
// function's header row (`// | GPR | PRED | UGPR |`; empty when none was seen). `scratch` is reused.
void parseLiveCells(std::string_view s, const std::vector<std::string_view>& columns,
                    std::vector<std::string_view>& scratch, LiveCounts& live) {
    scratch.clear();
    splitCells(s, scratch);
    if (scratch.empty()) return;
    // nvdisasm leaves out the column of a class with no live register in the whole function
    // (e.g. no PRED column): that class counts 0 on every row.
    if (!columns.empty()) live.gpr = live.pred = live.ugpr = live.upred = 0;
    for (size_t c = 0; c < scratch.size(); ++c) {
        const auto cell = scratch[c];
        int v = 0;
        if (!cell.empty()) {
            if (parseDec(cell, v) != cell.size()) { // not a count table (-lrm narrow/wide)
                live = LiveCounts{};
                return;
            }
        }
        std::string_view name;
        if (c < columns.size()) name = columns[c];
        else name = c == 0 ? "GPR" : c == 1 ? "PRED" : c == 2 ? "UGPR" : "";
        // An empty cell means no register of that class is live.
        if (name == "GPR") live.gpr = v;
        else if (name == "PRED") live.pred = v;
        else if (name == "UGPR") live.ugpr = v;
        else if (name == "UPRED") live.upred = v;
    }
}

// `/*0170*/` at the start of a trimmed line: the instruction address and the characters consumed
// (0 when the line is not an instruction, e.g. the `/* 0x... */` high word of an encoding).
size_t parseAddressComment(std::string_view s, uint64_t& addr) {
    if (s.size() < 5 || s[0] != '/' || s[1] != '*') return 0;
    const size_t n = parseHex(s.substr(2), addr);
    if (n == 0 || 2 + n + 1 >= s.size() || s[2 + n] != '*' || s[3 + n] != '/') return 0;
    return n + 4;
}

// The function named by a `.section .text.NAME,...` directive or a `//---- .text.NAME ----`
// header; `isText` false for another section (which ends the current function). Returns false
// when `s` is neither.
bool sectionName(std::string_view s, std::string_view& name, bool& isText) {
    constexpr std::string_view kSection = ".section";
    constexpr std::string_view kHeader = "//---";
    constexpr std::string_view kText = ".text.";
    std::string_view v;
    if (s.substr(0, kSection.size()) == kSection && s.size() > kSection.size() && isSpace(s[kSection.size()])) {
        v = trim(s.substr(kSection.size()));
        size_t e = 0;
        while (e < v.size() && v[e] != ',' && !isSpace(v[e])) ++e;
        v = v.substr(0, e);
    } else if (s.substr(0, kHeader.size()) == kHeader) {
        v = s;
        while (!v.empty() && (v.front() == '/' || v.front() == '-')) v.remove_prefix(1);
        while (!v.empty() && v.back() == '-') v.remove_suffix(1);
        v = trim(v);
    } else {
        return false;
    }
    isText = v.substr(0, kText.size()) == kText;
    name = isText ? v.substr(kText.size()) : std::string_view{};
    return true;
}

struct ParsedSource {
    std::string_view file;
    int line = 0;
    bool inlined = false;
    std::string_view inlinedFile;
    int inlinedLine = 0;
};

// Parses the part after `//## File ` : `"path", line N[ inlined at "path2", line M]`.
bool parseFileComment(std::string_view s, ParsedSource& out) {
    s = trimLeft(s);
    if (s.empty() || s[0] != '"') return false;
    size_t close = s.find('"', 1);
    if (close == std::string_view::npos) return false;
    out.file = s.substr(1, close - 1);
    s.remove_prefix(close + 1);
    constexpr std::string_view kLine = ", line ";
    if (s.substr(0, kLine.size()) != kLine) return false;
    s.remove_prefix(kLine.size());
    const size_t n = parseDec(s, out.line);
    if (n == 0) return false;
    s = trimLeft(s.substr(n));
    constexpr std::string_view kInl = "inlined at ";
    if (s.substr(0, kInl.size()) == kInl) {
        s.remove_prefix(kInl.size());
        if (s.empty() || s[0] != '"') return true;
        close = s.find('"', 1);
        if (close == std::string_view::npos) return true;
        out.inlinedFile = s.substr(1, close - 1);
        s.remove_prefix(close + 1);
        if (s.substr(0, kLine.size()) != kLine) return true;
        s.remove_prefix(kLine.size());
        if (parseDec(s, out.inlinedLine) == 0) return true;
        out.inlined = true;
    }
    return true;
}

int archNumber(std::string_view arch) {
    // "sm_90a" → 90; 0 when unknown.
    if (arch.substr(0, 3) != "sm_") return 0;
    int v = 0;
    parseDec(arch.substr(3), v);
    return v;
}

// How many instructions the function whose header ends at `from` has, judged from the address of
// its last instruction (16-byte instructions from 0, Volta and later), so its vector is allocated
// once: growing it by doubling would hold up to twice the final size at the peak. Bounded by the
// section's size so a garbage address cannot reserve more than the text could hold; 0 when unknown.
size_t expectedInstructions(std::string_view text, size_t from) {
    size_t end = text.find("\n//---------------------", from);
    if (end == std::string_view::npos) end = text.size();
    // Walk back over the section's last lines (labels, the high word) to its last instruction.
    size_t lineEnd = end;
    for (int guard = 0; guard < 16 && lineEnd > from; ++guard) {
        const size_t nl = text.rfind('\n', lineEnd - 1);
        const size_t start = nl == std::string_view::npos || nl < from ? from : nl + 1;
        uint64_t addr = 0;
        if (parseAddressComment(trimLeft(text.substr(start, lineEnd - start)), addr) > 0) {
            const uint64_t bySize = (end - from) / 32; // an instruction line is longer than 32 bytes
            return static_cast<size_t>(std::min<uint64_t>(addr / 16 + 1, bySize));
        }
        if (start == from) break;
        lineEnd = start - 1;
    }
    return 0;
}

class Parser {
public:
    SassListing run(std::string_view text) {
        m_text = text;
        size_t pos = 0;
        while (pos < text.size()) {
            size_t end = text.find('\n', pos);
            if (end == std::string_view::npos) end = text.size();
            m_next = end;
            line(text.substr(pos, end - pos));
            pos = end + 1;
        }
        finishFunction();
        return std::move(m_listing);
    }

private:
    std::string_view m_text;
    size_t m_next = 0;                     // end of the line being read
    SassListing m_listing;
    SassFunction* m_fn = nullptr;
    std::vector<std::string_view> m_pendingLabels;
    std::vector<ParsedSource> m_chain;     // the `//## File` block being read
    bool m_inSourceBlock = false;          // last significant line was a source comment
    SourceLoc m_source;                    // current location (applies until the next block)
    int m_ptxLine = 0;
    bool m_ptxLineRead = false;            // a PTX-line comment since the last instruction
    std::vector<uint8_t> m_own;            // per instruction: kOwnSource | kOwnPtxLine
    static constexpr uint8_t kOwnSource = 1, kOwnPtxLine = 2; // a line comment right before it
    bool m_awaitHi = false;                // the last instruction printed its low word
    std::vector<std::string_view> m_columns; // -lrm column names, in order
    std::vector<std::string_view> m_scratch;

    void startFunction(std::string_view name) {
        finishFunction();
        m_listing.functions.emplace_back();
        m_fn = &m_listing.functions.back();
        m_fn->name = std::string(name);
        m_fn->instructions.reserve(expectedInstructions(m_text, m_next));
        m_source = SourceLoc{};
        m_chain.clear();
        m_inSourceBlock = false;
        m_ptxLine = 0;
        m_ptxLineRead = false;
        m_own.clear();
        m_awaitHi = false;
    }

    void finishFunction() {
        if (!m_fn) return;
        // Labels after the last instruction mark the end of the function (`.size` uses one).
        if (!m_pendingLabels.empty()) {
            const uint32_t endAddr = m_fn->instructions.empty() ? 0u : m_fn->instructions.back().address + 16u;
            for (auto l : m_pendingLabels) m_fn->labels.emplace(std::string(l), endAddr);
            m_pendingLabels.clear();
        }
        for (auto& ins : m_fn->instructions) {
            for (auto& op : ins.operands) {
                if (op.kind != OperandKind::Label) continue;
                const auto name = labelName(op.text);
                if (name.empty()) continue;
                auto it = m_fn->labels.find(std::string(name));
                if (it != m_fn->labels.end()) {
                    op.target = it->second;
                    // RET names the function it returns from, not a destination.
                    if (!ins.branchTarget && ins.mnemonic != "RET") ins.branchTarget = it->second;
                }
            }
        }
        clearPadding();
        m_fn = nullptr;
    }

    // nvdisasm's line info holds until the next line comment, so the function's final self-branch
    // (`BRA` to itself after the last EXIT) and the NOPs that pad the section inherited the last
    // line, often a toolkit header's. They are no line's code: padding carries no source and no PTX
    // line, unless nvdisasm printed one for it (issue 35 item 11).
    void clearPadding() {
        auto& ins = m_fn->instructions;
        auto own = [this](size_t i, uint8_t what) { return i < m_own.size() && (m_own[i] & what); };
        auto clear = [&](size_t i) {
            if (!own(i, kOwnSource)) ins[i].source = SourceLoc{};
            if (!own(i, kOwnPtxLine)) ins[i].ptxLine = 0;
        };
        size_t i = ins.size();
        while (i > 0 && ins[i - 1].mnemonic == "NOP" && ins[i - 1].predicate.empty()) clear(--i);
        if (i > 0) {
            const SassInstruction& last = ins[i - 1];
            if (last.mnemonic == "BRA" && last.predicate.empty() && last.branchTarget == last.address) clear(i - 1);
        }
    }

    void section(std::string_view name, bool isText) {
        if (!isText) finishFunction();
        else if (!m_fn || m_fn->name != name) startFunction(name);
    }

    void ensureFunction() {
        if (!m_fn) startFunction("");
    }

    void line(std::string_view raw) {
        const std::string_view s = trim(raw);
        if (s.empty()) return;
        if (s[0] == '/' && s.size() > 1 && s[1] == '*') {
            uint64_t word = 0;
            if (parseEncodingComment(s, word) > 0) {
                // Continuation line: the high 64 bits of the previous instruction.
                if (m_awaitHi && m_fn && !m_fn->instructions.empty()) {
                    auto& ins = m_fn->instructions.back();
                    ins.encodingHi = word;
                    ins.hasEncoding = true;
                    const int arch = archNumber(m_listing.arch);
                    if (arch == 0 || arch >= 70) ins.control = decodeControl(word);
                }
                m_awaitHi = false;
                return;
            }
            instruction(s);
            return;
        }
        m_awaitHi = false;
        if (s[0] == '/' && s.size() > 1 && s[1] == '/') {
            comment(s);
            return;
        }
        if (s[0] == '.') {
            if (directive(s)) return;
        }
        // Label: first token ends with ':'.
        size_t tokEnd = 0;
        while (tokEnd < s.size() && !isSpace(s[tokEnd])) ++tokEnd;
        if (tokEnd > 1 && s[tokEnd - 1] == ':') {
            ensureFunction();
            m_pendingLabels.push_back(s.substr(0, tokEnd - 1));
            return;
        }
    }

    // Returns true when the directive was consumed.
    bool directive(std::string_view s) {
        constexpr std::string_view kTarget = ".target";
        if (s.substr(0, kTarget.size()) == kTarget && s.size() > kTarget.size() && isSpace(s[kTarget.size()])) {
            auto v = trim(s.substr(kTarget.size()));
            size_t e = 0;
            while (e < v.size() && !isSpace(v[e]) && v[e] != ',') ++e;
            if (m_listing.arch.empty()) m_listing.arch = std::string(v.substr(0, e));
            return true;
        }
        std::string_view name;
        bool isText = false;
        if (sectionName(s, name, isText)) {
            section(name, isText);
            return true;
        }
        return false;
    }

    void comment(std::string_view s) {
        constexpr std::string_view kFile = "//## File";
        if (s.substr(0, kFile.size()) == kFile) {
            ParsedSource src;
            if (!parseFileComment(s.substr(kFile.size()), src)) return;
            if (src.file == ".nv_debug_ptx_txt") {
                m_ptxLine = src.line;
                m_ptxLineRead = true;
                m_inSourceBlock = false;
                return;
            }
            // A block of consecutive File lines is one inline chain, innermost first; every frame
            // but the outermost says "inlined at". A frame without it closes the chain, so a
            // further line starts a new chain (the later position wins).
            if (!m_inSourceBlock || (!m_chain.empty() && !m_chain.back().inlined)) m_chain.clear();
            m_chain.push_back(src);
            m_inSourceBlock = true;
            return;
        }
        // `//------ .text.NAME ------` section headers.
        std::string_view name;
        bool isText = false;
        if (sectionName(s, name, isText)) {
            section(name, isText);
            return;
        }
        // -lrm header: `// | GPR   | PRED   | UGPR   |`.
        if (s.find("| GPR") != std::string_view::npos) {
            m_columns.clear();
            m_scratch.clear();
            splitCells(s, m_scratch);
            for (auto c : m_scratch) m_columns.push_back(c);
        }
    }

    void applyChain() {
        if (m_chain.empty()) return;
        SourceLoc loc;
        loc.file = std::string(m_chain.front().file);
        loc.line = m_chain.front().line;
        for (const auto& f : m_chain) {
            if (!f.inlined) break;
            loc.inlinedAt.push_back(SourceFrame{std::string(f.inlinedFile), f.inlinedLine, 0});
        }
        m_source = std::move(loc);
        m_chain.clear();
    }

    void instruction(std::string_view s) {
        // `/*0170*/   [@P0] OPCODE operands ;   /* 0x... */   // | live |`
        uint64_t addr = 0;
        const size_t i = parseAddressComment(s, addr);
        if (i == 0) return;
        ensureFunction();
        m_inSourceBlock = false;
        const uint8_t own = uint8_t((m_chain.empty() ? 0 : kOwnSource) | (m_ptxLineRead ? kOwnPtxLine : 0));
        m_ptxLineRead = false;
        applyChain();

        std::string_view rest = s.substr(i);
        // The statement ends at ';'; what follows is the encoding and the live column.
        std::string_view tail;
        size_t semi = rest.find(';');
        if (semi == std::string_view::npos) {
            // No terminator (truncated/garbage): stop at any trailing comment.
            size_t c = rest.find("/*");
            const size_t c2 = rest.find("//");
            if (c2 < c) c = c2;
            semi = c == std::string_view::npos ? rest.size() : c;
            tail = rest.substr(semi);
        } else {
            tail = rest.substr(semi + 1);
        }
        std::string_view stmt = trim(rest.substr(0, semi));
        // Dual-issue braces of old architectures.
        if (!stmt.empty() && stmt.front() == '{') stmt = trimLeft(stmt.substr(1));
        if (!stmt.empty() && stmt.back() == '}') stmt = trimRight(stmt.substr(0, stmt.size() - 1));

        m_fn->instructions.emplace_back();
        SassInstruction& ins = m_fn->instructions.back();
        ins.address = static_cast<uint32_t>(addr);
        ins.text = std::string(stmt);
        ins.source = m_source;
        ins.ptxLine = m_ptxLine;
        m_own.resize(m_fn->instructions.size() - 1, 0);
        m_own.push_back(own);
        for (auto l : m_pendingLabels) m_fn->labels.emplace(std::string(l), ins.address);
        m_pendingLabels.clear();

        std::string_view body = stmt;
        if (!body.empty() && body[0] == '@') {
            size_t e = 0;
            while (e < body.size() && !isSpace(body[e])) ++e;
            ins.predicate = std::string(body.substr(0, e));
            body = trimLeft(body.substr(e));
        }
        size_t e = 0;
        while (e < body.size() && !isSpace(body[e])) ++e;
        ins.opcode = std::string(body.substr(0, e));
        splitOpcode(ins.opcode, ins.mnemonic, ins.modifiers);
        m_scratch.clear();
        splitOperands(trim(body.substr(e)), m_scratch);
        ins.operands.reserve(m_scratch.size());
        for (auto op : m_scratch) ins.operands.push_back(parseOperand(op));

        // Encoding (low word) and live-count column.
        tail = trimLeft(tail);
        uint64_t lo = 0;
        const size_t enc = parseEncodingComment(tail, lo);
        if (enc > 0) {
            ins.encodingLo = lo;
            m_awaitHi = true;
            tail = trimLeft(tail.substr(enc));
        } else {
            m_awaitHi = false;
        }
        if (tail.size() > 2 && tail[0] == '/' && tail[1] == '/') liveColumn(tail, ins.live);
    }

    void liveColumn(std::string_view s, LiveCounts& live) { parseLiveCells(s, m_columns, m_scratch, live); }
};

} // namespace

void splitOpcode(std::string_view opcode, std::string& mnemonic, std::vector<std::string>& modifiers) {
    modifiers.clear();
    size_t dot = opcode.find('.');
    mnemonic = std::string(opcode.substr(0, dot));
    while (dot != std::string_view::npos) {
        const size_t next = opcode.find('.', dot + 1);
        const auto m = opcode.substr(dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1);
        if (!m.empty()) modifiers.emplace_back(m);
        dot = next;
    }
}

Operand parseOperand(std::string_view text) {
    Operand op;
    op.text = std::string(text);
    std::string_view s = trim(text);
    if (isImmediate(s)) {
        op.kind = OperandKind::Immediate;
        return op;
    }
    constexpr std::string_view kReuse = ".reuse";
    if (s.size() > kReuse.size() && s.substr(s.size() - kReuse.size()) == kReuse) {
        op.reuse = true;
        s.remove_suffix(kReuse.size());
    }
    while (!s.empty() && (s[0] == '-' || s[0] == '!' || s[0] == '~')) {
        op.negated = true;
        s.remove_prefix(1);
    }
    if (s.size() >= 2 && s.front() == '|') {
        const size_t close = s.find('|', 1);
        if (close != std::string_view::npos) {
            op.absolute = true;
            // Keep any suffix after the closing bar (e.g. "|R3|.H0_H0").
            std::string_view inner = s.substr(1, close - 1);
            if (inner.size() > kReuse.size() && inner.substr(inner.size() - kReuse.size()) == kReuse) {
                op.reuse = true;
                inner.remove_suffix(kReuse.size());
            }
            s = inner;
        }
    }
    if (s.empty()) return op;
    if (!labelName(s).empty()) {
        op.kind = OperandKind::Label;
        return op;
    }
    if (s.substr(0, 2) == "c[" || s.substr(0, 3) == "cx[") {
        op.kind = OperandKind::Constant;
        collectRegisters(s, op.regs);
        return op;
    }
    if (s.find('[') != std::string_view::npos) {
        op.kind = OperandKind::Memory;
        collectRegisters(s, op.regs);
        return op;
    }
    if (s.substr(0, 3) == "SR_" || s == "SRZ") {
        op.kind = OperandKind::Special;
        return op;
    }
    RegClass cls;
    int index = 0;
    const size_t n = matchRegister(s, cls, index);
    if (n > 0 && (n == s.size() || s[n] == '.')) {
        switch (cls) {
        case RegClass::R: op.kind = OperandKind::Register; break;
        case RegClass::P: op.kind = OperandKind::Predicate; break;
        case RegClass::UR: op.kind = OperandKind::UniformRegister; break;
        case RegClass::UP: op.kind = OperandKind::UniformPredicate; break;
        }
        int count = 1;
        matchWidth(s.substr(n), count);
        if (index >= 0) op.regs.push_back(RegRange{cls, index, count});
        return op;
    }
    op.kind = OperandKind::Other;
    return op;
}

SassListing parseSass(std::string_view text) {
    return Parser().run(text);
}

void mergeSass(SassListing& into, const SassListing& other) {
    if (into.arch.empty()) into.arch = other.arch;
    std::unordered_map<std::string_view, const SassFunction*> byName;
    for (const auto& f : other.functions) byName.emplace(f.name, &f);
    for (auto& f : into.functions) {
        auto it = byName.find(f.name);
        if (it == byName.end()) continue;
        const SassFunction& o = *it->second;
        for (auto& ins : f.instructions) {
            const int k = o.indexOf(ins.address);
            if (k < 0) continue;
            const SassInstruction& src = o.instructions[static_cast<size_t>(k)];
            if (!ins.hasEncoding && src.hasEncoding) {
                ins.hasEncoding = true;
                ins.encodingLo = src.encodingLo;
                ins.encodingHi = src.encodingHi;
                ins.control = src.control;
            }
            if (!ins.source.valid() && src.source.valid()) ins.source = src.source;
            if (ins.ptxLine == 0) ins.ptxLine = src.ptxLine;
            if (ins.live.gpr < 0) ins.live.gpr = src.live.gpr;
            if (ins.live.pred < 0) ins.live.pred = src.live.pred;
            if (ins.live.ugpr < 0) ins.live.ugpr = src.live.ugpr;
            if (ins.live.upred < 0) ins.live.upred = src.live.upred;
        }
    }
}

void applyLiveCounts(SassListing& into, std::string_view live) {
    std::unordered_map<std::string_view, SassFunction*> byName;
    for (auto& f : into.functions) byName.emplace(f.name, &f);
    SassFunction* fn = nullptr;
    size_t cursor = 0;                       // instructions are in address order in both texts
    std::vector<std::string_view> columns, scratch;
    size_t pos = 0;
    while (pos < live.size()) {
        size_t end = live.find('\n', pos);
        if (end == std::string_view::npos) end = live.size();
        const std::string_view s = trimLeft(live.substr(pos, end - pos));
        pos = end + 1;
        if (s.size() < 2) continue;
        uint64_t addr = 0;
        const size_t n = s[0] == '/' && s[1] == '*' ? parseAddressComment(s, addr) : 0;
        if (n > 0) {
            if (!fn) continue;
            const size_t semi = s.find(';', n);
            const size_t cells = s.find("//", semi == std::string_view::npos ? n : semi);
            if (cells == std::string_view::npos) continue;
            auto& ins = fn->instructions;
            while (cursor < ins.size() && ins[cursor].address < addr) ++cursor;
            if (cursor == ins.size() || ins[cursor].address != addr) continue;
            LiveCounts counts;
            parseLiveCells(s.substr(cells), columns, scratch, counts);
            LiveCounts& to = ins[cursor].live;
            if (to.gpr < 0) to.gpr = counts.gpr;
            if (to.pred < 0) to.pred = counts.pred;
            if (to.ugpr < 0) to.ugpr = counts.ugpr;
            if (to.upred < 0) to.upred = counts.upred;
            continue;
        }
        std::string_view name;
        bool isText = false;
        if ((s[0] == '.' || s[0] == '/') && sectionName(s, name, isText)) {
            auto it = isText ? byName.find(name) : byName.end();
            SassFunction* next = it == byName.end() ? nullptr : it->second;
            if (next != fn) {
                fn = next;
                cursor = 0;
                columns.clear();
            }
            continue;
        }
        if (s[0] == '/' && s.find("| GPR") != std::string_view::npos) {
            columns.clear();
            splitCells(s, columns);
        }
    }
}

SassListing parseSassTexts(std::string_view hexGi, std::string_view hexGiGp, std::string_view live) {
    // The -gi -gp text is the -gi text plus `.nv_debug_ptx_txt` PTX-line comments, so when present
    // it alone gives everything of both: parsing one text instead of two and merging saves about a
    // third of the parse time on large listings (test: EveryGoldenKernelGpAloneEqualsMergedTexts).
    SassListing result = parseSass(hexGiGp.empty() ? hexGi : hexGiGp);
    if (!live.empty()) {
        // The live counts alone are read straight into the instructions (applyLiveCounts) rather
        // than parsed into a second listing and merged.
        if (result.functions.empty()) result = parseSass(live);
        else applyLiveCounts(result, live);
    }
    return result;
}

} // namespace lowerscope
