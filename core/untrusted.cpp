#include "core/untrusted.h"

#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

// Length of the valid UTF-8 sequence at text[i], 0 when invalid (overlong forms, surrogates and
// code points above U+10FFFF included).
size_t utf8Length(std::string_view text, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = b(i);
    size_t n = 0;
    unsigned min = 0;
    unsigned cp = 0;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000, cp = c & 0x07;
    else
        return 0;
    if (i + n > text.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

bool inside(const fs::path& p, const fs::path& root) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q) {
        if (r->empty()) continue; // a trailing separator of the root
        if (q == p.end() || *q != *r) return false;
    }
    return true;
}

// The path with symlinks resolved as far as it exists (weakly_canonical), or the lexical form.
fs::path resolvedForm(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal() : c;
}

} // namespace

std::string escapeControl(std::string_view text, bool keepNewlines) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            if (size_t n = utf8Length(text, i)) {
                out.append(text.substr(i, n));
                i += n;
                continue;
            }
        } else if ((c >= 0x20 && c != 0x7f) || c == '\t' || (c == '\n' && keepNewlines)) {
            out.push_back(char(c));
            ++i;
            continue;
        }
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
        ++i;
    }
    return out;
}

std::string safeBaseName(std::string_view name) {
    std::string out;
    for (char c : name.substr(0, 100)) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                          c == '_' || c == '-' || c == '+';
        out.push_back(keep ? c : '_');
    }
    if (out.empty()) return "output";
    if (out.front() == '.') out.front() = '_'; // no hidden file, no "." or ".."
    return out;
}

bool resolveDocumentPath(const std::string& name, const std::vector<std::string>& roots,
                         const std::string& what, std::string& resolved, std::string& error) {
    auto refuse = [&](const std::string& why) {
        std::string list;
        for (const auto& r : roots) list += (list.empty() ? "" : ", ") + r;
        error = what + " \"" + escapeControl(name.substr(0, 300)) + "\" " + why + " (allowed: " + list +
                "); refused";
        return false;
    };
    if (name.empty()) return refuse("is empty");
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f) return refuse("contains a control character");
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    std::vector<fs::path> absRoots;
    for (const auto& r : roots) {
        if (r.empty()) continue;
        fs::path a = fs::path(r).is_absolute() ? fs::path(r) : cwd / r;
        absRoots.push_back(a.lexically_normal());
    }
    if (absRoots.empty()) return refuse("cannot be placed: no folder to resolve it in");

    const fs::path n(name);
    std::vector<fs::path> candidates;
    if (n.is_absolute())
        candidates.push_back(n.lexically_normal());
    else
        for (const auto& r : absRoots) candidates.push_back((r / n).lexically_normal());
    // The first existing candidate, else the first one.
    size_t pick = 0;
    for (size_t i = 0; i < candidates.size(); ++i)
        if (fs::exists(candidates[i], ec)) {
            pick = i;
            break;
        }
    const fs::path& c = candidates[pick];
    bool lexicallyInside = false, reallyInside = false;
    const fs::path real = resolvedForm(c);
    for (const auto& r : absRoots) {
        lexicallyInside |= inside(c, r);
        reallyInside |= inside(real, resolvedForm(r));
    }
    if (!lexicallyInside) return refuse("leads outside the folders you chose");
    if (!reallyInside) return refuse("leads outside the folders you chose through a symbolic link");
    resolved = c.string();
    return true;
}

} // namespace lowerscope
