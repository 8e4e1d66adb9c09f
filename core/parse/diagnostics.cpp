#include "core/parse/diagnostics.h"

#include "core/untrusted.h"

#include <regex>
#include <sstream>

namespace lowerscope {

namespace {

Severity severityFrom(std::string s) {
    if (s.find("error") != std::string::npos || s == "fatal") return Severity::Error;
    if (s == "warning") return Severity::Warning;
    if (s == "remark") return Severity::Remark;
    return Severity::Note;
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return {};
    size_t e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

bool isCaretLine(const std::string& s) {
    size_t caret = s.find('^');
    if (caret == std::string::npos) return false;
    for (size_t i = 0; i < s.size(); ++i)
        if (i != caret && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '~') return false;
    return true;
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l)) {
        if (!l.empty() && l.back() == '\r') l.pop_back();
        lines.push_back(std::move(l));
    }
    return lines;
}

} // namespace

const char* severityName(Severity s) {
    switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Remark: return "remark";
    case Severity::Note: return "note";
    }
    return "note";
}

std::string formatDiagnostic(const Diagnostic& d) {
    // Diagnostics quote the source, and a garbage source's bytes must not reach the terminal raw.
    return escapeControl(formatDiagnosticRaw(d), /*keepNewlines=*/true);
}

std::string formatDiagnosticRaw(const Diagnostic& d) {
    std::string out;
    if (!d.file.empty()) {
        out += d.file;
        if (d.line > 0) out += ":" + std::to_string(d.line);
        if (d.line > 0 && d.column > 0) out += ":" + std::to_string(d.column);
        out += ": ";
    } else if (!d.tool.empty()) {
        out += d.tool + ": ";
    }
    out += severityName(d.severity);
    out += ": ";
    out += d.message;
    return out;
}

std::vector<Diagnostic> parseDiagnostics(const std::string& stderrText, const std::string& tool) {
    // Front end (EDG/cudafe++): `file(line): severity[ #code]: message`. "catastrophic error" and
    // "internal error" are errors too.
    static const std::regex frontEnd(
        R"(^(.+?)\((\d+)\): ((?:catastrophic |internal )?error|warning|remark|note)(?: #([\w-]+))?: ?(.*)$)");
    // gcc (the preprocessor nvcc runs, or the host compiler): `file:line[:col]: severity: message`.
    static const std::regex gcc(R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): ?(.*)$)");
    // ptxas with a PTX position: `ptxas file.ptx, line 29; error   : message`.
    static const std::regex ptxasAt(R"(^ptxas (.+?), line (\d+); (error|warning|fatal|info)\s*: ?(.*)$)");
    // A tool's own message: `nvcc fatal   : ...`, `ptxas warning : ...`, `cicc error : ...`.
    static const std::regex toolMsg(
        R"(^(nvcc|ptxas|cicc|cudafe\+\+|nvlink|fatbinary|nvdisasm|cuobjdump|nvptxcompiler)\s+(error|warning|fatal|info)\s*: ?(.*)$)");

    std::vector<Diagnostic> out;
    std::vector<std::string> lines = splitLines(stderrText);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        std::smatch m;
        if (line.size() > 2000) continue; // not a diagnostic; keeps the regexes cheap on junk input
        if (std::regex_match(line, m, ptxasAt)) {
            if (m[3] == "info") continue;
            Diagnostic d;
            d.file = m[1];
            d.line = std::stoi(m[2].str().substr(0, 9));
            d.severity = severityFrom(m[3]);
            d.message = trim(m[4]);
            d.tool = "ptxas";
            out.push_back(std::move(d));
        } else if (std::regex_match(line, m, toolMsg)) {
            if (m[2] == "info") continue;
            Diagnostic d;
            d.severity = severityFrom(m[2]);
            d.message = trim(m[3]);
            d.tool = m[1];
            out.push_back(std::move(d));
        } else if (std::regex_match(line, m, frontEnd)) {
            Diagnostic d;
            d.file = m[1];
            d.line = std::stoi(m[2].str().substr(0, 9));
            d.severity = severityFrom(m[3]);
            d.message = trim(m[5]);
            if (m[4].matched) d.message += " [#" + m[4].str() + "]";
            d.tool = tool;
            // The block up to the next blank line: continuation text, the echoed source line (indented
            // by two spaces) and a caret under the column.
            size_t j = i + 1;
            std::vector<std::string> block;
            while (j < lines.size() && !trim(lines[j]).empty() && !std::regex_match(lines[j], frontEnd)) block.push_back(lines[j++]);
            size_t caretAt = block.size();
            for (size_t k = 1; k < block.size(); ++k)
                if (isCaretLine(block[k])) {
                    caretAt = k;
                    break;
                }
            if (caretAt < block.size()) d.column = static_cast<int>(block[caretAt].find('^')) - 2 + 1;
            if (d.column < 1) d.column = 0;
            for (size_t k = 0; k < block.size(); ++k) {
                if (caretAt < block.size() && (k == caretAt || k + 1 == caretAt)) continue;
                d.message += "\n  " + trim(block[k]);
            }
            i = j - 1;
            out.push_back(std::move(d));
        } else if (std::regex_match(line, m, gcc)) {
            Diagnostic d;
            d.file = m[1];
            d.line = std::stoi(m[2].str().substr(0, 9));
            if (m[3].matched) d.column = std::stoi(m[3].str().substr(0, 9));
            d.severity = severityFrom(m[4]);
            d.message = trim(m[5]);
            d.tool = tool;
            // gcc echoes `    1 | source` and `      |   ^~~` after the message: skip them.
            while (i + 1 < lines.size() && lines[i + 1].find(" | ") != std::string::npos &&
                   lines[i + 1].find_first_not_of(" 0123456789") == lines[i + 1].find('|'))
                ++i;
            out.push_back(std::move(d));
        }
    }
    return out;
}

} // namespace lowerscope
