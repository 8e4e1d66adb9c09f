#pragma once
// Device address ranges a replay needs at their original place (core/capture/replay.h), as the
// client names them to the runner it starts: `lowerscope-runner --fixed-addresses
// --hold-addresses 0x7ffdd8800000+8388608,...`. The runner holds those ranges of its address
// space from its first instruction (app/runner/address_hold.h), so that nothing of its own (its
// threads' malloc arenas, a request's text, the driver's pools) lands where the captured memory
// has to go, and releases each just before asking the driver for it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lowerscope {

struct AddressRange {
    uint64_t lo = 0, hi = 0; // [lo, hi)
    bool operator==(const AddressRange&) const = default;
};

// The most ranges one list may hold, and the most bytes all of them together (a replay's memory
// is bounded far below this by the capture's memory limit).
constexpr size_t kMaxAddressRanges = 4096;
constexpr uint64_t kMaxAddressRangeBytes = uint64_t(1) << 40;

// `ranges` rounded out to multiples of `granule` (a power of two: the driver's allocation
// granularity, 2 MiB), sorted, overlapping and touching ones merged; empty ones and ones that
// wrap around the address space dropped.
std::vector<AddressRange> mergeAddressRanges(std::vector<AddressRange> ranges, uint64_t granule = uint64_t(2) << 20);

struct MemoryRegion; // core/run/protocol.h
// The ranges a replay's regions cover (an empty region counts as its first byte), merged as above.
std::vector<AddressRange> regionAddressRanges(const std::vector<MemoryRegion>& regions,
                                              uint64_t granule = uint64_t(2) << 20);

// "0x7ffdd8800000+8388608,0x7ffdd9000000+2097152"; "" for none.
std::string formatAddressRanges(const std::vector<AddressRange>& ranges);
// Reads formatAddressRanges' text back, merged (mergeAddressRanges). nullopt with `error` for
// anything else: a malformed item, an empty or wrapping range, more than kMaxAddressRanges
// items or kMaxAddressRangeBytes bytes.
std::optional<std::vector<AddressRange>> parseAddressRanges(std::string_view text, std::string& error);

} // namespace lowerscope
