// Expressions over metrics in rule files: arithmetic, comparisons, `and`/`or`/`not` (or && || !),
// `?:`, min/max/abs/floor/ceil/round, true/false. Variable names are dotted metric names.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

class Expression {
 public:
  using Lookup = std::function<std::optional<double>(std::string_view name)>;

  // Throws std::invalid_argument saying what is wrong and where (1-based position) when `text` is
  // invalid.
  explicit Expression(std::string_view text);

  const std::string& text() const;
  // The names the expression reads, sorted.
  const std::vector<std::string>& variables() const;
  // Empty when a variable has no value (not applicable) or the result is not a finite number.
  std::optional<double> evaluate(const Lookup& lookup) const;
  // The same with the variables' values given in the order of variables(): what a caller that
  // resolved the names once (the rules' metrics) passes on each evaluation.
  std::optional<double> evaluate(std::span<const std::optional<double>> values) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace perfgate
