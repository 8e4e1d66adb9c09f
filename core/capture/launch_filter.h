#pragma once
// Which launches of a captured program are selected (`lowerscope-cli capture --kernel REGEX
// --launch-skip N --launch-count N`), as Nsight Compute's filters read: among the launches whose
// kernel name matches REGEX (searched in the demangled and in the mangled name; every kernel when
// no REGEX is given), in launch order, skip the first N, then take the next COUNT (all when no
// count is given). A pure state machine: the caller feeds launches in launch order.

#include <cstdint>
#include <optional>
#include <regex>
#include <string>

namespace lowerscope::capture {

struct LaunchFilterOptions {
    std::string kernelRegex;             // "" = every kernel
    uint64_t skip = 0;                   // matching launches passed over first
    std::optional<uint64_t> count;       // matching launches taken after those; none = all
};

class LaunchFilter {
public:
    // Throws std::invalid_argument with one sentence when the regex is not valid (ECMAScript
    // syntax) or longer than 1000 characters (std::regex recurses on its pattern).
    explicit LaunchFilter(const LaunchFilterOptions& options);

    // Whether the next launch, of the kernel with these names, is selected. Call once per launch,
    // in launch order.
    bool next(const std::string& mangled, const std::string& demangled);
    // The same for a launch whose kernel's match is known (matches() of its names, taken once for
    // each kernel: searching the names at every launch took longer than the rest of a launch's
    // bookkeeping).
    bool next(bool kernelMatches);
    // Whether a kernel of these names matches the regex (no state change).
    bool matches(const std::string& mangled, const std::string& demangled) const;
    // True once `count` launches were selected: no later launch can be.
    bool done() const { return m_options.count && m_selected >= *m_options.count; }
    uint64_t matched() const { return m_matched; }
    uint64_t selected() const { return m_selected; }
    const LaunchFilterOptions& options() const { return m_options; }

private:
    LaunchFilterOptions m_options;
    std::optional<std::regex> m_regex;
    uint64_t m_matched = 0;
    uint64_t m_selected = 0;
};

} // namespace lowerscope::capture
