// The metric catalog: every metric's stable dotted name, label, unit and definition, written once
// (common/metric_catalog.def) and used by `perfgate metrics`, the JSON report, the rules, every
// renderer and the documentation. The code names a metric by its id, Metric::GpuUtilizationPct: a
// misspelt id does not compile. Names are for what comes from outside (rules, JSON reports, the
// run history, the command line): metric_id() resolves one once, where it is read.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
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

// One value per catalog metric; empty means "not applicable" (never 0 in its place). Each is held
// as a double's 8 bytes, an empty one as one NaN's bits that no value keeps: std::optional<double>
// took 16, and a run of many ranks holds every rank's metrics until its report is written (issue 78).
class MetricValues {
 public:
  MetricValues() : values_(kMetricCount, kEmpty) {}
  void set(Metric metric, std::optional<double> value) { set_at(metric_position(metric), value); }
  std::optional<double> get(Metric metric) const { return at(metric_position(metric)); }
  // By catalog position, for what walks the whole catalog (writers, the partial reports' codec).
  std::optional<double> at(std::size_t index) const {
    std::uint64_t bits = values_[index];
    if (bits == kEmpty) return std::nullopt;
    return std::bit_cast<double>(bits);
  }
  void set_at(std::size_t index, std::optional<double> value) { values_[index] = held_bits(value); }
  std::size_t size() const { return values_.size(); }
  // As std::optional<double>'s: both empty, or both values and equal (a NaN equals nothing).
  bool operator==(const MetricValues& other) const {
    if (values_.size() != other.values_.size()) return false;
    for (std::size_t i = 0; i < values_.size(); ++i)
      if (at(i) != other.at(i)) return false;
    return true;
  }

 private:
  // A NaN whose payload no arithmetic makes; a value NaN with these very bits is held as the plain
  // quiet NaN (still a NaN, as every writer shows it).
  static constexpr std::uint64_t kEmpty = 0x7ff4'6e6f'6e65'0000ULL;
  static std::uint64_t held_bits(std::optional<double> value) {
    if (!value) return kEmpty;
    std::uint64_t bits = std::bit_cast<std::uint64_t>(*value);
    return bits == kEmpty ? std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN()) : bits;
  }
  std::vector<std::uint64_t> values_;
};

}  // namespace perfgate
