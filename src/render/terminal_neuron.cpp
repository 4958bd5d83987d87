#include "render/terminal_neuron.h"

#include <algorithm>

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

// The run's first Neuron profile (a mixed run's GPU workers come first by name too); null: none.
const ReportWorker* first_neuron(const ReportModel& r) {
  for (const ReportWorker& w : r.workers)
    if (w.metric(Metric::NeuronTotalTimeUs)) return &w;
  return nullptr;
}

// "tensor 0.07%, vector 0.02% (semaphore waits 99.8%)": the first profile's engines table.
std::string engines_text(const ReportWorker& w) {
  const ReportTable* t = find_table(w.tables, Table::NeuronEngines);
  if (!t) return "";
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    std::optional<double> active =
        number_or_empty(*t, i, table_column(Table::NeuronEngines, "summary_active_pct"));
    if (!active) active = number_or_empty(*t, i, table_column(Table::NeuronEngines, "active_pct"));
    std::string item =
        text_at(*t, i, table_column(Table::NeuronEngines, "engine")) + " " + format_pct(active);
    if (auto waits = number_or_empty(*t, i, table_column(Table::NeuronEngines, "semaphore_wait_pct")))
      item += fmt::format(" (semaphore waits {})", format_pct(waits));
    shown.push_back(item);
  }
  std::string text;
  for (const auto& s : shown) text += (text.empty() ? "" : ", ") + s;
  return text;
}

// "25.6 MB: Weights 12.0 MB (46.9%), Tensors 8.0 MB (31.3%), DMA Rings IO 2.0 MB (7.8%)": the first
// profile's neuron_memory table, its first core's Total and largest uses (the table is by core, most
// bytes first).
std::string memory_uses_text(const ReportWorker& w) {
  const ReportTable* t = find_table(w.tables, Table::NeuronMemory);
  if (!t || t->rows.empty()) return "";
  constexpr std::size_t kShown = 3;
  std::string total, uses;
  std::size_t shown = 0;
  std::optional<double> device = number_or_empty(*t, 0, table_column(Table::NeuronMemory, "device")),
                        core = number_or_empty(*t, 0, table_column(Table::NeuronMemory, "core"));
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    if (number_or_empty(*t, i, table_column(Table::NeuronMemory, "device")) != device ||
        number_or_empty(*t, i, table_column(Table::NeuronMemory, "core")) != core)
      break;
    std::string use = text_at(*t, i, table_column(Table::NeuronMemory, "use"));
    std::string size =
        format_value(number_or_empty(*t, i, table_column(Table::NeuronMemory, "bytes")), "bytes");
    if (use == "Total") {
      total = size;
    } else if (shown < kShown &&
               number_or_empty(*t, i, table_column(Table::NeuronMemory, "bytes")).value_or(0) > 0) {
      std::optional<double> share = number_or_empty(*t, i, table_column(Table::NeuronMemory, "share_pct"));
      uses += (uses.empty() ? "" : ", ") + use + " " + size + (share ? " (" + format_pct(share) + ")" : "");
      ++shown;
    }
  }
  if (total.empty()) return uses;
  return total + (uses.empty() ? "" : ": " + uses);
}

// "Throttled time 0.0027% · Throttle limit 87.5%": a share above 0 never reads 0.0%, and the
// limit only comes with time spent under it (the analysis leaves it n/a otherwise).
std::string throttling_text(const MetricValues& m) {
  std::optional<double> throttled = m.get(Metric::NeuronThrottleActivePct);
  if (!throttled) return "";
  std::string text = metric_label(Metric::NeuronThrottleActivePct) + " " + format_pct_nonzero(throttled);
  if (std::optional<double> limit = m.get(Metric::NeuronThrottleUtilLimitPct); limit && *throttled > 0)
    text += " · " + metric_label(Metric::NeuronThrottleUtilLimitPct) + " " + format_pct(limit);
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
  const ReportWorker* first = first_neuron(r);
  std::string named = first && r.workers.size() > 1 ? first->name + ": " : "";
  if (std::string engines = first ? engines_text(*first) : ""; !engines.empty())
    lines.push_back({"Engines", named + engines});
  if (std::string dma =
          present(m, {Metric::NeuronDmaActivePct, Metric::NeuronDmaBytes, Metric::NeuronHbmReadBytes,
                      Metric::NeuronHbmWriteBytes, Metric::NeuronSpillSaveBytes, Metric::NeuronSbufPeakPct,
                      Metric::NeuronSbufMeanPct, Metric::NeuronPsumPeakPct, Metric::NeuronPsumMeanPct});
      !dma.empty())
    lines.push_back({"Memory", dma});
  if (std::string uses = first ? memory_uses_text(*first) : ""; !uses.empty())
    lines.push_back({"Memory use", named + uses});
  if (std::string t = throttling_text(m); !t.empty()) lines.push_back({"Throttling", t});
  if (std::count_if(r.workers.begin(), r.workers.end(), [](const ReportWorker& w) {
        return w.metric(Metric::NeuronTotalTimeUs).has_value();
      }) < 2)
    return lines;
  std::size_t slowest = 0;
  std::optional<double> longest;
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    auto total = r.workers[i].metric(Metric::NeuronTotalTimeUs);
    if (total && (!longest || *total > *longest)) longest = total, slowest = i;
  }
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    const ReportWorker& w = r.workers[i];
    if (!w.metric(Metric::NeuronTotalTimeUs)) continue;  // a mixed run's GPU workers: on their own lines
    lines.push_back(
        {"Worker", fmt::format("{}: {}{}", w.name,
                               present(w.metrics, {Metric::NeuronTotalTimeUs, Metric::NeuronActiveTimePct,
                                                   Metric::NeuronMfuPct}),
                               longest && i == slowest ? " (slowest)" : "")});
  }
  return lines;
}

}  // namespace perfgate
