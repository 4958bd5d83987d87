#include "render/terminal_memory.h"

#include <fmt/format.h>

#include "common/units.h"

namespace perfgate {
namespace {

constexpr std::size_t kSitesShown = 3;
constexpr std::size_t kOomsShown = 3;

std::string bytes_text(const ReportCell* cell) {
  std::optional<double> v = cell ? cell_number(*cell) : std::nullopt;
  return format_value(v, "bytes");
}
std::string cell_text(const ReportCell* cell) {
  const auto* s = cell ? std::get_if<std::string>(cell) : nullptr;
  return s ? *s : std::string();
}
std::string count_text(const ReportCell* cell) {
  std::optional<double> v = cell ? cell_number(*cell) : std::nullopt;
  return v ? fmt::format("{:.0f}", *v) : std::string("n/a");
}

// "forward (model.py:39) 2.7 GB 19.7% · ...": the first worker's largest sites at its peak.
std::string sites_line(const ReportTable& sites) {
  std::string line;
  for (std::size_t i = 0; i < sites.rows.size() && i < kSitesShown; ++i)
    line += fmt::format(
        "{}{} {} {}", i == 0 ? "" : " · ",
        cell_text(find_cell(sites, i, table_column(Table::MemoryLiveAtPeak, "site"))),
        bytes_text(find_cell(sites, i, table_column(Table::MemoryLiveAtPeak, "bytes"))),
        format_value(cell_number(*find_cell(sites, i, table_column(Table::MemoryLiveAtPeak, "share_pct"))),
                     "%"));
  if (sites.rows.size() > kSitesShown)
    line += fmt::format(" · {} more sites", sites.rows.size() - kSitesShown);
  return line;
}

}  // namespace

bool snapshot_alone(const ReportModel& r) {
  return r.metric(Metric::MemorySnapshotPeakBytes).has_value() && !r.metric(Metric::WindowStepsTotal) &&
         r.metric(Metric::GpuCount).value_or(0) == 0;
}

std::vector<TerminalLine> memory_snapshot_lines(const ReportModel& r) {
  const MetricValues& m = r.metrics;
  std::optional<double> peak = m.get(Metric::MemorySnapshotPeakBytes);
  if (!peak) return {};
  std::vector<TerminalLine> out;
  std::string first = fmt::format("snapshot peak {} allocated", format_value(peak, "bytes"));
  if (auto pct = m.get(Metric::MemorySnapshotPeakPct))
    first += fmt::format(
        " ({} of the device's memory: as --device-memory gives it, else as an out-of-memory "
        "error shows it)",
        format_value(pct, "%"));
  first += fmt::format(" · at the end {} reserved, {} allocated",
                       format_value(m.get(Metric::MemorySnapshotReservedBytes), "bytes"),
                       format_value(m.get(Metric::MemorySnapshotAllocatedBytes), "bytes"));
  out.push_back({"Memory", first});
  out.push_back(
      {"", fmt::format("fragmentation {} ({} in free blocks of split segments) · largest free block {} · "
                       "out-of-memory errors: {:.0f}",
                       format_value(m.get(Metric::MemoryFragmentationPct), "%"),
                       format_value(m.get(Metric::MemoryInactiveSplitBytes), "bytes"),
                       format_value(m.get(Metric::MemoryLargestInactiveBytes), "bytes"),
                       m.get(Metric::MemoryOomCount).value_or(0))});
  for (const ReportWorker& w : r.workers) {
    const ReportTable* sites = find_table(w.tables, Table::MemoryLiveAtPeak);
    if (sites && !sites->rows.empty()) {
      out.push_back({"Live at peak", sites_line(*sites)});
      break;
    }
  }
  std::size_t shown = 0;
  for (const ReportWorker& w : r.workers) {
    const ReportTable* ooms = find_table(w.tables, Table::MemoryOoms);
    for (std::size_t i = 0; ooms && i < ooms->rows.size() && shown < kOomsShown; ++i, ++shown)
      out.push_back(
          {"OOM",
           fmt::format("device {}, action {}: {} requested with {} free on the device ({} allocated, "
                       "{} reserved) from {}",
                       count_text(find_cell(*ooms, i, table_column(Table::MemoryOoms, "device"))),
                       count_text(find_cell(*ooms, i, table_column(Table::MemoryOoms, "action"))),
                       bytes_text(find_cell(*ooms, i, table_column(Table::MemoryOoms, "requested_bytes"))),
                       bytes_text(find_cell(*ooms, i, table_column(Table::MemoryOoms, "device_free_bytes"))),
                       bytes_text(find_cell(*ooms, i, table_column(Table::MemoryOoms, "allocated_bytes"))),
                       bytes_text(find_cell(*ooms, i, table_column(Table::MemoryOoms, "reserved_bytes"))),
                       cell_text(find_cell(*ooms, i, table_column(Table::MemoryOoms, "site"))))});
  }
  return out;
}

}  // namespace perfgate
