#pragma once
// Hardware evidence joined onto the lowering model (issue 14, item 2): the runner's per-instruction
// counts (SASS Metrics) and stall samples (PC Sampling), keyed by the profiled function and the
// instruction's byte offset in it, are put on the SASS rows of the same build, then summed per PTX
// line and per source line with the model's own line attribution (call site or callee).
//
// A profile belongs to one build: its cubin digest (XXH3-64 of the module image the runner loaded)
// and function must be the current build's, or profileMismatch() says why it cannot be shown. A
// profile is never joined onto another build's rows.

#include "core/analysis/lowering.h"
#include "core/model.h"
#include "core/run/profile_data.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lowerscope {

// Counts and samples summed over some instructions (one row, one line, the whole kernel).
struct ProfileTotals {
    std::map<std::string, uint64_t> counts;  // SASS metric → sum
    std::map<std::string, uint64_t> samples; // stall reason → samples (the *_not_issued subsets too)
    // Samples over every reason, not counting the "_not_issued" subsets twice.
    uint64_t sampleTotal() const;
    // counts[name], 0 when absent.
    uint64_t count(const std::string& name) const;
    void add(const ProfileTotals& other);
    bool operator==(const ProfileTotals&) const = default;
};

// The stall reasons of `t`, most samples first (ties by name), without the "_not_issued" subsets
// (they are counted within their reason).
std::vector<std::pair<std::string, uint64_t>> stallReasons(const ProfileTotals& t);

// The first `n` of stallReasons(t) with their share of t.sampleTotal() (0..1); empty without samples.
std::vector<std::pair<std::string, double>> stallShares(const ProfileTotals& t, size_t n);

// A count as people read it: 9000 → "9000", 524288 → "524.3k", 138412032 → "138.41M", "1.23G".
std::string formatCount(uint64_t count);

// One SASS instruction of the function with what the profiles say of it.
struct ProfiledRow {
    uint32_t address = 0; // byte offset in the function (nvdisasm's address = CUPTI's pc_offset)
    bool profiled = false; // some profile had a record for it (CUPTI omits what never ran)
    ProfileTotals totals;
};

// One PTX line or source line.
struct ProfiledLine {
    std::string file; // "" for PTX lines
    int line = 0;     // 1-based
    int instructions = 0;
    ProfileTotals totals;
};

struct ProfileJoin {
    std::vector<ProfiledRow> rows;         // one per instruction, in address order
    std::vector<ProfiledLine> ptxLines;    // ascending line; only lines with SASS
    std::vector<ProfiledLine> sourceLines; // by (file, line); only lines with SASS
    ProfileTotals kernel;                  // every row
    std::vector<uint64_t> unmatchedOffsets; // profile offsets with no instruction (must be empty)
};

// Why `profile` cannot be shown on the build with `cubinDigest` and the function `mangled`, or
// nullopt when it can. An empty digest in the profile (older runner) cannot be checked: refused.
std::optional<std::string> profileMismatch(const ProfileData& profile, const std::string& cubinDigest,
                                           const std::string& mangled);

// A digest of `function`'s machine code: every instruction's address and encoding (its text where
// there is no encoding). Two builds with the same code digest run the same instructions at the
// same offsets, whatever else differs in their cubins (line info names the path that was
// compiled: the GUI compiles a copy of the editor text), so a profile of one fits the other.
std::string sassCodeDigest(const SassFunction& function);

// Joins the per-instruction profiles (collections "instructions" and "samples"; others are ignored)
// onto `function`. Callers check profileMismatch() first; `attribution` picks the source line of
// an inlined instruction.
ProfileJoin joinProfiles(const SassFunction& function, const std::vector<const ProfileData*>& profiles,
                         InlineAttribution attribution = InlineAttribution::CallSite);

// The well-formed rows of a compare --profile "rows" array (profileRowDeltasJson; the document may
// come from elsewhere, so rows without integer executed_delta and samples_delta are skipped) with
// their change |executed_delta| + |samples_delta|, largest first (ties keep row order), at most `n`.
std::vector<std::pair<const nlohmann::json*, long long>> rankProfileRows(const nlohmann::json& rows, size_t n);

} // namespace lowerscope
