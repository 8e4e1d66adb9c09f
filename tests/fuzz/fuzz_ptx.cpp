// libFuzzer target: parsePtx must survive any input (no crash, hang or unbounded memory) and keep
// its structural invariants.
#include "core/parse/listing_json.h"
#include "core/parse/ptx_parser.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const lowerscope::PtxListing l = lowerscope::parsePtx(text);
    for (size_t i = 0; i < l.lines.size(); ++i)
        if (l.lines[i].line != static_cast<int>(i + 1)) std::abort();
    for (const auto& f : l.functions)
        if (f.firstLine < 1 || f.lastLine < f.firstLine || f.lastLine > static_cast<int>(l.lines.size())) std::abort();
    // Serialisation must accept whatever the parser produced (e.g. invalid UTF-8 is replaced).
    if (size <= 4096) // JSON of big inputs is slow under ASan and adds no new paths
        (void)nlohmann::json(l).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return 0;
}
