#pragma once
// Runs a user's program under the injection library (app/inject, CUDA_INJECTION64_PATH) and turns
// what its processes reported into a lowerscope.capture/1 document (capture_document.h). The
// program runs unmodified, as the user would start it, in its own process group: cancelling (the
// flag, an interrupt of the CLI, the timeout) kills the whole group. Its stdout and stderr are the
// caller's. No shell: argv is passed as given.
//
// Environment given to the program, on top of the caller's:
//   CUDA_INJECTION64_PATH          the injection library (the driver loads it at cuInit)
//   LOWERSCOPE_CAPTURE_EVENTS      a fresh folder where each process writes events-PID.jsonl
//   LOWERSCOPE_CAPTURE_CUBINS      the document's folder, where cubins go as HASH.cubin
//   LOWERSCOPE_CAPTURE_KERNEL, LOWERSCOPE_CAPTURE_SKIP, LOWERSCOPE_CAPTURE_COUNT   the launch filter
// and with saveLaunches (launch_snapshot.h):
//   LOWERSCOPE_CAPTURE_SNAPSHOTS     the folder "STEM.launches" next to the document (emptied of an
//                                    earlier capture's PID-CORR folders first), where the selected
//                                    launches' memory goes
//   LOWERSCOPE_CAPTURE_MEMORY_LIMIT  bytes of device memory saved per launch (before the launch;
//                                    as much again after it)
// and the program then runs without address-space randomisation (personality ADDR_NO_RANDOMIZE).

#include "core/capture/capture_document.h"

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace lowerscope::capture {

struct CaptureSpec {
    std::vector<std::string> argv;            // program (searched on PATH without '/') and its arguments
    std::string workingDir;                   // "" = the caller's
    std::map<std::string, std::string> env;   // added to the caller's environment
    std::string injectionLibrary;             // liblowerscope_inject.so (findInjectionLibrary)
    std::string outputPath;                   // the document; its folder receives the cubins
    LaunchFilterOptions filter;
    std::chrono::milliseconds timeout{0};     // 0 = none
    std::atomic<bool>* cancel = nullptr;
    // Save the selected launches' parameters and the device memory they reach, for replay
    // (`lowerscope-cli run --from-capture OUT --launch ID`); at most memoryLimit bytes a launch.
    bool saveLaunches = false;
    uint64_t memoryLimit = uint64_t(1) << 30;
};

// "run.launches" for "out/run.json": the snapshot folder's name, next to the document.
std::string snapshotFolderName(const std::string& outputPath);

struct CaptureOutcome {
    bool ok = false;          // the document was written (the program may still have failed: see run)
    std::string error;        // why not (one sentence)
    CaptureRunInfo run;
    nlohmann::json document;
    CaptureSummary summary;   // the document as read back
    std::vector<LaunchSnapshot> snapshots; // the document's snapshots as read back (saveLaunches)
};

// The injection library: $LOWERSCOPE_INJECT, else liblowerscope_inject.so next to this program,
// else ../lib/lowerscope/ from it (an installed tree). "" with `error` when none exists.
std::string findInjectionLibrary(std::string& error);

// Runs the program and writes the document. Validates the filter first (an invalid regex is an
// error before anything runs).
CaptureOutcome runCapture(const CaptureSpec& spec);

} // namespace lowerscope::capture
