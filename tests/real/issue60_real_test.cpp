// Issue 60 on real memory snapshots: the shared one (../shared/references/memory_snapshots/,
// skipped where absent) and two recorded for this project on an H200 (tests/data/, see its
// README). Expected values: tests/real/memory_snapshot_expected.py, an independent replay in Python
// (pickle.Unpickler with find_class refused), and where PyTorch printed them, torch's own
// memory_allocated(), memory_reserved() and max_memory_allocated() at the recording.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/svg_text.h"

namespace perfgate::testing {
namespace {

ReportModel report_of_snapshot(const std::string& path) {
  ReportModel r = report_of_files({path}, default_book());
  apply_gate(r, default_rules(), nullptr, {});
  return r;
}

std::string recorded(const std::string& name) {
  std::string path = temp_dir() + "/" + name;
  write_text(path, read_gzip(std::string(PERFGATE_SOURCE_DIR) + "/tests/data/" + name + ".gz"));
  return path;
}

const ReportTable& table_of(const ReportModel& r, std::string_view name) {
  const ReportTable* t = find_table(r.workers.front().tables, name);
  EXPECT_NE(t, nullptr) << name;
  static const ReportTable kNone;
  return t ? *t : kNone;
}
double number_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* c = row < t.rows.size() ? find_cell(t, row, column) : nullptr;
  return c ? cell_number(*c).value_or(-1) : -1;
}
std::string text_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* c = row < t.rows.size() ? find_cell(t, row, column) : nullptr;
  const auto* s = c ? std::get_if<std::string>(c) : nullptr;
  return s ? *s : "";
}
// The live-at-peak table's rows add up to the peak.
double live_sum(const ReportTable& t) {
  double sum = 0;
  for (std::size_t row = 0; row < t.rows.size(); ++row) sum += number_at(t, row, "bytes");
  return sum;
}

TEST(Issue60Real, SharedSnapshotPeakAndReservedEqualAnIndependentReplay) {
  std::string path = shared_reference("memory_snapshots/magma27_memory_snapshot.pickle");
  if (path.empty()) GTEST_SKIP() << "../shared/references/memory_snapshots not found";
  ReportModel r = report_of_snapshot(path);
  // memory_snapshot_expected.py: peak 13,927,832,064 block bytes (13,282.6 MiB; 13,923,997,700
  // requested, issue 75 to 91's unit) after action 1403, reserved 14,180,941,824 throughout (no
  // segment actions in the trace).
  EXPECT_EQ(r.metric(Metric::MemoryPeakAllocatedBytes), 13927832064.0);
  EXPECT_EQ(r.metric(Metric::MemoryPeakReservedBytes), 14180941824.0);
  const ReportTable& device = table_of(r, "memory_snapshot");
  EXPECT_EQ(number_at(device, 0, "segments"), 216);
  EXPECT_EQ(number_at(device, 0, "actions"), 5163);
  EXPECT_EQ(number_at(device, 0, "allocated_bytes"), 1377753600);
  EXPECT_EQ(number_at(device, 0, "reserved_bytes"), 14180941824);
  EXPECT_EQ(number_at(device, 0, "entering_allocated_bytes"), 1377753600);
  EXPECT_EQ(number_at(device, 0, "peak_action"), 1403);
  EXPECT_EQ(r.metric(Metric::MemorySnapshotPeakBytes), 13927832064.0);
  // Requested bytes beside: 1,373,919,236 at the dump, 13,923,997,700 live at the peak.
  EXPECT_EQ(number_at(device, 0, "allocated_requested_bytes"), 1373919236);
  EXPECT_EQ(number_at(device, 0, "peak_requested_bytes"), 13923997700);
  EXPECT_TRUE(r.invariants.empty());
  // The live set at the peak by top user frame, largest first (ties by name), as the script groups it:
  // 504 blocks in all, adding up to the peak.
  const ReportTable& sites = table_of(r, "memory_live_at_peak");
  const std::pair<const char*, double> expected[] = {
      {"forward (model.py:39)", 2743599104},   {"silu (model.py:532)", 2415919104},
      {"softmax (nn_utils.py:7)", 1212678144}, {"forward (model.py:399)", 1207959552},
      {"softmax (nn_utils.py:6)", 1207959552}, {"(no frames recorded)", 1050073088}};
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ(text_at(sites, i, "site"), expected[i].first) << i;
    EXPECT_EQ(number_at(sites, i, "bytes"), expected[i].second) << i;
  }
  EXPECT_EQ(number_at(sites, 0, "blocks"), 25);
  EXPECT_EQ(number_at(sites, 5, "blocks"), 227);
  EXPECT_EQ(live_sum(sites), 13927832064.0);
  double blocks = 0;
  for (std::size_t row = 0; row < sites.rows.size(); ++row) blocks += number_at(sites, row, "blocks");
  EXPECT_EQ(blocks, 504);
  // Fragmentation at the end: 56 inactive blocks of split segments, 1,029,776,896 bytes, the largest
  // inactive block 329,252,864; 1,029,776,896 / 14,180,941,824 of the reserve. The rule needs 1 GiB
  // (1,073,741,824) of such blocks: not applicable.
  EXPECT_EQ(number_at(device, 0, "split_inactive_blocks"), 56);
  EXPECT_EQ(r.metric(Metric::MemoryInactiveSplitBytes), 1029776896.0);
  EXPECT_EQ(r.metric(Metric::MemoryLargestInactiveBytes), 329252864.0);
  EXPECT_EQ(r.metric(Metric::MemoryReservedUnallocatedBytes), 14180941824.0 - 1377753600.0);
  EXPECT_DOUBLE_EQ(*r.metric(Metric::MemoryFragmentationPct), 100.0 * 1029776896.0 / 14180941824.0);
  EXPECT_EQ(r.metric(Metric::MemoryOomCount), 0.0);
  EXPECT_EQ(find_finding(r, "memory.fragmentation")->status, FindingStatus::NotApplicable);
  EXPECT_EQ(find_finding(r, "memory.oom-in-snapshot")->status, FindingStatus::Pass);
}

// The shared snapshot's categories at the peak and its active-memory timeline, against
// memory_snapshot_expected.py (its own category rules and bounded MemoryViz timeline in Python): by
// category forward 11,894,554,624 bytes (269 blocks) and unknown 2,033,277,440 (235), adding up
// to the peak (block bytes); the timeline 269 rectangles, 64 bands drawn and the summed band, the
// highest top in the peak's column (action 1,403) 13,927,832,064 = the peak, the rows' bottoms
// summing to 754,055,643,136 and their sizes to 518,246,463,488. The page draws it as static SVG of bounded
// size.
TEST(Issue60Real, SharedSnapshotTimelineAndCategories) {
  std::string path = shared_reference("memory_snapshots/magma27_memory_snapshot.pickle");
  if (path.empty()) GTEST_SKIP() << "../shared/references/memory_snapshots not found";
  ReportModel r = report_of_snapshot(path);
  const ReportTable& categories = table_of(r, "memory_peak_categories");
  ASSERT_EQ(categories.rows.size(), 2u);
  EXPECT_EQ(text_at(categories, 0, "category"), "forward");
  EXPECT_EQ(number_at(categories, 0, "bytes"), 11894554624);
  EXPECT_EQ(number_at(categories, 0, "blocks"), 269);
  EXPECT_EQ(text_at(categories, 1, "category"), "unknown");
  EXPECT_EQ(number_at(categories, 1, "bytes"), 2033277440);
  EXPECT_EQ(number_at(categories, 1, "blocks"), 235);
  EXPECT_EQ(text_at(table_of(r, "memory_live_at_peak"), 0, "category"), "forward");  // model.py:39
  const ReportTable& bands = table_of(r, "memory_timeline");
  EXPECT_EQ(bands.rows.size(), 269u);
  double bottoms = 0, sizes = 0, highest = 0, most = 0;
  for (std::size_t row = 0; row < bands.rows.size(); ++row) {
    bottoms += number_at(bands, row, "bottom_bytes");
    sizes += number_at(bands, row, "size_bytes");
    most = std::max(most, number_at(bands, row, "band"));
    if (number_at(bands, row, "first_state") <= 1403 && 1403 <= number_at(bands, row, "last_state"))
      highest = std::max(highest, number_at(bands, row, "top_bytes"));
  }
  EXPECT_EQ(highest, 13927832064.0);
  EXPECT_EQ(bottoms, 754055643136.0);
  EXPECT_EQ(sizes, 518246463488.0);
  EXPECT_EQ(most, 64);
  std::string html = render_html(r).page;
  std::size_t svg = html.find("<svg class=\"memory-timeline\"");
  ASSERT_NE(svg, std::string::npos);
  std::string chart = outer_svg(html, svg);
  EXPECT_NE(chart.find("peak 13.9 GB after action 1403"), std::string::npos);
  std::size_t rects = 0;
  for (std::size_t at = chart.find("<rect"); at != std::string::npos; at = chart.find("<rect", at + 1))
    ++rects;
  EXPECT_EQ(rects, 269u);
  EXPECT_LT(chart.size(), 100'000u);
  EXPECT_LT(html.size(), 2'000'000u);
}

TEST(Issue60Real, H200SnapshotsAgainstTorchsOwnCounters) {
  // Batch 8 (protocol 4), with one oom of a 400 GB request. torch at the end: allocated
  // 1,015,355,904, reserved 1,539,309,568; max_memory_allocated 2,278,634,496. The replay:
  // peak 2,273,260,544 in block bytes (torch's unit; 0.24 % below torch's, where the replay in
  // requested bytes, 2,269,058,168, was 0.42 %: unsplit large blocks the trace frees count at their
  // rounded request), peak reserved 2,726,297,600 (segments freed after the oom).
  ReportModel b8 = report_of_snapshot(recorded("h200_snapshot_b8.pickle"));
  EXPECT_EQ(b8.metric(Metric::MemoryPeakAllocatedBytes), 2273260544.0);
  EXPECT_EQ(b8.metric(Metric::MemoryPeakReservedBytes), 2726297600.0);
  EXPECT_LE(*b8.metric(Metric::MemoryPeakAllocatedBytes), 2278634496.0);
  EXPECT_NEAR(*b8.metric(Metric::MemoryPeakAllocatedBytes), 2278634496.0, 0.003 * 2278634496.0);
  EXPECT_EQ(b8.metric(Metric::MemorySnapshotAllocatedBytes), 1015355904.0);
  EXPECT_EQ(b8.metric(Metric::MemorySnapshotReservedBytes), 1539309568.0);
  // The oom, the last action (5,393): 400 GB requested, 147,678,429,184 free, 1,015,355,904
  // allocated (block bytes: torch's allocated at the end) and 1,539,309,568 reserved then
  // (memory_snapshot_expected.py).
  const ReportTable& ooms = table_of(b8, "memory_ooms");
  ASSERT_EQ(ooms.rows.size(), 1u);
  EXPECT_EQ(number_at(ooms, 0, "action"), 5393);
  EXPECT_EQ(number_at(ooms, 0, "requested_bytes"), 400000000000);
  EXPECT_EQ(number_at(ooms, 0, "device_free_bytes"), 147678429184);
  EXPECT_EQ(number_at(ooms, 0, "allocated_bytes"), 1015355904);  // block bytes: the replay's unit
  EXPECT_EQ(number_at(ooms, 0, "reserved_bytes"), 1539309568);
  EXPECT_EQ(text_at(ooms, 0, "site"), "train_snapshot (rec_torch.py:83)");
  EXPECT_EQ(b8.metric(Metric::MemorySnapshotCapacityBytes), 147678429184.0 + 1539309568.0);
  // It fails the gate, and a request above the memory the error shows is a size bug, not fragmentation.
  const ReportFinding* oom = find_finding(b8, "memory.oom-in-snapshot");
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->status, FindingStatus::Fail);
  EXPECT_NE(oom->recommendation.find("no setting makes it fit"), std::string::npos) << oom->recommendation;
  const ReportTable& sites = table_of(b8, "memory_live_at_peak");
  EXPECT_EQ(text_at(sites, 0, "site"), "(no frames recorded)");
  EXPECT_EQ(number_at(sites, 0, "bytes"), 557843456);
  // rec_torch.py:81's 149 blocks (539,965,952 bytes) by category: 148 in torch.optim (539,965,440),
  // one of 512 bytes (4 requested) under Tensor.backward (the gradient's seed): a row each.
  EXPECT_EQ(text_at(sites, 1, "site"), "train_snapshot (rec_torch.py:81)");
  EXPECT_EQ(text_at(sites, 1, "category"), "optimizer");
  EXPECT_EQ(number_at(sites, 1, "bytes"), 539965440);
  EXPECT_EQ(number_at(sites, 1, "blocks"), 148);
  EXPECT_EQ(text_at(sites, sites.rows.size() - 1, "site"), "train_snapshot (rec_torch.py:81)");
  EXPECT_EQ(text_at(sites, sites.rows.size() - 1, "category"), "backward");
  EXPECT_EQ(number_at(sites, sites.rows.size() - 1, "bytes"), 512);
  // By category (the script's): unknown 826,295,808, forward 638,195,712, optimizer 539,965,440,
  // parameter 268,803,072 (the model's .to(): 74 blocks), backward 512.
  const ReportTable& categories = table_of(b8, "memory_peak_categories");
  const std::pair<const char*, double> by[] = {{"unknown", 826295808},
                                               {"forward", 638195712},
                                               {"optimizer", 539965440},
                                               {"parameter", 268803072},
                                               {"backward", 512}};
  ASSERT_EQ(categories.rows.size(), std::size(by));
  for (std::size_t i = 0; i < std::size(by); ++i) {
    EXPECT_EQ(text_at(categories, i, "category"), by[i].first) << i;
    EXPECT_EQ(number_at(categories, i, "bytes"), by[i].second) << i;
  }
  EXPECT_EQ(live_sum(sites), 2273260544.0);
  // The memory curve spans the trace; its highest allocated point is the peak.
  double highest = 0;
  for (const ReportTable& t : b8.workers.front().tables)
    for (std::size_t row = 0; t.name == "memory_curve" && row < t.rows.size(); ++row)
      if (const ReportCell* c = find_cell(t, row, "allocated_bytes")) {
        if (const auto* i = std::get_if<std::int64_t>(c))
          highest = std::max(highest, static_cast<double>(*i));
        if (const auto* d = std::get_if<double>(c)) highest = std::max(highest, *d);
      }
  EXPECT_EQ(highest, 2273260544.0);
  // Batch 32 (protocol 5). torch: allocated 1,429,854,720, reserved 7,866,417,152, max allocated
  // 6,060,372,992. The replay: peak 6,059,193,344 block bytes (6,052,631,672 requested).
  ReportModel b32 = report_of_snapshot(recorded("h200_snapshot_b32.pickle"));
  EXPECT_EQ(b32.metric(Metric::MemoryPeakAllocatedBytes), 6059193344.0);
  // Read gzipped as it is committed (snapshot.pickle.gz), with the same peak.
  ReportModel gzipped =
      report_of_snapshot(std::string(PERFGATE_SOURCE_DIR) + "/tests/data/h200_snapshot_b32.pickle.gz");
  ASSERT_EQ(gzipped.inputs.size(), 1u);
  EXPECT_EQ(gzipped.inputs[0].format, "pytorch-memory-snapshot");
  EXPECT_EQ(gzipped.metric(Metric::MemorySnapshotPeakBytes), 6059193344.0);
  EXPECT_LE(*b32.metric(Metric::MemoryPeakAllocatedBytes), 6060372992.0);
  EXPECT_NEAR(*b32.metric(Metric::MemoryPeakAllocatedBytes), 6060372992.0, 0.002 * 6060372992.0);
  EXPECT_EQ(b32.metric(Metric::MemorySnapshotAllocatedBytes), 1429854720.0);
  EXPECT_EQ(b32.metric(Metric::MemorySnapshotReservedBytes), 7866417152.0);
  EXPECT_EQ(b32.metric(Metric::MemoryInactiveSplitBytes), 954607104.0);
  EXPECT_EQ(live_sum(table_of(b32, "memory_live_at_peak")), 6059193344.0);
}

// The gate on memory: batch 32's snapshot against batch 8's as the baseline. Peak 6,059,193,344
// against 2,273,260,544 (memory_snapshot_expected.py): 2.67 times, +166.5 %. regression.memory
// warns past +10 % and fails past +50 % by default; with its fail limit moved to +200 % it warns; the
// same snapshot as its own baseline passes. (Batch 8's own snapshot fails: its trace ends in an
// out-of-memory error.)
TEST(Issue60Real, AGateOnMemoryAgainstABaselineSnapshot) {
  std::string b8 = recorded("h200_snapshot_b8.pickle");
  std::string b32 = recorded("h200_snapshot_b32.pickle");
  CommandResult warned =
      run_perfgate("analyze --verbose " + b32 + " --baseline " + b8 + " --set regression.memory.fail=+200%");
  EXPECT_EQ(warned.exit_code, 0) << warned.out;
  EXPECT_NE(warned.out.find("Peak GPU memory grew"), std::string::npos) << warned.out;
  // Snapshots record no steps by nature: the step-time rule does not apply (not "inconclusive").
  EXPECT_EQ(warned.out.find("no steps to compare"), std::string::npos) << warned.out;
  EXPECT_NE(warned.out.find("regression.step-time"), std::string::npos) << warned.out;
  CommandResult failed = run_perfgate("analyze --verbose " + b32 + " --baseline " + b8);
  EXPECT_EQ(failed.exit_code, 1) << failed.out;
  // What grew, by site (memory_snapshot_expected.py --all on both, differenced): (no frames recorded)
  // 557,843,456 -> 2,130,707,456 (+1,572,864,000), train_snapshot (rec_torch.py:80) 262,144,512 ->
  // 1,048,576,512 (+786,432,000), forward (rec_torch.py:55) 258,048,000 -> 862,322,688 (+604,274,688).
  // The same from the baseline's JSON report, which keeps its memory_live_at_peak table.
  std::string b8_json = temp_dir() + "/b8_report.json";
  ASSERT_EQ(run_perfgate("analyze --verbose " + b8 + " --json " + b8_json).exit_code, 1);  // its oom fails
  for (const std::string& baseline : {b8, b8_json}) {
    CommandResult grew = run_perfgate("analyze --verbose " + b32 + " --baseline " + baseline);
    std::size_t first = grew.out.find("What grew most at the peak, by allocation site: (no frames recorded)");
    std::size_t second = grew.out.find("train_snapshot (rec_torch.py:80)", first);
    std::size_t third = grew.out.find("forward (rec_torch.py:55)", second);
    EXPECT_NE(first, std::string::npos) << grew.out;
    EXPECT_NE(second, std::string::npos) << grew.out;
    EXPECT_NE(third, std::string::npos) << grew.out;
  }
  CommandResult same =
      run_perfgate("analyze --verbose " + b32 + " --baseline " + b32 + " --set regression.memory.fail=+100%");
  EXPECT_EQ(same.exit_code, 0) << same.out;
  CommandResult oom = run_perfgate("analyze --verbose " + b8);
  EXPECT_EQ(oom.exit_code, 1) << oom.out;
  EXPECT_NE(oom.out.find("Out of memory in the snapshot"), std::string::npos) << oom.out;
}

// The snapshot's peak in a run history, as every catalog metric is recorded: batch 8's then batch 32's
// snapshot recorded on main (the first exits 1 on its out-of-memory error and is recorded all the
// same), and `history trend --metric memory.snapshot_peak_bytes` gives both peaks in order
// (memory_snapshot_expected.py: 2,273,260,544 and 6,059,193,344 bytes).
// Held out: snapshots of another model, recorded on an H100 after the reader was written (a CNN of
// 8 convolutions with batch norm, SGD with momentum, autocast FP16, 3 steps; tools/rec_cnn_snapshot.py,
// which ran as rec68_torch.py: the frames name that file). Expected: memory_snapshot_expected.py
// (Python's own unpickling, replayed), and torch's counters at the recording (tests/data/README.md).
TEST(Issue60Real, HeldOutCnnSnapshotsEqualPythonsReplay) {
  struct Expected {
    const char* name;
    double peak, reserved, allocated, torch_max;
    std::int64_t blocks, expandable;
  };
  // Block bytes (issue 91; requested, issue 75's unit, in brackets). b16: peak 473,870,848
  // (472,499,000) after action 990, 152 blocks live; reserved 574,619,648, allocated 114,306,048 at
  // the end. b48 (protocol 5): peak 1,166,291,456 (1,165,607,992; 68,158,464 live before the
  // window); b16 under expandable_segments:True: 472,510,976 (472,499,000) in 2 expandable
  // segments, equal to torch's max_memory_allocated.
  const Expected cases[] = {
      {"h100_cnn_snapshot_b16.pickle", 473870848, 574619648, 114306048, 475361792, 152, 0},
      {"h100_cnn_snapshot_b48.pickle", 1166291456, 1421869056, 119909376, 1168388608, 152, 0},
      {"h100_cnn_snapshot_b16_expandable.pickle", 472510976, 532676608, 112946176, 472510976, 152, 2},
  };
  for (const Expected& e : cases) {
    SCOPED_TRACE(e.name);
    ReportModel r = report_of_snapshot(recorded(e.name));
    EXPECT_EQ(r.metric(Metric::MemorySnapshotPeakBytes), e.peak);
    EXPECT_EQ(r.metric(Metric::MemorySnapshotReservedBytes), e.reserved);
    EXPECT_EQ(r.metric(Metric::MemorySnapshotAllocatedBytes), e.allocated);
    EXPECT_EQ(r.metric(Metric::MemoryExpandableSegments), static_cast<double>(e.expandable));
    // torch's max_memory_allocated counts the blocks, as the replay, whose unsplit large blocks
    // freed in the trace count at their rounded request (docs/metrics.md): at most it, within 1 %
    // (b16: 0.31 %; requested bytes were 0.60 %), and at least the memory allocated at the dump.
    EXPECT_GE(e.peak, e.allocated);
    EXPECT_NEAR(e.peak, e.torch_max, 0.01 * e.torch_max);
    EXPECT_LE(e.peak, e.torch_max);
    const ReportTable& live = table_of(r, "memory_live_at_peak");
    EXPECT_EQ(live_sum(live), e.peak);
    double blocks = 0;
    for (std::size_t row = 0; row < live.rows.size(); ++row) blocks += number_at(live, row, "blocks");
    EXPECT_EQ(blocks, static_cast<double>(e.blocks));
    EXPECT_EQ(text_at(live, 0, "site"), "snap (rec68_torch.py:22)");  // the forward pass's activations
  }
}

// The gate on the held-out pair: batch 48's peak is 2.47 times batch 16's (1,165,607,992 against
// 472,499,000: +147 %), past the default fail limit of regression.memory (+50 %); what grew most is the
// forward pass's activations at rec68_torch.py:22 (362,224,004 -> 998,709,636 bytes).
TEST(Issue60Real, HeldOutLargerPeakFailsTheGate) {
  std::string b16 = recorded("h100_cnn_snapshot_b16.pickle");
  std::string b48 = recorded("h100_cnn_snapshot_b48.pickle");
  CommandResult failed = run_perfgate("analyze --verbose " + b48 + " --baseline " + b16);
  EXPECT_EQ(failed.exit_code, 1) << failed.out;
  EXPECT_NE(failed.out.find("Peak GPU memory grew"), std::string::npos) << failed.out;
  EXPECT_NE(failed.out.find("What grew most at the peak, by allocation site: snap (rec68_torch.py:22)"),
            std::string::npos)
      << failed.out;
  CommandResult smaller = run_perfgate("analyze --verbose " + b16 + " --baseline " + b48);
  EXPECT_EQ(smaller.exit_code, 0) << smaller.out;
}

TEST(Issue60Real, ThePeakTrendsInARunHistory) {
  std::string dir = temp_dir();
  std::string db = dir + "/history.db";
  EXPECT_EQ(run_perfgate("analyze --verbose " + recorded("h200_snapshot_b8.pickle") + " -q --history " + db +
                         " --record --branch main --commit b8")
                .exit_code,
            1);
  EXPECT_EQ(run_perfgate("analyze --verbose " + recorded("h200_snapshot_b32.pickle") + " -q --history " + db +
                         " --record --branch main --commit b32")
                .exit_code,
            0);
  std::string out = dir + "/trend.json";
  CommandResult trend =
      run_perfgate("history trend " + db + " -q --metric memory.snapshot_peak_bytes --json " + out);
  ASSERT_EQ(trend.exit_code, 0) << trend.out;
  boost::json::value t = boost::json::parse(read_text(out));
  const boost::json::array& series = t.at("series").at("memory.snapshot_peak_bytes").as_array();
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].at("commit").as_string(), "b8");
  EXPECT_EQ(series[0].at("value").to_number<double>(), 2273260544.0);
  EXPECT_EQ(series[1].at("commit").as_string(), "b32");
  EXPECT_EQ(series[1].at("value").to_number<double>(), 6059193344.0);
}

}  // namespace
}  // namespace perfgate::testing
