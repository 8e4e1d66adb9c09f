#pragma once
// What the runner collects when a request asks for a profile instead of a timing (issue 14):
// hardware counters of the kernel (CUPTI Range Profiler), counts per SASS instruction (CUPTI SASS
// Metrics) or warp stall samples per SASS instruction (CUPTI PC Sampling). One collection per
// request, so each has its own deadline and a failure of one loses nothing of the others.
//
// Runner result JSON of one variant's profile ("profile" in the variant result, see protocol.h):
//   {"collection": "kernel" | "instructions" | "samples",
//    "chip": "GH100", "function": "_Z5saxpyifPKfPf",
//    "cubin_crc": 3536459260,            CUPTI's CRC of the module image (its records carry it)
//    "cubin_digest": "9f0c…",            XXH3-64 of the image as sent: the CPU side's key
//    "launches": 1, "passes": 11, "collect_ms": 412.5,
//    "metrics": [{"name": "dram__bytes_read.sum", "value": 134224384, "unit": "byte"}, …],
//    "invalid_metrics": ["…"],           names the chip does not know (kernel)
//    "instructions": [{"pc_offset": 208,   bytes from the function's first instruction
//                      "counts": {"smsp__sass_inst_executed": 524288, …},         (instructions)
//                      "samples": {"long_scoreboard": 412, "selected": 31, …}}],  (samples)
//    "total_samples": 9120, "dropped_samples": 0, "sampling_period_log2": 11,     (samples)
//    "note": ""}                         how the collection deviated from the plan, if it did
// Stall reasons are CUPTI's names without the "smsp__pcsamp_warps_issue_stalled_" prefix
// ("long_scoreboard", "long_scoreboard_not_issued", …), as in ncu's smsp__pcsamp_* metrics.
// The per-line aggregation and the join onto the lowering model are the CPU side's
// (schema lowerscope.profile/1); recorded examples are in tests/data/profile/.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

// A malformed profile in JSON (the message names the field).
struct ProfileFormatError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class ProfileCollection { None, Kernel, Instructions, Samples };
// "", "kernel", "instructions", "samples".
std::string profileCollectionName(ProfileCollection c);
// Accepts the names above ("" is None); nullopt for anything else.
std::optional<ProfileCollection> parseProfileCollection(const std::string& name);
// Instruction counts and stall samples leave CUPTI state the runner cannot reset: it ends after
// answering such a request (one variant per request), and the client starts a spare runner
// while one runs.
bool profileEndsRunner(ProfileCollection c);

// One kernel metric as CUPTI evaluated it for one launch.
struct ProfileMetric {
    std::string name; // Nsight Compute metric name, e.g. "dram__bytes_read.sum"
    double value = 0;
    std::string unit; // CUPTI's dimension: "byte", "nanosecond", "percent", "instruction/gpc_cycle", ""
    bool operator==(const ProfileMetric&) const = default;
};

// Counts and stall samples of one SASS instruction of the profiled function.
struct InstructionProfile {
    uint64_t pcOffset = 0;                   // bytes from the function's first instruction
    std::map<std::string, uint64_t> counts;  // SASS metric name → count
    std::map<std::string, uint64_t> samples; // stall reason → samples
    bool operator==(const InstructionProfile&) const = default;
};

// One variant's profile.
struct ProfileData {
    ProfileCollection collection = ProfileCollection::None;
    std::string chip;                             // CUPTI's chip name, e.g. "GH100"
    std::string function;                         // the profiled function as CUPTI names it (mangled)
    uint64_t cubinCrc = 0;                        // CUPTI's CRC of the module image (0 = not computed)
    std::string cubinDigest;                      // XXH3-64 hex of the module image as sent
    int launches = 0;                             // launches of the kernel that were profiled
    int passes = 0;                               // replay passes (kernel metrics)
    double collectMs = 0;                         // runner wall time of the collection
    std::vector<ProfileMetric> metrics;           // kernel
    std::vector<std::string> invalidMetrics;      // kernel: names the chip does not know
    std::vector<InstructionProfile> instructions; // instructions, samples: ascending pcOffset
    uint64_t totalSamples = 0;                    // samples: all samples taken (includes other kernels)
    uint64_t droppedSamples = 0;                  // samples: lost to buffer overflow
    int samplingPeriodLog2 = 0;                   // samples: 2^n SM cycles between samples
    std::string note;                             // how the collection deviated from the plan, "" if not
    bool operator==(const ProfileData&) const = default;
};

// The metric named `name` in `metrics`, nullptr when absent.
const ProfileMetric* findMetric(const std::vector<ProfileMetric>& metrics, const std::string& name);

// Whether `m` is a percentage (unit "percent" or a name ending in ".pct").
bool isPercentMetric(const ProfileMetric& m);

// Why `m`'s value cannot be a fact, or nullopt when it can: not finite, negative, or a percentage
// above 100. Such values are flagged, never drawn. (A ratio metric whose numerator and denominator
// were counted in different replay passes goes past 100 % when the kernel moves little data:
// Lowerscope's H200 profile of an FFMA chain, 109 KB of L2 traffic, recorded an L2 hit rate of
// 297 %.)
std::optional<std::string> metricRangeProblem(const ProfileMetric& m);

// The default kernel metric set (issue 14): duration, DRAM bytes, L2/L1 hit rates and bytes,
// achieved occupancy, issue activity and IPC, SM/memory/DRAM throughput as % of peak, branch and
// thread-per-instruction efficiency, shared-memory bank conflicts. All evaluate on sm_90.
const std::vector<std::string>& defaultKernelMetrics();
// The default SASS metrics (instructions, thread instructions, predicated-on thread instructions,
// global load/store instructions and sectors, shared wavefronts, divergent branch targets).
const std::vector<std::string>& defaultInstructionMetrics();
// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" → "long_scoreboard"; other names unchanged.
std::string shortStallReason(const std::string& cuptiName);

nlohmann::json toJson(const ProfileMetric& v);
nlohmann::json toJson(const InstructionProfile& v);
nlohmann::json toJson(const ProfileData& v);
// Throw ProfileFormatError naming the malformed field.
void fromJson(const nlohmann::json& j, ProfileMetric& v);
void fromJson(const nlohmann::json& j, InstructionProfile& v);
void fromJson(const nlohmann::json& j, ProfileData& v);

} // namespace lowerscope
