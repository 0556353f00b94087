#include "sim/sweep/constraint_expr.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <utility>

namespace npusim::sweep {
namespace {

std::string show(const Value& v) {
  if (v.is_string) return "string \"" + v.text + "\"";
  char buf[64];
  std::snprintf(buf, sizeof buf, "number %.17g", v.number);
  return buf;
}

double number_of(const Value& v, const std::string& op) {
  if (v.is_string) throw ExprError("operator " + op + " needs numbers, found " + show(v));
  return v.number;
}

Value num(double d) { return Value{false, d, {}}; }

struct Literal : Expr {
  Value value;
  explicit Literal(Value v) : value(std::move(v)) {}
  Value evaluate(const Variables&) const override { return value; }
  void collect_variables(std::vector<std::string>&) const override {}
};

struct Variable : Expr {
  std::string name;
  explicit Variable(std::string n) : name(std::move(n)) {}
  Value evaluate(const Variables& vars) const override {
    const auto it = vars.find(name);
    if (it == vars.end()) throw ExprError("unknown variable \"" + name + "\"");
    return it->second;
  }
  void collect_variables(std::vector<std::string>& out) const override { out.push_back(name); }
};

struct Unary : Expr {
  std::string op;
  std::shared_ptr<const Expr> arg;
  Unary(std::string o, std::shared_ptr<const Expr> a) : op(std::move(o)), arg(std::move(a)) {}
  Value evaluate(const Variables& vars) const override {
    const double x = number_of(arg->evaluate(vars), op);
    return num(op == "-" ? -x : (x == 0 ? 1 : 0));
  }
  void collect_variables(std::vector<std::string>& out) const override {
    arg->collect_variables(out);
  }
};

struct Binary : Expr {
  std::string op;
  std::shared_ptr<const Expr> lhs, rhs;
  Binary(std::string o, std::shared_ptr<const Expr> l, std::shared_ptr<const Expr> r)
      : op(std::move(o)), lhs(std::move(l)), rhs(std::move(r)) {}
  Value evaluate(const Variables& vars) const override {
    if (op == "&&" || op == "||") {  // short-circuit
      const bool a = number_of(lhs->evaluate(vars), op) != 0;
      if (op == "&&" ? !a : a) return num(a ? 1 : 0);
      return num(number_of(rhs->evaluate(vars), op) != 0 ? 1 : 0);
    }
    const Value a = lhs->evaluate(vars), b = rhs->evaluate(vars);
    if ((op == "==" || op == "!=") && (a.is_string || b.is_string)) {
      if (a.is_string != b.is_string)
        throw ExprError("cannot compare " + show(a) + " with " + show(b));
      return num((a.text == b.text) == (op == "==") ? 1 : 0);
    }
    const double x = number_of(a, op), y = number_of(b, op);
    if (op == "+") return num(x + y);
    if (op == "-") return num(x - y);
    if (op == "*") return num(x * y);
    if (op == "/" || op == "%") {
      if (y == 0) throw ExprError("division by zero");
      return num(op == "/" ? x / y : std::fmod(x, y));
    }
    if (op == "<") return num(x < y);
    if (op == "<=") return num(x <= y);
    if (op == ">") return num(x > y);
    if (op == ">=") return num(x >= y);
    if (op == "==") return num(x == y);
    return num(x != y);
  }
  void collect_variables(std::vector<std::string>& out) const override {
    lhs->collect_variables(out);
    rhs->collect_variables(out);
  }
};

struct Call : Expr {
  std::string name;
  std::vector<std::shared_ptr<const Expr>> args;
  Value evaluate(const Variables& vars) const override {
    std::vector<double> x;
    for (const auto& a : args) x.push_back(number_of(a->evaluate(vars), name + "()"));
    if (name == "log2") {
      if (x[0] <= 0) throw ExprError("log2 of a number <= 0");
      return num(std::log2(x[0]));
    }
    double r = x[0];
    for (double v : x) r = name == "min" ? std::min(r, v) : std::max(r, v);
    return num(r);
  }
  void collect_variables(std::vector<std::string>& out) const override {
    for (const auto& a : args) a->collect_variables(out);
  }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  std::shared_ptr<const Expr> parse() {
    auto e = parse_or();
    skip_space();
    if (pos_ < s_.size()) fail("unexpected \"" + s_.substr(pos_, 1) + "\"");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ExprError(what + " at column " + std::to_string(pos_ + 1));
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  static bool word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  }
  // Consumes `token` when it comes next (a word token must end at a word boundary).
  bool accept(const std::string& token) {
    skip_space();
    if (s_.compare(pos_, token.size(), token) != 0) return false;
    const size_t end = pos_ + token.size();
    if (std::isalpha(static_cast<unsigned char>(token[0])) && end < s_.size() && word_char(s_[end]))
      return false;
    pos_ = end;
    return true;
  }

  using Next = std::shared_ptr<const Expr> (Parser::*)();
  std::shared_ptr<const Expr> left_assoc(Next next, const std::vector<std::string>& ops) {
    auto lhs = (this->*next)();
    for (bool more = true; more;) {
      more = false;
      for (const std::string& op : ops) {
        if (!accept(op)) continue;
        std::string canonical = op == "and" ? "&&" : op == "or" ? "||" : op;
        lhs = std::make_shared<Binary>(canonical, lhs, (this->*next)());
        more = true;
        break;
      }
    }
    return lhs;
  }
  std::shared_ptr<const Expr> parse_or() { return left_assoc(&Parser::parse_and, {"||", "or"}); }
  std::shared_ptr<const Expr> parse_and() { return left_assoc(&Parser::parse_not, {"&&", "and"}); }
  std::shared_ptr<const Expr> parse_not() {
    skip_space();
    if (s_.compare(pos_, 2, "!=") != 0 && (accept("!") || accept("not")))
      return std::make_shared<Unary>("!", parse_not());
    return parse_cmp();
  }
  std::shared_ptr<const Expr> parse_cmp() {
    auto lhs = parse_sum();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (accept(op)) return std::make_shared<Binary>(op, lhs, parse_sum());
    return lhs;
  }
  std::shared_ptr<const Expr> parse_sum() { return left_assoc(&Parser::parse_prod, {"+", "-"}); }
  std::shared_ptr<const Expr> parse_prod() {
    return left_assoc(&Parser::parse_unary, {"*", "/", "%"});
  }
  std::shared_ptr<const Expr> parse_unary() {
    if (accept("-")) return std::make_shared<Unary>("-", parse_unary());
    return parse_primary();
  }
  std::shared_ptr<const Expr> parse_primary() {
    skip_space();
    if (pos_ >= s_.size()) fail("expression ends early");
    const char c = s_[pos_];
    if (accept("(")) {
      auto e = parse_or();
      if (!accept(")")) fail("expected \")\"");
      return e;
    }
    if (c == '"' || c == '\'') {
      const size_t end = s_.find(c, pos_ + 1);
      if (end == std::string::npos) fail("unterminated string");
      Value v{true, 0, s_.substr(pos_ + 1, end - pos_ - 1)};
      pos_ = end + 1;
      return std::make_shared<Literal>(v);
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      char* end = nullptr;
      const double d = std::strtod(s_.c_str() + pos_, &end);
      if (end == s_.c_str() + pos_) fail("bad number");
      pos_ = static_cast<size_t>(end - s_.c_str());
      return std::make_shared<Literal>(num(d));
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
      fail("unexpected \"" + std::string(1, c) + "\"");
    const size_t start = pos_;
    while (pos_ < s_.size() && word_char(s_[pos_])) ++pos_;
    std::string word = s_.substr(start, pos_ - start);
    if (word == "min" || word == "max" || word == "log2") {
      if (!accept("(")) fail("expected \"(\" after " + word);
      auto call = std::make_shared<Call>();
      call->name = word;
      do call->args.push_back(parse_or());
      while (accept(","));
      if (!accept(")")) fail("expected \")\"");
      if (word == "log2" && call->args.size() != 1) fail("log2 takes one argument");
      return call;
    }
    return std::make_shared<Variable>(std::move(word));
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

std::shared_ptr<const Expr> parse_expr(const std::string& text) { return Parser(text).parse(); }

bool holds(const Expr& expr, const Variables& vars) {
  const Value v = expr.evaluate(vars);
  if (v.is_string) throw ExprError("the constraint gives " + show(v) + ", not a truth value");
  return v.number != 0;
}

}  // namespace npusim::sweep
