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

constexpr const char* kCategoryText =
    "What the blocks hold where the snapshot says so: the trace entry's category (PyTorch's memory "
    "profiler's: parameter, gradient, optimizer_state, activation, input, temporary, autograd_detail) or "
    "its user_metadata naming one; else the phase its frames show (gradient: autograd's AccumulateGrad; "
    "optimizer: torch.optim; parameter: nn.Parameter or a module's .to()/.cuda(); backward; forward: a "
    "module's forward); else unknown (docs/formats.md)";

constexpr std::array<Column<SnapshotSiteRow>, 6> kSiteColumns = {{
    {"device", "count", "GPU", [](const SnapshotSiteRow& r) { return device_cell(r.device); }},
    {"site", "",
     "Where the blocks were allocated: the top user frame (the first not in an installed package, torch, "
     "the Python library or C/C++), \"(no frames recorded)\" or \"(no user frame)\"",
     [](const SnapshotSiteRow& r) { return text(r.site); }},
    {"category", "", kCategoryText, [](const SnapshotSiteRow& r) { return text(r.category); }},
    {"bytes", "bytes", "Bytes of the site's blocks live at the device's peak",
     [](const SnapshotSiteRow& r) { return bytes(r.bytes); }},
    {"blocks", "count", "Blocks live at the peak", [](const SnapshotSiteRow& r) { return count(r.blocks); }},
    {"share_pct", "%", "Of the device's peak: a device's rows add up to 100",
     [](const SnapshotSiteRow& r) {
       return r.peak > 0 ? ReportCell{100.0 * static_cast<double>(r.bytes) / static_cast<double>(r.peak)}
                         : ReportCell{};
     }},
}};

constexpr std::array<Column<SnapshotCategoryRow>, 5> kCategoryColumns = {{
    {"device", "count", "GPU", [](const SnapshotCategoryRow& r) { return device_cell(r.device); }},
    {"category", "", kCategoryText, [](const SnapshotCategoryRow& r) { return text(r.category); }},
    {"bytes", "bytes", "Bytes of the category's blocks live at the device's peak",
     [](const SnapshotCategoryRow& r) { return bytes(r.bytes); }},
    {"blocks", "count", "Blocks live at the peak",
     [](const SnapshotCategoryRow& r) { return count(r.blocks); }},
    {"share_pct", "%", "Of the device's peak: a device's rows add up to 100",
     [](const SnapshotCategoryRow& r) {
       return r.peak > 0 ? ReportCell{100.0 * static_cast<double>(r.bytes) / static_cast<double>(r.peak)}
                         : ReportCell{};
     }},
}};

constexpr std::array<Column<SnapshotBandRow>, 9> kBandColumns = {{
    {"device", "count", "GPU", [](const SnapshotBandRow& r) { return device_cell(r.device); }},
    {"band", "count", "1: the largest allocation drawn on its own, 2: the next; 0: the smaller ones summed",
     [](const SnapshotBandRow& r) { return count(r.band); }},
    {"site", "", "Where the band's allocation was made (top user frame)",
     [](const SnapshotBandRow& r) { return text(r.site); }},
    {"category", "", "The allocation's category (as in memory_live_at_peak)",
     [](const SnapshotBandRow& r) { return text(r.category); }},
    {"first_state", "count", "The first state the rectangle spans: the state after that many actions",
     [](const SnapshotBandRow& r) { return count(r.first_state); }},
    {"last_state", "count", "The last state it spans (included)",
     [](const SnapshotBandRow& r) { return count(r.last_state); }},
    {"bottom_bytes", "bytes", "Bytes of the allocations below it in the stack",
     [](const SnapshotBandRow& r) { return signed_bytes(r.bottom); }},
    {"size_bytes", "bytes", "Its height: the allocation's size (band 0: the smaller ones' sum)",
     [](const SnapshotBandRow& r) { return bytes(r.size); }},
    {"top_bytes", "bytes", "Bottom plus size: in the peak's column the highest top is the peak",
     [](const SnapshotBandRow& r) {
       std::int64_t top = 0;
       if (__builtin_add_overflow(r.bottom, static_cast<std::int64_t>(r.size), &top)) top = INT64_MAX;
       return signed_bytes(top);
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
  out.push_back(make_table("memory_peak_categories", "Live at the memory peak by category",
                           "A memory snapshot's blocks live at each device's peak by what they hold, most "
                           "bytes first: they add up to the peak",
                           kCategoryColumns, t.memory_peak_categories));
  out.push_back(make_table(
      "memory_timeline", "Active memory timeline",
      "A memory snapshot's allocations over its trace as PyTorch's MemoryViz stacks them, for the device "
      "whose peak is highest: at most 128 columns (each the state at its highest total) and the 64 largest "
      "allocations drawn on their own, the others summed (band 0); a row per rectangle",
      kBandColumns, t.memory_timeline));
  out.push_back(make_table("memory_ooms", "Out-of-memory errors",
                           "A memory snapshot's failed allocations, in trace order, with the totals then",
                           kOomColumns, t.memory_ooms));
  return out;
}

}  // namespace perfgate
