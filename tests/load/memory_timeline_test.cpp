// Issue 60: a memory snapshot's active-memory timeline (MemoryViz's "Active Memory Timeline" as
// report rows and static SVG) and the categories of what is live at the peak, on hand-built
// snapshots whose bands and categories are written down below by hand.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "analyse/memory/snapshot_analysis.h"
#include "analyse/worker_analysis.h"
#include "load/snapshot/snapshot_reader.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/snapshot_builder.h"

namespace perfgate::testing {
namespace {

using test::Snapshot;
using test::snapshot_pickle;

constexpr std::uint64_t kMiB = 1 << 20;
constexpr const char* kModule = "/usr/lib/python3/site-packages/torch/nn/modules/module.py";
constexpr const char* kAdam = "/usr/lib/python3/site-packages/torch/optim/adam.py";

// Device 0 ends with E (2 MiB at 0x1000000, allocated before the recording, no frames) and, in an
// 8 MiB segment at 0x100000, A (1 MiB) and C (2 MiB at 0x600000) active. The trace:
//   1 alloc A 1 MiB (a module's forward: _call_impl)      -> category forward
//   2 alloc B 4 MiB at 0x200000, category "activation"    -> activation
//   3 alloc C 2 MiB, user_metadata " Gradient"            -> gradient
//   4 free_requested B, 5 free_completed B
//   6 free_completed F (1 MiB at 0x800000, allocated before the recording, in torch/optim) -> optimizer
// Backwards from 5 MiB at the end: 6, 10, 10, 8, 4, 3 MiB; so the states 0..6 hold 3, 4, 8, 10, 10,
// 6, 5 MiB and the peak is 10 MiB after action 3. E is unknown (no frames).
Snapshot timeline_device() {
  Snapshot s;
  test::SnapFrame forward{"forward", "/home/me/model.py", 10};
  test::SnapFrame call{"_call_impl", kModule, 1500};
  s.segments.push_back({0,
                        0x100000,
                        8 * kMiB,
                        {{0x100000, kMiB, "active_allocated", {forward, call}},
                         {0x200000, 4 * kMiB, "inactive", {}},
                         {0x600000, 2 * kMiB, "active_allocated", {}},
                         {0x800000, kMiB, "inactive", {}}}});
  s.segments.push_back({0, 0x1000000, 2 * kMiB, {{0x1000000, 2 * kMiB, "active_allocated", {}}}});
  test::SnapAction b{"alloc", 0x200000, 4 * kMiB, 20, {{"forward", "/home/me/model.py", 20}}};
  b.category = "activation";
  test::SnapAction c{"alloc", 0x600000, 2 * kMiB, 30, {{"step", "/home/me/train.py", 30}}};
  c.user_metadata = " Gradient";
  s.device_traces.push_back(
      {{"alloc", 0x100000, kMiB, 10, {forward, call}},
       b,
       c,
       {"free_requested", 0x200000, 4 * kMiB, 40, {}},
       {"free_completed", 0x200000, 4 * kMiB, 50, {}},
       {"free_completed", 0x800000, kMiB, 60, {{"step", kAdam, 100}, {"train", "/home/me/train.py", 40}}}});
  return s;
}

struct Analysed {
  MemorySnapshot snapshot;
  WorkerAnalysis w;
};
Analysed analysed(const Snapshot& s) {
  Profile profile;
  pickle::Value root = pickle::unpickle(snapshot_pickle(s), "snap.pickle", {});
  Analysed a;
  a.snapshot = snapshot::read_snapshot(root, "snap.pickle", default_classification().memory_categories);
  snapshot::replay_snapshot(a.snapshot, profile);
  analyse_snapshot(a.snapshot, a.w);
  return a;
}

// Seven states, so seven columns, each its own state. Bands by size (ties: E, then A, before the
// trace's, in the order the elements come: F, E entering by address, then A, B, C): B 4 MiB is band
// 1, E 2 MiB band 2, C 2 MiB band 3, F 1 MiB band 4, A 1 MiB band 5. The stack, bottom up: E (alive
// at the end), F (entering, freed), then A, B, C as allocated.
//   state 0: E [0,2) F [2,3)              state 3 and 4: E, F, A [3,4), B [4,8), C [8,10)
//   state 1: E, F, A [3,4)                state 5: B freed: C slides down to [4,6)
//   state 2: E, F, A, B [4,8)             state 6: F freed: A [2,3), C [3,5)
TEST(MemoryTimeline, BandsStackedAsMemoryVizDrawsThem) {
  Analysed a = analysed(timeline_device());
  const std::vector<SnapshotBandRow>& rows = a.w.tables.memory_timeline;
  struct Expected {
    std::uint32_t band;
    std::uint64_t first, last;
    std::uint64_t bottom, size;
  };
  const Expected expected[] = {{1, 2, 4, 4, 4}, {2, 0, 6, 0, 2}, {3, 3, 4, 8, 2}, {3, 5, 5, 4, 2},
                               {3, 6, 6, 3, 2}, {4, 0, 5, 2, 1}, {5, 1, 5, 3, 1}, {5, 6, 6, 2, 1}};
  ASSERT_EQ(rows.size(), std::size(expected));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].band, expected[i].band) << i;
    EXPECT_EQ(rows[i].first_state, expected[i].first) << i;
    EXPECT_EQ(rows[i].last_state, expected[i].last) << i;
    EXPECT_EQ(rows[i].bottom, static_cast<std::int64_t>(expected[i].bottom * kMiB)) << i;
    EXPECT_EQ(rows[i].size, expected[i].size * kMiB) << i;
  }
  EXPECT_EQ(rows[0].site, "forward (model.py:20)");
  EXPECT_EQ(rows[0].category, "activation");
  EXPECT_EQ(rows[1].site, "(no frames recorded)");
  EXPECT_EQ(rows[5].site, "train (train.py:40)");
  EXPECT_EQ(rows[5].category, "optimizer");
}

// Live at the peak (state 3): E 2 unknown, F 1 optimizer, A 1 forward, B 4 activation, C 2
// gradient = 10 MiB. By category, most bytes first (ties by name): activation 4, gradient 2,
// unknown 2, forward 1, optimizer 1.
TEST(MemoryTimeline, CategoriesOfWhatIsLiveAtThePeak) {
  Analysed a = analysed(timeline_device());
  const std::vector<SnapshotCategoryRow>& by = a.w.tables.memory_peak_categories;
  const std::pair<const char*, std::uint64_t> expected[] = {
      {"activation", 4}, {"gradient", 2}, {"unknown", 2}, {"forward", 1}, {"optimizer", 1}};
  ASSERT_EQ(by.size(), std::size(expected));
  for (std::size_t i = 0; i < by.size(); ++i) {
    EXPECT_EQ(by[i].category, expected[i].first) << i;
    EXPECT_EQ(by[i].bytes, expected[i].second * kMiB) << i;
    EXPECT_EQ(by[i].blocks, 1u) << i;
    EXPECT_EQ(by[i].peak, static_cast<std::int64_t>(10 * kMiB));
  }
  // The live-at-peak rows carry their category: A and B share model.py but not their line.
  bool forward_seen = false;
  for (const SnapshotSiteRow& r : a.w.tables.memory_live_at_peak)
    if (r.site == "forward (model.py:10)") {
      forward_seen = true;
      EXPECT_EQ(r.category, "forward");
      EXPECT_EQ(r.bytes, kMiB);
    }
  EXPECT_TRUE(forward_seen);
}

// Frames alone: AccumulateGrad is a gradient even under a module's forward or torch/optim; a
// parameter made by nn.Parameter; the autograd engine is backward; nothing known is unknown; a
// category the snapshot writes wins over every frame; user_metadata that names no category is
// not one.
TEST(MemoryTimeline, CategoryFromFramesByPrecedence) {
  auto category = [](const std::vector<test::SnapFrame>& frames, const std::string& cat = "",
                     const std::string& meta = "") {
    test::PickleWriter w(4);
    w.empty_dict().mark();
    if (!cat.empty()) w.str("category").str(cat);
    w.str("user_metadata").str(meta).str("frames");
    test::write_frames(w, frames);
    w.setitems().stop();
    MemoryCategories categories(default_classification().memory_categories);
    return snapshot::category_of(pickle::unpickle(w.text(), "entry.pickle", {}), categories);
  };
  test::SnapFrame grad{"torch::autograd::AccumulateGrad::apply(...)", "??", 0};
  test::SnapFrame optim{"step", kAdam, 1};
  test::SnapFrame call{"_call_impl", kModule, 1};
  EXPECT_EQ(category({call, optim, grad}), "gradient");
  EXPECT_EQ(category({call, optim}), "optimizer");
  EXPECT_EQ(category({{"__new__", "C:\\py\\Lib\\site-packages\\torch\\nn\\parameter.py", 1}}), "parameter");
  EXPECT_EQ(category({{"_apply", kModule, 1}, call}), "parameter");
  EXPECT_EQ(category({{"torch::autograd::Engine::evaluate_function(...)", "??", 0}}), "backward");
  EXPECT_EQ(category({call}), "forward");
  EXPECT_EQ(category({{"main", "/home/me/train.py", 3}}), "unknown");
  EXPECT_EQ(category({}), "unknown");
  EXPECT_EQ(category({grad}, "PARAMETER"), "parameter");
  EXPECT_EQ(category({call}, "", "optimizer_state"), "optimizer_state");
  EXPECT_EQ(category({call}, "", "step 3"), "forward");
}

// The page: the SVG with one group per band, the peak marked at 10 MiB after action 3, and the
// live-at-peak rows and categories beside it.
TEST(MemoryTimeline, PageDrawsTheTimelineWithThePeakMarked) {
  std::string path = write_text(temp_dir() + "/timeline.pickle", snapshot_pickle(timeline_device()));
  ReportModel r = report_of_files({path}, default_book());
  std::string html = render_html(r).page;
  std::size_t svg = html.find("<svg class=\"memory-timeline\"");
  ASSERT_NE(svg, std::string::npos);
  std::string chart = html.substr(svg, html.find("</figure>", svg) - svg);  // its plot area is an <svg> too
  EXPECT_NE(chart.find("<g class=\"peak\">"), std::string::npos);
  EXPECT_NE(chart.find("peak 10.5 MB after action 3"), std::string::npos) << chart;
  std::size_t groups = 0, rects = 0;
  for (std::size_t at = chart.find("class=\"band\""); at != std::string::npos;
       at = chart.find("class=\"band\"", at + 1))
    ++groups;
  for (std::size_t at = chart.find("<rect"); at != std::string::npos; at = chart.find("<rect", at + 1))
    ++rects;
  EXPECT_EQ(groups, 5u);
  EXPECT_EQ(rects, 8u);
  EXPECT_EQ(chart.find("<script"), std::string::npos);
  std::size_t side = html.find("class=\"card live-at-peak\"");
  ASSERT_NE(side, std::string::npos);
  EXPECT_NE(html.find("forward (model.py:20)", side), std::string::npos);
  EXPECT_NE(html.find("activation", side), std::string::npos);
  const ReportTable* table = find_table(r.workers.front().tables, "memory_timeline");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->rows.size(), 8u);
}

// --device-memory gives the device's size where no out-of-memory error shows it: timeline_device's
// peak, 10 MiB, is 100 x 10 / 11 = 90.9 % of 11 MiB (the near-capacity rule warns at 90) and 50 %
// of 20 MiB (it passes); without the option the rule does not apply; a size that is not one is a
// usage error.
TEST(MemoryTimeline, DeviceMemoryOption) {
  std::string dir = temp_dir();
  std::string path = write_text(dir + "/capacity.pickle", snapshot_pickle(timeline_device()));
  auto near_capacity = [&](const std::string& option, double& pct) {
    std::string json = dir + "/capacity.json";
    CommandResult run = run_perfgate("analyze --verbose " + path + " -q --json " + json + option);
    EXPECT_EQ(run.exit_code, 0) << run.out;
    boost::json::value report = boost::json::parse(read_text(json));
    const boost::json::value* value =
        report.at("metrics").as_object().if_contains("memory.snapshot_peak_pct");
    pct = value && value->is_number() ? value->to_number<double>() : -1;
    for (const boost::json::value& f : report.at("findings").as_array())
      if (f.at("id").as_string() == "memory.snapshot-near-capacity")
        return std::string(f.at("status").as_string());
    return std::string("missing");
  };
  double pct = 0;
  EXPECT_EQ(near_capacity(" --device-memory 11M", pct), "warn");
  EXPECT_NEAR(pct, 100.0 * 10 / 11, 1e-6);  // the JSON report's 6 decimals
  EXPECT_EQ(near_capacity(" --device-memory 20MiB", pct), "pass");
  EXPECT_DOUBLE_EQ(pct, 50.0);
  // The terminal names where the device's size came from (no out-of-memory error here).
  CommandResult text = run_perfgate("analyze --verbose " + path + " --device-memory 20MiB");
  EXPECT_NE(text.out.find("(50.0% of the device's memory: as --device-memory gives it, else as an "
                          "out-of-memory error shows it)"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(near_capacity("", pct), "n/a");
  EXPECT_EQ(pct, -1);
  CommandResult bad = run_perfgate("analyze --verbose " + path + " --device-memory lots");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--device-memory lots: not a size"), std::string::npos) << bad.out;
}

// 3,000 allocations of 1, 2, ..., 3,000 KiB all live, then freed in the order allocated: 6,000
// actions, the peak after action 3,000: 3,000 x 3,001 / 2 KiB. The chart is bounded: 128 columns,
// the 64 largest allocations drawn and the rest summed, so at most 65 x 128 rectangles; in the
// peak's column the highest top is the peak.
TEST(MemoryTimeline, BoundedForLongTraces) {
  constexpr std::uint64_t kKiB = 1024, n = 3000;
  Snapshot s;
  s.segments.push_back(
      {0, 0x10000000000, n * (n + 1) / 2 * kKiB, {{0x10000000000, n * (n + 1) / 2 * kKiB, "inactive", {}}}});
  std::vector<test::SnapAction> trace;
  std::uint64_t address = 0x10000000000;
  std::vector<std::uint64_t> addresses;
  for (std::uint64_t i = 1; i <= n; ++i) {
    trace.push_back({"alloc", address, i * kKiB, static_cast<std::int64_t>(i), {}});
    addresses.push_back(address);
    address += i * kKiB;
  }
  for (std::uint64_t i = 1; i <= n; ++i)
    trace.push_back({"free_completed", addresses[i - 1], i * kKiB, static_cast<std::int64_t>(n + i), {}});
  s.device_traces.push_back(std::move(trace));
  Analysed a = analysed(s);
  const std::int64_t peak = static_cast<std::int64_t>(n * (n + 1) / 2 * kKiB);
  ASSERT_EQ(a.w.tables.memory_snapshot.size(), 1u);
  EXPECT_EQ(a.w.tables.memory_snapshot[0].peak, peak);
  EXPECT_EQ(a.w.tables.memory_snapshot[0].peak_action, n);
  const std::vector<SnapshotBandRow>& rows = a.w.tables.memory_timeline;
  EXPECT_LE(rows.size(), (kTimelineBands + 1) * kTimelineColumns);
  std::int64_t highest = 0;
  std::uint32_t bands = 0;
  bool summed = false;
  for (const SnapshotBandRow& r : rows) {
    bands = std::max(bands, r.band);
    summed = summed || r.band == 0;
    if (r.first_state <= n && n <= r.last_state)
      highest = std::max(highest, r.bottom + static_cast<std::int64_t>(r.size));
  }
  EXPECT_EQ(highest, peak);
  EXPECT_EQ(bands, kTimelineBands);
  EXPECT_TRUE(summed);
  // The largest allocation, 3,000 KiB, is band 1; the 64th largest, 2,937 KiB, band 64.
  for (const SnapshotBandRow& r : rows) {
    if (r.band == 1) {
      EXPECT_EQ(r.size, n * kKiB);
    }
    if (r.band == 64) {
      EXPECT_EQ(r.size, (n - 63) * kKiB);
    }
  }
}

}  // namespace
}  // namespace perfgate::testing
