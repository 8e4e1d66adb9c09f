#include "core/untrusted.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char* fileTypeText(mode_t mode) {
    if (S_ISDIR(mode)) return "it is a directory";
    if (S_ISFIFO(mode)) return "it is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a regular file";
    if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
    return "not a regular file";
}

// The rule on an fstat/stat result.
bool checkStat(const std::string& path, const struct stat& st, std::size_t maxBytes, const std::string& what,
               std::string& error) {
    if (!S_ISREG(st.st_mode)) {
        error = "cannot read " + escapeControl(path) + ": " + fileTypeText(st.st_mode);
        return false;
    }
    if (st.st_size < 0 || std::uint64_t(st.st_size) > maxBytes) {
        error = escapeControl(path) + " is larger than " + byteSizeText(maxBytes) + " (limit) for " + what +
                " (it is " + byteSizeText(std::size_t(st.st_size)) + "); not read";
        return false;
    }
    return true;
}

} // namespace

std::string byteSizeText(std::size_t bytes) {
    constexpr std::size_t KiB = 1024, MiB = KiB << 10, GiB = MiB << 10;
    char buf[64];
    if (bytes >= GiB && bytes % GiB != 0) {
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(GiB));
        return buf;
    }
    if (bytes >= GiB) return std::to_string(bytes / GiB) + " GiB";
    if (bytes >= MiB && bytes % MiB == 0) return std::to_string(bytes / MiB) + " MiB";
    if (bytes >= MiB) {
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(MiB));
        return buf;
    }
    if (bytes >= KiB && bytes % KiB == 0) return std::to_string(bytes / KiB) + " KiB";
    return std::to_string(bytes) + " bytes";
}

bool checkInputFile(const std::string& path, std::size_t maxBytes, const std::string& what, std::string& error) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        error = "cannot read " + escapeControl(path) + ": " + std::strerror(errno);
        return false;
    }
    return checkStat(path, st, maxBytes, what, error);
}

bool readInputFile(const std::string& path, std::size_t maxBytes, const std::string& what, std::string& text,
                   std::string& error) {
    // stat first: open() itself blocks on a FIFO without O_NONBLOCK, and a device could be anything.
    if (!checkInputFile(path, maxBytes, what, error)) return false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        error = "cannot read " + escapeControl(path) + ": " + std::strerror(errno);
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !checkStat(path, st, maxBytes, what, error)) {
        if (error.empty()) error = "cannot read " + escapeControl(path) + ": " + std::strerror(errno);
        ::close(fd);
        return false;
    }
    // The size may change while reading: never hold more than the limit plus one byte.
    std::string out;
    out.resize(std::min(std::size_t(st.st_size), maxBytes) + 1);
    std::size_t got = 0;
    for (;;) {
        if (got == out.size()) {
            if (out.size() > maxBytes) break;
            out.resize(std::min(out.size() * 2, maxBytes + 1));
        }
        const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            error = "cannot read " + escapeControl(path) + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
        if (n == 0) break;
        got += std::size_t(n);
    }
    ::close(fd);
    if (got > maxBytes) {
        error = escapeControl(path) + " is larger than " + byteSizeText(maxBytes) + " (limit) for " + what +
                " (it grew while it was read); not read";
        return false;
    }
    out.resize(got);
    text = std::move(out);
    return true;
}

std::string readInputHead(const std::string& path, std::size_t n) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return {};
    }
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(fd, out.data() + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += std::size_t(r);
    }
    ::close(fd);
    out.resize(got);
    return out;
}

std::string xmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            if (std::size_t n = utf8Length(text, i)) {
                out.append(text.substr(i, n));
                i += n;
            } else {
                out += "\xef\xbf\xbd"; // U+FFFD
                ++i;
            }
            continue;
        }
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
                out += "\xef\xbf\xbd";
            else
                out.push_back(char(c));
        }
        ++i;
    }
    return out;
}

std::string markdownCell(std::string_view text) {
    const std::string safe = escapeControl(text);
    std::string out;
    out.reserve(safe.size());
    for (char c : safe) {
        if (c == '\\' || c == '`' || c == '*' || c == '_' || c == '[' || c == ']' || c == '<' || c == '>' ||
            c == '|')
            out.push_back('\\');
        out.push_back(c);
    }
    return out;
}

std::string boundedText(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes) return std::string(text);
    std::size_t cut = maxBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut; // not inside a character
    return std::string(text.substr(0, cut)) + "\u2026 (" + std::to_string(text.size()) + " bytes in all)";
}

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
