// Captured memory mapped back at its original addresses (restored_memory.h).
#include "app/runner/restored_memory.h"

#include "app/runner/address_hold.h"
#include "app/runner/device_context.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace lowerscope::runner {

namespace {

RequestFailure replayError(const std::string& message) {
    return RequestFailure(RunError{RunErrorKind::BadRequest, message, "", 0, "restore_memory", "", false}, 0);
}

} // namespace

RestoredMemory::~RestoredMemory() {
    Driver& d = m_ctx.driver();
    for (const Mapping& m : m_mappings) {
        if (m.mapped && d.cuMemUnmap) d.cuMemUnmap(m.got, m.bytes);
        if (m.handle && d.cuMemRelease) d.cuMemRelease(m.handle);
        if (m.got && d.cuMemAddressFree) d.cuMemAddressFree(m.got, m.bytes);
        reholdRange(m.want, m.want + m.bytes); // for the next request's replay
    }
}

void RestoredMemory::map(const std::vector<MemoryRegion>& regions) {
    Driver& d = m_ctx.driver();
    if (regions.empty()) return;
    if (!d.cuMemAddressReserve || !d.cuMemAddressFree || !d.cuMemCreate || !d.cuMemRelease || !d.cuMemMap ||
        !d.cuMemUnmap || !d.cuMemSetAccess || !d.cuMemGetAllocationGranularity) {
        throw replayError("replaying a captured launch needs the driver's virtual memory management "
                          "(cuMemAddressReserve, cuMemMap: CUDA 10.2 or newer)");
    }
    if (!m_ctx.fixedAddresses()) {
        throw replayError("replaying a captured launch needs a runner started with --fixed-addresses "
                          "(its device addresses then repeat the captured program's)");
    }
    CUmemAllocationProp prop;
    prop.type = MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = m_ctx.deviceIndex();
    size_t granularity = 0;
    m_ctx.check(d.cuMemGetAllocationGranularity(&granularity, &prop, MEM_ALLOC_GRANULARITY_MINIMUM),
                "cuMemGetAllocationGranularity", "restore_memory");
    if (granularity == 0) granularity = size_t(2) << 20;
    const uint64_t g = granularity;

    // Page ranges: each region rounded out to the granularity, overlapping or touching ranges
    // merged (the client holds the same ranges from the runner's start: address_hold.h).
    const std::vector<AddressRange> ranges = regionAddressRanges(regions, g);
    std::vector<size_t> rangeOf(regions.size());
    for (size_t i = 0; i < regions.size(); ++i) {
        // The range that starts at or before the region holds it (none when it wraps around).
        const auto it = std::upper_bound(ranges.begin(), ranges.end(), regions[i].address,
                                         [](uint64_t a, const AddressRange& r) { return a < r.lo; });
        if (it == ranges.begin() || regions[i].address + regions[i].data.size() > std::prev(it)->hi)
            throw replayError("the captured memory at " + addressHex(regions[i].address) + " (" +
                              std::to_string(regions[i].data.size()) + " bytes) runs past the end of the address space");
        rangeOf[i] = static_cast<size_t>(std::prev(it) - ranges.begin());
    }
    for (const AddressRange& range : ranges) {
        const uint64_t lo = range.lo, hi = range.hi;
        Mapping m;
        m.want = lo;
        m.bytes = static_cast<size_t>(hi - lo);
        releaseHeldRange(lo, hi);
        CUdeviceptr got = 0;
        CUresult r = d.cuMemAddressReserve(&got, m.bytes, 0, lo, 0);
        if (r != CUDA_SUCCESS) {
            m_ctx.check(r, "cuMemAddressReserve", "restore_memory");
        }
        m.got = got;
        if (got != lo) {
            const std::string there = mappingsOverlapping(lo, hi);
            std::fprintf(stderr,
                         "lowerscope-runner: replay: asked for 0x%llx (%zu bytes), the driver gave 0x%llx; %s%s\n",
                         static_cast<unsigned long long>(lo), m.bytes, static_cast<unsigned long long>(got),
                         there.empty() ? "nothing of this process is mapped there (the driver keeps it)"
                                       : "mapped there in this process: ",
                         there.c_str());
        }
        m_mappings.push_back(m);
        Mapping& mm = m_mappings.back();
        m_ctx.check(d.cuMemCreate(&mm.handle, mm.bytes, &prop, 0), "cuMemCreate", "restore_memory");
        m_ctx.check(d.cuMemMap(mm.got, mm.bytes, 0, mm.handle, 0), "cuMemMap", "restore_memory");
        mm.mapped = true;
        CUmemAccessDesc access;
        access.location = prop.location;
        access.flags = MEM_ACCESS_FLAGS_PROT_READWRITE;
        m_ctx.check(d.cuMemSetAccess(mm.got, mm.bytes, &access, 1), "cuMemSetAccess", "restore_memory");
    }
    m_regions.resize(regions.size());
    for (size_t i = 0; i < regions.size(); ++i) {
        const Mapping& m = m_mappings[rangeOf[i]];
        m_regions[i].spec = &regions[i];
        m_regions[i].now = m.got + (regions[i].address - m.want);
        if (m.got != m.want && regions[i].requireOriginal) {
            throw replayError("the captured memory at " + addressHex(regions[i].address) +
                              " must keep its address and cannot be mapped at its original "
                              "address in this process (the driver gave " + addressHex(m.got + (regions[i].address - m.want)) +
                              "); capture and replay on the same machine and driver, with the runner started by "
                              "lowerscope (--fixed-addresses)");
        }
    }
    // Pointers stored in the memory follow the regions they point into; a tensor map kept in
    // device memory is re-pointed by the driver.
    const bool anyMoved = !relocated().empty();
    for (Region& r : m_regions) {
        if (!anyMoved || !r.spec->relocatePointers) continue;
        std::vector<uint8_t> moved = r.spec->data;
        if (moved.size() == 128 && retargetTensorMap(moved.data(), true)) {
            r.relocatedData = std::move(moved);
            r.tensorMap = true;
            std::fprintf(stderr,
                         "lowerscope-runner: replay: the tensor map in the memory at %s re-pointed at its memory's new "
                         "place (cuTensorMapReplaceAddress; read back as the program had it)\n",
                         addressHex(r.spec->address).c_str());
            continue;
        }
        if (const int n = relocateWords(moved.data(), moved.size(), true); n > 0) {
            r.relocatedData = std::move(moved);
            std::fprintf(stderr,
                         "lowerscope-runner: replay: %d pointer%s stored in the memory at %s moved with the memory "
                         "they point into (8-byte words; read back as the program had them)\n",
                         n, n == 1 ? "" : "s", addressHex(r.spec->address).c_str());
        }
    }
    restore();
    // Every later restore (before each profiled pass and each variant) from device copies.
    m_copies.keep(restorable(), "restore_memory");
}

std::vector<RestorableBuffer> RestoredMemory::restorable() const {
    std::vector<RestorableBuffer> out;
    for (const Region& r : m_regions) out.push_back({r.now, &r.data()});
    return out;
}

void RestoredMemory::restore() {
    Driver& d = m_ctx.driver();
    m_copies.restore(restorable(), "restore_memory");
    // A copy from pageable memory returns once the bytes are staged, before the DMA has landed,
    // and it goes through the legacy stream, which the runner's non-blocking stream does not wait
    // for: without this a launch right after could run first and see its output overwritten (the
    // first H200 run of gpu_replay: the replayed memory read back as it was before the launch).
    if (!m_regions.empty()) m_ctx.check(d.cuCtxSynchronize(), "cuCtxSynchronize", "restore_memory");
}

std::vector<uint8_t> RestoredMemory::read(size_t i) {
    const Region& r = m_regions.at(i);
    std::vector<uint8_t> out(r.spec->data.size());
    m_ctx.check(m_ctx.driver().cuMemcpyDtoH(out.data(), r.now, out.size()), "cuMemcpyDtoH", "read_outputs");
    // As the program would have them.
    if (r.tensorMap) retargetTensorMap(out.data(), false);
    else if (r.spec->relocatePointers) relocateWords(out.data(), out.size(), false);
    return out;
}

std::vector<uint64_t> RestoredMemory::relocated() const {
    std::vector<uint64_t> out;
    for (const Region& r : m_regions) {
        if (r.now != r.spec->address) out.push_back(r.spec->address);
    }
    return out;
}

int RestoredMemory::relocateParameter(uint8_t* bytes, size_t n) const {
    if (n == 128 && retargetTensorMap(bytes, true)) return 1;
    return relocateWords(bytes, n, true);
}

bool RestoredMemory::retargetTensorMap(uint8_t* map, bool toNow) const {
    // The first 8-byte word that lies in a region (as the capture found the memory a map reaches).
    const Region* target = nullptr;
    uint64_t address = 0;
    for (size_t off = 0; off + 8 <= 128 && !target; off += 8) {
        uint64_t word = 0;
        std::memcpy(&word, map + off, 8);
        word &= ~uint64_t(15); // a tensor map's global address is 16-byte aligned
        for (const Region& r : m_regions) {
            const uint64_t from = toNow ? r.spec->address : r.now;
            if (word >= from && word < from + r.spec->data.size()) {
                target = &r;
                address = word;
                break;
            }
        }
    }
    if (!target || target->now == target->spec->address) return false;
    Driver& d = m_ctx.driver();
    if (!d.cuTensorMapReplaceAddress) {
        // Without the driver's call nobody can say whether these bytes are a tensor map.
        throw replayError("a 128-byte parameter or region of the captured launch holds an address in memory the driver "
                          "gave other addresses, and this driver has no cuTensorMapReplaceAddress to re-point it if "
                          "it is a tensor map; replay with a CUDA 12 driver or newer");
    }
    // A tensor map re-pointed at the address it already holds stays as it is; other bytes do not
    // (or the driver refuses them): then they are not a tensor map.
    CUtensorMap probe;
    std::memcpy(&probe, map, 128);
    if (d.cuTensorMapReplaceAddress(&probe, reinterpret_cast<void*>(address)) != CUDA_SUCCESS ||
        std::memcmp(&probe, map, 128) != 0)
        return false;
    const uint64_t from = toNow ? target->spec->address : target->now;
    const uint64_t to = toNow ? target->now : target->spec->address;
    const uint64_t moved = to + (address - from);
    const CUresult r = d.cuTensorMapReplaceAddress(&probe, reinterpret_cast<void*>(moved));
    if (r != CUDA_SUCCESS)
        throw replayError("cuTensorMapReplaceAddress refused to re-point a captured tensor map from " + addressHex(address) +
                          " to " + addressHex(moved) + " (CUDA error " + std::to_string(int(r)) + ")");
    std::memcpy(map, &probe, 128);
    return true;
}

int RestoredMemory::relocateWords(uint8_t* bytes, size_t n, bool toNow) const {
    int changed = 0;
    for (size_t off = 0; off + 8 <= n; off += 8) {
        uint64_t word = 0;
        std::memcpy(&word, bytes + off, 8);
        for (const Region& r : m_regions) {
            const uint64_t from = toNow ? r.spec->address : r.now;
            const uint64_t to = toNow ? r.now : r.spec->address;
            if (from != to && word >= from && word < from + r.spec->data.size()) {
                const uint64_t moved = to + (word - from);
                std::memcpy(bytes + off, &moved, 8);
                ++changed;
                break;
            }
        }
    }
    return changed;
}

} // namespace lowerscope::runner
