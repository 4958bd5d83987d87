// perfgate's metrics by typed id (public API; docs/api.md): every metric's stable dotted name,
// label, unit and definition, written once in perfgate/metric_catalog.def and shared by the
// program, its reports and a C++ program that reads them. A metric is named by its id,
// perfgate::Metric::GpuUtilizationPct: a misspelt id does not compile. Names are for what comes
// from outside (rules, JSON reports, the run history): metric_id() resolves one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>

namespace perfgate {

// The catalog's metrics, in its order (the ids are made from its rows).
enum class Metric : std::uint16_t {
#define PERFGATE_METRIC(id, ...) id,
#include "perfgate/metric_catalog.def"
#undef PERFGATE_METRIC
};

// Each metric's dotted name, by id.
inline constexpr std::string_view kMetricNames[] = {
#define PERFGATE_METRIC(id, name, ...) name,
#include "perfgate/metric_catalog.def"
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

struct MetricInfo {
  std::string_view name;
  std::string_view label;  // how every output names the metric in words, the same in each
  std::string_view unit;   // "us", "%", "count", "ratio", "bytes", "GB/s", "flop", "TFLOP/s", ...
  std::string_view definition;
  std::string_view source;  // whose definition it follows
};

std::span<const MetricInfo> metric_catalog();
const MetricInfo& metric_info(Metric metric);
// The id of a dotted name; empty for a name the catalog lacks.
std::optional<Metric> metric_id(std::string_view name);

}  // namespace perfgate
