#pragma once
// What an automated loop needs to trust a result (issue 33, item 3):
//   * buildProvenance: where a build came from — the source's digest, the options, the toolchain's
//     versions — so that two results can be told apart or matched without rebuilding;
//   * measurementProvenance: those builds with the device, the clock the samples are on, the mode
//     and the L2 state of a measurement;
//   * measurementGuards: whether a measured time may be reported at all. A kernel that left an
//     output unwritten (the runner's two poison launches, core/run/protocol.h OutputReport) did not
//     do the work being timed — dead code, a cached result, an early exit — so its time is refused;
//     a warm L2 (hot mode) is stated, since a loop that compares a warm time with a cold one fools
//     itself. writeMeasurement puts the guards in every run document ("guards").
#include "core/build/build_options.h"
#include "core/build/toolchain.h"
#include "core/run/protocol.h"

#include <nlohmann/json.hpp>

#include <string>

namespace lowerscope {

struct MeasurementRecord;

// {"source", "source_digest" (XXH3-128 of the file's bytes, hex; null for a folder or an unreadable
// file: a Triton cache entry is identified by its own hash), "source_bytes", "options",
// "nvcc_args", "toolchain": {"nvcc", "ptxas", "nvdisasm", "cuobjdump"} versions (null when not
// found), "toolchain_fingerprint", "lowerscope"}. The digest covers the file named; the headers it
// includes are covered by the build's cache key.
nlohmann::json buildProvenance(const Toolchain& toolchain, const std::string& sourcePath, const BuildOptions& options);

// {"builds": `builds` (one buildProvenance per side), "device": {"name", "compute_capability",
// "driver_version"}, "duration_clock" (per side), "mode" (per side), "l2" (per side: "flushed" or
// "warm")}. A record without variants gives the builds alone.
nlohmann::json measurementProvenance(const nlohmann::json& builds, const MeasurementRecord& record);

// One launch's guards: {"outputs_checked" (the runner checked at least one output),
// "outputs_fully_written", "unwritten" [{"name", "unwritten", "count"}], "l2" ("flushed": cold,
// flushed before every timed launch; "warm": hot, graph replays that keep data in L2),
// "throttled_samples", "time_valid", "refusal" ("" when valid, else why no time may be reported)}.
nlohmann::json launchGuards(const VariantResult& variant);

// The L2 state a mode times with: "flushed" (cold), "warm" (hot), "unknown" otherwise.
const char* l2StateOfMode(const std::string& mode);

} // namespace lowerscope
