#pragma once
// One number printed with a printf format ("%.3f", "%.1f %%"), for the reports and messages of
// every stage. The format is the caller's literal; the text is cut at 63 characters.

#include <cstdio>
#include <string>

namespace lowerscope {

inline std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

} // namespace lowerscope
