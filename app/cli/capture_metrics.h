#pragma once
// `capture --metrics kernel,instructions,samples` (issue 29 item 1): for every launch the capture
// saved (--save-launches), the asked-for profile collections, taken on the launch replayed by the
// runner on its captured memory (core/capture/replay.h; the runner runs with --fixed-addresses)
// and joined onto the captured kernel's SASS rows, PTX and source lines exactly as `profile` joins
// them. Each launch's lowerscope.profile/1 document is written next to its saved memory
// (CAPTURE.launches/ID/profile.json) and its summary printed. The work is the core's
// (core/capture/capture_metrics.h, shared with the GUI); this prints it.
#include "core/capture/capture_metrics.h"

#include <string>
#include <vector>

namespace lowerscope::cli {

// launch (PID-CORR), document (the profile document written, "" when none), exitCode (as
// profile: 0 all came back, 1 a collection failed on the kernel, 2 not available) and errors.
using CapturedProfile = capture::CapturedProfile;

// Profiles every saved launch of the capture at `capturePath`. `collections` as profile's
// --metrics ("kernel,instructions,samples"); `timeoutS` the runner's silence deadline; `runner`
// the --runner command ("" = the local runner). Throws CliFailure (2) for a bad list, a runner
// command that cannot be formed or a capture whose saved launches cannot be read.
std::vector<CapturedProfile> profileCapturedLaunches(const std::string& capturePath, const std::string& collections,
                                                     double timeoutS, const std::string& runner = "");

} // namespace lowerscope::cli
