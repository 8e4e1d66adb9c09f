// `capture --metrics` (capture_metrics.h): core/capture/capture_metrics.h does the work; this
// starts the replay runner the flags ask for and prints each launch as it is done.
#include "app/cli/capture_metrics.h"

#include "app/cli/commands.h"
#include "app/cli/compare_run.h"
#include "app/cli/replay_run.h"

#include "core/run/profile_collect.h"
#include "core/untrusted.h"

#include <cstdio>
#include <iostream>

namespace lowerscope::cli {

std::vector<CapturedProfile> profileCapturedLaunches(const std::string& capturePath, const std::string& collections,
                                                     double timeoutS, const std::string& runnerCommand) {
    ProfileCollectOptions options;
    std::string error;
    if (!parseProfileCollections(collections, options.collections, error)) throw CliFailure{2, "--metrics: " + error};
    LaunchArgs launchArgs;
    launchArgs.timeoutS = timeoutS;
    launchArgs.runner = runnerCommand;
    std::vector<AddressRange> hold;
    if (!capture::captureAddressRanges(capturePath, hold, error)) throw CliFailure{2, escapeControl(error)};
    const std::unique_ptr<ProcessRunner> replay = replayRunner(launchArgs, hold);

    const auto stage = [](const std::string& id, const std::string& name) {
        if (name == capture::kCapturedProfilePrepareStage) return;
        std::cerr << "lowerscope-cli capture: launch " << id << ": collecting " << name << '\n';
    };
    const auto done = [](const CapturedProfile& p) {
        if (!p.collected) return; // its errors are printed by the caller
        if (!p.writeFailed.empty()) std::cerr << "lowerscope-cli: error: cannot write " << p.writeFailed << '\n';
        std::printf("\nlaunch %s (replayed on its captured memory):\n", p.launch.c_str());
        printProfileSummary(p.profile.document, p.profile.join, p.profile.metrics);
        for (const std::string& e : p.profile.errors)
            std::cerr << "lowerscope-cli capture: launch " << p.launch << ": " << escapeControl(e) << '\n';
    };
    capture::CapturedProfiles all = capture::profileCapturedLaunches(capturePath, options, *replay, stage, nullptr, done);
    if (!all.ok) throw CliFailure{2, escapeControl(all.error)};
    return std::move(all.launches);
}

} // namespace lowerscope::cli
