#include "core/model.h"

namespace lowerscope {

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
