// Issue 60, items 1 and 2: PyTorch memory snapshots read by the restricted unpickler, each
// device's trace turned into allocator samples whose totals are replayed from the final state
// backwards, so that what was allocated before the recorded window counts.
#include <gtest/gtest.h>

#include "load/snapshot/snapshot_reader.h"
#include "perfgate/errors.h"
#include "perfgate/gate.h"
#include "support/helpers.h"
#include "support/snapshot_builder.h"

namespace perfgate::testing {
namespace {

using test::Snapshot;
using test::snapshot_pickle;

constexpr std::uint64_t kMiB = 1 << 20;

// Device 0 ends with two segments: 4 MiB split into a 1 MiB allocated block and a 3 MiB inactive
// one, and 2 MiB wholly allocated (reserved 6 MiB, allocated 3 MiB). Its trace: alloc X 1 MiB,
// alloc Y 3 MiB, free_requested Y, free_completed Y, an oom of 8 MiB with 1000 bytes free.
// Backwards from 3 MiB: before the free 6 MiB, before Y 3 MiB, before X 2 MiB (the 2 MiB block was
// allocated before the window). Samples: the totals entering (2 MiB), then after each alloc and
// completed free: 3, 6, 3 MiB; the peak is 6 MiB.
Snapshot one_device() {
  Snapshot s;
  test::SnapFrame user{"forward", "/home/me/model.py", 54};
  s.segments.push_back(
      {0,
       0x100000,
       4 * kMiB,
       {{0x100000, kMiB, "active_allocated", {user}}, {0x200000, 3 * kMiB, "inactive", {}}}});
  s.segments.push_back({0, 0x800000, 2 * kMiB, {{0x800000, 2 * kMiB, "active_allocated", {}}}});
  s.device_traces.push_back({{"alloc", 0x100000, kMiB, 10, {user}},
                             {"alloc", 0x200000, 3 * kMiB, 20, {user}},
                             {"free_requested", 0x200000, 3 * kMiB, 30, {}},
                             {"free_completed", 0x200000, 3 * kMiB, 40, {}},
                             {"oom", 0, 8 * kMiB, 50, {}, 1000}});
  return s;
}

std::vector<snapshot::DeviceState> states_of(const std::string& bytes, Profile& profile) {
  pickle::Value root = pickle::unpickle(bytes, "snap.pickle", {});
  return snapshot::add_snapshot(snapshot::read_snapshot(root, "snap.pickle"), profile);
}

TEST(MemorySnapshot, SniffedByContentInEveryProtocol) {
  for (int protocol : {2, 3, 4, 5}) {
    std::string bytes = snapshot_pickle(one_device(), protocol);
    EXPECT_TRUE(snapshot::detect(bytes)) << protocol;
    Profile p = load_json(bytes, "snapshot" + std::to_string(protocol) + ".bin");
    EXPECT_EQ(p.info.format, "pytorch-memory-snapshot");
    EXPECT_EQ(p.memory_samples.size(), 4u) << protocol;
  }
  EXPECT_FALSE(snapshot::detect(test::PickleWriter(4).empty_dict().str("traceEvents").text()));
  EXPECT_FALSE(snapshot::detect("{\"segments\": []}"));
}

TEST(MemorySnapshot, TotalsReplayedFromTheFinalStateBackwards) {
  Profile p;
  std::vector<snapshot::DeviceState> states = states_of(snapshot_pickle(one_device()), p);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].reserved, 6 * kMiB);
  EXPECT_EQ(states[0].allocated, 3 * kMiB);  // 1 MiB + 2 MiB active
  EXPECT_EQ(states[0].segments, 2u);
  EXPECT_EQ(states[0].actions, 5u);
  EXPECT_EQ(states[0].entering_allocated, static_cast<std::int64_t>(2 * kMiB));
  EXPECT_EQ(states[0].ooms, 1u);
  EXPECT_EQ(states[0].peak_allocated, static_cast<std::int64_t>(6 * kMiB));
  EXPECT_EQ(states[0].peak_after, 2u);  // after alloc Y, the second action
  // Live at the peak: X (1 MiB) and Y (3 MiB), both allocated in forward (model.py:54), and the
  // 2 MiB block allocated before the recording, whose frames the final state does not have.
  ASSERT_EQ(states[0].live_at_peak.size(), 2u);
  EXPECT_EQ(states[0].live_at_peak[0],
            (std::pair<std::string, std::uint64_t>{"forward (model.py:54)", 4 * kMiB}));
  EXPECT_EQ(states[0].live_at_peak[1],
            (std::pair<std::string, std::uint64_t>{"(no frames recorded)", 2 * kMiB}));
  ASSERT_EQ(p.memory_samples.size(), 4u);
  const std::int64_t expected[] = {2 * kMiB, 3 * kMiB, 6 * kMiB, 3 * kMiB};
  const std::int64_t changes[] = {0, kMiB, 3 * kMiB, -3 * static_cast<std::int64_t>(kMiB)};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.memory_samples[i].total_allocated, expected[i]) << i;
    EXPECT_EQ(p.memory_samples[i].bytes, changes[i]) << i;
    EXPECT_EQ(p.memory_samples[i].total_reserved, static_cast<std::int64_t>(6 * kMiB)) << i;
  }
  EXPECT_EQ(p.memory_samples[1].time, 10'000);  // time_us in ns
  EXPECT_TRUE(has_line(p.notes,
                       "out of memory: a request of 8388608 bytes with 1000 bytes free on the device "
                       "(trace action 5 of 5); the largest inactive block at the end is 3145728 bytes"));
  EXPECT_TRUE(has_line(p.notes,
                       "live at the peak, by top user frame: 4194304 from forward (model.py:54); 2097152 "
                       "from (no frames recorded)"));
  // Fragmentation: 3 MiB reserved and not allocated, all of it the one inactive block of a split segment.
  EXPECT_TRUE(has_line(p.notes,
                       "3145728 reserved but not allocated); 1 inactive blocks in split segments hold "
                       "3145728 bytes; the largest inactive block is 3145728 bytes"));
}

TEST(MemorySnapshot, PeakAllocatedComesFromTheReplay) {
  std::string path = write_text(temp_dir() + "/snapshot.pickle", snapshot_pickle(one_device()));
  ReportModel report = report_of_files({path}, default_rules());
  EXPECT_EQ(report.metric(Metric::MemoryPeakAllocatedBytes), 6.0 * kMiB);
  EXPECT_EQ(report.metric(Metric::MemoryPeakReservedBytes), 6.0 * kMiB);
  // The window is the samples' span (10 to 40 us), so the memory curve shows the trace: its
  // highest point is the peak, 6 MiB.
  const ReportTable* curve = nullptr;
  for (const ReportTable& t : report.workers.front().tables)
    if (t.name == "memory_curve") curve = &t;
  ASSERT_NE(curve, nullptr);
  EXPECT_FALSE(curve->rows.empty());
}

// Segments grow the reserved total: a segment_alloc of 2 MiB then an alloc in it. Backwards from
// reserved 2 MiB and allocated 2 MiB: before the alloc 0, before the segment 0 reserved.
TEST(MemorySnapshot, ReservedReplayedFromSegmentActions) {
  Snapshot s;
  s.segments.push_back({0, 0x100000, 2 * kMiB, {{0x100000, 2 * kMiB, "active_allocated", {}}}});
  s.device_traces.push_back(
      {{"segment_alloc", 0x100000, 2 * kMiB, 1, {}}, {"alloc", 0x100000, 2 * kMiB, 2, {}}});
  Profile p;
  std::vector<snapshot::DeviceState> states = states_of(snapshot_pickle(s), p);
  EXPECT_EQ(states[0].entering_allocated, 0);
  EXPECT_EQ(states[0].entering_reserved, 0);
  ASSERT_EQ(p.memory_samples.size(), 3u);  // the totals entering, the segment, the alloc
  EXPECT_EQ(p.memory_samples[0].total_reserved, 0);
  EXPECT_EQ(p.memory_samples[1].total_reserved, static_cast<std::int64_t>(2 * kMiB));
  EXPECT_EQ(p.memory_samples[2].total_allocated, static_cast<std::int64_t>(2 * kMiB));
}

// Expandable segments map and unmap pages: a segment_map of 4 MiB, a segment_unmap of 2 MiB, then
// an alloc of 2 MiB; the segment ends at 2 MiB, wholly allocated. Reserved backwards from 2 MiB:
// before the alloc 2, before the unmap 4, before the map 0; allocated 2, 2, 2, 0.
TEST(MemorySnapshot, ExpandableSegmentsMapAndUnmap) {
  Snapshot s;
  s.segments.push_back({0, 0x100000, 2 * kMiB, {{0x100000, 2 * kMiB, "active_allocated", {}}}, true});
  s.device_traces.push_back({{"segment_map", 0x100000, 4 * kMiB, 1, {}},
                             {"segment_unmap", 0x300000, 2 * kMiB, 2, {}},
                             {"alloc", 0x100000, 2 * kMiB, 3, {}}});
  Profile p;
  std::vector<snapshot::DeviceState> states = states_of(snapshot_pickle(s), p);
  EXPECT_EQ(states[0].entering_reserved, 0);
  ASSERT_EQ(p.memory_samples.size(), 4u);
  const std::int64_t reserved[] = {0, 4 * kMiB, 2 * kMiB, 2 * kMiB};
  const std::int64_t allocated[] = {0, 0, 0, 2 * kMiB};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.memory_samples[i].total_reserved, reserved[i]) << i;
    EXPECT_EQ(p.memory_samples[i].total_allocated, allocated[i]) << i;
  }
}

// Without device_traces (torch.cuda.memory_snapshot()), the final state is the only sample; a
// second device has its own segments.
TEST(MemorySnapshot, WithoutTracesAndOnSeveralDevices) {
  Snapshot s = one_device();
  s.with_traces = false;
  s.segments.push_back({1, 0x900000, 20 * kMiB, {{0x900000, 20 * kMiB, "active_pending_free", {}}}});
  Profile p;
  std::vector<snapshot::DeviceState> states = states_of(snapshot_pickle(s), p);
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[1].device, 1);
  EXPECT_EQ(states[1].allocated, 20 * kMiB);
  ASSERT_EQ(p.memory_samples.size(), 2u);
  EXPECT_EQ(p.memory_samples[0].total_allocated, static_cast<std::int64_t>(3 * kMiB));
  EXPECT_EQ(p.memory_samples[1].device_id, 1);
}

TEST(MemorySnapshot, ShapesThatAreNotASnapshotAreInputErrors) {
  Profile p;
  EXPECT_THROW(states_of(test::PickleWriter(4).empty_list().stop().text(), p), InputError);
  EXPECT_THROW(
      states_of(test::PickleWriter(4).empty_dict().mark().str("segments").integer(1).setitems().stop().text(),
                p),
      InputError);
  Snapshot huge;
  huge.segments.push_back({0, 0, std::uint64_t{1} << 62, {}});
  huge.segments.push_back({0, 0, std::uint64_t{1} << 62, {}});
  EXPECT_THROW(states_of(snapshot_pickle(huge), p), InputError);  // the sum passes 2^62
  Snapshot negative = one_device();
  negative.device_traces[0][0].size = std::uint64_t{1} << 63;  // written as a negative LONG1
  EXPECT_THROW(states_of(snapshot_pickle(negative), p), InputError);
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// The top user frame: torch's own files, installed packages, the Python library and C++ are
// skipped; a stack of only those is "(no user frame)".
TEST(MemorySnapshot, TopUserFrame) {
  auto frames = [](std::vector<test::SnapFrame> list) {
    test::PickleWriter w(4);
    test::write_frames(w, list);
    return pickle::unpickle(w.stop().text(), "f.pickle", {});
  };
  pickle::Value mixed = frames({{"linear", "/venv/lib/python3.12/site-packages/torch/nn/functional.py", 5},
                                {"gather", "c10/core/alloc.cpp", 7},
                                {"forward", "C:\\work\\model.py", 54},
                                {"main", "/work/train.py", 9}});
  EXPECT_EQ(snapshot::site_of(&mixed), "forward (model.py:54)");
  pickle::Value library = frames({{"step", "/usr/lib/python3/dist-packages/torch/optim/adam.py", 1}});
  EXPECT_EQ(snapshot::site_of(&library), "(no user frame)");
  pickle::Value none = frames({});
  EXPECT_EQ(snapshot::site_of(&none), "(no frames recorded)");
}

}  // namespace
}  // namespace perfgate::testing
