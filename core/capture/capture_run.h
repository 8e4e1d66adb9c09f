#pragma once
// Runs a user's program under the injection library (app/inject, CUDA_INJECTION64_PATH) and turns
// what its processes reported into a lowerscope.capture/1 document (capture_document.h). The
// program runs unmodified, as the user would start it, in its own process group: cancelling (the
// flag, an interrupt of the CLI, the timeout) kills the whole group. Its stdout and stderr are the
// caller's, unless CaptureSpec::output takes them (a window shows them: OutputTail keeps a bounded,
// escaped tail). No shell: argv is passed as given.
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
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
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
    // Kernel durations from CUPTI's serialising kernel records (CUPTI_ACTIVITY_KIND_KERNEL): every
    // kernel runs alone, as under Nsight Compute, and its duration includes what the front end adds
    // around the blocks (comparable with ncu's gpu__time_duration). Without it the concurrent records
    // (the program's own concurrency kept; the blocks' span, Nsight Systems' definition, about
    // 1-1.5 us shorter on an H100; docs/PERFORMANCE.md "Capture and replay").
    bool serializeKernels = false;
    // When set, the program's stdout and stderr go into one pipe (in the order the program wrote
    // them) whose bytes are passed here as they arrive, on the thread that runs runCapture, instead
    // of to the caller's stdout and stderr; its stdin is then /dev/null. Untrusted bytes: see
    // OutputTail. Unset (the CLI): the program writes to the caller's terminal as it would alone.
    std::function<void(std::string_view)> output;
};

// The end of an untrusted program's output, for a window to show: at most `maxLines` lines and
// about `maxBytes` bytes of text, the oldest lines dropped first; control bytes and invalid UTF-8
// written as \xNN (tab kept), "\r\n" ends a line and a lone '\r' starts its line over (as a
// terminal shows a progress line). A line longer than `maxBytes` is cut. Not thread-safe.
class OutputTail {
public:
    explicit OutputTail(size_t maxLines = 200, size_t maxBytes = 64 * 1024);
    void append(std::string_view bytes);
    // The last lines (at most maxLines, the unfinished one included), '\n' between them.
    std::string text() const;
    uint64_t droppedLines() const { return m_dropped + hiddenByPartial(); } // lines no longer shown
    uint64_t receivedBytes() const { return m_received; } // everything appended so far

private:
    void finishLine();
    size_t hiddenByPartial() const;

    size_t m_maxLines;
    size_t m_maxBytes;
    std::deque<std::string> m_lines; // escaped, complete
    size_t m_bytes = 0;              // of m_lines
    std::string m_partial;           // raw bytes of the unfinished line (at most m_maxBytes)
    bool m_pendingCr = false;        // a '\r' came last: a line end if '\n' follows, else a restart
    uint64_t m_dropped = 0;
    uint64_t m_received = 0;
};

// "run.launches" for "out/run.json": the snapshot folder's name, next to the document.
std::string snapshotFolderName(const std::string& outputPath);

struct CaptureOutcome {
    bool ok = false;          // the document was written (the program may still have failed: see run)
    std::string error;        // why not (one sentence)
    CaptureRunInfo run;
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
