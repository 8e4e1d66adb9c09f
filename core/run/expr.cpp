// Expressions of launch arguments: a small recursive-descent parser to an immutable tree.
#include "core/run/expr.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace lowerscope {

struct Expr::Node {
    enum class Kind { Int, Real, Name, Unary, Binary, Call } kind = Kind::Int;
    int64_t i = 0;
    double d = 0;
    std::string name;  // Name / Call function / operator for Unary and Binary ("-", "<<", ...)
    std::vector<std::shared_ptr<const Node>> kids;
    int height = 1; // of the tree below and including this node: evaluate() recurses this deep
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;
using Node = Expr::Node;

// Recursion depth limit: deeply nested input must fail cleanly, not overflow the stack.
constexpr int kMaxDepth = 200;
// The tree's height and size, bounded too: `1+1+...+1` parses without nesting into a left-deep
// chain as tall as it is long, which evaluating, copying and freeing walk recursively.
constexpr int kMaxHeight = 256;
constexpr size_t kMaxTextBytes = 16 * 1024;
// How much of an expression an error message quotes.
constexpr size_t kQuotedBytes = 200;

std::string quoted(const std::string& text) {
    return text.size() <= kQuotedBytes ? text : text.substr(0, kQuotedBytes) + "...";
}

class Parser {
public:
    explicit Parser(const std::string& text) : m_text(text) {}

    NodePtr parseAll() {
        NodePtr n = parseShift(0);
        skipSpace();
        if (m_pos != m_text.size()) {
            fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
        }
        return n;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw ExprError("in expression '" + quoted(m_text) + "' at column " + std::to_string(m_pos + 1) + ": " + what);
    }
    void skipSpace() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
            ++m_pos;
        }
    }
    bool accept(const char* op) {
        skipSpace();
        size_t n = std::char_traits<char>::length(op);
        if (m_text.compare(m_pos, n, op) == 0) {
            m_pos += n;
            return true;
        }
        return false;
    }
    NodePtr binary(const std::string& op, NodePtr a, NodePtr b) const {
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::Binary;
        n->name = op;
        n->height = 1 + std::max(a->height, b->height);
        n->kids = {std::move(a), std::move(b)};
        checkHeight(*n);
        return n;
    }
    void checkHeight(const Node& n) const {
        if (n.height > kMaxHeight)
            fail("expression too long: more than " + std::to_string(kMaxHeight) +
                 " operations in a chain (write it shorter, e.g. with *)");
    }
    void enter(int depth) const {
        if (depth > kMaxDepth) {
            fail("expression nested too deeply");
        }
    }

    NodePtr parseShift(int depth) {
        enter(depth);
        NodePtr left = parseAdditive(depth + 1);
        for (;;) {
            if (accept("<<")) {
                left = binary("<<", left, parseAdditive(depth + 1));
            } else if (accept(">>")) {
                left = binary(">>", left, parseAdditive(depth + 1));
            } else {
                return left;
            }
        }
    }
    NodePtr parseAdditive(int depth) {
        enter(depth);
        NodePtr left = parseMultiplicative(depth + 1);
        for (;;) {
            if (accept("+")) {
                left = binary("+", left, parseMultiplicative(depth + 1));
            } else if (accept("-")) {
                left = binary("-", left, parseMultiplicative(depth + 1));
            } else {
                return left;
            }
        }
    }
    NodePtr parseMultiplicative(int depth) {
        enter(depth);
        NodePtr left = parseUnary(depth + 1);
        for (;;) {
            if (accept("*")) {
                left = binary("*", left, parseUnary(depth + 1));
            } else if (accept("/")) {
                left = binary("/", left, parseUnary(depth + 1));
            } else if (accept("%")) {
                left = binary("%", left, parseUnary(depth + 1));
            } else {
                return left;
            }
        }
    }
    NodePtr parseUnary(int depth) {
        enter(depth);
        if (accept("-")) {
            auto n = std::make_shared<Node>();
            n->kind = Node::Kind::Unary;
            n->name = "-";
            n->kids = {parseUnary(depth + 1)};
            n->height = 1 + n->kids[0]->height;
            checkHeight(*n);
            return n;
        }
        if (accept("+")) {
            return parseUnary(depth + 1);
        }
        return parsePrimary(depth + 1);
    }
    NodePtr parsePrimary(int depth) {
        enter(depth);
        skipSpace();
        if (m_pos >= m_text.size()) {
            fail("expected a number, a name or '('");
        }
        char c = m_text[m_pos];
        if (c == '(') {
            ++m_pos;
            NodePtr inner = parseShift(depth + 1);
            if (!accept(")")) {
                fail("expected ')'");
            }
            return inner;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            return parseNumber();
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t start = m_pos;
            while (m_pos < m_text.size() &&
                   (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) {
                ++m_pos;
            }
            std::string name = m_text.substr(start, m_pos - start);
            if (accept("(")) {
                auto n = std::make_shared<Node>();
                n->kind = Node::Kind::Call;
                n->name = name;
                if (!accept(")")) {
                    for (;;) {
                        n->kids.push_back(parseShift(depth + 1));
                        if (accept(")")) {
                            break;
                        }
                        if (!accept(",")) {
                            fail("expected ',' or ')' in the arguments of " + name + "()");
                        }
                    }
                }
                checkCall(*n);
                for (const auto& k : n->kids) n->height = std::max(n->height, 1 + k->height);
                checkHeight(*n);
                return n;
            }
            auto n = std::make_shared<Node>();
            n->kind = Node::Kind::Name;
            n->name = name;
            return n;
        }
        fail("unexpected '" + std::string(1, c) + "'");
    }
    void checkCall(const Node& n) const {
        size_t want = 0;
        if (n.name == "ceil" || n.name == "floor" || n.name == "round" || n.name == "abs") {
            want = 1;
        } else if (n.name == "min" || n.name == "max") {
            if (n.kids.size() < 2) {
                fail(n.name + "() needs at least two arguments");
            }
            return;
        } else {
            fail("unknown function '" + n.name + "' (known: ceil, floor, round, abs, min, max)");
        }
        if (n.kids.size() != want) {
            fail(n.name + "() takes one argument");
        }
    }
    NodePtr parseNumber() {
        size_t start = m_pos;
        auto n = std::make_shared<Node>();
        if (m_text.compare(m_pos, 2, "0x") == 0 || m_text.compare(m_pos, 2, "0X") == 0) {
            m_pos += 2;
            size_t digits = m_pos;
            while (m_pos < m_text.size() && std::isxdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                ++m_pos;
            }
            if (m_pos == digits) {
                fail("expected hex digits after 0x");
            }
            std::string hex = m_text.substr(digits, m_pos - digits);
            if (hex.size() > 16 || (hex.size() == 16 && hex[0] > '7')) {
                fail("hex literal too large");
            }
            n->kind = Node::Kind::Int;
            n->i = static_cast<int64_t>(std::stoull(hex, nullptr, 16));
            return n;
        }
        bool real = false;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
            ++m_pos;
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            real = true;
            ++m_pos;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                ++m_pos;
            }
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            size_t save = m_pos;
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) {
                ++m_pos;
            }
            if (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                real = true;
                while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                    ++m_pos;
                }
            } else {
                m_pos = save;
            }
        }
        // A trailing 'f' (C float suffix) is accepted on reals: `1.5f`.
        if (real && m_pos < m_text.size() && (m_text[m_pos] == 'f' || m_text[m_pos] == 'F')) {
            ++m_pos;
        }
        std::string lit = m_text.substr(start, m_pos - start);
        if (lit == ".") {
            fail("expected a number");
        }
        if (real) {
            n->kind = Node::Kind::Real;
            n->d = std::strtod(lit.c_str(), nullptr);
        } else {
            errno = 0;
            char* end = nullptr;
            unsigned long long v = std::strtoull(lit.c_str(), &end, 10);
            if (errno == ERANGE || v > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())) {
                fail("integer literal too large: " + lit);
            }
            n->kind = Node::Kind::Int;
            n->i = static_cast<int64_t>(v);
        }
        return n;
    }

    const std::string& m_text;
    size_t m_pos = 0;
};

[[noreturn]] void evalFail(const std::string& text, const std::string& what) {
    throw ExprError("in expression '" + quoted(text) + "': " + what);
}

ExprValue evalNode(const Node& n, const std::function<ExprValue(const std::string&)>& lookup,
                   const std::string& text) {
    switch (n.kind) {
    case Node::Kind::Int:
        return ExprValue::integer(n.i);
    case Node::Kind::Real:
        return ExprValue::real(n.d);
    case Node::Kind::Name:
        return lookup(n.name);
    case Node::Kind::Unary: {
        ExprValue v = evalNode(*n.kids[0], lookup, text);
        if (v.isInt) {
            if (v.i == std::numeric_limits<int64_t>::min()) {
                evalFail(text, "integer overflow");
            }
            return ExprValue::integer(-v.i);
        }
        return ExprValue::real(-v.d);
    }
    case Node::Kind::Call: {
        std::vector<ExprValue> args;
        for (const auto& k : n.kids) {
            args.push_back(evalNode(*k, lookup, text));
        }
        auto toInt = [&](double d) {
            if (!std::isfinite(d) || std::fabs(d) > 9.2e18) {
                evalFail(text, n.name + "() result out of the integer range");
            }
            return ExprValue::integer(static_cast<int64_t>(d));
        };
        if (n.name == "ceil") {
            return args[0].isInt ? args[0] : toInt(std::ceil(args[0].d));
        }
        if (n.name == "floor") {
            return args[0].isInt ? args[0] : toInt(std::floor(args[0].d));
        }
        if (n.name == "round") {
            return args[0].isInt ? args[0] : toInt(std::round(args[0].d));
        }
        if (n.name == "abs") {
            if (args[0].isInt) {
                if (args[0].i == std::numeric_limits<int64_t>::min()) {
                    evalFail(text, "integer overflow");
                }
                return ExprValue::integer(args[0].i < 0 ? -args[0].i : args[0].i);
            }
            return ExprValue::real(std::fabs(args[0].d));
        }
        // min / max: integers stay integers when every argument is one.
        ExprValue best = args[0];
        for (size_t k = 1; k < args.size(); ++k) {
            const ExprValue& a = args[k];
            bool less = (a.isInt && best.isInt) ? a.i < best.i : a.asDouble() < best.asDouble();
            bool greater = (a.isInt && best.isInt) ? a.i > best.i : a.asDouble() > best.asDouble();
            if ((n.name == "min" && less) || (n.name == "max" && greater)) {
                best = a;
            }
        }
        bool allInt = true;
        for (const auto& a : args) {
            allInt = allInt && a.isInt;
        }
        return allInt ? best : ExprValue::real(best.asDouble());
    }
    case Node::Kind::Binary: {
        ExprValue a = evalNode(*n.kids[0], lookup, text);
        ExprValue b = evalNode(*n.kids[1], lookup, text);
        const std::string& op = n.name;
        if (op == "<<" || op == ">>" || op == "%") {
            int64_t x = a.asInt("the left operand of " + op + " in '" + quoted(text) + "'");
            int64_t y = b.asInt("the right operand of " + op + " in '" + quoted(text) + "'");
            if (op == "%") {
                if (y == 0) {
                    evalFail(text, "modulo by zero");
                }
                if (x == std::numeric_limits<int64_t>::min() && y == -1) {
                    return ExprValue::integer(0);
                }
                return ExprValue::integer(x % y);
            }
            if (y < 0 || y > 62) {
                evalFail(text, "shift count out of range (0..62): " + std::to_string(y));
            }
            if (op == ">>") {
                return ExprValue::integer(x >> y);
            }
            if (x < 0 || (y > 0 && x > (std::numeric_limits<int64_t>::max() >> y))) {
                evalFail(text, "integer overflow in <<");
            }
            return ExprValue::integer(x << y);
        }
        if (a.isInt && b.isInt) {
            int64_t r = 0;
            if (op == "+") {
                if (__builtin_add_overflow(a.i, b.i, &r)) {
                    evalFail(text, "integer overflow in +");
                }
                return ExprValue::integer(r);
            }
            if (op == "-") {
                if (__builtin_sub_overflow(a.i, b.i, &r)) {
                    evalFail(text, "integer overflow in -");
                }
                return ExprValue::integer(r);
            }
            if (op == "*") {
                if (__builtin_mul_overflow(a.i, b.i, &r)) {
                    evalFail(text, "integer overflow in *");
                }
                return ExprValue::integer(r);
            }
            // "/": exact quotients stay integers, others become reals (true division).
            if (b.i == 0) {
                evalFail(text, "division by zero");
            }
            if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) {
                evalFail(text, "integer overflow in /");
            }
            if (a.i % b.i == 0) {
                return ExprValue::integer(a.i / b.i);
            }
            return ExprValue::real(static_cast<double>(a.i) / static_cast<double>(b.i));
        }
        double x = a.asDouble(), y = b.asDouble();
        if (op == "+") {
            return ExprValue::real(x + y);
        }
        if (op == "-") {
            return ExprValue::real(x - y);
        }
        if (op == "*") {
            return ExprValue::real(x * y);
        }
        if (y == 0) {
            evalFail(text, "division by zero");
        }
        return ExprValue::real(x / y);
    }
    }
    evalFail(text, "internal error");
}

void collectNames(const Node& n, std::vector<std::string>& out) {
    if (n.kind == Node::Kind::Name) {
        for (const auto& s : out) {
            if (s == n.name) {
                return;
            }
        }
        out.push_back(n.name);
    }
    for (const auto& k : n.kids) {
        collectNames(*k, out);
    }
}

} // namespace

int64_t ExprValue::asInt(const std::string& what) const {
    if (isInt) {
        return i;
    }
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
        return static_cast<int64_t>(d);
    }
    throw ExprError(what + " must be an integer, got " + toString() + " (use ceil() or floor())");
}

std::string ExprValue::toString() const {
    if (isInt) {
        return std::to_string(i);
    }
    std::ostringstream s;
    s.precision(17);
    s << d;
    return s.str();
}

Expr Expr::parse(const std::string& text) {
    if (text.size() > kMaxTextBytes)
        throw ExprError("expression '" + quoted(text) + "' is " + std::to_string(text.size()) +
                        " characters long; the limit is " + std::to_string(kMaxTextBytes));
    Expr e;
    e.m_text = text;
    Parser p(e.m_text);
    e.m_root = p.parseAll();
    return e;
}

ExprValue Expr::evaluate(const std::function<ExprValue(const std::string&)>& lookup) const {
    if (!m_root) {
        throw ExprError("empty expression");
    }
    return evalNode(*m_root, lookup, m_text);
}

std::vector<std::string> Expr::names() const {
    std::vector<std::string> out;
    if (m_root) {
        collectNames(*m_root, out);
    }
    return out;
}

ExprValue evaluateConstant(const std::string& text) {
    return Expr::parse(text).evaluate([&](const std::string& name) -> ExprValue {
        throw ExprError("in expression '" + quoted(text) + "': unknown name '" + name + "'");
    });
}

} // namespace lowerscope
