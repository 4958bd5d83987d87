// Rule expressions: precedence, word and symbol operators, functions, not-applicable values, errors.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "gate/expression.h"

namespace perfgate {
namespace {

std::optional<double> eval(const std::string& text,
                           const std::map<std::string, std::optional<double>>& vars = {}) {
  return Expression(text).evaluate([&](std::string_view name) -> std::optional<double> {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::nullopt : it->second;
  });
}

TEST(Expression, ArithmeticPrecedence) {
  EXPECT_EQ(*eval("1 + 2 * 3"), 7);
  EXPECT_EQ(*eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(*eval("10 - 4 - 3"), 3);   // left to right
  EXPECT_EQ(*eval("2 ^ 3 ^ 2"), 512);  // right to left
  EXPECT_EQ(*eval("-2 ^ 2"), -4);
  EXPECT_EQ(*eval("8 / 4 / 2"), 1);
  EXPECT_EQ(*eval("1.5e3 + .5"), 1500.5);
}

TEST(Expression, ComparisonsAndLogic) {
  EXPECT_EQ(*eval("1 < 2 and 2 <= 2"), 1);
  EXPECT_EQ(*eval("1 > 2 or 3 >= 4"), 0);
  EXPECT_EQ(*eval("not 1 == 2"), 1);
  EXPECT_EQ(*eval("!(1 != 1) && true"), 1);
  EXPECT_EQ(*eval("false || 0"), 0);
  EXPECT_EQ(*eval("1 + 1 == 2 and 3 * 2 > 5"), 1);  // arithmetic binds tighter than comparison
  EXPECT_EQ(*eval("1 < 2 ? 10 : 20"), 10);
  EXPECT_EQ(*eval("0 ? 10 : 1 ? 20 : 30"), 20);
}

TEST(Expression, DottedMetricNamesAndFunctions) {
  std::map<std::string, std::optional<double>> vars = {{"gpu.utilization_pct", 42.5},
                                                       {"tensor_core.kernel_time_pct", 0}};
  EXPECT_EQ(*eval("gpu.utilization_pct < 50 and tensor_core.kernel_time_pct == 0", vars), 1);
  EXPECT_EQ(*eval("max(gpu.utilization_pct, 50, 7)", vars), 50);
  EXPECT_EQ(*eval("min(3, 1, 2) + abs(-2) + floor(2.7) + ceil(2.1) + round(2.5)", vars), 1 + 2 + 2 + 3 + 3);
  Expression e("a.b + a.b * c_d - android");
  EXPECT_EQ(e.variables(), (std::vector<std::string>{"a.b", "android", "c_d"}));
}

TEST(Expression, MissingValuesAndNonFiniteResultsAreNotApplicable) {
  EXPECT_FALSE(eval("gpu.utilization_pct < 50"));
  EXPECT_FALSE(eval("x / 0", {{"x", 1.0}}));
  EXPECT_FALSE(eval("x > 1", {{"x", std::nullopt}}));
}

TEST(Expression, ErrorsSayWhatAndWhere) {
  auto message = [](const std::string& text) {
    try {
      Expression e(text);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("1 +"), "unexpected end of the expression at position 4");
  EXPECT_EQ(message("(1 + 2"), "expected ')' at position 7");
  EXPECT_EQ(message("1 2"), "unexpected '2' at position 3");
  EXPECT_EQ(message("sqrt(4)"),
            "unknown function 'sqrt' (there are min, max, abs, floor, ceil, round) at position 1");
  EXPECT_EQ(message("abs(1, 2)"), "'abs' takes one argument at position 10");
  EXPECT_EQ(message("1 ? 2"), "expected ':' of '?:' at position 6");
  EXPECT_EQ(message("3x"), "invalid number at position 2");
  EXPECT_EQ(message("a $ b"), "unexpected '$' at position 3");
}

// Issue 13: 10,000 nested parentheses or a flat sum of 100,000 terms used to overflow the stack in
// the parser or in evaluate(). Both are refused when parsed; the limits themselves still evaluate.
TEST(Expression, DeepNestingAndLongExpressionsAreRefused) {
  auto message = [](const std::string& text) {
    try {
      Expression e(text);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  std::string deep = std::string(10000, '(') + "1" + std::string(10000, ')');
  EXPECT_EQ(message(deep), "nesting deeper than 64 at position 65");
  EXPECT_EQ(message(std::string(10000, '-') + "1"), "nesting deeper than 64 at position 65");
  EXPECT_EQ(message(std::string(10000, '!') + "1"), "nesting deeper than 64 at position 65");
  std::string powers;
  for (int i = 0; i < 100; ++i) powers += "2^";
  EXPECT_EQ(message(powers + "1"), "nesting deeper than 64 at position 130");
  std::string flat = "1";
  for (int i = 1; i < 100000; ++i) flat += "+1";
  EXPECT_EQ(message(flat), "more than 1000 terms at position 2001");
  EXPECT_EQ(*eval(std::string(64, '(') + "1" + std::string(64, ')')), 1);
  std::string thousand = "1";
  for (int i = 1; i < 1000; ++i) thousand += "+1";
  EXPECT_EQ(*eval(thousand), 1000);
}

}  // namespace
}  // namespace perfgate
