// libFuzzer target: one line from a runner (which may sit on another host) as the client reads it.
// parseRunnerMessage returns a message or throws ProtocolError, never anything else, and the
// bounded reader's runner limits hold for the same line.
#include "core/bounded_json.h"
#include "core/run/protocol.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string line(reinterpret_cast<const char*>(data), size);
    std::string error;
    (void)lowerscope::parseJsonBounded(line, error, lowerscope::kRunnerMessageLimits);
    try {
        (void)lowerscope::parseRunnerMessage(line);
    } catch (const lowerscope::ProtocolError&) {
    }
    return 0;
}
