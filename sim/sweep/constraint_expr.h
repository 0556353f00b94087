// Constraint expressions of a sweep, e.g. `cache.size_kib * 1024 <= 2097152`
// or `compute.array_rows * compute.array_cols == 1024 && scheduler.policy == "early"`.
//
// Grammar (lowest precedence first):
//   or   := and (("||" | "or") and)*
//   and  := not (("&&" | "and") not)*
//   not  := ("!" | "not") not | cmp
//   cmp  := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?
//   sum  := prod (("+" | "-") prod)*
//   prod := unary (("*" | "/" | "%") unary)*
//   unary:= "-" unary | primary
//   primary := number | "string" | 'string' | variable | func "(" args ")" | "(" or ")"
// Variables are names such as `compute.array_rows` (letters, digits, "_" and
// "."); functions are min(a, b, ...), max(a, b, ...) and log2(x). Numbers are
// doubles; a comparison or logic operator gives 1 or 0; a constraint holds when
// its value is non-zero. Strings support only == and !=.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace npusim::sweep {

struct Value {
  bool is_string = false;
  double number = 0;
  std::string text;
};
using Variables = std::map<std::string, Value>;

// Thrown for a syntax error (with a 1-based column) or, by evaluate(), for an
// unknown variable or a type mismatch; the caller adds file and pointer.
class ExprError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Expr {
 public:
  virtual ~Expr() = default;
  virtual Value evaluate(const Variables& vars) const = 0;
  // Every variable name the expression reads.
  virtual void collect_variables(std::vector<std::string>& out) const = 0;
};

std::shared_ptr<const Expr> parse_expr(const std::string& text);
// True when `expr` evaluates to a non-zero number; throws ExprError otherwise.
bool holds(const Expr& expr, const Variables& vars);

}  // namespace npusim::sweep
