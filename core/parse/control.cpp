#include "core/parse/control.h"

namespace lowerscope {

Control decodeControl(uint64_t hi) {
    Control c;
    c.stall = static_cast<int>((hi >> 41) & 0xf);
    c.yieldHint = ((hi >> 45) & 1) == 0; // inverted: see the header
    const int wb = static_cast<int>((hi >> 46) & 0x7);
    const int rb = static_cast<int>((hi >> 49) & 0x7);
    // 7 means "no barrier"; 6 is never produced by ptxas (6 scoreboards) but is kept as decoded
    // rather than hidden, so the raw value stays visible.
    c.writeBarrier = wb == 7 ? -1 : wb;
    c.readBarrier = rb == 7 ? -1 : rb;
    c.waitMask = static_cast<uint8_t>((hi >> 52) & 0x3f);
    c.reuse = static_cast<uint8_t>((hi >> 58) & 0xf);
    return c;
}

uint64_t encodeControl(const Control& c) {
    auto barrier = [](int b) -> uint64_t { return (b < 0 || b > 6) ? 7u : static_cast<uint64_t>(b); };
    uint64_t hi = 0;
    hi |= (static_cast<uint64_t>(c.stall) & 0xf) << 41;
    hi |= (c.yieldHint ? 0ull : 1ull) << 45;
    hi |= barrier(c.writeBarrier) << 46;
    hi |= barrier(c.readBarrier) << 49;
    hi |= (static_cast<uint64_t>(c.waitMask) & 0x3f) << 52;
    hi |= (static_cast<uint64_t>(c.reuse) & 0xf) << 58;
    return hi;
}

std::string controlText(const Control& c) {
    std::string s;
    s.reserve(20);
    s += 'B';
    for (int i = 0; i < 6; ++i) s += (c.waitMask >> i) & 1 ? static_cast<char>('0' + i) : '-';
    s += ":R";
    s += c.readBarrier >= 0 && c.readBarrier <= 9 ? static_cast<char>('0' + c.readBarrier) : '-';
    s += ":W";
    s += c.writeBarrier >= 0 && c.writeBarrier <= 9 ? static_cast<char>('0' + c.writeBarrier) : '-';
    s += ':';
    s += c.yieldHint ? 'Y' : '-';
    s += ":S";
    const int st = c.stall < 0 ? 0 : (c.stall > 99 ? 99 : c.stall);
    s += static_cast<char>('0' + st / 10);
    s += static_cast<char>('0' + st % 10);
    return s;
}

std::optional<Control> parseControlText(std::string_view t) {
    if (!t.empty() && t.front() == '[') t.remove_prefix(1);
    if (!t.empty() && t.back() == ']') t.remove_suffix(1);
    // Fixed layout: B?????? : R? : W? : ? : S??  → 19 characters.
    if (t.size() != 19 || t[0] != 'B' || t[7] != ':' || t[8] != 'R' || t[10] != ':' || t[11] != 'W' ||
        t[13] != ':' || t[15] != ':' || t[16] != 'S')
        return std::nullopt;
    Control c;
    for (int i = 0; i < 6; ++i) {
        const char ch = t[1 + i];
        if (ch == '0' + i)
            c.waitMask |= static_cast<uint8_t>(1u << i);
        else if (ch != '-')
            return std::nullopt;
    }
    auto barrier = [](char ch, int& out) {
        if (ch == '-') { out = -1; return true; }
        if (ch >= '0' && ch <= '6') { out = ch - '0'; return true; }
        return false;
    };
    if (!barrier(t[9], c.readBarrier) || !barrier(t[12], c.writeBarrier)) return std::nullopt;
    if (t[14] == 'Y')
        c.yieldHint = true;
    else if (t[14] == '-')
        c.yieldHint = false;
    else
        return std::nullopt;
    if (t[17] < '0' || t[17] > '9' || t[18] < '0' || t[18] > '9') return std::nullopt;
    c.stall = (t[17] - '0') * 10 + (t[18] - '0');
    if (c.stall > 15) return std::nullopt;
    return c;
}

} // namespace lowerscope
