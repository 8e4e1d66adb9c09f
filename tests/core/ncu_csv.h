#pragma once
// Reading Nsight Compute's CSV exports in tests (the recorded files under tests/data/profile/).

#include <string>
#include <vector>

namespace lowerscope::testutil {

// One CSV record: quoted fields (ncu quotes every field; SASS text holds commas).
inline std::vector<std::string> csvFields(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

} // namespace lowerscope::testutil
