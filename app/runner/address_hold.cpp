// Held address ranges (address_hold.h).
#include "app/runner/address_hold.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

namespace lowerscope::runner {

namespace {

std::vector<AddressRange>& held() {
    static std::vector<AddressRange> ranges;
    return ranges;
}

// Maps [lo, hi) inaccessible and uncommitted, only where nothing is: false when something is.
bool mapHold(uint64_t lo, uint64_t hi) {
    void* want = reinterpret_cast<void*>(lo);
    void* p = ::mmap(want, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) return false;
    if (p != want) { // a kernel before 4.17 takes the flag as a hint
        ::munmap(p, hi - lo);
        return false;
    }
    return true;
}

} // namespace

void holdAddressRanges(const std::vector<AddressRange>& ranges) {
    for (const AddressRange& r : ranges) {
        if (mapHold(r.lo, r.hi)) {
            held().push_back(r);
            continue;
        }
        // Something is there already: hold what is free around it, page range by page range.
        const uint64_t page = uint64_t(2) << 20;
        for (uint64_t lo = r.lo; lo < r.hi; lo += page) {
            const uint64_t hi = std::min(r.hi, lo + page);
            if (mapHold(lo, hi)) {
                held().push_back({lo, hi});
            } else {
                const std::string what = mappingsOverlapping(lo, hi);
                std::fprintf(stderr, "lowerscope-runner: replay: cannot hold 0x%llx-0x%llx for the captured memory%s%s\n",
                             static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi),
                             what.empty() ? "" : ": ", what.c_str());
            }
        }
    }
}

void releaseHeldRange(uint64_t lo, uint64_t hi) {
    for (const AddressRange& r : held()) {
        const uint64_t a = std::max(lo, r.lo), b = std::min(hi, r.hi);
        if (a < b) ::munmap(reinterpret_cast<void*>(a), b - a);
    }
}

void reholdRange(uint64_t lo, uint64_t hi) {
    for (const AddressRange& r : held()) {
        const uint64_t a = std::max(lo, r.lo), b = std::min(hi, r.hi);
        if (a < b) mapHold(a, b); // taken meanwhile: no longer held, nothing to do
    }
}

std::string mappingsOverlapping(uint64_t lo, uint64_t hi) {
    std::ifstream maps("/proc/self/maps");
    std::string line, out;
    int shown = 0;
    while (std::getline(maps, line) && shown < 8) {
        unsigned long long a = 0, b = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx", &a, &b) != 2 || b <= lo || a >= hi) continue;
        // "7ffdd8000000-7ffddc000000 ---p 00000000 00:00 0   [path]": the range, the
        // protection and the path, if any
        std::string path;
        const size_t slash = line.find_first_of("/[");
        if (slash != std::string::npos) path = " " + line.substr(slash);
        const size_t sp = line.find(' ');
        const std::string prot = sp != std::string::npos ? line.substr(sp + 1, 4) : "";
        if (!out.empty()) out += "; ";
        out += line.substr(0, line.find(' ')) + " " + prot + (path.empty() ? " (anonymous)" : path);
        ++shown;
    }
    return out;
}

} // namespace lowerscope::runner
