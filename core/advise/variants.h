#pragma once
// Variants the advisor can build itself (issue 34, item 2): for a finding that maps to something
// Lowerscope controls, the changed build or launch that tests it, with its own predicted effect.
//
//   finding                 variant
//   occupancy.registers     --maxrregcount R (the largest R that fits one more block per SM, and the
//                           one that fits two more); a "min_blocks" tunable (a define inside
//                           __launch_bounds__) set one and two higher. Beyond the first step each
//                           is predicted at its own T′: B/A = 1 − s × (1 − T/T′), else T/T′
//   occupancy.block_size    the block twice as large, the grid halved (1-D launches only)
//   occupancy.shared_memory the two next smaller values of a "tile" tunable, each predicted at the
//                           occupancy of the static shared memory scaled by the tile ratio
//   latency                 the next larger value of an "unroll" tunable (more loads in flight)
//   bank_conflicts          each other value of a "pad" tunable (shared-memory padding)
//   spills                  --maxrregcount doubled (when the build capped registers); a lower
//                           "min_blocks" tunable
//   few_warps               each larger value of an "unroll" tunable (at most two), predicted
//                           r = max(U/U′, W/16) (B/A = 1 − s × (1 − r) with a waiting share s)
//   tail                    the block size among half and double that fills the waves best; under
//                           one wave, among half and a quarter: the one that leaves the fewest
//                           threads on the busiest SM (B/A = ⌈G′/SMs⌉·B′ / (⌈G/SMs⌉·B))
//   uncoalesced             -Xptxas -dlcm=cg (loads cached in L2 only), predicted B/A = 1: the
//                           sectors served do not change; a measured change shows L1 reuse or thrashing
//   math_precision          --fast-math; --prec-div false when division lines hold ≥ 5 % of the
//                           instructions (B/A = 1 − m_div × 0.5)
//   launch_overhead         graph replay: proposed, not testable as an A/B of one launch (the
//                           reproduce line names `experiment --graph-break-even`)
// divergence needs a change to the code: no variant.
//
// Tunables are declared in the kernel's sidecar entry (kernels/NAME.json), "tunables": an object
// from a define's name to {"values": [..numbers..], "default": N, "role": "unroll" | "tile" |
// "pad" | "min_blocks"}. The source reads the define (with its default under #ifndef); the advisor
// passes -D NAME=V. Example: kernels/sgemm_tiled.json.

#include "core/advise/findings.h"
#include "core/build/build_options.h"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

struct Tunable {
    std::string name;            // the define
    std::vector<long long> values;
    long long defaultValue = 0;  // what the source uses without -D
    std::string role;            // "unroll", "tile", "pad", "min_blocks"
    bool operator==(const Tunable&) const = default;
};

// The "tunables" of a sidecar's entry for `kernel` (plain name as the sidecar writes it); an entry
// without the key has none. Throws std::invalid_argument naming the bad field (at most 16
// tunables of 64 values; names are C identifiers; the default is one of the values; known roles).
std::vector<Tunable> tunablesFromSidecar(const nlohmann::json& sidecar, const std::string& kernel);

struct Variant {
    std::string id;           // "<finding id>/<change>", unique within one advice
    std::string findingId;
    std::string change;       // for people: "--maxrregcount 64 (2 → 3 blocks per SM)"
    std::string optionFlags;  // added after A's build options (build-option string syntax); "" = none
    std::optional<std::array<uint32_t, 3>> grid, block; // B's launch when it changes
    bool graph = false;       // graph replay of a path of launches
    std::string notTestable;  // why `advise --test` cannot measure it ("" = it can)
    Prediction prediction;
};

// The variants for `findings` (see the table above). `a` is the build the profile was taken on
// (its defines give tunables their current value; maxRegCount and fastMath are read from it).
std::vector<Variant> proposeVariants(const std::vector<Finding>& findings, const AdviseEvidence& evidence,
                                     const std::vector<Tunable>& tunables, const BuildOptions& a);

nlohmann::json toJson(const Variant& v);

} // namespace lowerscope
