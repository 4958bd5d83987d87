// The metric catalog: every metric's stable dotted name, label, unit and definition, written once
// (perfgate/metric_catalog.def) and used by `perfgate metrics`, the JSON report, the rules, every
// renderer and the documentation. The ids, names and look-ups are the public API's
// (perfgate/metrics.h, one definition for the program and a program that links it); here, what
// only the program needs: the Neuron group and a report's values. Names are for what comes from
// outside (rules, JSON reports, the run history, the command line): metric_id() resolves one once,
// where it is read.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "perfgate/metrics.h"

namespace perfgate {

// The catalog groups a Neuron device's metrics under neuron.*: what a run of Neuron profiles alone
// has, and what a GPU or CPU-only trace never has.
constexpr bool is_neuron_metric(Metric metric) {
  return metric_name(metric).starts_with("neuron.");
}

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
