// A small recursive-descent parser. Written here rather than taken from muParser: Debian ships
// muParser only as a shared library built against the shared libstdc++ and libgomp, which added
// 2.4 MB to the peak resident memory of a whole run (10.4 -> 12.8 MB on resnet50_v100_workers0)
// and broke the memory target; the grammar rules need is a screenful.
//
//   expr       := or ('?' expr ':' expr)?
//   or         := and (('or' | '||') and)*
//   and        := not (('and' | '&&') not)*
//   not        := ('not' | '!') not | comparison
//   comparison := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
//   sum        := product (('+' | '-') product)*
//   product    := unary (('*' | '/') unary)*
//   unary      := ('-' | '+') unary | power
//   power      := primary ('^' unary)?
//   primary    := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
//
// Limits (issue 13): nesting (parentheses, calls, unary operators, '^', '?:') at most kMaxDepth
// levels and at most kMaxTerms numbers and names, so a hostile rule file cannot overflow the stack
// while parsing. Nodes are stored children first, so evaluate() is one loop, never a recursion.
#include "gate/expression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace perfgate {
namespace {

enum class Op {
  Number,
  Variable,
  Negate,
  Not,
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or,
  If,
  Call
};

struct Node {
  Op op = Op::Number;
  double number = 0;         // Number
  std::size_t variable = 0;  // Variable: index into the sorted names
  std::string function;      // Call
  std::vector<std::size_t> args;
};

constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxTerms = 1000;

constexpr std::string_view kFunctions[] = {"min", "max", "abs", "floor", "ceil", "round"};

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::size_t parse_all(std::vector<Node>& nodes, std::vector<std::string>& names) {
    nodes_ = &nodes;
    names_ = &names;
    std::size_t root = expr();
    skip_space();
    if (at_ < text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(at_, 1)));
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("{} at position {}", what, at_ + 1));
  }

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  // Consumes `token` when it comes next (a word only when no name character follows).
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(at_, token.size()) != token) return false;
    bool word = std::isalpha(static_cast<unsigned char>(token[0]));
    if (word && at_ + token.size() < text_.size() && name_char(text_[at_ + token.size()])) return false;
    at_ += token.size();
    return true;
  }

  // Consumes `token` like accept() and enters one more level of nesting; the caller leaves it with
  // a Leave guard.
  bool open(std::string_view token) {
    skip_space();
    std::size_t start = at_;
    if (!accept(token)) return false;
    if (depth_ == kMaxDepth) {
      at_ = start;
      fail(fmt::format("nesting deeper than {}", kMaxDepth));
    }
    ++depth_;
    return true;
  }

  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  };

  // One more number or name, starting at `start`.
  void count_term(std::size_t start) {
    if (terms_ == kMaxTerms) {
      at_ = start;
      fail(fmt::format("more than {} terms", kMaxTerms));
    }
    ++terms_;
  }

  std::size_t add(Node n) {
    nodes_->push_back(std::move(n));
    return nodes_->size() - 1;
  }
  std::size_t binary(Op op, std::size_t a, std::size_t b) { return add({op, 0, 0, "", {a, b}}); }

  std::size_t expr() {
    std::size_t condition = or_expr();
    if (!open("?")) return condition;
    Leave leave{depth_};
    std::size_t then = expr();
    if (!accept(":")) fail("expected ':' of '?:'");
    return add({Op::If, 0, 0, "", {condition, then, expr()}});
  }

  std::size_t or_expr() {
    std::size_t left = and_expr();
    while (accept("||") || accept("or")) left = binary(Op::Or, left, and_expr());
    return left;
  }

  std::size_t and_expr() {
    std::size_t left = not_expr();
    while (accept("&&") || accept("and")) left = binary(Op::And, left, not_expr());
    return left;
  }

  std::size_t not_expr() {
    skip_space();
    if (text_.substr(at_, 2) == "!=" || !(open("!") || open("not"))) return comparison();
    Leave leave{depth_};
    return add({Op::Not, 0, 0, "", {not_expr()}});
  }

  std::size_t comparison() {
    std::size_t left = sum();
    static constexpr std::pair<std::string_view, Op> kComparisons[] = {
        {"<=", Op::Le}, {">=", Op::Ge}, {"==", Op::Eq}, {"!=", Op::Ne}, {"<", Op::Lt}, {">", Op::Gt}};
    for (const auto& [token, op] : kComparisons)
      if (accept(token)) return binary(op, left, sum());
    return left;
  }

  std::size_t sum() {
    std::size_t left = product();
    while (true) {
      if (accept("+"))
        left = binary(Op::Add, left, product());
      else if (accept("-"))
        left = binary(Op::Sub, left, product());
      else
        return left;
    }
  }

  std::size_t product() {
    std::size_t left = unary();
    while (true) {
      if (accept("*"))
        left = binary(Op::Mul, left, unary());
      else if (accept("/"))
        left = binary(Op::Div, left, unary());
      else
        return left;
    }
  }

  std::size_t unary() {
    if (open("-")) {
      Leave leave{depth_};
      return add({Op::Negate, 0, 0, "", {unary()}});
    }
    if (open("+")) {
      Leave leave{depth_};
      return unary();
    }
    std::size_t base = primary();
    if (!open("^")) return base;
    Leave leave{depth_};
    return binary(Op::Pow, base, unary());
  }

  std::size_t primary() {
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end of the expression");
    char c = text_[at_];
    if (open("(")) {
      Leave leave{depth_};
      std::size_t inner = expr();
      if (!accept(")")) fail("expected ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(fmt::format("unexpected '{}'", c));
  }

  std::size_t number() {
    count_term(at_);
    double v = 0;
    auto [end, ec] = std::from_chars(text_.data() + at_, text_.data() + text_.size(), v);
    if (ec != std::errc()) fail("invalid number");
    at_ = static_cast<std::size_t>(end - text_.data());
    if (at_ < text_.size() && name_char(text_[at_])) fail("invalid number");
    return add({Op::Number, v, 0, "", {}});
  }

  std::size_t name() {
    std::size_t start = at_;
    while (at_ < text_.size() && name_char(text_[at_])) ++at_;
    std::string word(text_.substr(start, at_ - start));
    std::size_t next = text_.find_first_not_of(" \t\n\r\f\v", at_);
    if (next == std::string_view::npos || text_[next] != '(') count_term(start);  // not a call
    if (word == "true" || word == "false") return add({Op::Number, word == "true" ? 1.0 : 0.0, 0, "", {}});
    if (open("(")) {
      Leave leave{depth_};
      return call(word, start);
    }
    auto it = std::find(names_->begin(), names_->end(), word);
    if (it == names_->end()) it = names_->insert(names_->end(), word);
    return add({Op::Variable, 0, static_cast<std::size_t>(it - names_->begin()), "", {}});
  }

  std::size_t call(const std::string& function, std::size_t start) {
    if (std::find(std::begin(kFunctions), std::end(kFunctions), function) == std::end(kFunctions)) {
      at_ = start;
      fail(fmt::format("unknown function '{}' (there are min, max, abs, floor, ceil, round)", function));
    }
    Node n{Op::Call, 0, 0, function, {}};
    do n.args.push_back(expr());
    while (accept(","));
    if (!accept(")")) fail("expected ')' after the arguments");
    bool variadic = function == "min" || function == "max";
    if (!variadic && n.args.size() != 1) fail(fmt::format("'{}' takes one argument", function));
    return add(std::move(n));
  }

  std::string_view text_;
  std::size_t at_ = 0;
  std::vector<Node>* nodes_ = nullptr;
  std::vector<std::string>* names_ = nullptr;
  int depth_ = 0;
  std::size_t terms_ = 0;
};

double call(const Node& n, const std::vector<double>& args) {
  if (n.function == "min") return *std::min_element(args.begin(), args.end());
  if (n.function == "max") return *std::max_element(args.begin(), args.end());
  if (n.function == "abs") return std::fabs(args[0]);
  if (n.function == "floor") return std::floor(args[0]);
  if (n.function == "ceil") return std::ceil(args[0]);
  return std::round(args[0]);
}

double truth(bool b) {
  return b ? 1.0 : 0.0;
}

}  // namespace

struct Expression::Impl {
  std::string text;
  std::vector<Node> nodes;
  std::size_t root = 0;
  std::vector<std::string> names;  // in order of first use while parsing
  std::vector<std::string> sorted;
  std::vector<std::size_t> sorted_at;  // each of `names` in `sorted`

  // Nodes come after their arguments (the parser adds a node once its operands are parsed), so one
  // pass in order computes every node; the root is the last.
  double eval(const std::vector<double>& values) const {
    std::vector<double> results(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) results[i] = eval_node(nodes[i], values, results);
    return results[root];
  }
  std::optional<double> finite_eval(const std::vector<double>& values) const {
    double result = eval(values);
    if (!std::isfinite(result)) return std::nullopt;
    return result;
  }

  static double eval_node(const Node& n, const std::vector<double>& values,
                          const std::vector<double>& results) {
    auto arg = [&](std::size_t k) { return results[n.args[k]]; };
    switch (n.op) {
      case Op::Number:
        return n.number;
      case Op::Variable:
        return values[n.variable];
      case Op::Negate:
        return -arg(0);
      case Op::Not:
        return truth(arg(0) == 0);
      case Op::Add:
        return arg(0) + arg(1);
      case Op::Sub:
        return arg(0) - arg(1);
      case Op::Mul:
        return arg(0) * arg(1);
      case Op::Div:
        return arg(0) / arg(1);
      case Op::Pow:
        return std::pow(arg(0), arg(1));
      default:
        return eval_logic(n, arg);
    }
  }

  template <typename Arg>
  static double eval_logic(const Node& n, const Arg& arg) {
    switch (n.op) {
      case Op::Lt:
        return truth(arg(0) < arg(1));
      case Op::Le:
        return truth(arg(0) <= arg(1));
      case Op::Gt:
        return truth(arg(0) > arg(1));
      case Op::Ge:
        return truth(arg(0) >= arg(1));
      case Op::Eq:
        return truth(arg(0) == arg(1));
      case Op::Ne:
        return truth(arg(0) != arg(1));
      case Op::And:
        return truth(arg(0) != 0 && arg(1) != 0);
      case Op::Or:
        return truth(arg(0) != 0 || arg(1) != 0);
      case Op::If:
        return arg(0) != 0 ? arg(1) : arg(2);
      case Op::Call: {
        std::vector<double> args;
        for (std::size_t k = 0; k < n.args.size(); ++k) args.push_back(arg(k));
        return call(n, args);
      }
      default:
        return 0;
    }
  }
};

Expression::Expression(std::string_view text) : impl_(std::make_shared<Impl>()) {
  impl_->text = std::string(text);
  impl_->root = Parser(impl_->text).parse_all(impl_->nodes, impl_->names);
  impl_->sorted = impl_->names;
  std::sort(impl_->sorted.begin(), impl_->sorted.end());
  for (const std::string& name : impl_->names)
    impl_->sorted_at.push_back(static_cast<std::size_t>(
        std::lower_bound(impl_->sorted.begin(), impl_->sorted.end(), name) - impl_->sorted.begin()));
}

const std::string& Expression::text() const {
  return impl_->text;
}

const std::vector<std::string>& Expression::variables() const {
  return impl_->sorted;
}

std::optional<double> Expression::evaluate(const Lookup& lookup) const {
  std::vector<double> values;
  values.reserve(impl_->names.size());
  for (const std::string& name : impl_->names) {
    std::optional<double> v = lookup(name);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return impl_->finite_eval(values);
}

std::optional<double> Expression::evaluate(std::span<const std::optional<double>> values) const {
  std::vector<double> in_use;
  in_use.reserve(impl_->names.size());
  for (std::size_t at : impl_->sorted_at) {
    if (at >= values.size() || !values[at]) return std::nullopt;
    in_use.push_back(*values[at]);
  }
  return impl_->finite_eval(in_use);
}

}  // namespace perfgate
