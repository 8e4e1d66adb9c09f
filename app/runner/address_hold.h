#pragma once
// Host address ranges held for a replay's captured memory (lowerscope-runner --hold-addresses,
// core/run/address_ranges.h). With unified addressing the CUDA driver gives a device address
// range only where the process has nothing mapped, and a runner that maps anything of its own
// where the captured program had its device memory (a thread's malloc arena, the request's text,
// the driver's own pools, placed differently than in the program) cannot get those addresses.
// The ranges are held as inaccessible, uncommitted mappings from the runner's start, before
// CUDA is loaded; RestoredMemory releases each just before it asks the driver for it, and holds
// it again after giving it back.

#include "core/run/address_ranges.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lowerscope::runner {

// Holds `ranges` (the parts that are free: a part something already occupies is reported on
// stderr and left alone). Called once, at the start, before CUDA is loaded.
void holdAddressRanges(const std::vector<AddressRange>& ranges);
// Releases what is held of [lo, hi).
void releaseHeldRange(uint64_t lo, uint64_t hi);
// Holds again what was held of [lo, hi) before releaseHeldRange (after the driver gave it back).
void reholdRange(uint64_t lo, uint64_t hi);
// The lines of /proc/self/maps that overlap [lo, hi), each with its range and what it is
// ("" when nothing of this process is mapped there), for the message when the driver does not
// give an address.
std::string mappingsOverlapping(uint64_t lo, uint64_t hi);

} // namespace lowerscope::runner
