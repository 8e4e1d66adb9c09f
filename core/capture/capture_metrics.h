#pragma once
// Profiles of captured launches (issue 29): for every launch a capture saved (--save-launches,
// launch_snapshot.h), the asked-for profile collections (kernel metrics, instruction counts, stall
// samples), taken on the launch replayed by the runner on its captured memory (replay.h; the runner
// runs with --fixed-addresses, replayRunnerConfig) and joined onto the captured kernel's SASS rows
// exactly as `lowerscope-cli profile` joins them (core/run/profile_collect.h). Each launch's
// lowerscope.profile/1 document is written next to its saved memory:
// STEM.launches/ID/profile.json beside the capture document STEM.json.
//
// Shared by `lowerscope-cli capture --metrics` (which prints each launch's summary) and the GUI's
// File → Profile a program… (which shows progress and errors in its dialog). No Qt, no printing;
// nothing here throws for a runner, a launch or a file that fails: each launch says what went wrong.

#include "core/capture/launch_snapshot.h"
#include "core/run/address_ranges.h"
#include "core/run/profile_collect.h"
#include "core/run/runner_client.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace lowerscope::capture {

// The runner that replays captured launches: `config` with "--fixed-addresses" appended to its
// command (defaultRunnerCommand() first when the command is empty), so that the captured memory
// can return at its original addresses. The one rule for every replay runner: `run` / `compare
// --from-capture`, `capture --metrics` and the GUI's metrics. False with `error` (why no runner
// command can be formed: a $LOWERSCOPE_RUNNER that cannot be split) and `config` unchanged.
// `hold`: the address ranges of the captured memory to come (snapshotAddressRanges), passed as
// --hold-addresses so that the runner keeps them free from its start (app/runner/address_hold.h).
bool replayRunnerConfig(RunnerConfig& config, std::string& error, const std::vector<AddressRange>& hold = {});

// The address ranges of the memory of `snapshots` (those saved without error), merged.
std::vector<AddressRange> snapshotAddressRanges(const std::vector<LaunchSnapshot>& snapshots);
// The same for the saved launches of the capture document at `capturePath`; false with `error`
// when it cannot be read.
bool captureAddressRanges(const std::string& capturePath, std::vector<AddressRange>& ranges, std::string& error);

// The profile document of launch `launchId` of the capture document at `capturePath`:
// STEM.launches/ID/profile.json in the capture's folder (it may not exist).
std::string capturedProfilePath(const std::string& capturePath, const std::string& launchId);

// One saved launch, profiled (or why not).
struct CapturedProfile {
    std::string launch;               // PID-CORR
    std::string kernel;               // its kernel (mangled), "" when the launch could not be read
    std::string document;             // the profile document written ("" when none)
    std::string writeFailed;          // the document's path when it could not be written ("" otherwise)
    // As `profile`: 0 every collection came back, 1 a collection failed on the kernel (or was
    // cancelled), 2 not available here (no device, no CUPTI, counters not permitted) or the launch
    // cannot be replayed (its memory or cubin unreadable, no SASS for its kernel).
    int exitCode = 0;
    std::vector<std::string> errors;  // one sentence each (the collections' errors when collected)
    bool collected = false;           // the collections were asked for: `profile` holds what came back
    bool cancelled = false;           // the cancel flag stopped it (before or during its collections)
    ProfileCollectResult profile;     // document, join and metrics (printProfileSummary's input)
};

struct CapturedProfiles {
    bool ok = false;                  // the capture's saved launches could be read
    std::string error;                // why not (one sentence; untrusted text not escaped)
    std::vector<CapturedProfile> launches; // in the document's order
};

// The stage reported before a launch's replay is read and its cubin disassembled; the collections
// that follow are reported by their names ("kernel", "instructions", "samples").
inline constexpr const char* kCapturedProfilePrepareStage = "prepare";

using CapturedStageFn = std::function<void(const std::string& launch, const std::string& stage)>;
using CapturedProfileFn = std::function<void(const CapturedProfile&)>;

// Profiles every saved launch of the capture at `capturePath` (the order of its "snapshots") with
// `options.collections` through `runner` (the caller's: made from replayRunnerConfig, on the machine
// that ran the program, since the addresses repeat only there). `stage(launch, name)` is called
// before each step (kCapturedProfilePrepareStage, then each collection); `done` with each launch's
// result as soon as it is known (the CLI prints it then). Setting `*cancel` stops the collection
// that runs (the runner is killed) and skips the launches not begun (cancelled, not written).
// A launch that cannot be replayed (saved with an error, memory missing, no SASS for its kernel)
// or profiled is recorded and the next one is tried; a profile collected (even partly) is written.
// Not ok only when the capture's launches cannot be read (no document, not a capture, a bad
// "snapshots" entry).
CapturedProfiles profileCapturedLaunches(const std::string& capturePath, const ProfileCollectOptions& options,
                                         Runner& runner, const CapturedStageFn& stage = {},
                                         std::atomic<bool>* cancel = nullptr, const CapturedProfileFn& done = {});

} // namespace lowerscope::capture
