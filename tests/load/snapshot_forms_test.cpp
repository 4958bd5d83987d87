// Issue 75, items 4 to 6: a memory snapshot's replay in one size unit (the size requested, as the
// trace records it and MemoryViz's Active Memory Timeline draws it), a trace without timestamps
// read by allocation order with no wall time, and torch.cuda.memory_snapshot()'s list of segments
// read as the state at the dump.
#include <gtest/gtest.h>

#include "analyse/memory/snapshot_analysis.h"
#include "analyse/worker_analysis.h"
#include "load/load.h"
#include "load/snapshot/snapshot_reader.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/snapshot_analysed.h"
#include "support/snapshot_builder.h"

namespace perfgate::testing {
namespace {

using test::Snapshot;
using test::snapshot_pickle;

constexpr std::uint64_t kMiB = 1 << 20;

// One 4 MiB segment: block A (1 MiB, 1,000,000 bytes requested) allocated in the trace and live
// at the dump, block C (2 MiB, 2,000,000 requested) allocated before the recording and live at the
// dump, the rest free. The trace: alloc B 500,000, alloc A 1,000,000, free B.
Snapshot rounded_and_requested() {
  Snapshot s;
  s.segments.push_back({0,
                        0x100000,
                        4 * kMiB,
                        {{0x100000, kMiB, "active_allocated", {}, 1'000'000},
                         {0x200000, 2 * kMiB, "active_allocated", {}, 2'000'000},
                         {0x400000, kMiB, "inactive", {}}}});
  s.device_traces.push_back({{"alloc", 0x400000, 500'000, 10, {}},
                             {"alloc", 0x100000, 1'000'000, 20, {}},
                             {"free_requested", 0x400000, 500'000, 30, {}},
                             {"free_completed", 0x400000, 500'000, 40, {}}});
  return s;
}

TEST(SnapshotForms, TheReplayCountsRequestedSizesThroughout) {
  Profile p;
  Analysed a = states_of(snapshot_pickle(rounded_and_requested()), p);
  ASSERT_EQ(a.w.tables.memory_snapshot.size(), 1u);
  const SnapshotDeviceRow& d = a.w.tables.memory_snapshot[0];
  // By hand, in requested bytes: C (2,000,000) entering; + B 500,000 = 2,500,000; + A 1,000,000 =
  // 3,500,000 (the peak, after the second action); - B = 3,000,000. Mixing units (A and C at their
  // blocks' 1 MiB and 2 MiB, B requested) gave 2,097,152 entering and a peak of 3,645,728.
  EXPECT_EQ(d.entering_allocated, 2'000'000);
  EXPECT_EQ(d.peak, 3'500'000);
  EXPECT_EQ(d.peak_action, 2u);
  ASSERT_EQ(p.memory_samples.size(), 4u);
  const std::int64_t totals[] = {2'000'000, 2'500'000, 3'500'000, 3'000'000};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(p.memory_samples[i].total_allocated, totals[i]) << i;
  // The state at the dump stays the allocator's own: its blocks' rounded sizes (1 + 2 MiB).
  EXPECT_EQ(d.allocated, 3 * kMiB);
  // What is live at the peak adds up to it, in the same unit.
  std::uint64_t live = 0;
  for (const SnapshotSiteRow& r : a.w.tables.memory_live_at_peak) live += r.bytes;
  EXPECT_EQ(live, 3'500'000u);
}

// Item 5: PyTorch 2.0 and 2.1 record no time_us. The trace is read by allocation order: every
// action at time 0, the same peak after the same action, no wall time stated, and a note naming
// the field the entries lack.
TEST(SnapshotForms, ATraceWithoutTimesIsInAllocationOrderWithNoWallTime) {
  Snapshot s = rounded_and_requested();
  for (test::SnapAction& a : s.device_traces[0]) a.time_us = -1;
  Profile p;
  Analysed a = states_of(snapshot_pickle(s), p);
  EXPECT_EQ(a.w.tables.memory_snapshot[0].peak, 3'500'000);
  EXPECT_EQ(a.w.tables.memory_snapshot[0].peak_action, 2u);
  for (const MemorySample& m : p.memory_samples) EXPECT_EQ(m.time, 0);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_EQ(p.notes[0].id, NoteId::snapshot_untimed);
  std::string said = note_text(p.notes[0]);
  EXPECT_NE(said.find("4 of its 4 trace entries have no time_us"), std::string::npos) << said;
  EXPECT_NE(said.find("by allocation order"), std::string::npos) << said;

  std::string path = write_text(temp_dir() + "/untimed.pickle", snapshot_pickle(s));
  ReportModel r = report_of_files({path}, default_book());
  EXPECT_FALSE(r.metric(Metric::WindowWallUs).has_value());
  EXPECT_EQ(r.metric(Metric::MemorySnapshotPeakBytes), 3'500'000.0);
  std::string terminal = render_terminal(r);
  EXPECT_NE(terminal.find("its recorded trace by allocation order (no timestamps)"), std::string::npos)
      << terminal;
  EXPECT_EQ(terminal.find("its recorded trace, "), std::string::npos) << terminal;
  // With its timestamps the same snapshot states its wall time: 10 to 40 us.
  std::string timed = write_text(temp_dir() + "/timed.pickle", snapshot_pickle(rounded_and_requested()));
  EXPECT_EQ(report_of_files({timed}, default_book()).metric(Metric::WindowWallUs), 30.0);
}

// Item 4: torch.cuda.memory_snapshot() pickled: a list of segments, no trace. Read as the state at
// the dump by device and category, with a note that there is no timeline.
TEST(SnapshotForms, AListOfSegmentsIsTheStateAtTheDump) {
  Snapshot s = rounded_and_requested();
  s.list_form = true;
  test::SnapFrame optimizer{"step", "/usr/lib/python3/dist-packages/torch/optim/adam.py", 100};
  s.segments.push_back({1, 0x900000, 8 * kMiB, {{0x900000, 6 * kMiB, "active_allocated", {optimizer}}}});
  std::string bytes = snapshot_pickle(s);
  ASSERT_EQ(bytes.substr(0, 3), std::string("\x80\x04]", 3));  // a list, not a dict
  EXPECT_TRUE(snapshot::detect(bytes));
  std::string path = write_text(temp_dir() + "/segments.pickle", bytes);
  Profile p = load_json(bytes, "segments.pickle");
  EXPECT_EQ(p.info.format, "pytorch-memory-snapshot");
  ASSERT_TRUE(p.memory_snapshot);
  ASSERT_EQ(p.memory_snapshot->devices.size(), 2u);
  EXPECT_TRUE(p.memory_snapshot->list_form);
  ReportModel r = report_of_files({path}, default_book());
  // At the dump: device 0 reserves 4 MiB with 3 MiB allocated, device 1 8 MiB with 6 MiB.
  EXPECT_EQ(r.metric(Metric::MemorySnapshotReservedBytes), 12.0 * kMiB);
  EXPECT_EQ(r.metric(Metric::MemorySnapshotAllocatedBytes), 9.0 * kMiB);
  EXPECT_FALSE(r.metric(Metric::WindowWallUs).has_value());
  bool said = false;
  for (const ReportWorker& w : r.workers)
    for (const Note& n : w.warnings) said = said || n.id == NoteId::snapshot_list_form;
  EXPECT_TRUE(said);
  // By category at the dump: device 1's block is the optimizer's (torch.optim).
  const ReportTable* categories = nullptr;
  for (const ReportTable& t : r.workers.front().tables)
    if (t.name == "memory_peak_categories") categories = &t;
  ASSERT_NE(categories, nullptr);
  EXPECT_NE(render_terminal(r).find("no trace"), std::string::npos) << render_terminal(r);
}

}  // namespace
}  // namespace perfgate::testing
