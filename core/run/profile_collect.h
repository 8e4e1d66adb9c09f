#pragma once
// One profile of one launch (issue 14): the runner collects each asked-for kind of hardware
// evidence (kernel metrics, instruction counts, stall samples; one runner request per collection,
// each with its own deadline), the answers are checked against the build (profileMismatch: never
// joined onto another build's rows) and joined onto the kernel's SASS, PTX and source lines, and
// the whole is written as a `lowerscope.profile/1` document. Shared by `lowerscope-cli profile`,
// `compare --profile`, `experiment --profile` and the GUI's Profile button. No Qt; does not throw
// for runner failures (they are recorded per collection).

#include "core/analysis/diff.h"
#include "core/analysis/lowering.h"
#include "core/run/profile_data.h"
#include "core/run/profile_join.h"
#include "core/run/runner_client.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace lowerscope {

// What is profiled: the launch as the runner gets it and the kernel's SASS of the same build.
struct ProfileTarget {
    LaunchVariant variant;        // with the build's cubin
    const SassFunction* sass = nullptr; // the kernel's SASS in that build (not owned)
    std::string mangled;          // the kernel's symbol
    std::string signature;        // demangled, for people
    std::string file;             // the source's file name (display only)
    std::string arch;             // e.g. "sm_90"
    std::string buildOptions;     // nvcc options, shell-quoted (recorded)
    std::vector<std::string> args; // the launch's argument specs (recorded)
    std::vector<MemoryRegion> regions; // a replayed captured launch: its memory (core/capture/replay.h;
                                       // the runner must run with --fixed-addresses)
};

struct ProfileCollectOptions {
    std::vector<ProfileCollection> collections{ProfileCollection::Kernel, ProfileCollection::Instructions,
                                               ProfileCollection::Samples};
    std::vector<std::string> kernelMetrics; // empty = defaultKernelMetrics()
};

struct ProfileCollectResult {
    nlohmann::json document;               // lowerscope.profile/1 (whatever came back; see exitCode)
    ProfileJoin join;                       // call-site attribution of what came back
    std::vector<ProfileMetric> metrics;     // the kernel collection's metrics (empty without it)
    // 0 every collection came back; 1 a collection failed on the kernel (fault, refusal,
    // offsets that fit no instruction); 2 profiling is not available here (no device, no CUPTI,
    // counters not permitted, profiler busy) — timing may still work.
    int exitCode = 0;
    std::vector<std::string> errors;        // one line per failed collection ("samples: ...")
};

// Parses "kernel,instructions,samples" (any subset, any order, no duplicates kept). False with
// `error` naming the unknown item.
bool parseProfileCollections(const std::string& list, std::vector<ProfileCollection>& out, std::string& error);

// Collects `options.collections` for `target` through `runner` (started when needed). `stage` is
// called with the collection's name before each request; `cancel` stops between and during
// requests (the unfinished ones are recorded as cancelled).
ProfileCollectResult collectProfile(Runner& runner, const ProfileTarget& target, const ProfileCollectOptions& options,
                                    const std::function<void(const std::string&)>& stage = {},
                                    std::atomic<bool>* cancel = nullptr);

// Per-kernel metric deltas of two profile/1 documents: [{"name", "unit", "a", "b", "delta",
// "ratio"}] for every metric present in both (ratio = b / a, null when a is 0).
nlohmann::json profileMetricDeltas(const nlohmann::json& a, const nlohmann::json& b);

// One row of the aligned SASS diff of A and B with what each side's profile says of it.
struct ProfileRowDelta {
    int row = 0;                     // index into SassDiff::rows
    int a = -1, b = -1;              // instruction indexes (-1: the row has no instruction there)
    DiffStatus status = DiffStatus::Equal;
    uint64_t executedA = 0, executedB = 0; // smsp__sass_inst_executed (warp-level)
    uint64_t samplesA = 0, samplesB = 0;   // stall samples, all reasons
};
// The rows of `diff` where either side executed or was sampled, in row order. `a`/`b` are the
// joins of each side's profile onto the functions the diff aligned (rows in address order).
std::vector<ProfileRowDelta> profileRowDeltas(const SassDiff& diff, const ProfileJoin& a, const ProfileJoin& b);
// As JSON for compare/1's "profile" (address and opcode of each side, status, counts, samples,
// deltas), rows ordered as the diff.
nlohmann::json profileRowDeltasJson(const std::vector<ProfileRowDelta>& rows, const SassFunction& a,
                                    const SassFunction& b);


} // namespace lowerscope
