#pragma once
// Replaying a captured launch (issue 29 item 2): what `lowerscope-cli run --from-capture FILE
// --launch ID` and `compare --from-capture` send to the runner. The capture saved, for a selected
// launch, its parameter bytes and the device memory they reach (launch_snapshot.h); here that
// becomes a RunRequest's regions (the memory, mapped back by the runner at its original
// addresses: app/runner/restored_memory.h) and a LaunchVariant whose parameters are the captured
// bytes, run from the captured cubin (the original) or from a rebuilt one (a variant). After the
// run, the replay's memory is checked against the memory as the launch left it in the program.

#include "core/capture/launch_snapshot.h"
#include "core/run/protocol.h"

#include <string>
#include <vector>

namespace lowerscope::capture {

struct ReplayInput {
    std::string documentPath;
    LaunchSnapshot snapshot;
    std::string kernelDemangled;              // for reports
    std::string cubinPath;                    // the module that holds the kernel (in the capture's folder)
    std::vector<uint8_t> cubin;
    std::vector<std::vector<uint8_t>> before; // per snapshot region
    std::vector<std::vector<uint8_t>> after;  // per snapshot region; empty when not saved
    std::vector<std::string> notes;           // what the replay cannot restore (omitted memory, ...)
    // The launch's GPU duration in the program as the capture recorded it (0 when the document
    // has no kernel record for it) and how: CUPTI's serialising records (comparable with
    // gpu__time_duration) or its concurrent ones (the blocks' span: the runner's kernel_timestamps).
    double programDurationNs = 0;
    bool programSerialized = false;
};

// Reads launch `launchId` ("PID-CORR", or "" when the document saved exactly one) of the capture
// document at `documentPath`: the snapshot, the cubin of its kernel and every region's bytes
// (all files inside the document's folder). False with `error` one sentence: no such launch, a
// launch saved with an error, no parameter layout, a file missing or of the wrong size.
bool loadReplay(const std::string& documentPath, const std::string& launchId, ReplayInput& out, std::string& error);

// The launch as captured, from `cubin` (in.cubin for the original, a rebuilt module for a
// variant): kernel by its mangled name, grid, block, cluster, dynamic shared memory and one
// scalar parameter slot per captured parameter holding the captured bytes.
LaunchVariant replayVariant(const ReplayInput& in, std::vector<uint8_t> cubin, const std::string& label);

// The request's regions: the memory before the launch, elements of `type` (how outputs are
// compared between variants; u8 = byte for byte). None must keep its original address: where the
// driver gives other addresses (on an H100 with driver 580 it never gave back addresses inside its
// own allocation heap, bench/vmm_probe.sh) the runner moves the parameter words that point into
// the memory, the pointers the capture found stored in it (relocatePointers), and re-points tensor
// maps (a 128-byte parameter, or a 128-byte allocation holding an address) through the driver.
std::vector<MemoryRegion> replayRegions(const ReplayInput& in, ElemType type);

// The replay's memory (the "mem@0x…" outputs of a variant, with their bytes: RunRequest's
// returnOutputs) against the memory as the launch left it in the program.
struct ReplayCheck {
    std::string name;          // "mem@0x…"
    uint64_t bytes = 0;
    bool compared = false;     // the capture saved the memory after the launch, and the output came back
    uint64_t differingBytes = 0;
    int64_t firstDifference = -1;
};
std::vector<ReplayCheck> checkReplay(const ReplayInput& in, const std::vector<OutputReport>& outputs);

} // namespace lowerscope::capture
