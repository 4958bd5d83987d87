// The metric catalog: every metric's stable dotted name, label, unit and definition, written once
// and used by `perfgate metrics`, the JSON report, the rules, every renderer and the documentation.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace perfgate {

struct MetricInfo {
  std::string_view name;
  // How every output names the metric in words ("GPU utilization"), the same in each: short enough
  // for a line of the terminal summary, sentence case.
  std::string_view label;
  std::string_view unit;  // "us", "%", "count", "ratio", "bytes", "GB/s", "flop", "TFLOP/s", "version"
  std::string_view definition;
  std::string_view source;  // whose definition it follows
};

std::span<const MetricInfo> metric_catalog();
std::optional<std::size_t> metric_index(std::string_view name);
// The catalog's entry of `name`; a name the catalog lacks is a programming error (std::logic_error),
// never a silent "n/a".
const MetricInfo& metric_info(std::string_view name);

// One value per catalog metric; empty means "not applicable" (never 0 in its place).
class MetricValues {
 public:
  MetricValues();
  void set(std::string_view name, std::optional<double> value);  // unknown name: std::logic_error
  std::optional<double> get(std::string_view name) const;
  std::optional<double> at(std::size_t index) const { return values_[index]; }
  void set_at(std::size_t index, std::optional<double> value) { values_[index] = value; }
  std::size_t size() const { return values_.size(); }

 private:
  std::vector<std::optional<double>> values_;
};

}  // namespace perfgate
