// libFuzzer target: parseSass / mergeSass must survive any input (no crash, hang or unbounded
// memory) and keep their invariants.
#include "core/parse/control.h"
#include "core/parse/listing_json.h"
#include "core/parse/sass_parser.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    lowerscope::SassListing l = lowerscope::parseSass(text);
    for (const auto& f : l.functions)
        for (const auto& ins : f.instructions) {
            // Control is decoded for Volta+ listings and left default for older `.target`s.
            if (ins.hasEncoding && !(ins.control == lowerscope::decodeControl(ins.encodingHi)) &&
                !(ins.control == lowerscope::Control{}))
                std::abort();
            if (ins.operands.size() > size) std::abort();
        }
    // Merging a listing with itself (and a split of the input) must be safe too.
    const lowerscope::SassListing other = lowerscope::parseSass(text.substr(size / 2));
    lowerscope::mergeSass(l, other);
    // The pipeline's three-variant merge (light parses of the extra variants).
    const lowerscope::SassListing merged =
        lowerscope::parseSassTexts(text, text.substr(size / 3), text.substr(size / 2));
    (void)merged;
    if (size <= 4096) // JSON of big inputs is slow under ASan and adds no new paths
        (void)nlohmann::json(l).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return 0;
}
