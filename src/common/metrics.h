// The metric catalog: every metric's stable dotted name, label, unit and definition, written once
// (common/metric_catalog.def) and used by `perfgate metrics`, the JSON report, the rules, every
// renderer and the documentation. The code names a metric by its id, Metric::GpuUtilizationPct: a
// misspelt id does not compile. Names are for what comes from outside (rules, JSON reports, the
// run history, the command line): metric_id() resolves one once, where it is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace perfgate {

// The catalog's metrics, in its order (the ids are made from its rows).
enum class Metric : std::uint16_t {
#define PERFGATE_METRIC(id, ...) id,
#include "common/metric_catalog.def"
#undef PERFGATE_METRIC
};

// Each metric's dotted name, by id.
inline constexpr std::string_view kMetricNames[] = {
#define PERFGATE_METRIC(id, name, ...) name,
#include "common/metric_catalog.def"
#undef PERFGATE_METRIC
};
inline constexpr std::size_t kMetricCount = std::size(kMetricNames);

// The metric's position in the catalog (and in every report's metrics).
constexpr std::size_t metric_position(Metric metric) {
  return static_cast<std::size_t>(metric);
}
constexpr std::string_view metric_name(Metric metric) {
  return kMetricNames[metric_position(metric)];
}

// The catalog groups a Neuron device's metrics under neuron.*: what a run of Neuron profiles alone
// has, and what a GPU or CPU-only trace never has.
constexpr bool is_neuron_metric(Metric metric) {
  return metric_name(metric).starts_with("neuron.");
}

struct MetricInfo {
  std::string_view name;
  std::string_view label;  // how every output names the metric in words, the same in each
  std::string_view unit;
  std::string_view definition;
  std::string_view source;  // whose definition it follows
};

std::span<const MetricInfo> metric_catalog();
const MetricInfo& metric_info(Metric metric);
// The id of a dotted name; empty for a name the catalog lacks.
std::optional<Metric> metric_id(std::string_view name);

// One value per catalog metric; empty means "not applicable" (never 0 in its place).
class MetricValues {
 public:
  MetricValues() : values_(kMetricCount) {}
  void set(Metric metric, std::optional<double> value) { values_[metric_position(metric)] = value; }
  std::optional<double> get(Metric metric) const { return values_[metric_position(metric)]; }
  // By catalog position, for what walks the whole catalog (writers, the partial reports' codec).
  std::optional<double> at(std::size_t index) const { return values_[index]; }
  void set_at(std::size_t index, std::optional<double> value) { values_[index] = value; }
  std::size_t size() const { return values_.size(); }
  bool operator==(const MetricValues&) const = default;

 private:
  std::vector<std::optional<double>> values_;
};

}  // namespace perfgate
