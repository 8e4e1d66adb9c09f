// Where does the driver put device memory, and when does cuMemAddressReserve honour the address
// it is asked for? (issue 29: a replay maps captured memory at its original addresses; on an H100
// the driver gave other addresses even with nothing of the process mapped there.)
// Run by bench/vmm_probe.sh in several processes, without address-space randomisation:
//   vmm_probe alloc SIZE_MIB...        cuMemAlloc each size in turn, print the addresses (what a
//                                      program's allocations get, under the injection or not)
//   vmm_probe reserve ADDR:BYTES...    in a fresh context, ask cuMemAddressReserve for each range
//                                      at its address and print what came back
//   vmm_probe walk ADDR:BYTES...       the same, and when another address comes back above the
//                                      one asked for, keep a filler reservation of the difference
//                                      (a top-down allocator then lands lower) and ask again
//   vmm_probe holdreserve ADDR:BYTES...  hold each range (PROT_NONE) before cuInit, as the replay
//                                      runner does, release it just before asking for it
//   vmm_probe holdwide ADDR:BYTES...   hold one window from 64 MiB below the lowest range to
//                                      64 MiB above the highest before cuInit; release it just
//                                      before asking (the driver's own chunk must then lie elsewhere)
// Every line printed is "key value..." for the script to read.
#include <cuda.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        const char* s = nullptr;
        cuGetErrorName(r, &s);
        std::printf("error %s %s\n", what, s ? s : "?");
        std::exit(1);
    }
}

static void mapsNear(unsigned long long lo, unsigned long long hi) {
    FILE* f = std::fopen("/proc/self/maps", "r");
    if (!f) return;
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
        unsigned long long a = 0, b = 0;
        if (std::sscanf(line, "%llx-%llx", &a, &b) == 2 && a < hi + (256ull << 20) && b + (256ull << 20) > lo)
            std::printf("maps %s", line);
    }
    std::fclose(f);
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const std::string mode = argv[1];
    std::vector<std::pair<unsigned long long, unsigned long long>> holds; // [lo, hi)
    if (mode == "holdreserve" || mode == "holdwide") {
        unsigned long long lowest = ~0ull, highest = 0;
        for (int i = 2; i < argc; ++i) {
            unsigned long long want = 0, bytes = 0;
            if (std::sscanf(argv[i], "%llx:%llu", &want, &bytes) != 2) return 2;
            bytes = (bytes + (2ull << 20) - 1) / (2ull << 20) * (2ull << 20);
            if (mode == "holdreserve") holds.push_back({want, want + bytes});
            lowest = std::min(lowest, want);
            highest = std::max(highest, want + bytes);
        }
        if (mode == "holdwide") holds.push_back({lowest - (64ull << 20), highest + (64ull << 20)});
        for (auto& h : holds) {
            void* p = mmap(reinterpret_cast<void*>(h.first), h.second - h.first, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
            std::printf("hold 0x%llx-0x%llx %s\n", h.first, h.second,
                        p == reinterpret_cast<void*>(h.first) ? "held" : "NOT held");
        }
    }
    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    if (mode == "alloc") {
        for (int i = 2; i < argc; ++i) {
            CUdeviceptr p = 0;
            const size_t bytes = std::strtoull(argv[i], nullptr, 0) << 20;
            check(cuMemAlloc(&p, bytes), "cuMemAlloc");
            std::printf("alloc 0x%llx %zu\n", (unsigned long long)p, bytes);
        }
        CUdeviceptr r = 0;
        check(cuMemAddressReserve(&r, 2 << 20, 0, 0, 0), "cuMemAddressReserve");
        std::printf("natural_reserve 0x%llx\n", (unsigned long long)r);
        return 0;
    }
    const bool walk = mode == "walk";
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t g = 0;
    check(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity");
    std::printf("granularity %zu\n", g);
    std::vector<std::pair<CUdeviceptr, size_t>> fillers;
    int ok = 0, asked = 0;
    for (int i = 2; i < argc; ++i) {
        unsigned long long want = 0, bytes = 0;
        if (std::sscanf(argv[i], "%llx:%llu", &want, &bytes) != 2) return 2;
        bytes = (bytes + g - 1) / g * g;
        ++asked;
        for (auto& h : holds) {
            if (h.first < want + bytes && want < h.second) {
                mapsNear(want, want + bytes);
                munmap(reinterpret_cast<void*>(h.first), h.second - h.first);
                std::printf("released 0x%llx-0x%llx\n", h.first, h.second);
                h.second = h.first; // released
            }
        }
        CUdeviceptr got = 0;
        check(cuMemAddressReserve(&got, bytes, 0, want, 0), "cuMemAddressReserve");
        std::printf("reserve want 0x%llx bytes %llu got 0x%llx%s\n", want, bytes, (unsigned long long)got,
                    got == want ? " same" : "");
        for (int step = 0; walk && got != want && step < 16; ++step) {
            check(cuMemAddressFree(got, bytes), "cuMemAddressFree");
            if (got < want) {
                // Below: try alignment to the range's size, then a reserve exactly over it.
                CUdeviceptr again = 0;
                check(cuMemAddressReserve(&again, bytes, bytes, want, 0), "cuMemAddressReserve(aligned)");
                std::printf("walk step %d below: aligned ask got 0x%llx\n", step, (unsigned long long)again);
                got = again;
                if (got == want) break;
                continue;
            }
            const size_t gap = got - want;
            CUdeviceptr filler = 0;
            check(cuMemAddressReserve(&filler, gap, 0, 0, 0), "cuMemAddressReserve(filler)");
            fillers.push_back({filler, gap});
            check(cuMemAddressReserve(&got, bytes, 0, want, 0), "cuMemAddressReserve(again)");
            std::printf("walk step %d filler 0x%llx+%zu then got 0x%llx%s\n", step, (unsigned long long)filler, gap,
                        (unsigned long long)got, got == want ? " same" : "");
        }
        if (got == want) {
            ++ok;
            // Map it to see it is usable there.
            CUmemGenericAllocationHandle h;
            check(cuMemCreate(&h, bytes, &prop, 0), "cuMemCreate");
            check(cuMemMap(got, bytes, 0, h, 0), "cuMemMap");
            CUmemAccessDesc a{};
            a.location = prop.location;
            a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            check(cuMemSetAccess(got, bytes, &a, 1), "cuMemSetAccess");
            check(cuMemsetD8(got, 7, bytes), "cuMemsetD8");
            check(cuCtxSynchronize(), "cuCtxSynchronize");
            std::printf("mapped 0x%llx\n", want);
        } else {
            mapsNear(want, want + bytes);
        }
    }
    for (auto& f : fillers) cuMemAddressFree(f.first, f.second);
    std::printf("result %d of %d at the address asked for\n", ok, asked);
    return 0;
}
