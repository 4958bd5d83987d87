#include "render/html/memory_view.h"

#include <map>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/colors.h"
#include "render/format.h"
#include "render/html/charts.h"

namespace perfgate {
namespace {

// The worker whose allocator peaked highest: the run's memory.* metrics are its.
const ReportWorker* highest_peak(const ReportModel& r) {
  const ReportWorker* best = nullptr;
  double best_peak = -1;
  for (const ReportWorker& w : r.workers) {
    std::optional<double> peak = w.metric(Metric::MemoryPeakAllocatedBytes);
    if (peak && *peak > best_peak && !w.memory_peak.op.empty()) best = &w, best_peak = *peak;
  }
  return best;
}

// Allocated (solid) and reserved (dashed) totals of each GPU over the window, from the worker's
// memory_curve table, with the window's highest allocated total marked.
StepLineChart memory_chart(const ReportWorker& w, const ReportTable& curve) {
  StepLineChart c;
  c.title = words("GPU memory over the window");
  c.unit = "bytes";
  c.x_max_us = w.window.wall_us;
  std::map<double, std::pair<StepLine, StepLine>> by_device;
  for (std::size_t i = 0; i < curve.rows.size(); ++i) {
    double device = number_at(curve, i, table_column(Table::MemoryCurve, "device"));
    double t = number_at(curve, i, table_column(Table::MemoryCurve, "time_us")) - w.window.start_us;
    auto& [allocated, reserved] = by_device[device];
    allocated.points.emplace_back(t,
                                  number_at(curve, i, table_column(Table::MemoryCurve, "allocated_bytes")));
    if (const ReportCell* r = find_cell(curve, i, table_column(Table::MemoryCurve, "reserved_bytes"));
        r && cell_number(*r))
      reserved.points.emplace_back(t, *cell_number(*r));
    if (!c.mark || allocated.points.back().second > c.mark->second) c.mark = allocated.points.back();
  }
  std::size_t color = 0;
  for (auto& [device, lines] : by_device) {
    auto& [allocated, reserved] = lines;
    std::string hue(kBreakdownColors[color++ % kBreakdownColors.size()]);
    allocated.label = fmt::format(fmt::runtime(words("GPU {:.0f} allocated")), device);
    allocated.color = reserved.color = hue;
    reserved.label = fmt::format(fmt::runtime(words("GPU {:.0f} reserved")), device);
    reserved.dashed = true;
    c.lines.push_back(std::move(allocated));
    if (!reserved.points.empty()) c.lines.push_back(std::move(reserved));
  }
  if (c.mark)
    c.mark_label = fmt::format("window peak {}", format_bytes(static_cast<std::uint64_t>(c.mark->second)));
  return c;
}

// "Peak 3.1 GB allocated on GPU 0 (3.9% of its memory) in aten::conv2d, 12.30 ms after the window
// start."
std::string peak_text(const ReportWorker& w) {
  const ReportMemoryPeak& p = w.memory_peak;
  std::optional<double> bytes = w.metric(Metric::MemoryPeakAllocatedBytes);
  std::optional<double> pct = w.metric(Metric::MemoryPeakPct);
  double from_window = p.time_us - w.window.start_us;
  std::string when = from_window < 0 ? format_duration_us(-from_window) + " before the window"
                     : from_window > w.window.wall_us ? "after the window"
                                                      : format_duration_us(from_window) + " into the window";
  std::string text = fmt::format(fmt::runtime(words("Peak {} allocated on GPU {}{}, in {}, {}.")),
                                 format_value(bytes, "bytes"), p.device,
                                 pct ? fmt::format(" ({} of its memory)", format_pct(pct)) : "", p.op, when);
  if (std::optional<double> reserved = w.metric(Metric::MemoryPeakReservedBytes))
    text += fmt::format(" The caching allocator reserved at most {}.", format_value(reserved, "bytes"));
  if (p.lower_bound)
    text +=
        " The trace records allocations and frees without totals (PyTorch before 1.10): totals count "
        "from the capture's start, so they are lower bounds.";
  return text;
}

// A memory snapshot's peak, from its memory_snapshot table (the device whose peak is highest):
// "Snapshot peak 13.9 GB allocated on GPU 0, after action 1403 of 5163 of its trace (the red dot) ...".
std::string snapshot_peak_text(const ReportWorker& w, const ReportTable& devices) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < devices.rows.size(); ++i)
    if (number_at(devices, i, table_column(Table::MemorySnapshot, "peak_allocated_bytes")) >
        number_at(devices, best, table_column(Table::MemorySnapshot, "peak_allocated_bytes")))
      best = i;
  return fmt::format(
      "Snapshot peak {} allocated on GPU {:.0f}, after action {:.0f} of {:.0f} of its recorded trace "
      "(replayed "
      "from the final state backwards, so that memory allocated before the recording counts). At the end "
      "{} was reserved and {} allocated. The Live at the memory peak table below has what was live at the "
      "peak by allocation site; Out-of-memory errors, each failed request.",
      format_value(w.metric(Metric::MemorySnapshotPeakBytes), "bytes"),
      number_at(devices, best, table_column(Table::MemorySnapshot, "device")),
      number_at(devices, best, table_column(Table::MemorySnapshot, "peak_action")),
      number_at(devices, best, table_column(Table::MemorySnapshot, "actions")),
      format_value(w.metric(Metric::MemorySnapshotReservedBytes), "bytes"),
      format_value(w.metric(Metric::MemorySnapshotAllocatedBytes), "bytes"));
}

}  // namespace

void add_memory(const ReportModel& r, TemplateData& view) {
  const ReportWorker* w = highest_peak(r);
  if (!w) return;
  TemplateData d;
  const ReportTable* devices = find_table(w->tables, Table::MemorySnapshot);
  d.set("peak", devices && !devices->rows.empty() ? snapshot_peak_text(*w, *devices) : peak_text(*w));
  if (r.workers.size() > 1) d.set("worker", w->name);
  const ReportTable* curve = find_table(w->tables, Table::MemoryCurve);
  if (curve && !curve->rows.empty() && w->window.wall_us > 0)
    d.set("svg", step_lines_svg(memory_chart(*w, *curve)));
  add_memory_timeline(*w, d);
  view.set("memory", d);
}

}  // namespace perfgate
