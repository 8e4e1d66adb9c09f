#pragma once
// Arithmetic expressions of launch arguments: `1<<24`, `ceil(n/256)`, `4*(M*K+K*N)`, `max(a, 2)`.
//
// Values are integers (int64) or reals (double). `+ - * %  << >>` on integers stay integers;
// `/` is true division: an exact integer quotient stays an integer, otherwise the result is real
// (so `ceil(n/256)` is a ceiling division, as the kernels/*.json sidecars expect). `%`, `<<`, `>>`
// need integral operands. Functions: ceil, floor, round (→ integer), min, max, abs. Names are looked
// up through a callback, so variables may be defined in any order (see argspec.h).
//
// Errors (syntax, unknown name, division by zero, overflow, a shift out of range) throw ExprError
// with a message that names the offending text.

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

struct ExprError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An integer or a real number.
struct ExprValue {
    bool isInt = true;
    int64_t i = 0;
    double d = 0;
    static ExprValue integer(int64_t v) { return {true, v, static_cast<double>(v)}; }
    static ExprValue real(double v) { return {false, 0, v}; }
    double asDouble() const { return isInt ? static_cast<double>(i) : d; }
    // The integer value; a real that is integral is converted; otherwise throws ExprError naming `what`.
    int64_t asInt(const std::string& what) const;
    // "12", "2.5"
    std::string toString() const;
};

// A parsed expression (immutable, cheap to copy).
class Expr {
public:
    struct Node;
    Expr() = default;
    // Parses `text`. Throws ExprError on a syntax error (with the column).
    static Expr parse(const std::string& text);
    // Evaluates with `lookup` resolving names (it throws ExprError for unknown names).
    ExprValue evaluate(const std::function<ExprValue(const std::string&)>& lookup) const;
    // Names referenced, in order of first appearance (without function names).
    std::vector<std::string> names() const;
    const std::string& text() const { return m_text; }
    bool empty() const { return !m_root; }

private:
    std::shared_ptr<const Node> m_root;
    std::string m_text;
};

// Parses and evaluates `text` with no variables.
ExprValue evaluateConstant(const std::string& text);

} // namespace lowerscope
