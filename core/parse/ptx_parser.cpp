#include "core/parse/ptx_parser.h"

#include <map>
#include <tuple>
#include <unordered_map>

namespace lowerscope {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdent(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '.' || c == '%';
}

std::string_view trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && isSpace(s[b])) ++b;
    while (e > b && isSpace(s[e - 1])) --e;
    return s.substr(b, e - b);
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Strips a trailing `//` comment (PTX has no string literals outside `.file`, handled separately).
std::string_view stripComment(std::string_view s) {
    const size_t c = s.find("//");
    return c == std::string_view::npos ? s : s.substr(0, c);
}

// Reads a decimal integer (optionally negative) after skipping spaces and commas; saturates.
bool readInt(std::string_view& s, int& out) {
    size_t i = 0;
    while (i < s.size() && (isSpace(s[i]) || s[i] == ',')) ++i;
    bool neg = false;
    if (i < s.size() && s[i] == '-') { neg = true; ++i; }
    if (i >= s.size() || !isDigit(s[i])) return false;
    long long v = 0;
    while (i < s.size() && isDigit(s[i])) {
        if (v < 1000000000) v = v * 10 + (s[i] - '0');
        ++i;
    }
    out = static_cast<int>(neg ? -v : v);
    s.remove_prefix(i);
    return true;
}

// One `.loc` with file indices still unresolved (the `.file` table may come later).
struct RawFrame {
    int file = 0, line = 0, column = 0;
    bool operator<(const RawFrame& o) const {
        return std::tie(file, line, column) < std::tie(o.file, o.line, o.column);
    }
};
struct RawLoc {
    RawFrame at;
    std::vector<RawFrame> inlinedAt;
};

constexpr size_t kMaxChain = 64;
constexpr size_t kMaxHeader = 1 << 16;

void splitTokens(std::string_view s, std::vector<std::string_view>& out) {
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && isSpace(s[i])) ++i;
        const size_t b = i;
        while (i < s.size() && !isSpace(s[i])) ++i;
        if (i > b) out.push_back(s.substr(b, i - b));
    }
}

// Parses one parameter declaration: `.param .u64 .ptr .global .align 8 name` or
// `.param .align 4 .b8 name[16]`.
bool parseParam(std::string_view decl, PtxParam& p) {
    std::vector<std::string_view> toks;
    splitTokens(decl, toks);
    bool sawParam = false;
    for (size_t i = 0; i < toks.size(); ++i) {
        const auto t = toks[i];
        if (t == ".param" || t == ".reg") { sawParam = true; continue; }
        if (t == ".ptr") { p.isPointer = true; continue; }
        if (t == ".align") {
            if (i + 1 < toks.size()) {
                auto v = toks[++i];
                int a = 0;
                if (readInt(v, a)) p.align = a;
            }
            continue;
        }
        if (t.size() > 1 && t[0] == '.') {
            const auto type = t.substr(1);
            if (ptxTypeSize(type) > 0) p.type = std::string(type);
            // State spaces (.global, .shared, ...) of .ptr params are attributes: ignored.
            continue;
        }
        // The name, possibly with an array count.
        const size_t br = t.find('[');
        if (br != std::string_view::npos) {
            p.name = std::string(t.substr(0, br));
            auto rest = t.substr(br + 1);
            int n = 0;
            if (readInt(rest, n) && n > 0) p.arrayCount = n;
        } else {
            p.name = std::string(t);
        }
    }
    if (!sawParam || p.name.empty()) return false;
    const int elem = ptxTypeSize(p.type);
    p.size = elem * p.arrayCount;
    if (p.align == 0) p.align = elem;
    return true;
}

class PtxParser {
public:
    PtxListing run(std::string_view text) {
        size_t pos = 0;
        int lineNo = 0;
        while (pos < text.size()) {
            size_t end = text.find('\n', pos);
            if (end == std::string_view::npos) end = text.size();
            std::string_view raw = text.substr(pos, end - pos);
            if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
            ++lineNo;
            m_out.lines.emplace_back();
            PtxLine& l = m_out.lines.back();
            l.line = lineNo;
            l.text = std::string(raw);
            handle(raw, lineNo);
            pos = end + 1;
        }
        finish();
        return std::move(m_out);
    }

private:
    enum class State { Module, Header, Body };
    PtxListing m_out;
    State m_state = State::Module;
    std::string m_header;          // accumulated function header text (multi-line)
    int m_depth = 0;               // brace depth inside a body
    bool m_inStatement = false;    // a multi-line instruction continues on this line
    bool m_inBlockComment = false;
    PtxFunction m_fn;
    std::vector<RawLoc> m_locs;                      // every `.loc` seen
    std::map<RawFrame, int> m_lastAt;                // F:L:C → index of the latest .loc there (per function)
    int m_currentLoc = -1;                           // applies to following instructions
    std::vector<std::pair<int, int>> m_lineLoc;      // (line index, loc index)
    // Best-effort pointer detection: register loaded from a u64/b64 param → param index.
    std::unordered_map<std::string, int> m_paramReg;

    void handle(std::string_view raw, int lineNo) {
        std::string_view s = raw;
        // Block comments: rare in nvcc output, but handled so their content is not parsed.
        if (m_inBlockComment) {
            const size_t e = s.find("*/");
            if (e == std::string_view::npos) return;
            s.remove_prefix(e + 2);
            m_inBlockComment = false;
        }
        s = stripComment(s);
        const size_t bc = s.find("/*");
        if (bc != std::string_view::npos) {
            const size_t e = s.find("*/", bc + 2);
            if (e == std::string_view::npos) {
                m_inBlockComment = true;
                s = s.substr(0, bc);
            }
            // A closed block comment inside a line is left in place: harmless for what we read.
        }
        s = trim(s);
        if (s.empty()) return;

        switch (m_state) {
        case State::Module: moduleLine(s, lineNo); break;
        case State::Header: headerLine(s, lineNo); break;
        case State::Body: bodyLine(s, lineNo); break;
        }
    }

    void moduleLine(std::string_view s, int lineNo) {
        if (startsWith(s, ".version")) { m_out.version = std::string(trim(s.substr(8))); return; }
        if (startsWith(s, ".target")) {
            auto v = trim(s.substr(7));
            size_t e = 0;
            while (e < v.size() && v[e] != ',' && !isSpace(v[e])) ++e;
            m_out.target = std::string(v.substr(0, e));
            return;
        }
        if (startsWith(s, ".address_size")) {
            auto v = s.substr(13);
            int n = 0;
            if (readInt(v, n)) m_out.addressSize = n;
            return;
        }
        if (startsWith(s, ".file")) { fileLine(s.substr(5)); return; }
        // Function header: [.visible|.weak|.extern] .entry/.func ...
        std::vector<std::string_view> toks;
        splitTokens(s.substr(0, std::min<size_t>(s.size(), 256)), toks);
        bool isFunc = false, isEntry = false, isExtern = false;
        for (auto t : toks) {
            if (t == ".extern") isExtern = true;
            if (t == ".entry" || startsWith(t, ".entry(")) { isFunc = true; isEntry = true; break; }
            if (t == ".func" || startsWith(t, ".func(")) { isFunc = true; break; }
            if (t != ".visible" && t != ".weak" && t != ".extern" && t != ".common" && t != ".hidden") break;
        }
        if (!isFunc) return;
        m_fn = PtxFunction{};
        m_fn.isEntry = isEntry;
        m_fn.firstLine = lineNo;
        m_header.clear();
        m_declOnly = isExtern;
        m_state = State::Header;
        headerLine(s, lineNo);
    }

    bool m_declOnly = false;

    void fileLine(std::string_view s) {
        auto v = s;
        int index = 0;
        if (!readInt(v, index)) return;
        const size_t q = v.find('"');
        if (q == std::string_view::npos) return;
        // The last quote: a file name may hold one (Lowerscope maps a safe-named copy's path back to
        // the real one, quotes and all); what may follow the name (", timestamp, size") has none.
        const size_t q2 = v.rfind('"');
        if (q2 == std::string_view::npos || q2 <= q) return;
        m_out.files[index] = std::string(v.substr(q + 1, q2 - q - 1));
    }

    void headerLine(std::string_view s, int lineNo) {
        // Accumulate until the body's '{' or a declaration's ';' at parenthesis depth 0.
        int paren = 0;
        for (char c : m_header) paren += c == '(' ? 1 : c == ')' ? -1 : 0;
        for (size_t i = 0; i < s.size(); ++i) {
            const char c = s[i];
            if (c == '(') ++paren;
            else if (c == ')') --paren;
            else if (paren <= 0 && (c == '{' || c == ';')) {
                m_header.append(s.substr(0, i));
                parseHeader();
                if (c == ';') {
                    // A prototype (declaration) without a body: not listed.
                    m_state = State::Module;
                    return;
                }
                m_state = State::Body;
                m_depth = 0;
                m_inStatement = false;
                m_lastAt.clear();
                m_currentLoc = -1;
                m_paramReg.clear();
                bodyLine(s.substr(i), lineNo);
                return;
            }
        }
        m_header.append(s);
        m_header.push_back(' ');
        if (m_header.size() > kMaxHeader) m_state = State::Module; // garbage: give up on this header
    }

    void parseHeader() {
        std::string_view h = m_header;
        size_t k = h.find(m_fn.isEntry ? ".entry" : ".func");
        if (k == std::string_view::npos) return;
        h.remove_prefix(k + (m_fn.isEntry ? 6 : 5));
        h = trim(h);
        // `.func (.param .b32 retval) name(...)`: skip the return-parameter list.
        if (!h.empty() && h[0] == '(') {
            const size_t close = h.find(')');
            if (close == std::string_view::npos) return;
            h = trim(h.substr(close + 1));
        }
        size_t e = 0;
        while (e < h.size() && h[e] != '(' && !isSpace(h[e])) ++e;
        m_fn.name = std::string(h.substr(0, e));
        h = trim(h.substr(e));
        if (h.empty() || h[0] != '(') return;
        const size_t close = h.find(')');
        const auto list = h.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
        if (close != std::string_view::npos) parseDirectives(h.substr(close + 1), m_fn.launchBounds);
        size_t start = 0;
        for (size_t i = 0; i <= list.size(); ++i) {
            if (i == list.size() || list[i] == ',') {
                PtxParam p;
                if (parseParam(list.substr(start, i - start), p)) m_fn.params.push_back(std::move(p));
                start = i + 1;
            }
        }
    }

    // `.maxntid 128, 1, 1 .minnctapersm 4 ...` after the parameter list. Unknown directives (e.g.
    // `.explicitcluster`, `.noreturn`) are skipped; a directive with a malformed value keeps 0.
    static void parseDirectives(std::string_view h, PtxLaunchBounds& lb) {
        auto dims = [](std::string_view& v, int (&out)[3]) {
            int d[3] = {0, 0, 0};
            int n = 0;
            for (; n < 3; ++n) {
                std::string_view probe = v;
                if (n > 0) {
                    // Only a comma continues the list.
                    size_t i = 0;
                    while (i < probe.size() && isSpace(probe[i])) ++i;
                    if (i >= probe.size() || probe[i] != ',') break;
                }
                int x = 0;
                if (!readInt(probe, x) || x <= 0) break;
                d[n] = x;
                v = probe;
            }
            if (n == 0) return;
            for (int k = 0; k < 3; ++k) out[k] = k < n ? d[k] : 1;
        };
        auto one = [](std::string_view& v, int& out) {
            int x = 0;
            if (readInt(v, x) && x > 0) out = x;
        };
        size_t i = 0;
        while ((i = h.find('.', i)) != std::string_view::npos) {
            const std::string_view rest = h.substr(i);
            size_t e = 1;
            while (e < rest.size() && isIdent(rest[e]) && rest[e] != '.') ++e;
            const std::string_view name = rest.substr(0, e);
            std::string_view v = rest.substr(e);
            if (name == ".maxntid") dims(v, lb.maxntid);
            else if (name == ".reqntid") dims(v, lb.reqntid);
            else if (name == ".minnctapersm") one(v, lb.minnctapersm);
            else if (name == ".maxnreg") one(v, lb.maxnreg);
            else if (name == ".maxclusterrank") one(v, lb.maxclusterrank);
            i += e;
        }
    }

    void bodyLine(std::string_view s, int lineNo) {
        // Braces: the body's own and nested `{ // callseq` scopes. Lines that are only braces
        // are not instructions.
        std::string_view rest = s;
        bool onlyBraces = true;
        for (char c : s) {
            if (c == '{') ++m_depth;
            else if (c == '}') --m_depth;
            else if (!isSpace(c)) onlyBraces = false;
        }
        if (m_depth <= 0) {
            m_fn.lastLine = lineNo;
            m_out.functions.push_back(std::move(m_fn));
            m_fn = PtxFunction{};
            m_state = State::Module;
            return;
        }
        if (onlyBraces) return;
        // Strip leading braces (a scope opened on the same line as a statement).
        while (!rest.empty() && (rest[0] == '{' || rest[0] == '}' || isSpace(rest[0]))) rest.remove_prefix(1);
        if (rest.empty()) return;
        PtxLine& l = m_out.lines[static_cast<size_t>(lineNo - 1)];
        if (m_inStatement) {
            // Continuation of a multi-line instruction (e.g. `call.uni (retval0),` …).
            if (rest.find(';') != std::string_view::npos) m_inStatement = false;
            return;
        }
        if (rest[0] == '.') {
            if (startsWith(rest, ".loc") && (rest.size() == 4 || isSpace(rest[4]))) locLine(rest.substr(4));
            else if (startsWith(rest, ".file")) fileLine(rest.substr(5));
            return;
        }
        // Label: an identifier (no '.') and one ':' at the start. An opcode with a `::`
        // qualifier (`cp.async.cg.shared.global.L2::128B`, `tcgen05.fence::after_thread_sync`)
        // is an instruction.
        size_t e = 0;
        while (e < rest.size() && isIdent(rest[e]) && rest[e] != '.') ++e;
        if (e > 0 && e < rest.size() && rest[e] == ':' && (e + 1 == rest.size() || rest[e + 1] != ':')) return;
        l.isInstruction = true;
        if (m_currentLoc >= 0) m_lineLoc.emplace_back(lineNo - 1, m_currentLoc);
        if (rest.find(';') == std::string_view::npos) m_inStatement = true;
        notePointerUse(rest);
    }

    // `.loc F L C[, function_name LABEL[+off]][, inlined_at F2 L2 C2]`
    void locLine(std::string_view s) {
        RawLoc loc;
        if (!readInt(s, loc.at.file) || !readInt(s, loc.at.line)) return;
        if (!readInt(s, loc.at.column)) loc.at.column = 0;
        const size_t ia = s.find("inlined_at");
        if (ia != std::string_view::npos) {
            auto v = s.substr(ia + 10);
            RawFrame site;
            if (readInt(v, site.file) && readInt(v, site.line)) {
                if (!readInt(v, site.column)) site.column = 0;
                loc.inlinedAt.push_back(site);
                // The call site is itself a position that may have been inlined: continue with
                // the chain of the latest `.loc` at that position in this function.
                auto it = m_lastAt.find(site);
                if (it != m_lastAt.end()) {
                    const auto& outer = m_locs[static_cast<size_t>(it->second)].inlinedAt;
                    for (const auto& f : outer) {
                        if (loc.inlinedAt.size() >= kMaxChain) break;
                        loc.inlinedAt.push_back(f);
                    }
                }
            }
        }
        m_currentLoc = static_cast<int>(m_locs.size());
        m_lastAt[loc.at] = m_currentLoc;
        m_locs.push_back(std::move(loc));
    }

    void notePointerUse(std::string_view ins) {
        // ld.param.u64 %rdN, [param]  → remember %rdN; cvta(.to).global.u64 %rdM, %rdN → pointer.
        if (startsWith(ins, "ld.param.u64") || startsWith(ins, "ld.param.b64")) {
            const size_t comma = ins.find(',');
            const size_t lb = ins.find('[');
            const size_t rb = ins.find(']');
            if (comma == std::string_view::npos || lb == std::string_view::npos || rb == std::string_view::npos || rb < lb)
                return;
            const auto reg = trim(ins.substr(12, comma - 12));
            auto name = trim(ins.substr(lb + 1, rb - lb - 1));
            const size_t plus = name.find('+');
            if (plus != std::string_view::npos) return; // a field of an aggregate
            for (size_t i = 0; i < m_fn.params.size(); ++i)
                if (m_fn.params[i].name == name) m_paramReg[std::string(reg)] = static_cast<int>(i);
            return;
        }
        if (startsWith(ins, "cvta")) {
            const size_t comma = ins.rfind(',');
            const size_t semi = ins.find(';');
            if (comma == std::string_view::npos) return;
            const auto src = trim(ins.substr(comma + 1, semi == std::string_view::npos ? std::string_view::npos : semi - comma - 1));
            auto it = m_paramReg.find(std::string(src));
            if (it != m_paramReg.end() && static_cast<size_t>(it->second) < m_fn.params.size())
                m_fn.params[static_cast<size_t>(it->second)].isPointer = true;
        }
    }

    SourceFrame resolve(const RawFrame& f) const {
        SourceFrame out;
        auto it = m_out.files.find(f.file);
        if (it != m_out.files.end()) out.file = it->second;
        out.line = f.line;
        out.column = f.column;
        return out;
    }

    void finish() {
        if (m_state == State::Body && !m_fn.name.empty()) {
            // Unterminated body (truncated text): keep what was read.
            m_fn.lastLine = static_cast<int>(m_out.lines.size());
            m_out.functions.push_back(std::move(m_fn));
        }
        std::vector<std::optional<SourceLoc>> resolved(m_locs.size());
        for (const auto& [lineIndex, locIndex] : m_lineLoc) {
            auto& r = resolved[static_cast<size_t>(locIndex)];
            if (!r) {
                const RawLoc& raw = m_locs[static_cast<size_t>(locIndex)];
                SourceLoc loc;
                const auto at = resolve(raw.at);
                loc.file = at.file;
                loc.line = at.line;
                loc.column = at.column;
                for (const auto& f : raw.inlinedAt) loc.inlinedAt.push_back(resolve(f));
                r = std::move(loc);
            }
            // `.loc 1 0 5` (line 0: compiler-generated code) carries no position.
            if (r->line > 0) m_out.lines[static_cast<size_t>(lineIndex)].source = *r;
        }
    }
};

} // namespace

int ptxTypeSize(std::string_view t) {
    if (t == "pred") return 1;
    if (t.size() < 2) return 0;
    const char k = t[0];
    if (k != 'u' && k != 's' && k != 'b' && k != 'f') {
        return 0;
    }
    const auto bits = t.substr(1);
    if (bits == "8") return 1;
    if (bits == "16") return 2;
    if (bits == "32") return 4;
    if (bits == "64") return 8;
    if (bits == "128") return 16;
    return 0;
}

PtxListing parsePtx(std::string_view text) {
    return PtxParser().run(text);
}

} // namespace lowerscope
