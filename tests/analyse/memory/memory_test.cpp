// Issue 15, item 6: the memory view from [memory] events: the peak and the op that reached it, the
// totals over the window, each op's allocations and frees, with totals recorded (PyTorch 1.10+) and
// rebuilt from the changes alone (PyTorch 1.8/1.9).
#include <gtest/gtest.h>

#include <limits>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

const MemoryOpRow* row_of(const WorkerAnalysis& w, const std::string& op) {
  for (const MemoryOpRow& r : w.tables.memory_ops)
    if (r.op == op) return &r;
  return nullptr;
}

// Steps 1 [0,100] and 2 [100,200] us on thread 1. Step 1 (outside the window with --skip-first 1)
// allocates 10 MiB in aten::empty. Step 2: aten::conv2d [110,150] allocates 4 MiB at 120 and
// 6 MiB at 130 (peak 20 MiB), then aten::add [160,180] frees 4 MiB at 170 and allocates 1 MiB at
// 175 inside its aten::empty_like [172,178]; a free of 6 MiB at 190 runs outside any op.
// Allocated totals: 10, 14, 20, 16, 17, 11 MiB. Reserved totals: 32 MiB throughout, 40 from 130.
TraceBuilder memory_trace(bool with_totals) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100", 8, 0, 80LL << 30, 108);
  t.step(1, 0, 100).step(2, 100, 100);
  t.op("aten::empty", 10, 5);
  t.op("aten::conv2d", 110, 40).op("aten::add", 160, 20).op("aten::empty_like", 172, 6);
  struct Change {
    double ts;
    std::int64_t bytes, reserved;
  };
  std::int64_t total = 0;
  for (Change c : {Change{12, 10 * kMiB, 32 * kMiB}, Change{120, 4 * kMiB, 32 * kMiB},
                   Change{130, 6 * kMiB, 40 * kMiB}, Change{170, -4 * kMiB, 40 * kMiB},
                   Change{175, 1 * kMiB, 40 * kMiB}, Change{190, -6 * kMiB, 40 * kMiB}}) {
    total += c.bytes;
    if (with_totals)
      t.memory(c.ts, c.bytes, total, 1, 0, 1, c.reserved);
    else
      t.memory_change(c.ts, c.bytes);
  }
  t.memory(50, 1 << 30, 1 << 30, 0, -1);  // a host allocation: not GPU memory
  return t;
}

TEST(Memory, ThePeakIsTheHighestTotalWithTheOpThatReachedIt) {
  WorkerAnalysis w = analyse_json(memory_trace(true).json());
  ASSERT_TRUE(w.memory.peak_allocated);
  EXPECT_EQ(*w.memory.peak_allocated, 20 * kMiB);
  EXPECT_EQ(w.memory.peak_op, "aten::conv2d");
  EXPECT_EQ(w.memory.peak_device, 0);
  EXPECT_EQ(w.memory.peak_time, 130'000);
  EXPECT_FALSE(w.memory.totals_from_changes);
  EXPECT_EQ(*w.metrics.get(Metric::MemoryPeakAllocatedBytes), 20.0 * kMiB);
  EXPECT_NEAR(*w.metrics.get(Metric::MemoryPeakPct), 100.0 * 20 * kMiB / (80.0 * 1024 * kMiB), 1e-12);
  EXPECT_EQ(*w.metrics.get(Metric::MemoryPeakReservedBytes), 40.0 * kMiB);
}

// Without totals the series starts at 0 and never goes below it: 10, 14, 20, 16, 17, 11 MiB again.
// A trace that frees more than it allocated in the capture starts high enough to stay at zero or above.
TEST(Memory, WithoutTotalsTheChangesAddUpFromTheCaptureStart) {
  WorkerAnalysis w = analyse_json(memory_trace(false).json());
  ASSERT_TRUE(w.memory.peak_allocated);
  EXPECT_EQ(*w.memory.peak_allocated, 20 * kMiB);
  EXPECT_EQ(w.memory.peak_op, "aten::conv2d");
  EXPECT_TRUE(w.memory.totals_from_changes);
  EXPECT_FALSE(w.memory.peak_reserved);
  EXPECT_FALSE(w.metrics.get(Metric::MemoryPeakReservedBytes));
  bool warned = false;
  for (const auto& s : note_texts(w.warnings)) warned = warned || s.find("lower bound") != std::string::npos;
  EXPECT_TRUE(warned);

  // A free of 3 MiB allocated before the capture, then 2 MiB allocated: -3, -1 MiB from the start,
  // so at least 3 MiB was allocated when the capture started, the highest total: 3, 0, 2 MiB.
  TraceBuilder t;
  t.op("aten::relu", 0, 10).memory_change(1, -3 * kMiB).memory_change(5, 2 * kMiB);
  WorkerAnalysis frees = analyse_json(t.json());
  EXPECT_EQ(*frees.memory.peak_allocated, 3 * kMiB);
  EXPECT_EQ(frees.memory.peak_op, "(before the capture)");
  EXPECT_EQ(frees.memory.peak_time, 1000);
}

TEST(Memory, EachOpCountsItsOwnAllocationsAndFreesInTheWindow) {
  for (bool with_totals : {true, false}) {
    SCOPED_TRACE(with_totals ? "totals" : "changes");
    AnalysisOptions options;
    options.window.skip_first = 1;
    WorkerAnalysis w = analyse_json(memory_trace(with_totals).json(), options);
    EXPECT_EQ(row_of(w, "aten::empty"), nullptr) << "step 1 is outside the window";
    ASSERT_EQ(w.tables.memory_ops.size(), 4u);
    const MemoryOpRow* conv = row_of(w, "aten::conv2d");
    const MemoryOpRow* add = row_of(w, "aten::add");
    const MemoryOpRow* empty_like = row_of(w, "aten::empty_like");
    const MemoryOpRow* none = row_of(w, std::string(kNoOpName));
    ASSERT_TRUE(conv && add && empty_like && none);
    EXPECT_EQ(&w.tables.memory_ops[0], conv) << "most bytes allocated first";
    EXPECT_EQ(conv->calls, 1u);
    EXPECT_EQ(conv->allocations, 2u);
    EXPECT_EQ(conv->allocated_bytes, static_cast<std::uint64_t>(10 * kMiB));
    EXPECT_EQ(conv->frees, 0u);
    EXPECT_EQ(empty_like->allocations, 1u) << "the allocation inside aten::add is its innermost op's";
    EXPECT_EQ(empty_like->allocated_bytes, static_cast<std::uint64_t>(kMiB));
    EXPECT_EQ(add->allocations, 0u);
    EXPECT_EQ(add->frees, 1u);
    EXPECT_EQ(add->freed_bytes, static_cast<std::uint64_t>(4 * kMiB));
    EXPECT_EQ(none->calls, 0u);
    EXPECT_EQ(none->freed_bytes, static_cast<std::uint64_t>(6 * kMiB));
  }
}

// Sizes no GPU has are clamped to 2^50 bytes as they are read, so that the running totals cannot
// overflow (the sanitizer build checks): 2^50, 2^51, then 2^50 again.
TEST(Memory, AbsurdSizesAreClampedAndTheTotalsDoNotOverflow) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  TraceBuilder t;
  t.op("aten::a", 0, 10).memory_change(1, kMax).memory_change(2, kMax).memory_change(3, -kMax - 1);
  t.memory(4, kMax, kMax, 1, 1);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_TRUE(w.memory.peak_allocated);
  EXPECT_EQ(*w.memory.peak_allocated, std::int64_t{1} << 51);
  EXPECT_EQ(w.memory.peak_device, 0);
}

std::vector<std::pair<TimeNs, std::int64_t>> curve_of(const WorkerAnalysis& w) {
  std::vector<std::pair<TimeNs, std::int64_t>> points;
  for (const MemoryPoint& m : w.tables.memory_curve) points.emplace_back(m.time, m.allocated / kMiB);
  return points;
}

// The window is step 2 [100,200]: the total entering it (10 MiB from step 1), each sample, and the
// total leaving it; the reserved totals beside them.
TEST(Memory, TheCurveRunsFromTheTotalEnteringTheWindowToTheTotalLeavingIt) {
  AnalysisOptions options;
  options.window.skip_first = 1;
  WorkerAnalysis w = analyse_json(memory_trace(true).json(), options);
  using Points = std::vector<std::pair<TimeNs, std::int64_t>>;
  EXPECT_EQ(curve_of(w), (Points{{100'000, 10},
                                 {120'000, 14},
                                 {130'000, 20},
                                 {170'000, 16},
                                 {175'000, 17},
                                 {190'000, 11},
                                 {200'000, 11}}));
  std::vector<std::int64_t> reserved;
  for (const MemoryPoint& m : w.tables.memory_curve) reserved.push_back(m.reserved / kMiB);
  EXPECT_EQ(reserved, (std::vector<std::int64_t>{32, 32, 40, 40, 40, 40, 40}));

  WorkerAnalysis changes = analyse_json(memory_trace(false).json(), options);
  EXPECT_EQ(curve_of(changes), curve_of(w));
  for (const MemoryPoint& m : changes.tables.memory_curve) EXPECT_EQ(m.reserved, -1);
}

// A window of 3,000 us has stretches of 10 us: four samples in one stretch leave its highest total.
TEST(Memory, TheCurveKeepsTheHighestTotalOfEachStretch) {
  TraceBuilder t;
  t.op("aten::a", 0, 3000);
  t.memory_change(1000, 5 * kMiB).memory_change(1002, -4 * kMiB).memory_change(1004, 10 * kMiB);
  t.memory_change(1006, -11 * kMiB);
  WorkerAnalysis w = analyse_json(t.json());
  using Points = std::vector<std::pair<TimeNs, std::int64_t>>;
  EXPECT_EQ(curve_of(w), (Points{{1'004'000, 11}, {3'000'000, 0}}));
}

}  // namespace
}  // namespace perfgate::testing
