// Parsers of the build tools' text output (see tool_output.h). Tool output is trusted for format,
// not for size: every parser accepts any text and never throws.
#include "core/parse/tool_output.h"

#include <algorithm>
#include <regex>
#include <string_view>

namespace lowerscope {

namespace {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return lines;
}

int toInt(const std::string& s) {
    // Saturating: tool output is trusted for format, not for size.
    long long v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') break;
        v = v * 10 + (c - '0');
        if (v > 1'000'000'000) return 1'000'000'000;
    }
    return static_cast<int>(v);
}

} // namespace

std::vector<PtxEntry> ptxEntries(const std::string& ptx) {
    std::vector<PtxEntry> out;
    std::vector<std::string> lines = splitLines(ptx);
    static const std::regex entryRe(R"(^\s*(?:\.(?:visible|weak|extern)\s+)*\.entry\s+([A-Za-z_$%][\w$%]*))");
    for (size_t i = 0; i < lines.size(); ++i) {
        std::smatch m;
        if (lines[i].size() > 2000 || lines[i].find(".entry") == std::string::npos ||
            !std::regex_search(lines[i], m, entryRe))
            continue;
        PtxEntry e;
        e.mangled = m[1];
        e.firstLine = static_cast<int>(i) + 1;
        // Walk to the body's closing brace: parentheses hold the parameter list, braces nest (inline
        // asm opens scopes), `//` starts a comment; a `;` outside both before any `{` means a
        // declaration without a body.
        int paren = 0, brace = 0;
        bool opened = false, done = false, declaration = false;
        size_t j = i;
        for (; j < lines.size() && !done; ++j) {
            const std::string& l = lines[j];
            for (size_t c = 0; c < l.size(); ++c) {
                char ch = l[c];
                if (ch == '/' && c + 1 < l.size() && l[c + 1] == '/') break;
                if (ch == '(') ++paren;
                else if (ch == ')') --paren;
                else if (ch == '{') {
                    ++brace;
                    opened = true;
                } else if (ch == '}') {
                    if (--brace == 0 && opened) {
                        done = true;
                        break;
                    }
                } else if (ch == ';' && !opened && paren <= 0) {
                    declaration = true;
                    done = true;
                    break;
                }
            }
        }
        if (declaration || !opened || !done) continue; // no body, or no closing brace
        e.lastLine = static_cast<int>(j); // j is one past the closing line (0-based) = its 1-based number
        std::string text;
        for (size_t k = i; k < j; ++k) {
            text += lines[k];
            text += '\n';
        }
        e.text = std::move(text);
        i = j - 1;
        out.push_back(std::move(e));
    }
    return out;
}

std::map<std::string, std::string> splitNvdisasmFunctions(const std::string& text) {
    std::map<std::string, std::string> out;
    static const std::string header = "//---------------------";
    static const std::string textPrefix = ".text.";
    std::string current;
    bool inFunction = false;
    std::string body;
    auto flush = [&] {
        if (inFunction && !current.empty()) out[current] += body;
        body.clear();
    };
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        if (line.substr(0, header.size()) == header) {
            flush();
            size_t p = line.find_first_not_of(" -/");
            inFunction = p != std::string::npos && line.substr(p, textPrefix.size()) == textPrefix;
            if (inFunction) {
                size_t nameStart = p + textPrefix.size();
                size_t nameEnd = line.find_first_of(" \t", nameStart);
                current = std::string(line.substr(nameStart, nameEnd == std::string::npos ? std::string::npos
                                                                                          : nameEnd - nameStart));
            }
        }
        if (inFunction) {
            body.append(line);
            body.push_back('\n');
        }
        pos = end + 1;
    }
    flush();
    return out;
}

std::vector<std::string> nvdisasmEntries(const std::string& text) {
    // `        .other          _Z5saxpyifPKfPf,@"STO_CUDA_ENTRY STV_DEFAULT"`
    std::vector<std::string> out;
    size_t pos = 0;
    while ((pos = text.find(".other", pos)) != std::string::npos) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        pos = end;
        if (line.find("STO_CUDA_ENTRY") == std::string_view::npos) continue;
        size_t nameStart = line.find_first_not_of(" \t", 6);
        size_t comma = line.find(',', nameStart);
        if (nameStart == std::string_view::npos || comma == std::string_view::npos) continue;
        std::string name(line.substr(nameStart, comma - nameStart));
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    }
    return out;
}

std::string stripPtxLineComments(const std::string& gpText) {
    static const std::string marker = "\t//## File \".nv_debug_ptx_txt\", line ";
    std::string out;
    out.reserve(gpText.size());
    size_t pos = 0;
    while (pos < gpText.size()) {
        size_t end = gpText.find('\n', pos);
        size_t next = end == std::string::npos ? gpText.size() : end + 1;
        bool drop = gpText.compare(pos, marker.size(), marker) == 0;
        if (drop) {
            // Only `<marker><digits>` exactly.
            size_t d = pos + marker.size();
            size_t lineEnd = end == std::string::npos ? gpText.size() : end;
            drop = d < lineEnd;
            for (size_t k = d; k < lineEnd && drop; ++k) drop = gpText[k] >= '0' && gpText[k] <= '9';
        }
        if (!drop) out.append(gpText, pos, next - pos);
        pos = next;
    }
    return out;
}

std::map<std::string, Resources> parsePtxasVerbose(const std::string& stderrText) {
    std::map<std::string, Resources> out;
    static const std::regex compiling(R"(Compiling entry function '([^']+)')");
    static const std::regex properties(R"(Function properties for (\S+))");
    static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used(R"(Used (\d+) registers)");
    static const std::regex barriers(R"(used (\d+) barriers)");
    static const std::regex smem(R"((\d+) bytes smem)");
    static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
    static const std::regex lmem(R"((\d+) bytes lmem)");
    std::string entry, props;
    for (const std::string& line : splitLines(stderrText)) {
        if (line.size() > 2000) continue;
        std::smatch m;
        if (std::regex_search(line, m, compiling)) {
            entry = m[1];
            out[entry]; // known kernel even if nothing else is reported
        } else if (std::regex_search(line, m, properties)) {
            props = m[1];
        } else if (std::regex_search(line, m, frame)) {
            if (props.empty()) continue;
            Resources& r = out[props];
            r.stackBytes = toInt(m[1]);
            r.spillStores = toInt(m[2]);
            r.spillLoads = toInt(m[3]);
        } else if (std::regex_search(line, m, used)) {
            if (entry.empty()) continue;
            Resources& r = out[entry];
            r.registers = toInt(m[1]);
            // ptxas leaves out the parts that are zero.
            r.barriers = std::regex_search(line, m, barriers) ? toInt(m[1]) : 0;
            r.sharedBytes = std::regex_search(line, m, smem) ? toInt(m[1]) : 0;
            if (std::regex_search(line, m, cmem)) r.constantBytes = toInt(m[1]);
            r.localBytes = std::regex_search(line, m, lmem) ? toInt(m[1]) : 0;
        }
    }
    return out;
}

std::map<std::string, Resources> parseCuobjdumpResUsage(const std::string& text) {
    std::map<std::string, Resources> out;
    std::string fn;
    for (const std::string& line : splitLines(text)) {
        size_t f = line.find("Function ");
        if (f != std::string::npos && line.find(':', f) != std::string::npos && line.find("REG:") == std::string::npos) {
            size_t start = f + 9;
            size_t colon = line.rfind(':');
            fn = colon > start ? line.substr(start, colon - start) : std::string();
            continue;
        }
        if (fn.empty() || line.find("REG:") == std::string::npos) continue;
        Resources& r = out[fn];
        auto field = [&](const std::string& key) -> int {
            size_t p = line.find(key);
            return p == std::string::npos ? -1 : toInt(line.substr(p + key.size()));
        };
        r.registers = field(" REG:") >= 0 ? field(" REG:") : field("REG:");
        r.stackBytes = field("STACK:");
        r.sharedBytes = field("SHARED:");
        r.localBytes = field("LOCAL:");
        r.constantBytes = field("CONSTANT[0]:");
        fn.clear();
    }
    return out;
}

} // namespace lowerscope
