// libFuzzer target: launch-argument expressions (core/run/expr.h) as sidecars, cards and sessions
// carry them (`grid`, `block`, `args`, `bytes`, `flops`). Parsing and evaluating any text either
// gives a value or throws ExprError: no stack overflow (long chains and deep nesting are bounded),
// no UB on overflow, shifts or division, and error messages of bounded length.
#include "core/run/expr.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const lowerscope::Expr e = lowerscope::Expr::parse(text);
        (void)e.names();
        (void)e.evaluate([](const std::string& name) -> lowerscope::ExprValue {
            if (name.size() == 1) return lowerscope::ExprValue::integer(int64_t(name[0]) - 'a' + 1);
            if (name == "big") return lowerscope::ExprValue::integer(INT64_MAX);
            if (name == "half") return lowerscope::ExprValue::real(0.5);
            throw lowerscope::ExprError("unknown name '" + name + "'");
        }).toString();
    } catch (const lowerscope::ExprError& e) {
        if (std::char_traits<char>::length(e.what()) > 4096) std::abort(); // messages quote a bounded part
    }
    return 0;
}
