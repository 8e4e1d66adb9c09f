#include "core/build/failure_kind.h"

#include <array>
#include <string_view>
#include <utility>

namespace lowerscope {

std::string transientFailureReason(const ProcessResult& run) {
    if (!run.started()) return "the tool did not start";
    if (run.cancelled) return "cancelled";
    if (run.timedOut) return "timed out";
    if (run.signal != 0) return "killed by signal " + std::to_string(run.signal);
    if (run.exitCode == 0) return "the tool reported success";
    // What nvcc, the shell it runs its steps through, gcc, cicc and ptxas write when the failure is
    // not about the code. Matched in stderr and stdout (the shell's "Killed" goes to either).
    static const std::array<std::pair<std::string_view, const char*>, 16> markers{{
        {"died due to signal", "a tool died from a signal"},
        {"core dumped", "a tool crashed"},
        {"Segmentation fault", "a tool crashed"},
        {"Killed", "a tool was killed"},
        {"Aborted", "a tool aborted"},
        {"internal compiler error", "a tool crashed (internal compiler error)"},
        {"No space left on device", "the disk is full"},
        {"Disk quota exceeded", "the disk quota is exceeded"},
        {"Input/output error", "an I/O error"},
        {"Read-only file system", "a read-only file system"},
        {"Cannot allocate memory", "out of memory"},
        {"out of memory", "out of memory"},
        {"Resource temporarily unavailable", "a resource was temporarily unavailable"},
        {"Too many open files", "too many open files"},
        {"Stale file handle", "a stale file handle"},
        {"Permission denied", "a permission problem"},
    }};
    for (const auto& [marker, why] : markers)
        if (run.stderrText.find(marker) != std::string::npos || run.stdoutText.find(marker) != std::string::npos)
            return why;
    return {};
}

} // namespace lowerscope
