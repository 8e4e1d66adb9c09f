// libFuzzer target: an experiment card file (`experiment --card`): read by the bounded reader,
// cardFromJson gives a card or throws SessionError, never anything else.
#include "core/bounded_json.h"
#include "core/experiment/experiment_session.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string error;
    auto j = lowerscope::parseJsonBounded(text, error);
    if (!j) return 0;
    try {
        (void)lowerscope::cardFromJson(*j);
    } catch (const lowerscope::SessionError&) {
    }
    return 0;
}
