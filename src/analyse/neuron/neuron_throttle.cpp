#include "analyse/neuron/neuron_throttle.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace perfgate {
namespace {

constexpr std::string_view kPrefix = "throttle_";
constexpr std::string_view kLimit = "_avg_util_limit_";
constexpr std::string_view kActive = "_active_time_";
constexpr std::string_view kPercent = "_percent";

// "throttle_<source><infix><core>_percent" split into source and core; false when `key` is not one
// (or has no source: throttle_avg_util_limit_<core>_percent, the weighted product).
bool split(std::string_view key, std::string_view infix, std::string& source, std::string& core) {
  if (!key.starts_with(kPrefix) || !key.ends_with(kPercent)) return false;
  std::string_view rest = key.substr(kPrefix.size(), key.size() - kPrefix.size() - kPercent.size());
  std::size_t at = rest.rfind(infix);
  if (at == std::string_view::npos || at == 0) return false;
  source = rest.substr(0, at);
  core = rest.substr(at + infix.size());
  return !core.empty() && !source.empty();
}

NeuronThrottleRow& row_of(std::vector<NeuronThrottleRow>& rows, const std::string& source,
                          const std::string& core) {
  for (NeuronThrottleRow& r : rows)
    if (r.source == source && r.core == core) return r;
  rows.push_back({source, core, std::nullopt, std::nullopt});
  return rows.back();
}

}  // namespace

std::vector<NeuronThrottleRow> neuron_throttle_rows(const NeuronDevice& n) {
  std::vector<NeuronThrottleRow> rows;
  std::string source, core;
  for (const auto& [key, value] : n.summary) {
    if (split(key, kLimit, source, core))
      row_of(rows, source, core).limit_pct = value * 100.0;
    else if (split(key, kActive, source, core))
      row_of(rows, source, core).active_pct = value * 100.0;
  }
  return rows;
}

std::optional<double> neuron_throttled_pct(const NeuronDevice& n, const std::vector<NeuronThrottleRow>& rows,
                                           TimeNs total) {
  std::optional<double> time_ns;  // throttle_active_<core>_time_ns, the highest core
  for (const auto& [key, value] : n.summary)
    if (key.starts_with("throttle_active_") && key.ends_with("_time_ns"))
      time_ns = std::max(time_ns.value_or(value), value);
  if (time_ns && total > 0) return std::min(100.0, 100.0 * *time_ns / static_cast<double>(total));
  std::optional<double> highest;
  for (const NeuronThrottleRow& r : rows)
    if (r.active_pct) highest = std::max(highest.value_or(*r.active_pct), *r.active_pct);
  return highest;
}

std::optional<double> neuron_throttle_limit_pct(const std::vector<NeuronThrottleRow>& rows,
                                                std::optional<double> throttled_pct) {
  if (!throttled_pct || *throttled_pct <= 0) return std::nullopt;  // no time under any limit
  std::optional<double> lowest;
  for (const NeuronThrottleRow& r : rows)
    if (r.limit_pct && r.active_pct && *r.active_pct > 0)
      lowest = std::min(lowest.value_or(*r.limit_pct), *r.limit_pct);
  if (lowest) lowest = std::min(*lowest, 100.0);
  return lowest;
}

}  // namespace perfgate
