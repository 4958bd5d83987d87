// A memory snapshot's analysis (analyse/memory/snapshot_analysis.h) as report tables: each device's
// final state, fragmentation and peak; what is live at the peak by allocation site; the
// out-of-memory errors.
#include <algorithm>
#include <array>

#include "analyse/analysis.h"
#include "report/report_cells.h"
#include "report/run_tables.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

ReportCell device_cell(std::int32_t device) {
  return ReportCell{static_cast<std::int64_t>(device)};
}
ReportCell signed_bytes(std::int64_t b) {
  return ReportCell{static_cast<double>(b)};
}

constexpr auto kDeviceColumns = declared<Table::MemorySnapshot>(std::array<Column<SnapshotDeviceRow>, 16>{{
    {"device", [](const SnapshotDeviceRow& r) { return device_cell(r.device); }},
    {"segments", [](const SnapshotDeviceRow& r) { return count(r.segments); }},
    {"expandable_segments", [](const SnapshotDeviceRow& r) { return count(r.expandable_segments); }},
    {"actions", [](const SnapshotDeviceRow& r) { return count(r.actions); }},
    {"reserved_bytes", [](const SnapshotDeviceRow& r) { return bytes(r.reserved); }},
    {"allocated_bytes", [](const SnapshotDeviceRow& r) { return bytes(r.allocated); }},
    {"allocated_requested_bytes", [](const SnapshotDeviceRow& r) { return bytes(r.allocated_requested); }},
    {"reserved_unallocated_bytes",
     [](const SnapshotDeviceRow&
            r) { return bytes(r.reserved > r.allocated ? r.reserved - r.allocated : 0); }},
    {"split_inactive_blocks", [](const SnapshotDeviceRow& r) { return count(r.split_inactive_blocks); }},
    {"split_inactive_bytes", [](const SnapshotDeviceRow& r) { return bytes(r.split_inactive_bytes); }},
    {"largest_inactive_bytes", [](const SnapshotDeviceRow& r) { return bytes(r.largest_inactive); }},
    {"entering_allocated_bytes",
     [](const SnapshotDeviceRow& r) { return signed_bytes(r.entering_allocated); }},
    {"peak_allocated_bytes", [](const SnapshotDeviceRow& r) { return signed_bytes(r.peak); }},
    {"peak_requested_bytes", [](const SnapshotDeviceRow& r) { return signed_bytes(r.peak_requested); }},
    {"peak_action", [](const SnapshotDeviceRow& r) { return count(r.peak_action); }},
    {"ooms", [](const SnapshotDeviceRow& r) { return count(r.ooms); }},
}});

constexpr auto kSiteColumns = declared<Table::MemoryLiveAtPeak>(std::array<Column<SnapshotSiteRow>, 6>{{
    {"device", [](const SnapshotSiteRow& r) { return device_cell(r.device); }},
    {"site", [](const SnapshotSiteRow& r) { return text(r.site); }},
    {"category", [](const SnapshotSiteRow& r) { return text(r.category); }},
    {"bytes", [](const SnapshotSiteRow& r) { return bytes(r.bytes); }},
    {"blocks", [](const SnapshotSiteRow& r) { return count(r.blocks); }},
    {"share_pct", [](const SnapshotSiteRow& r) {
       return r.peak > 0 ? ReportCell{100.0 * static_cast<double>(r.bytes) / static_cast<double>(r.peak)}
                         : ReportCell{};
     }},
}});

constexpr auto
    kCategoryColumns = declared<Table::MemoryPeakCategories>(std::
                                                                 array<Column<SnapshotCategoryRow>, 5>{{
                                                                     {"device",
                                                                      [](const SnapshotCategoryRow& r) {
                                                                        return device_cell(r.device);
                                                                      }},
                                                                     {"category",
                                                                      [](const SnapshotCategoryRow& r) {
                                                                        return text(r.category);
                                                                      }},
                                                                     {"bytes",
                                                                      [](const SnapshotCategoryRow& r) {
                                                                        return bytes(r.bytes);
                                                                      }},
                                                                     {"blocks",
                                                                      [](const SnapshotCategoryRow& r) {
                                                                        return count(r.blocks);
                                                                      }},
                                                                     {"share_pct",
                                                                      [](const SnapshotCategoryRow& r) {
                                                                        return r.peak > 0
                                                                                   ? ReportCell{100.0 *
                                                                                                static_cast<
                                                                                                    double>(
                                                                                                    r.bytes) /
                                                                                                static_cast<
                                                                                                    double>(
                                                                                                    r.peak)}
                                                                                   : ReportCell{};
                                                                      }},
                                                                 }});

constexpr auto kBandColumns = declared<Table::MemoryTimeline>(std::array<Column<SnapshotBandRow>, 9>{{
    {"device", [](const SnapshotBandRow& r) { return device_cell(r.device); }},
    {"band", [](const SnapshotBandRow& r) { return count(r.band); }},
    {"site", [](const SnapshotBandRow& r) { return text(r.site); }},
    {"category", [](const SnapshotBandRow& r) { return text(r.category); }},
    {"first_state", [](const SnapshotBandRow& r) { return count(r.first_state); }},
    {"last_state", [](const SnapshotBandRow& r) { return count(r.last_state); }},
    {"bottom_bytes", [](const SnapshotBandRow& r) { return signed_bytes(r.bottom); }},
    {"size_bytes", [](const SnapshotBandRow& r) { return bytes(r.size); }},
    {"top_bytes", [](const SnapshotBandRow& r) {
       std::int64_t top = 0;
       if (__builtin_add_overflow(r.bottom, static_cast<std::int64_t>(r.size), &top)) top = INT64_MAX;
       return signed_bytes(top);
     }},
}});

constexpr auto kOomColumns = declared<Table::MemoryOoms>(std::array<Column<SnapshotOomRow>, 8>{{
    {"device", [](const SnapshotOomRow& r) { return device_cell(r.device); }},
    {"action", [](const SnapshotOomRow& r) { return count(r.action); }},
    {"time_us", [](const SnapshotOomRow& r) { return us(r.time); }},
    {"requested_bytes", [](const SnapshotOomRow& r) { return bytes(r.requested); }},
    {"device_free_bytes", [](const SnapshotOomRow& r) { return bytes(r.device_free); }},
    {"allocated_bytes", [](const SnapshotOomRow& r) { return signed_bytes(r.allocated); }},
    {"reserved_bytes", [](const SnapshotOomRow& r) { return signed_bytes(r.reserved); }},
    {"site", [](const SnapshotOomRow& r) { return text(r.site); }},
}});

}  // namespace

std::vector<ReportTable> memory_snapshot_tables(const WorkerTables& t) {
  std::vector<ReportTable> out;
  out.push_back(make_table(kDeviceColumns, t.memory_snapshot));
  out.push_back(make_table(kSiteColumns, t.memory_live_at_peak));
  out.push_back(make_table(kCategoryColumns, t.memory_peak_categories));
  out.push_back(make_table(kBandColumns, t.memory_timeline));
  out.push_back(make_table(kOomColumns, t.memory_ooms));
  return out;
}

bool run_of_snapshots(const RunAnalysis& analysis) {
  if (analysis.workers.size() < 2) return false;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i)
    if (analysis.workers[i].memory.snapshot.devices == 0) return false;
  return true;
}

ReportTable memory_snapshots_table(const RunAnalysis& analysis) {
  ReportTable t = declared_table(Table::MemorySnapshots);
  std::vector<std::size_t> order(analysis.workers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&analysis](std::size_t a, std::size_t b) {
    return analysis.workers[a].memory.snapshot.peak > analysis.workers[b].memory.snapshot.peak;
  });
  for (std::size_t i : order) {
    const WorkerAnalysis& w = analysis.workers[i];
    const SnapshotSums& s = w.memory.snapshot;
    t.rows.push_back({ReportCell{w.worker}, count(s.devices), device_cell(s.peak_device),
                      signed_bytes(s.peak), bytes(s.reserved), bytes(s.allocated),
                      bytes(s.split_inactive_bytes), count(s.ooms)});
  }
  return t;
}

}  // namespace perfgate
