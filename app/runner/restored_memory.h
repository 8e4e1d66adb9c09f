#pragma once
// The device memory of a captured launch, mapped back for a replay (RunRequest::regions, see
// core/run/protocol.h): each region at the virtual address it had in the captured program,
// through the driver's virtual memory management (cuMemAddressReserve with the address asked
// for, cuMemCreate, cuMemMap, cuMemSetAccess). Regions that share a page of the allocation
// granularity (2 MiB) share one mapping. A page range the driver will not give at its address is
// mapped wherever it can be, and the regions in it are "relocated": relocateParameter() moves parameter
// words that point into them, and so does map() for the words stored in regions with
// relocatePointers (read() moves them back, so outputs compare with the program's memory); a
// region with requireOriginal cannot be relocated and fails the request with a clear error. Tensor
// maps (a 128-byte parameter, or a 128-byte region holding an address) that point into a relocated
// region are re-pointed through the driver (cuTensorMapReplaceAddress), since their encoding is not
// a plain pointer the runner may rewrite.
//
// The addresses repeat only when the runner runs as the captured program did, without address
// space randomisation and before it allocates anything of its own: lowerscope-runner
// --fixed-addresses (main.cpp re-executes itself with ADDR_NO_RANDOMIZE; DeviceContext defers its
// helpers until the regions are mapped).

#include "app/runner/cuda_api.h"
#include "app/runner/device_copies.h"
#include "core/run/protocol.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lowerscope::runner {

class DeviceContext;

class RestoredMemory {
public:
    explicit RestoredMemory(DeviceContext& ctx) : m_ctx(ctx) {}
    ~RestoredMemory(); // unmaps and frees everything (the next request maps again)
    RestoredMemory(const RestoredMemory&) = delete;
    RestoredMemory& operator=(const RestoredMemory&) = delete;

    // Maps every region and copies its bytes in. Throws RequestFailure (bad_request when the
    // driver has no virtual memory management, the runner was not started with
    // --fixed-addresses, or a requireOriginal region cannot have its address).
    void map(const std::vector<MemoryRegion>& regions);
    // Copies every region's bytes in again.
    void restore();
    // Reads region `i` back.
    std::vector<uint8_t> read(size_t i);
    // The address region `i` lives at now.
    CUdeviceptr addressOf(size_t i) const { return m_regions.at(i).now; }
    size_t size() const { return m_regions.size(); }
    const MemoryRegion& region(size_t i) const { return *m_regions.at(i).spec; }
    // Original addresses of the regions that are not at their original address.
    std::vector<uint64_t> relocated() const;
    // Rewrites every 8-byte-aligned word of the `n` bytes at `bytes` (one parameter) that points
    // into a relocated region to the same offset in its new place, except that a 128-byte parameter
    // that is a tensor map pointing into a relocated region is re-pointed with
    // cuTensorMapReplaceAddress (its encoding is the driver's). Returns the words or maps changed;
    // throws RequestFailure when a tensor map must move and the driver cannot re-point it.
    int relocateParameter(uint8_t* bytes, size_t n) const;
    bool empty() const { return m_regions.empty(); }

private:
    struct Region {
        const MemoryRegion* spec = nullptr;
        CUdeviceptr now = 0;
        std::vector<uint8_t> relocatedData; // spec->data with its stored pointers moved (or empty)
        bool tensorMap = false;             // the region is a tensor map, re-pointed (read() points it back)
        const std::vector<uint8_t>& data() const { return relocatedData.empty() ? spec->data : relocatedData; }
    };
    // Moves (toNow) or moves back every 8-byte-aligned word of the `n` bytes at `bytes` that points
    // into a relocated region; returns how many words changed.
    int relocateWords(uint8_t* bytes, size_t n, bool toNow) const;
    // When the 128 bytes at `map` are a tensor map (cuTensorMapReplaceAddress with the address it
    // holds leaves them as they are) whose address lies in a relocated region: re-pointed to the
    // same offset in the region's new place (toNow) or back, and true. False when they are not a
    // tensor map or point into no moved region. Throws when a tensor map must move and the driver
    // has no cuTensorMapReplaceAddress or refuses the new address.
    bool retargetTensorMap(uint8_t* map, bool toNow) const;
    struct Mapping {
        CUdeviceptr want = 0, got = 0;
        size_t bytes = 0;
        CUmemGenericAllocationHandle handle = 0;
        bool mapped = false;
    };
    DeviceContext& m_ctx;
    std::vector<Region> m_regions;
    std::vector<Mapping> m_mappings;
    DeviceCopies m_copies{m_ctx}; // of the captured bytes, restored from (restore)
    std::vector<RestorableBuffer> restorable() const; // each region where it lives now
};

} // namespace lowerscope::runner
