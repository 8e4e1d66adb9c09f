#pragma once
// `capture --metrics kernel,instructions,samples` (issue 29 item 1): for every launch the capture
// saved (--save-launches), the asked-for profile collections, taken on the launch replayed by the
// runner on its captured memory (core/capture/replay.h; the runner runs with --fixed-addresses)
// and joined onto the captured kernel's SASS rows, PTX and source lines exactly as `profile` joins
// them. Each launch's lowerscope.profile/1 document is written next to its saved memory
// (CAPTURE.launches/ID/profile.json) and its summary printed.
#include <string>
#include <vector>

namespace lowerscope::cli {

struct CapturedProfile {
    std::string launch;               // PID-CORR
    std::string document;             // the profile document written ("" when none)
    int exitCode = 0;                 // as profile: 0 all came back, 1 a collection failed on the kernel, 2 not available
    std::vector<std::string> errors;
};

// Profiles every saved launch of the capture at `capturePath`. `collections` as profile's
// --metrics ("kernel,instructions,samples"); `timeoutS` the runner's silence deadline; `runner`
// the --runner command ("" = the local runner). Throws CliFailure (2) for a bad list.
std::vector<CapturedProfile> profileCapturedLaunches(const std::string& capturePath, const std::string& collections,
                                                     double timeoutS, const std::string& runner = "");

} // namespace lowerscope::cli
