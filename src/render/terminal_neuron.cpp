#include "render/terminal_neuron.h"

#include <fmt/format.h>

#include "render/cell_format.h"
#include "render/format.h"

namespace perfgate {
namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

// "Neuron MFU 12.5%" for each metric the profile has; the rest are left out, not shown as n/a.
std::string present(const MetricValues& m, std::initializer_list<Metric> metrics) {
  std::vector<std::string> shown;
  for (Metric metric : metrics)
    if (auto v = m.get(metric))
      shown.push_back(metric_label(metric) + " " + format_value(v, metric_info(metric).unit));
  return join(shown);
}

std::optional<double> number_or_empty(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  return cell ? cell_number(*cell) : std::nullopt;
}

// "tensor 0.07%, vector 0.02% (semaphore waits 99.8%)": the first profile's engines table.
std::string engines_text(const ReportModel& r) {
  if (r.workers.empty()) return "";
  const ReportTable* t = find_table(r.workers.front().tables, "neuron_engines");
  if (!t) return "";
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    std::optional<double> active = number_or_empty(*t, i, "summary_active_pct");
    if (!active) active = number_or_empty(*t, i, "active_pct");
    std::string item = text_at(*t, i, "engine") + " " + format_pct(active);
    if (auto waits = number_or_empty(*t, i, "semaphore_wait_pct"))
      item += fmt::format(" (semaphore waits {})", format_pct(waits));
    shown.push_back(item);
  }
  std::string text;
  for (const auto& s : shown) text += (text.empty() ? "" : ", ") + s;
  return text;
}

}  // namespace

std::string neuron_window_text(const ReportModel& r) {
  std::size_t profiles = r.workers.size();
  return fmt::format(
      "one execution per profile (a Neuron device profile has no steps), {} profile{}, {} total "
      "time{}",
      profiles, profiles == 1 ? "" : "s", format_duration_us(r.metric(Metric::NeuronTotalTimeUs)),
      profiles > 1 ? " (the slowest)" : "");
}

std::vector<TerminalLine> neuron_terminal_lines(const ReportModel& r) {
  std::vector<TerminalLine> lines;
  if (!r.metric(Metric::NeuronTotalTimeUs)) return lines;
  const auto& m = r.metrics;
  lines.push_back({"Neuron", present(m, {Metric::NeuronTotalTimeUs, Metric::NeuronActiveTimePct,
                                         Metric::NeuronMfuPct, Metric::NeuronHfuPct, Metric::NeuronMbuPct})});
  if (std::string engines = engines_text(r); !engines.empty())
    lines.push_back({"Engines", (r.workers.size() > 1 ? r.workers.front().name + ": " : "") + engines});
  if (std::string dma =
          present(m, {Metric::NeuronDmaActivePct, Metric::NeuronDmaBytes, Metric::NeuronHbmReadBytes,
                      Metric::NeuronHbmWriteBytes, Metric::NeuronSpillSaveBytes});
      !dma.empty())
    lines.push_back({"Memory", dma});
  if (std::string t = present(m, {Metric::NeuronThrottleActivePct, Metric::NeuronThrottleUtilLimitPct});
      !t.empty())
    lines.push_back({"Throttling", t});
  if (r.workers.size() < 2) return lines;
  std::size_t slowest = 0;
  std::optional<double> longest;
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    auto total = r.workers[i].metric(Metric::NeuronTotalTimeUs);
    if (total && (!longest || *total > *longest)) longest = total, slowest = i;
  }
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    const ReportWorker& w = r.workers[i];
    lines.push_back(
        {"Worker", fmt::format("{}: {}{}", w.name,
                               present(w.metrics, {Metric::NeuronTotalTimeUs, Metric::NeuronActiveTimePct,
                                                   Metric::NeuronMfuPct}),
                               longest && i == slowest ? " (slowest)" : "")});
  }
  return lines;
}

}  // namespace perfgate
