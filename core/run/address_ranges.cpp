// Address ranges a replay holds (address_ranges.h).
#include "core/run/address_ranges.h"

#include "core/run/protocol.h"

#include <algorithm>
#include <charconv>

namespace lowerscope {

std::vector<AddressRange> mergeAddressRanges(std::vector<AddressRange> ranges, uint64_t granule) {
    if (granule == 0 || (granule & (granule - 1)) != 0) granule = 1;
    std::vector<AddressRange> rounded;
    for (const AddressRange& r : ranges) {
        if (r.hi <= r.lo) continue;
        const uint64_t lo = r.lo & ~(granule - 1);
        const uint64_t hi = r.hi + (granule - 1);
        if (hi < r.hi) continue; // wraps
        rounded.push_back({lo, hi & ~(granule - 1)});
    }
    std::sort(rounded.begin(), rounded.end(), [](const AddressRange& a, const AddressRange& b) { return a.lo < b.lo; });
    std::vector<AddressRange> out;
    for (const AddressRange& r : rounded) {
        if (!out.empty() && r.lo <= out.back().hi) {
            out.back().hi = std::max(out.back().hi, r.hi);
        } else {
            out.push_back(r);
        }
    }
    return out;
}

std::vector<AddressRange> regionAddressRanges(const std::vector<MemoryRegion>& regions, uint64_t granule) {
    std::vector<AddressRange> ranges;
    for (const MemoryRegion& r : regions) ranges.push_back({r.address, r.address + std::max<uint64_t>(1, r.data.size())});
    return mergeAddressRanges(std::move(ranges), granule);
}

std::string formatAddressRanges(const std::vector<AddressRange>& ranges) {
    std::string out;
    for (const AddressRange& r : ranges) {
        if (!out.empty()) out += ',';
        out += addressHex(r.lo) + "+" + std::to_string(r.hi - r.lo);
    }
    return out;
}

std::optional<std::vector<AddressRange>> parseAddressRanges(std::string_view text, std::string& error) {
    std::vector<AddressRange> out;
    uint64_t total = 0;
    size_t from = 0;
    while (from <= text.size() && !text.empty()) {
        const size_t end = std::min(text.find(',', from), text.size());
        const std::string_view item = text.substr(from, end - from);
        const size_t plus = item.find('+');
        const auto lo = plus == std::string_view::npos ? std::nullopt : parseAddressHex(std::string(item.substr(0, plus)));
        uint64_t bytes = 0;
        const std::string_view size = plus == std::string_view::npos ? std::string_view() : item.substr(plus + 1);
        const auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), bytes);
        if (!lo || size.empty() || ec != std::errc() || p != size.data() + size.size()) {
            error = "expected 0xADDRESS+BYTES, not '" + std::string(item.substr(0, 64)) + "'";
            return std::nullopt;
        }
        if (bytes == 0 || *lo + bytes < *lo) {
            error = "the range " + std::string(item) + " is empty or wraps around";
            return std::nullopt;
        }
        if (out.size() == kMaxAddressRanges || bytes > kMaxAddressRangeBytes - total) {
            error = "more than " + std::to_string(kMaxAddressRanges) + " ranges or " +
                    std::to_string(kMaxAddressRangeBytes >> 30) + " GiB";
            return std::nullopt;
        }
        total += bytes;
        out.push_back({*lo, *lo + bytes});
        from = end + 1;
        if (end == text.size()) break;
    }
    return mergeAddressRanges(std::move(out), 1);
}

} // namespace lowerscope
