#pragma once
// `run --from-capture` and `compare --from-capture` (cmd_replay.cpp): a captured launch replayed
// standalone, or against a rebuilt variant, on its restored memory.
#include "app/cli/compare_run.h"
#include "core/run/address_ranges.h"

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>

namespace lowerscope::cli {

struct ReplayArgs {
    std::string capture;          // --from-capture
    std::string launch;           // --launch PID-CORR ("" = the only one saved)
    std::string compareAs = "u8"; // --compare-as
    bool programClock = false;    // --program-clock: time on the clock the capture timed the program with
};

void addReplayFlags(CLI::App& cmd, ReplayArgs& args);
// The runner the flags ask for (--runner, --timeout), started with --fixed-addresses. Throws
// CliFailure (2) when no runner command can be formed.
// `hold`: the captured memory's address ranges (capture::snapshotAddressRanges).
// `env`: extra environment for the runner (--program-clock's clock choice).
std::unique_ptr<ProcessRunner> replayRunner(const LaunchArgs& launch, const std::vector<AddressRange>& hold,
                                            const std::map<std::string, std::string>& env = {});
// Exit codes as run / compare: 0, 1 kernel or build error, 2 usage / setup.
int runReplay(const ReplayArgs& replay, const LaunchArgs& launch);
int compareReplay(const ReplayArgs& replay, const CompareArgs& compare);

} // namespace lowerscope::cli
