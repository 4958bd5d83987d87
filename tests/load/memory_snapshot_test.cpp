// Issue 60, items 1 and 2: PyTorch memory snapshots read by the restricted unpickler, each
// device's trace turned into allocator samples whose totals are replayed from the final state
// backwards, so that what was allocated before the recorded window counts.
#include <gtest/gtest.h>

#include "analyse/memory/snapshot_analysis.h"
#include "analyse/worker_analysis.h"
#include "common/errors.h"
#include "gate/gate.h"
#include "io/gzip.h"
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
  Analysed a = states_of(snapshot_pickle(one_device()), p);
  ASSERT_EQ(a.w.tables.memory_snapshot.size(), 1u);
  const SnapshotDeviceRow& d = a.w.tables.memory_snapshot[0];
  EXPECT_EQ(d.reserved, 6 * kMiB);
  EXPECT_EQ(d.allocated, 3 * kMiB);  // 1 MiB + 2 MiB active
  EXPECT_EQ(d.segments, 2u);
  EXPECT_EQ(d.actions, 5u);
  EXPECT_EQ(d.entering_allocated, static_cast<std::int64_t>(2 * kMiB));
  EXPECT_EQ(d.ooms, 1u);
  EXPECT_EQ(d.peak, static_cast<std::int64_t>(6 * kMiB));
  EXPECT_EQ(d.peak_action, 2u);  // after alloc Y, the second action
  EXPECT_EQ(d.peak_time, 20'000);
  // The model keeps the blocks the replay resolved and the live set entering the trace: the 2 MiB block.
  ASSERT_EQ(a.snapshot.devices[0].entering_live.size(), 1u);
  EXPECT_EQ(a.snapshot.devices[0].entering_live[0].first, 0x800000u);
  EXPECT_EQ(a.snapshot.devices[0].steps[1].block, 3 * kMiB);
  // Live at the peak: X (1 MiB) and Y (3 MiB), both allocated in forward (model.py:54), and the
  // 2 MiB block allocated before the recording, whose frames the final state does not have:
  // 4 + 2 = 6 MiB, the peak.
  const std::vector<SnapshotSiteRow>& sites = a.w.tables.memory_live_at_peak;
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].site, "forward (model.py:54)");
  EXPECT_EQ(sites[0].bytes, 4 * kMiB);
  EXPECT_EQ(sites[0].blocks, 2u);
  EXPECT_EQ(sites[1].site, "(no frames recorded)");
  EXPECT_EQ(sites[1].bytes, 2 * kMiB);
  EXPECT_EQ(sites[1].blocks, 1u);
  EXPECT_EQ(sites[0].peak, static_cast<std::int64_t>(6 * kMiB));
  ASSERT_EQ(p.memory_samples.size(), 4u);
  const std::int64_t expected[] = {2 * kMiB, 3 * kMiB, 6 * kMiB, 3 * kMiB};
  const std::int64_t changes[] = {0, kMiB, 3 * kMiB, -3 * static_cast<std::int64_t>(kMiB)};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.memory_samples[i].total_allocated, expected[i]) << i;
    EXPECT_EQ(p.memory_samples[i].bytes, changes[i]) << i;
    EXPECT_EQ(p.memory_samples[i].total_reserved, static_cast<std::int64_t>(6 * kMiB)) << i;
  }
  EXPECT_EQ(p.memory_samples[1].time, 10'000);  // time_us in ns
  // The oom, the fifth action: 8 MiB requested, 1000 bytes free; after the free 3 MiB allocated,
  // 6 MiB reserved.
  ASSERT_EQ(a.w.tables.memory_ooms.size(), 1u);
  const SnapshotOomRow& oom = a.w.tables.memory_ooms[0];
  EXPECT_EQ(oom.action, 5u);
  EXPECT_EQ(oom.requested, 8 * kMiB);
  EXPECT_EQ(oom.device_free, 1000u);
  EXPECT_EQ(oom.allocated, static_cast<std::int64_t>(3 * kMiB));
  EXPECT_EQ(oom.reserved, static_cast<std::int64_t>(6 * kMiB));
  EXPECT_EQ(oom.site, "(no frames recorded)");
  // Fragmentation: 3 MiB reserved and not allocated, all of it the one inactive block of a split segment.
  EXPECT_EQ(d.split_inactive_blocks, 1u);
  EXPECT_EQ(d.split_inactive_bytes, 3 * kMiB);
  EXPECT_EQ(d.largest_inactive, 3 * kMiB);
  // The device's memory the oom shows: 1000 free + 6 MiB reserved.
  EXPECT_EQ(a.w.memory.snapshot.capacity_seen, 6 * kMiB + 1000);
  EXPECT_TRUE(p.notes.empty());  // the findings are the analysis's, not the reader's notes
}

TEST(MemorySnapshot, PeakAllocatedComesFromTheReplay) {
  std::string path = write_text(temp_dir() + "/snapshot.pickle", snapshot_pickle(one_device()));
  ReportModel report = report_of_files({path}, default_book());
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

// The analysis's findings as catalog metrics, tables, rules and the terminal's Memory lines (one_device:
// the arithmetic above). Reserved 6 MiB, allocated 3 MiB at the end; the 3 MiB inactive block of the
// split segment is all the fragmentation: 3 / 6 = 50%. The oom: 1000 bytes free + 6 MiB reserved
// then is the device memory it shows; the peak, 6 MiB, is 100 x 6 MiB / (6 MiB + 1000) of it.
TEST(MemorySnapshot, FindingsInEveryOutput) {
  std::string path = write_text(temp_dir() + "/findings.pickle", snapshot_pickle(one_device()));
  ReportModel r = report_of_files({path}, default_book());
  apply_gate(r, default_rules(), nullptr, {});
  const double mib = static_cast<double>(kMiB);
  EXPECT_EQ(r.metric(Metric::MemorySnapshotPeakBytes), 6 * mib);
  EXPECT_EQ(r.metric(Metric::MemorySnapshotReservedBytes), 6 * mib);
  EXPECT_EQ(r.metric(Metric::MemorySnapshotAllocatedBytes), 3 * mib);
  EXPECT_EQ(r.metric(Metric::MemoryReservedUnallocatedBytes), 3 * mib);
  EXPECT_EQ(r.metric(Metric::MemoryInactiveSplitBytes), 3 * mib);
  EXPECT_EQ(r.metric(Metric::MemoryFragmentationPct), 50.0);
  EXPECT_EQ(r.metric(Metric::MemoryLargestInactiveBytes), 3 * mib);
  EXPECT_EQ(r.metric(Metric::MemoryExpandableSegments), 0.0);
  EXPECT_EQ(r.metric(Metric::MemoryOomCount), 1.0);
  EXPECT_EQ(r.metric(Metric::MemoryOomLargestRequestBytes), 8 * mib);
  EXPECT_EQ(r.metric(Metric::MemorySnapshotCapacityBytes), 6 * mib + 1000);
  EXPECT_DOUBLE_EQ(*r.metric(Metric::MemorySnapshotPeakPct), 100.0 * 6 * mib / (6 * mib + 1000));
  // A snapshot has no steps and spends no time: neither steps nor a breakdown apply.
  EXPECT_FALSE(r.metric(Metric::WindowStepsTotal));
  EXPECT_FALSE(r.metric(Metric::BreakdownOtherPct));
  const ReportFinding* steps = find_finding(r, "steps.none");
  EXPECT_TRUE(!steps || steps->status == FindingStatus::NotApplicable);
  // The oom fails the gate; 8 MiB asked of a device that shows 6 MiB + 1000 bytes is a size bug.
  const ReportFinding* oom = find_finding(r, "memory.oom-in-snapshot");
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->status, FindingStatus::Fail);
  EXPECT_NE(oom->recommendation.find("larger than all the device memory"), std::string::npos)
      << oom->recommendation;
  EXPECT_NE(oom->problem.find("forward (model.py:54)"), std::string::npos) << oom->problem;
  const ReportFinding* near = find_finding(r, "memory.snapshot-near-capacity");
  ASSERT_NE(near, nullptr);
  EXPECT_EQ(near->status, FindingStatus::Warn);
  const ReportFinding* fragmented = find_finding(r, "memory.fragmentation");
  ASSERT_NE(fragmented, nullptr);
  EXPECT_EQ(fragmented->status, FindingStatus::NotApplicable);  // 3 MiB, under the 1 GiB it needs
  // The live-at-peak table's shares: 4 of 6 MiB and 2 of 6 MiB.
  const ReportTable* sites = find_table(r.workers.front().tables, "memory_live_at_peak");
  ASSERT_NE(sites, nullptr);
  ASSERT_EQ(sites->rows.size(), 2u);
  EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*sites, 0, "share_pct")), 100.0 * 4 / 6);
  EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*sites, 1, "share_pct")), 100.0 * 2 / 6);
  std::string terminal = render_terminal(r);
  EXPECT_NE(terminal.find("Live at peak"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("forward (model.py:54)"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("OOM          device 0, action 5: 8.4 MB requested"), std::string::npos)
      << terminal;
  EXPECT_EQ(terminal.find("Breakdown"), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find("No training steps"), std::string::npos) << terminal;
  EXPECT_NE(render_markdown(r).find("Snapshot peak allocated"), std::string::npos);
  std::string html = render_html(r).page;
  EXPECT_NE(html.find("after action 2 of 5 of its recorded trace"), std::string::npos);
  EXPECT_NE(html.find("Live at the memory peak"), std::string::npos);
  EXPECT_NE(render_json(r).find("\"memory_live_at_peak\""), std::string::npos);
}

// memory.fragmentation: a 4 GiB segment split into 1 GiB allocated and 3 GiB free (75% of the
// reserve, 3 GiB >= 1 GiB) warns; without expandable segments the advice is to turn them on, with
// them it is not.
TEST(MemorySnapshot, FragmentationRule) {
  constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
  for (bool expandable : {false, true}) {
    Snapshot s;
    s.segments.push_back(
        {0,
         0x100000,
         4 * kGiB,
         {{0x100000, kGiB, "active_allocated", {}}, {0x100000 + kGiB, 3 * kGiB, "inactive", {}}},
         expandable});
    s.device_traces.push_back({});
    std::string path = write_text(temp_dir() + "/fragmented.pickle", snapshot_pickle(s));
    ReportModel r = report_of_files({path}, default_book());
    apply_gate(r, default_rules(), nullptr, {});
    EXPECT_EQ(r.metric(Metric::MemoryFragmentationPct), 75.0);
    const ReportFinding* f = find_finding(r, "memory.fragmentation");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->status, FindingStatus::Warn);
    EXPECT_EQ(
        f->recommendation.find("Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True") != std::string::npos,
        !expandable)
        << f->recommendation;
    const ReportFinding* oom = find_finding(r, "memory.oom-in-snapshot");
    ASSERT_NE(oom, nullptr);
    EXPECT_EQ(oom->status, FindingStatus::Pass);
    const ReportFinding* near = find_finding(r, "memory.snapshot-near-capacity");
    EXPECT_TRUE(!near ||
                near->status == FindingStatus::NotApplicable);  // no oom: the device's size is unknown
  }
}

// Segments grow the reserved total: a segment_alloc of 2 MiB then an alloc in it. Backwards from
// reserved 2 MiB and allocated 2 MiB: before the alloc 0, before the segment 0 reserved.
TEST(MemorySnapshot, ReservedReplayedFromSegmentActions) {
  Snapshot s;
  s.segments.push_back({0, 0x100000, 2 * kMiB, {{0x100000, 2 * kMiB, "active_allocated", {}}}});
  s.device_traces.push_back(
      {{"segment_alloc", 0x100000, 2 * kMiB, 1, {}}, {"alloc", 0x100000, 2 * kMiB, 2, {}}});
  Profile p;
  Analysed a = states_of(snapshot_pickle(s), p);
  EXPECT_EQ(a.snapshot.devices[0].entering_allocated, 0);
  EXPECT_EQ(a.snapshot.devices[0].entering_reserved, 0);
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
  Analysed a = states_of(snapshot_pickle(s), p);
  EXPECT_EQ(a.snapshot.devices[0].entering_reserved, 0);
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
  Analysed a = states_of(snapshot_pickle(s), p);
  ASSERT_EQ(a.w.tables.memory_snapshot.size(), 2u);
  EXPECT_EQ(a.w.tables.memory_snapshot[1].device, 1);
  EXPECT_EQ(a.w.tables.memory_snapshot[1].allocated, 20 * kMiB);
  // Without a trace the peak is the final state: device 1's 20 MiB, live from one site.
  EXPECT_EQ(a.w.tables.memory_snapshot[1].peak, static_cast<std::int64_t>(20 * kMiB));
  EXPECT_EQ(a.w.memory.snapshot.peak, static_cast<std::int64_t>(20 * kMiB));
  EXPECT_EQ(a.w.memory.snapshot.peak_device, 1);
  EXPECT_EQ(a.w.memory.snapshot.reserved, 26 * kMiB);  // 6 + 20
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

// Issue 78, item 7: a pickle that is not a snapshot, plain or gzipped, is refused as what it is; the
// gzipped one was "invalid JSON: syntax error at byte 0".
TEST(MemorySnapshot, APickleThatIsNotASnapshotIsRefusedAsOne) {
  std::string dir = temp_dir();
  std::string other =
      test::PickleWriter(4).empty_dict().mark().str("weights").integer(1).setitems().stop().text();
  for (const std::string& path :
       {write_text(dir + "/model.pickle", other), write_text(dir + "/model.pickle.gz", gzip_compress(other)),
        write_text(dir + "/model.json.gz", gzip_compress(other))}) {
    try {
      load_run({path});
      ADD_FAILURE() << path << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(
                    path + ": a Python pickle (protocol 4) that is not a PyTorch memory snapshot"),
                std::string::npos)
          << e.what();
    }
  }
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
  // A block of the autograd thread (context="all"): torch's C++ frames, then the thread's entry in
  // libstdc++ and libc (issue 72, item 10: the memory gate named execute_native_thread_routine).
  pickle::Value thread =
      frames({{"torch::autograd::Engine::thread_main", "torch/csrc/autograd/engine.cpp", 327},
              {"execute_native_thread_routine", "/lib/x86_64-linux-gnu/libstdc++.so.6", 0},
              {"start_thread", "/lib/x86_64-linux-gnu/libc.so.6", 0},
              {"clone", "/usr/lib64/libc.so", 0}});
  EXPECT_EQ(snapshot::site_of(&thread), "(no user frame)");
  pickle::Value user = frames({{"run", "/work/libso.py", 3}, {"main", "/work/lib.so.d/train.py", 9}});
  EXPECT_EQ(snapshot::site_of(&user), "run (libso.py:3)");
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// Issue 78, item 7: a snapshot cut short at any point, plain or gzipped, is refused as a truncated
// pickle naming the file; cut before its first key it was "a Python pickle that is not a PyTorch
// memory snapshot", as if it were another pickle.
TEST(MemorySnapshot, ASnapshotCutShortIsRefusedAsTruncated) {
  std::string dir = temp_dir();
  std::string whole = test::snapshot_pickle(one_device());
  // From the protocol byte on (a pickle): each byte of the head that says "snapshot", then every 29th.
  for (std::size_t n = 2; n < whole.size(); n += n < 64 ? 1 : 29) {
    std::string cut = whole.substr(0, n);
    for (const std::string& path :
         {write_text(dir + "/cut.pickle", cut), write_text(dir + "/cut.pickle.gz", gzip_compress(cut))}) {
      try {
        load_run({path});
        ADD_FAILURE() << path << " cut at " << n << " was read";
      } catch (const InputError& e) {
        std::string said = e.what();
        EXPECT_TRUE(said.starts_with(path + ": ") && said.find("truncated") != std::string::npos)
            << "cut at " << n << ": " << said;
      }
    }
  }
}

}  // namespace
}  // namespace perfgate::testing
