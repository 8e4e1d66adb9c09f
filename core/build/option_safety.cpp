#include "core/build/option_safety.h"

#include <cstdio>
#include <regex>
#include <vector>

namespace lowerscope {

namespace {

// What the shell nvcc runs its steps through would do with the character (one phrase), or nullptr
// when `slot` keeps it literal. The sets are the measured ones described in option_safety.h.
const char* shellMeaning(unsigned char c, OptionSlot slot, bool atWordStart) {
    if (c < 0x20 || c == 0x7f) {
        if (c == '\n' || c == '\r') return "a line break ends the command";
        return "a control character";
    }
    switch (slot) {
    case OptionSlot::Define:
        // Inside nvcc's double quotes only these are live (nvcc escapes `"` itself).
        if (c == '$') return "parameter expansion and command substitution";
        if (c == '`') return "command substitution";
        if (c == '\\') return "an escape character for nvcc and the shell";
        return nullptr;
    case OptionSlot::IncludeDir:
        // Double quotes too, and nvcc escapes `$`; `"` would end the quotes, and nvcc writes `'` as
        // \' which the shell keeps as two characters (the directory would not be found).
        if (c == '`') return "command substitution";
        if (c == '\\') return "an escape character for nvcc and the shell";
        if (c == '"') return "it ends nvcc's quotes";
        if (c == '\'') return "nvcc writes it as \\' inside double quotes, which changes the path";
        return nullptr;
    case OptionSlot::PtxasFlag:
    case OptionSlot::NvccFlag:
        break;
    }
    // Unquoted. nvcc escapes `$` and `'` in ptxas options only.
    const bool ptxas = slot == OptionSlot::PtxasFlag;
    switch (c) {
    case ' ':
    case '\t':
        return "word splitting (the value would become several arguments)";
    case ';':
        return "a command separator";
    case '&':
        return "a background or and-list operator";
    case '|':
        return "a pipe";
    case '<':
    case '>':
        return "a redirection";
    case '(':
    case ')':
        return "a subshell";
    case '`':
        return "command substitution";
    case '$':
        return ptxas ? nullptr : "parameter expansion and command substitution";
    case '\'':
        return ptxas ? nullptr : "a quote";
    case '"':
        return "a quote";
    case '\\':
        return "an escape character for nvcc and the shell";
    case '*':
    case '?':
    case '[':
    case ']':
        return "a file name pattern";
    case '{':
    case '}':
        return "brace expansion";
    case '~':
        return "home directory expansion";
    case '#':
        return atWordStart ? "a comment (the rest of the command would be dropped)" : nullptr;
    default:
        return nullptr;
    }
}

std::string shown(unsigned char c) {
    if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        return buf;
    }
    return std::string(1, char(c));
}

// The value with control bytes visible, cut to a readable length.
std::string shownValue(std::string_view v) {
    std::string out;
    for (unsigned char c : v.substr(0, 200)) out += shown(c);
    if (v.size() > 200) out += "...";
    return out;
}

// nvcc's own list syntax for these options: code=[sm_90,compute_90] or code="sm_90,compute_90";
// nvcc parses the value and writes its own -arch=... arguments, so brackets and quotes never reach
// a shell.
bool isArchListOption(std::string_view a) {
    for (std::string_view o :
         {"-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code", "--gpu-code"})
        if (a == o || (a.size() > o.size() && a.substr(0, o.size()) == o && a[o.size()] == '=')) return true;
    return false;
}

} // namespace

std::string checkOptionValue(std::string_view option, std::string_view value, OptionSlot slot) {
    bool archList = false;
    if (slot == OptionSlot::NvccFlag && isArchListOption(value)) archList = true;
    bool wordStart = true;
    for (size_t i = 0; i < value.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(value[i]);
        if (archList && (c == '[' || c == ']' || c == '"')) {
            wordStart = false;
            continue;
        }
        if (const char* why = shellMeaning(c, slot, wordStart)) {
            return std::string(option) + " \"" + shownValue(value) + "\": '" + shown(c) +
                   "' would be interpreted by the shell nvcc runs its steps through (" + why + "); refused";
        }
        // nvcc splits list values at commas, so each piece starts a new shell word.
        wordStart = c == ',';
    }
    return {};
}

namespace {

// One problem per element of `args` ("" = safe), each value checked in its slot.
std::vector<std::string> nvccArgProblems(std::string_view option, const std::vector<std::string>& args) {
    std::vector<std::string> problems;
    auto slotOfPair = [](const std::string& a) -> const OptionSlot* {
        static const OptionSlot define = OptionSlot::Define, include = OptionSlot::IncludeDir,
                                ptxas = OptionSlot::PtxasFlag, nvcc = OptionSlot::NvccFlag;
        if (a == "-D" || a == "--define-macro") return &define;
        if (a == "-I" || a == "--include-path") return &include;
        if (a == "-Xptxas" || a == "--ptxas-options") return &ptxas;
        if (isArchListOption(a) && a.find('=') == std::string::npos) return &nvcc;
        return nullptr;
    };
    auto prefixed = [](const std::string& a, std::string_view prefix, std::string_view& rest) {
        if (a.size() < prefix.size() || std::string_view(a).substr(0, prefix.size()) != prefix) return false;
        rest = std::string_view(a).substr(prefix.size());
        return true;
    };
    const OptionSlot* pending = nullptr;
    bool pendingArchList = false;
    for (const auto& a : args) {
        std::string problem;
        std::string_view rest;
        if (pending) {
            // The value of a two-word option: "-D" "X=1", "-Xptxas" "-v", "-gencode" "arch=...".
            if (pendingArchList) {
                std::string asOption = "-gencode=" + a; // same list syntax
                problem = checkOptionValue(option, asOption, OptionSlot::NvccFlag);
            } else {
                problem = checkOptionValue(option, a, *pending);
            }
            pending = nullptr;
            pendingArchList = false;
        } else if ((pending = slotOfPair(a))) {
            pendingArchList = *pending == OptionSlot::NvccFlag;
        } else if (prefixed(a, "--define-macro=", rest) || prefixed(a, "-D", rest)) {
            problem = checkOptionValue(option, rest, OptionSlot::Define);
        } else if (prefixed(a, "--include-path=", rest) || prefixed(a, "-I", rest)) {
            problem = checkOptionValue(option, rest, OptionSlot::IncludeDir);
        } else if (prefixed(a, "--ptxas-options=", rest) || prefixed(a, "-Xptxas=", rest)) {
            problem = checkOptionValue(option, rest, OptionSlot::PtxasFlag);
        } else {
            problem = checkOptionValue(option, a, OptionSlot::NvccFlag);
        }
        problems.push_back(std::move(problem));
    }
    return problems;
}

} // namespace

std::string checkNvccArgs(std::string_view option, const std::vector<std::string>& args) {
    for (auto& p : nvccArgProblems(option, args))
        if (!p.empty()) return p;
    return {};
}

std::string checkOptionSafety(const BuildOptions& o) {
    for (const auto& d : o.defines)
        if (auto p = checkOptionValue("define", d, OptionSlot::Define); !p.empty()) return p;
    for (const auto& i : o.includeDirs)
        if (auto p = checkOptionValue("include dir", i, OptionSlot::IncludeDir); !p.empty()) return p;
    if (auto p = checkNvccArgs("extra nvcc flag", o.extraNvccFlags); !p.empty()) return p;
    for (const auto& f : o.extraPtxasFlags)
        if (auto p = checkOptionValue("extra ptxas flag", f, OptionSlot::PtxasFlag); !p.empty()) return p;
    return {};
}

bool isShellSafePath(std::string_view path) {
    if (path.empty()) return false;
    for (unsigned char c : path) {
        if (c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) continue;
        switch (c) {
        case '/':
        case '.':
        case '_':
        case '+':
        case '-':
        case ',':
        case '=':
        case '@':
        case '%':
        case ':':
            continue;
        default:
            return false;
        }
    }
    // A leading '-' would read as an option.
    return path.front() != '-';
}

std::vector<TrustItem> optionTrustItems(const BuildOptions& o, const std::string& side) {
    static const std::regex archRe(R"((sm|compute)_\d{2,3}[af]?)");
    static const std::regex stdRe(R"((c|gnu)\+\+\d\d)");
    std::vector<TrustItem> out;
    if (!std::regex_match(o.arch, archRe))
        out.push_back({side, "arch", "-arch=" + o.arch, "not an sm_XX architecture name"});
    if (!o.cppStd.empty() && !std::regex_match(o.cppStd, stdRe))
        out.push_back({side, "C++ standard", "-std=" + o.cppStd, "not a c++NN or gnu++NN standard"});
    for (const auto& d : o.defines)
        out.push_back({side, "define", "-D" + d, checkOptionValue("define", d, OptionSlot::Define)});
    for (const auto& i : o.includeDirs)
        out.push_back(
            {side, "include dir", "-I" + i, checkOptionValue("include dir", i, OptionSlot::IncludeDir)});
    // Free flags are checked as one list (a "-D" flag's value is the next element).
    const std::vector<std::string> problems = nvccArgProblems("extra nvcc flag", o.extraNvccFlags);
    for (size_t k = 0; k < o.extraNvccFlags.size(); ++k)
        out.push_back({side, "extra nvcc flag", o.extraNvccFlags[k], problems[k]});
    for (const auto& f : o.extraPtxasFlags)
        out.push_back({side, "extra ptxas flag", "-Xptxas " + f,
                       checkOptionValue("extra ptxas flag", f, OptionSlot::PtxasFlag)});
    return out;
}

} // namespace lowerscope
