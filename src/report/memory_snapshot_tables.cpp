// A memory snapshot's analysis (analyse/memory/snapshot_analysis.h) as report tables: each device's
// final state, fragmentation and peak; what is live at the peak by allocation site; the
// out-of-memory errors.
#include <array>

#include "perfgate/analysis.h"
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

constexpr std::array<Column<SnapshotDeviceRow>, 14> kDeviceColumns = {{
    {"device", "count", "GPU", [](const SnapshotDeviceRow& r) { return device_cell(r.device); }},
    {"segments", "count", "The allocator's segments at the end",
     [](const SnapshotDeviceRow& r) { return count(r.segments); }},
    {"expandable_segments", "count", "Of which expandable (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)",
     [](const SnapshotDeviceRow& r) { return count(r.expandable_segments); }},
    {"actions", "count", "Actions of the recorded trace",
     [](const SnapshotDeviceRow& r) { return count(r.actions); }},
    {"reserved_bytes", "bytes", "Reserved at the end: the segments' sizes",
     [](const SnapshotDeviceRow& r) { return bytes(r.reserved); }},
    {"allocated_bytes", "bytes", "Allocated at the end: the active blocks' sizes",
     [](const SnapshotDeviceRow& r) { return bytes(r.allocated); }},
    {"reserved_unallocated_bytes", "bytes", "Reserved minus allocated at the end",
     [](const SnapshotDeviceRow& r) {
       return bytes(r.reserved > r.allocated ? r.reserved - r.allocated : 0);
     }},
    {"split_inactive_blocks", "count", "Free blocks inside segments that also hold other blocks, at the end",
     [](const SnapshotDeviceRow& r) { return count(r.split_inactive_blocks); }},
    {"split_inactive_bytes", "bytes", "Their bytes: fragmentation",
     [](const SnapshotDeviceRow& r) { return bytes(r.split_inactive_bytes); }},
    {"largest_inactive_bytes", "bytes", "The largest free block at the end",
     [](const SnapshotDeviceRow& r) { return bytes(r.largest_inactive); }},
    {"entering_allocated_bytes", "bytes",
     "Allocated when the recording began (replayed backwards from the end; negative: the trace and the final "
     "state disagree)",
     [](const SnapshotDeviceRow& r) { return signed_bytes(r.entering_allocated); }},
    {"peak_allocated_bytes", "bytes", "The highest allocated total over the recorded window",
     [](const SnapshotDeviceRow& r) { return signed_bytes(r.peak); }},
    {"peak_action", "count", "The trace action after which the peak is reached (0: before the first)",
     [](const SnapshotDeviceRow& r) { return count(r.peak_action); }},
    {"ooms", "count", "Out-of-memory errors in the trace",
     [](const SnapshotDeviceRow& r) { return count(r.ooms); }},
}};

constexpr std::array<Column<SnapshotSiteRow>, 5> kSiteColumns = {{
    {"device", "count", "GPU", [](const SnapshotSiteRow& r) { return device_cell(r.device); }},
    {"site", "",
     "Where the blocks were allocated: the top user frame (the first not in an installed package, torch, "
     "the Python library or C/C++), \"(no frames recorded)\" or \"(no user frame)\"",
     [](const SnapshotSiteRow& r) { return text(r.site); }},
    {"bytes", "bytes", "Bytes of the site's blocks live at the device's peak",
     [](const SnapshotSiteRow& r) { return bytes(r.bytes); }},
    {"blocks", "count", "Blocks live at the peak", [](const SnapshotSiteRow& r) { return count(r.blocks); }},
    {"share_pct", "%", "Of the device's peak: a device's rows add up to 100",
     [](const SnapshotSiteRow& r) {
       return r.peak > 0 ? ReportCell{100.0 * static_cast<double>(r.bytes) / static_cast<double>(r.peak)}
                         : ReportCell{};
     }},
}};

constexpr std::array<Column<SnapshotOomRow>, 8> kOomColumns = {{
    {"device", "count", "GPU", [](const SnapshotOomRow& r) { return device_cell(r.device); }},
    {"action", "count", "Its place in the device's trace (from 1)",
     [](const SnapshotOomRow& r) { return count(r.action); }},
    {"time_us", "us", "On the snapshot's clock", [](const SnapshotOomRow& r) { return us(r.time); }},
    {"requested_bytes", "bytes", "The allocation that failed",
     [](const SnapshotOomRow& r) { return bytes(r.requested); }},
    {"device_free_bytes", "bytes", "What the device had free then (cudaMemGetInfo)",
     [](const SnapshotOomRow& r) { return bytes(r.device_free); }},
    {"allocated_bytes", "bytes", "Allocated then (the replay)",
     [](const SnapshotOomRow& r) { return signed_bytes(r.allocated); }},
    {"reserved_bytes", "bytes", "Reserved then (the replay)",
     [](const SnapshotOomRow& r) { return signed_bytes(r.reserved); }},
    {"site", "", "Where the failed allocation was requested (top user frame)",
     [](const SnapshotOomRow& r) { return text(r.site); }},
}};

}  // namespace

std::vector<ReportTable> memory_snapshot_tables(const WorkerTables& t) {
  std::vector<ReportTable> out;
  out.push_back(
      make_table("memory_snapshot", "Memory snapshot",
                 "A PyTorch memory snapshot's devices: the state at the end, fragmentation, and the "
                 "peak replayed over the recorded window",
                 kDeviceColumns, t.memory_snapshot));
  out.push_back(make_table("memory_live_at_peak", "Live at the memory peak",
                           "A memory snapshot's blocks live at each device's peak, by allocation site, most "
                           "bytes first: they add up to the peak",
                           kSiteColumns, t.memory_live_at_peak));
  out.push_back(make_table("memory_ooms", "Out-of-memory errors",
                           "A memory snapshot's failed allocations, in trace order, with the totals then",
                           kOomColumns, t.memory_ooms));
  return out;
}

}  // namespace perfgate
