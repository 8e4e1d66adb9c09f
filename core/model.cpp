#include "core/model.h"

namespace lowerscope {

namespace {
int product(const int (&d)[3]) {
    if (d[0] <= 0) return 0;
    // Saturating: PTX values are small, but the text is untrusted.
    long long p = 1;
    for (int v : d) p *= v > 0 ? v : 1;
    return p > 1'000'000'000 ? 1'000'000'000 : static_cast<int>(p);
}
} // namespace

int PtxLaunchBounds::maxThreads() const { return product(maxntid); }
int PtxLaunchBounds::requiredThreads() const { return product(reqntid); }

int SassFunction::indexOf(uint32_t address) const {
    // Instructions are in address order: binary search.
    size_t lo = 0, hi = instructions.size();
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (instructions[mid].address < address)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < instructions.size() && instructions[lo].address == address) return static_cast<int>(lo);
    return -1;
}

} // namespace lowerscope
