// libFuzzer target: a `.lowerscope` session file from anyone. The bounded reader refuses or parses
// it, sessionFromJson accepts it or throws SessionError (nothing else), and an accepted session
// round-trips: what is written reads back equal, and the trust list is computed without fault.
#include "core/bounded_json.h"
#include "core/experiment/experiment_session.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string error;
    auto j = lowerscope::parseJsonBounded(text, error);
    if (!j) return 0;
    lowerscope::ExperimentSession s;
    try {
        s = lowerscope::sessionFromJson(*j);
    } catch (const lowerscope::SessionError&) {
        return 0;
    }
    // Written as saveSession does (invalid UTF-8 replaced) and read back through the same reader:
    // it must read back, and from then on a save/load round trip changes nothing.
    auto write = [](const lowerscope::ExperimentSession& x) {
        return lowerscope::sessionToJson(x).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    const std::string first = write(s);
    auto back = lowerscope::parseJsonBounded(first, error);
    if (!back) std::abort();
    try {
        if (write(lowerscope::sessionFromJson(*back)) != first) std::abort();
    } catch (const lowerscope::SessionError&) {
        std::abort();
    }
    (void)lowerscope::untrustedSettings(s);
    (void)lowerscope::trustFingerprint(s);
    return 0;
}
