#include "analyse/neuron/neuron_metrics.h"

#include "analyse/neuron/neuron_buffers.h"
#include "analyse/neuron/neuron_throttle.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace perfgate {
namespace {

using M = NeuronMetric;
using C = NeuronCombine;

constexpr std::array<NeuronMetricInfo, kNeuronMetrics> kMetrics = {{
    {Metric::NeuronTotalTimeUs, C::Max},
    {Metric::NeuronActiveTimePct, C::Mean},
    {Metric::NeuronTensorActivePct, C::Mean},
    {Metric::NeuronVectorActivePct, C::Mean},
    {Metric::NeuronScalarActivePct, C::Mean},
    {Metric::NeuronGpsimdActivePct, C::Mean},
    {Metric::NeuronSyncActivePct, C::Mean},
    {Metric::NeuronTensorInstructions, C::Sum},
    {Metric::NeuronVectorInstructions, C::Sum},
    {Metric::NeuronScalarInstructions, C::Sum},
    {Metric::NeuronGpsimdInstructions, C::Sum},
    {Metric::NeuronSyncInstructions, C::Sum},
    {Metric::NeuronMfuPct, C::Mean},
    {Metric::NeuronHfuPct, C::Mean},
    {Metric::NeuronMbuPct, C::Mean},
    {Metric::NeuronDmaActivePct, C::Mean},
    {Metric::NeuronDmaBytes, C::Sum},
    {Metric::NeuronHbmReadBytes, C::Sum},
    {Metric::NeuronHbmWriteBytes, C::Sum},
    {Metric::NeuronSpillSaveBytes, C::Sum},
    {Metric::NeuronSpillReloadBytes, C::Sum},
    {Metric::NeuronThrottleActivePct, C::Max},
    {Metric::NeuronThrottleUtilLimitPct, C::Min},
    {Metric::NeuronWarningsMissingData, C::Sum},
    {Metric::NeuronWarningsCount, C::Sum},
    {Metric::NeuronLeadingWaitUs, C::Max},
    {Metric::NeuronLeadingWaitPct, C::Max},
    {Metric::NeuronSbufPeakPct, C::Max},
    {Metric::NeuronSbufMeanPct, C::Mean},
    {Metric::NeuronPsumPeakPct, C::Max},
    {Metric::NeuronPsumMeanPct, C::Mean},
    {Metric::NeuronDeviceMemoryBytes, C::Max},
}};

// The summary's engine names, in NeuronEngine order.
constexpr std::array<std::string_view, kNeuronEngines - 1> kEngines = {"tensor", "vector", "scalar", "gpsimd",
                                                                       "sync"};

std::optional<double> times_100(std::optional<double> fraction) {
  if (!fraction) return std::nullopt;
  return *fraction * 100.0;
}

}  // namespace

bool neuron_missing_data(const NeuronWarning& w) {
  std::string_view c = w.category;
  std::string_view want = "missing data";
  if (c.size() != want.size()) return false;
  for (std::size_t i = 0; i < c.size(); ++i)
    if ((c[i] | 0x20) != want[i] && c[i] != want[i]) return false;
  return true;
}

namespace {

void set_engine_values(const Profile& p, const NeuronTables& tables, NeuronSums& s) {
  const NeuronDevice& n = p.neuron;
  for (std::size_t e = 0; e < kEngines.size(); ++e) {
    std::string name(kEngines[e]);
    const NeuronEngineRow* row = nullptr;
    for (const NeuronEngineRow& r : tables.engines)
      if (r.engine == name) row = &r;
    std::optional<double> active = times_100(n.summary_value(name + "_engine_active_time_percent"));
    if (!active && row) active = row->active_pct;
    if (active) s.values[static_cast<std::size_t>(M::TensorActivePct) + e].add(*active);
    std::optional<double> count = n.summary_value(name + "_engine_instruction_count");
    if (!n.instructions.empty()) count = row ? static_cast<double>(row->instructions) : 0.0;
    if (count) s.values[static_cast<std::size_t>(M::TensorInstructions) + e].add(*count);
  }
}

bool waits(const NeuronInstruction& i) {
  return i.semaphore_wait;
}
bool waits(const NeuronDma&) {
  return false;
}

// The union of the instructions' (or transfers') intervals, in time order, semaphore waits aside.
template <typename Rows>
TimeNs union_ns(const Rows& rows) {
  TimeNs total = 0, end = std::numeric_limits<TimeNs>::min();
  for (const auto& r : rows) {
    if (waits(r)) continue;
    if (r.end <= end) continue;
    total += r.end - std::max(r.start, end);
    end = r.end;
  }
  return total;
}

}  // namespace

const NeuronMetricInfo& neuron_metric_info(NeuronMetric metric) {
  return kMetrics[static_cast<std::size_t>(metric)];
}

void NeuronValue::add(double value) {
  min = count == 0 ? value : std::min(min, value);
  max = count == 0 ? value : std::max(max, value);
  sum += value;
  ++count;
}

NeuronValue& NeuronValue::operator+=(const NeuronValue& from) {
  if (from.count == 0) return *this;
  min = count == 0 ? from.min : std::min(min, from.min);
  max = count == 0 ? from.max : std::max(max, from.max);
  sum += from.sum;
  count += from.count;
  return *this;
}

NeuronSums& NeuronSums::operator+=(const NeuronSums& from) {
  profiles += from.profiles;
  summary_only += from.summary_only;
  for (std::size_t i = 0; i < kNeuronMetrics; ++i) values[i] += from.values[i];
  return *this;
}

TimeNs neuron_total_time(const Profile& p) {
  const NeuronDevice& n = p.neuron;
  if (std::optional<double> seconds = n.summary_value("total_time"); seconds && *seconds > 0)
    return static_cast<TimeNs>(std::min(*seconds * 1e9, static_cast<double>(kMaxDurationNs)));
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
  for (const auto& i : n.instructions) first = std::min(first, i.start), last = std::max(last, i.end);
  for (const auto& d : n.dmas) first = std::min(first, d.start), last = std::max(last, d.end);
  return last > first ? last - first : 0;
}

NeuronSums neuron_sums(const Profile& p, const NeuronTables& tables) {
  NeuronSums s;
  const NeuronDevice& n = p.neuron;
  if (!n.present) return s;
  s.profiles = 1;
  s.summary_only = n.full_profile ? 0 : 1;
  auto set = [&](M metric, std::optional<double> v) {
    if (v) s.values[static_cast<std::size_t>(metric)].add(*v);
  };
  TimeNs total = neuron_total_time(p);
  auto share_of_total = [&](TimeNs part) -> std::optional<double> {
    if (total <= 0) return std::nullopt;
    return 100.0 * static_cast<double>(part) / static_cast<double>(total);
  };
  if (total > 0) set(M::TotalTimeUs, static_cast<double>(total) / 1000.0);
  std::optional<double> active = times_100(n.summary_value("total_active_time_percent"));
  if (!active && !n.instructions.empty()) active = share_of_total(union_ns(n.instructions));
  set(M::ActivePct, active);
  set_engine_values(p, tables, s);
  set(M::MfuPct, times_100(n.summary_value("mfu_estimated_percent")));
  set(M::HfuPct, times_100(n.summary_value("hfu_estimated_percent")));
  set(M::MbuPct, times_100(n.summary_value("mbu_estimated_percent")));
  std::optional<double> dma_active = times_100(n.summary_value("dma_active_time_percent"));
  if (!dma_active && !n.dmas.empty()) dma_active = share_of_total(union_ns(n.dmas));
  set(M::DmaActivePct, dma_active);
  std::optional<double> dma_bytes = n.summary_value("dma_transfer_total_bytes");
  if (!dma_bytes && !n.dmas.empty()) {
    double bytes = 0;
    for (const NeuronDma& d : n.dmas) bytes += static_cast<double>(d.bytes);
    dma_bytes = bytes;
  }
  set(M::DmaBytes, dma_bytes);
  set(M::HbmReadBytes, n.summary_value("hbm_read_bytes"));
  set(M::HbmWriteBytes, n.summary_value("hbm_write_bytes"));
  set(M::SpillSaveBytes, n.summary_value("spill_save_bytes"));
  set(M::SpillReloadBytes, n.summary_value("spill_reload_bytes"));
  // Time under a limit, and the lowest limit applied (neuron_throttle.h): never the summary's
  // throttle_avg_util_limit_<core>_percent, which weighs the limits by their time.
  std::optional<double> throttled = neuron_throttled_pct(n, tables.throttles, total);
  set(M::ThrottleActivePct, throttled);
  set(M::ThrottleUtilLimitPct, neuron_throttle_limit_pct(tables.throttles, throttled));
  // What the profile shows of a first execution: engines held by a wait before their first work.
  if (std::optional<TimeNs> wait = neuron_leading_wait_ns(n)) {
    set(M::LeadingWaitUs, static_cast<double>(*wait) / 1000.0);
    if (total > 0)
      set(M::LeadingWaitPct,
          std::min(100.0, 100.0 * static_cast<double>(*wait) / static_cast<double>(total)));
  }
  NeuronBufferStats sbuf = neuron_buffer_stats(tables.buffers, NeuronBuffer::Sbuf);
  NeuronBufferStats psum = neuron_buffer_stats(tables.buffers, NeuronBuffer::Psum);
  set(M::SbufPeakPct, sbuf.peak_pct);
  set(M::SbufMeanPct, sbuf.mean_pct);
  set(M::PsumPeakPct, psum.peak_pct);
  set(M::PsumMeanPct, psum.mean_pct);
  set(M::DeviceMemoryBytes, neuron_device_memory_bytes(n.memory_uses));
  if (n.full_profile) {
    set(M::MissingDataWarnings,
        static_cast<double>(std::count_if(n.warnings.begin(), n.warnings.end(), neuron_missing_data)));
    set(M::Warnings, static_cast<double>(n.warnings.size()));
  }
  return s;
}

void set_neuron_metrics(MetricValues& m, const NeuronSums& s) {
  if (s.profiles == 0) return;
  for (std::size_t i = 0; i < kNeuronMetrics; ++i) {
    const NeuronValue& v = s.values[i];
    if (v.count == 0) continue;
    switch (kMetrics[i].combine) {
      case C::Max:
        m.set(kMetrics[i].metric, v.max);
        break;
      case C::Min:
        m.set(kMetrics[i].metric, v.min);
        break;
      case C::Mean:
        m.set(kMetrics[i].metric, v.sum / static_cast<double>(v.count));
        break;
      case C::Sum:
        m.set(kMetrics[i].metric, v.sum);
        break;
    }
  }
}

std::string neuron_program(const Profile& p) {
  const NeuronDevice& n = p.neuron;
  if (!n.present || !n.full_profile) return {};
  std::string engines;
  for (std::string_view e : kEngines)
    if (std::optional<double> count = n.summary_value(std::string(e) + "_engine_instruction_count"))
      engines += fmt::format("{}{} {:.0f}", engines.empty() ? "" : ", ", e, *count);
  std::optional<double> flops = n.summary_value("model_flops");
  if (engines.empty() && !flops) return {};
  std::string out = flops ? fmt::format("model_flops {:.0f}", *flops) : std::string();
  if (!engines.empty()) out += fmt::format("{}{} instructions", out.empty() ? "" : ", ", engines);
  return out;
}

}  // namespace perfgate
