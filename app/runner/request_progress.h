#pragma once
// Progress lines of one request: the client's sign of life while the runner measures (it kills a
// runner that stays silent past its deadline), sent at most every 250 ms unless forced.

#include "core/run/protocol.h"

#include <chrono>
#include <functional>
#include <string>

namespace lowerscope::runner {

class RequestProgress {
public:
    using Fn = std::function<void(const RunProgress&)>;
    using Clock = std::chrono::steady_clock;

    // `fn` is borrowed (may be empty: nothing is sent) and must outlive this object.
    RequestProgress(std::string requestId, const Fn& fn)
        : m_id(std::move(requestId)), m_fn(fn), m_start(Clock::now()),
          m_last(m_start - std::chrono::seconds(1)) {}

    // Sends a progress line when 250 ms have passed since the last one, or always when `force`.
    void report(const std::string& stage, const std::string& variant, size_t samples, double noise,
                bool force) {
        const auto now = Clock::now();
        if (!force && now - m_last < std::chrono::milliseconds(250)) {
            return;
        }
        m_last = now;
        if (m_fn) {
            m_fn(RunProgress{m_id, stage, variant, samples, noise,
                             std::chrono::duration<double>(now - m_start).count()});
        }
    }
    // Seconds since the request started.
    double elapsedS() const { return std::chrono::duration<double>(Clock::now() - m_start).count(); }

private:
    std::string m_id;
    const Fn& m_fn;
    Clock::time_point m_start;
    Clock::time_point m_last;
};

} // namespace lowerscope::runner
