#include "core/build/kernel_name.h"

#include <cctype>
#include <functional>

namespace lowerscope {

namespace {

// Where the parameter list starts: the '(' matching the name's last ')'. npos without one.
size_t parameterListStart(const std::string& s) {
    if (s.empty() || s.back() != ')') return std::string::npos;
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
        if (s[i] == ')') ++depth;
        else if (s[i] == '(' && --depth == 0) return i;
    }
    return std::string::npos;
}

std::string withoutSpaces(const std::string& s) {
    std::string out;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(c);
    return out;
}

// "ns::inner::k<8>" → "k<8>": the last component outside template arguments.
std::string unqualified(const std::string& s) {
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<' || s[i] == '(') ++depth;
        else if ((s[i] == '>' || s[i] == ')') && depth > 0) --depth;
        else if (depth == 0 && s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') start = i + 2;
    }
    return s.substr(start);
}

} // namespace

std::string kernelNameWithArgs(const std::string& demangled) {
    const size_t params = parameterListStart(demangled);
    if (params == std::string::npos) return demangled;
    const std::string head = demangled.substr(0, params);
    // The return type ends at the last blank outside template arguments ("void ns::k<a, b>").
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < head.size(); ++i) {
        if (head[i] == '<' || head[i] == '(') ++depth;
        else if ((head[i] == '>' || head[i] == ')') && depth > 0) --depth;
        else if (depth == 0 && head[i] == ' ') start = i + 1;
    }
    return head.substr(start);
}

std::string kernelPlainName(const std::string& demangled) {
    const std::string name = kernelNameWithArgs(demangled);
    // Template arguments are the trailing <...> (a name like "operator<" does not name a kernel).
    if (name.empty() || name.back() != '>') return name;
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
        if (name[i] == '>') ++depth;
        else if (name[i] == '<' && --depth == 0) return name.substr(0, i);
    }
    return name;
}

int findKernel(const std::vector<KernelName>& kernels, const std::string& want, std::string* error) {
    auto list = [&kernels](const std::vector<int>& which) {
        std::string s;
        for (int i : which) s += (s.empty() ? "" : ", ") + kernels[size_t(i)].demangled;
        return s;
    };
    const std::string wantNoSpace = withoutSpaces(want);
    // The rules in order; each compares one form of a kernel's name with one form of `want`.
    const std::vector<std::function<bool(const KernelName&)>> rules = {
        [&](const KernelName& k) { return k.mangled == want || k.demangled == want; },
        [&](const KernelName& k) {
            const std::string n = withoutSpaces(kernelNameWithArgs(k.demangled));
            return n == wantNoSpace || unqualified(n) == wantNoSpace;
        },
        [&](const KernelName& k) {
            const std::string n = withoutSpaces(kernelPlainName(k.demangled));
            return n == wantNoSpace || unqualified(n) == wantNoSpace;
        },
    };
    if (!want.empty()) {
        for (const auto& rule : rules) {
            std::vector<int> hits;
            for (size_t i = 0; i < kernels.size(); ++i)
                if (rule(kernels[i])) hits.push_back(int(i));
            if (hits.size() == 1) {
                if (error) error->clear();
                return hits.front();
            }
            if (hits.size() > 1) {
                if (error)
                    *error = "kernel name '" + want + "' is ambiguous: it names " + std::to_string(hits.size()) +
                             " kernels: " + list(hits) + " (give the template arguments or the mangled name)";
                return -1;
            }
        }
    }
    if (error) {
        std::vector<int> all;
        for (size_t i = 0; i < kernels.size(); ++i) all.push_back(int(i));
        *error = "no kernel named '" + want + "'; kernels: " + (all.empty() ? std::string("none") : list(all));
    }
    return -1;
}

} // namespace lowerscope
