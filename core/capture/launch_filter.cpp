// Launch selection by kernel regex, skip and count (launch_filter.h).
#include "core/capture/launch_filter.h"

#include <stdexcept>

namespace lowerscope::capture {

namespace {
constexpr size_t kMaxRegexChars = 1000;
}

LaunchFilter::LaunchFilter(const LaunchFilterOptions& options) : m_options(options) {
    if (options.kernelRegex.empty()) return;
    if (options.kernelRegex.size() > kMaxRegexChars)
        throw std::invalid_argument("the kernel filter is longer than 1000 characters");
    try {
        m_regex.emplace(options.kernelRegex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
        throw std::invalid_argument(std::string("the kernel filter is not a valid regular expression (") +
                                    e.what() + ")");
    }
}

bool LaunchFilter::matches(const std::string& mangled, const std::string& demangled) const {
    if (!m_regex) return true;
    try {
        return std::regex_search(demangled, *m_regex) || std::regex_search(mangled, *m_regex);
    } catch (const std::regex_error&) {
        return false; // the matcher ran out of its complexity budget: not a match
    }
}

bool LaunchFilter::next(const std::string& mangled, const std::string& demangled) {
    return !done() && next(matches(mangled, demangled));
}

bool LaunchFilter::next(bool kernelMatches) {
    if (done() || !kernelMatches) return false;
    const uint64_t index = m_matched++;
    if (index < m_options.skip) return false;
    ++m_selected;
    return true;
}

} // namespace lowerscope::capture
