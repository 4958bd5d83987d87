// What grew on the critical path per matched inferred unit (issue 74, item 6): where neither run
// marks steps and both repeat a named range, each unit's path is computed over its host range (as a
// step's with --step-pattern inferred), kept in the report's critical_path_units tables (and its
// JSON report, read back by the baseline reader), and the step-time finding differences the units
// both runs have, summed on each side and divided by them, not the windows' one path each.
#include <gtest/gtest.h>

#include <string>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Block k's unit (layer.k's start to layer.k+1's) takes 1000, 1040, 1080 or 1120 us in turn;
// blocks 12 and later, which only the run reaches, 1600 us.
double block_us(int k) {
  return k >= 12 ? 1600.0 : 1000.0 + 40.0 * (k % 4);
}

// No step markers: ops layer.first ... layer.last, each 50 us on the host with a 1 us launch at +10 us
// of one kernel "blk" at +100 us, lasting `kernel_us` (blocks before 12) or `late_kernel_us` (blocks
// 12 and later); block k's unit lasts block_us(k) x `factor`. The units are layer.first ...
// layer.(last - 1).
//
// Each unit's path by hand (HTA's graph over the unit's host range): the op's start to the launch's
// start (10 us, host), the launch delay to the kernel's start (90 us: its stream is idle), the kernel
// (GPU compute): 100 + kernel_us. The host's own chain is shorter: the op (50 us) and the next
// unit's opening op (50 us, starting at the unit's end, which the range includes as a step's does).
std::string blocks_trace(int first, int last, double factor, double kernel_us, double late_kernel_us) {
  TraceBuilder t;
  double s = 0;
  for (int k = first; k <= last; ++k) {
    t.op("layer." + std::to_string(k), s, 50, k + 1);
    t.launch("blk", s + 10, s + 100, k >= 12 ? late_kernel_us : kernel_us, k + 1);
    s += block_us(k) * factor;
  }
  return t.json();
}

std::string problem_of(const ReportModel& r) {
  const ReportFinding* f = find_finding(r, "regression.step-time");
  return f ? f->problem : "(no finding)";
}

// The baseline's units are blocks 0-11 with a 100 us kernel each, the run's blocks 4-15 at +30% with
// a 400 us kernel in blocks 4-11 and 900 us in blocks 12-15 (no match). Matched: blocks 4-11, each
// path 200 us before (10 host + 90 launch delay + 100 kernel) and 500 us after: +300 us a matched
// unit, all of it blk's GPU time (100 -> 400 us), nothing else. The unmatched blocks 12-15 (path 1000 us)
// count on neither side: their 900 us kernels would make the run's mean path (8 x 500 + 4 x 1000) / 12 =
// 666.7 us. The window's one path would hold every block's work.
TEST(UnitPaths, WhatGrewOnThePathIsSummedOverTheMatchedUnits) {
  ReportModel before = report_of_json(blocks_trace(0, 12, 1, 100, 100), default_book());
  ASSERT_TRUE(before.inferred_iterations);
  ASSERT_EQ(before.workers.size(), 1u);
  const ReportTable* units = find_table(before.workers.front().tables, Table::CriticalPathUnits);
  const ReportTable* ops = find_table(before.workers.front().tables, Table::CriticalPathUnitOps);
  ASSERT_TRUE(units && ops);
  ASSERT_EQ(units->rows.size(), 12u);
  EXPECT_EQ(std::get<std::string>(*find_cell(*units, 0, "unit")), "layer.0");
  EXPECT_NEAR(cell_number(*find_cell(*units, 0, "length_us")).value_or(-1), 200, 1e-9);
  EXPECT_NEAR(cell_number(*find_cell(*units, 0, "gpu_compute_us")).value_or(-1), 100, 1e-9);
  EXPECT_NEAR(cell_number(*find_cell(*units, 0, "launch_overhead_us")).value_or(-1), 90, 1e-9);
  EXPECT_NEAR(cell_number(*find_cell(*units, 0, "cpu_bound_us")).value_or(-1), 10, 1e-9);
  EXPECT_NEAR(cell_number(*find_cell(*units, 5, "span_us")).value_or(-1), 1040, 1e-9);

  Baseline base = baseline_from_report(before, "before.json", "profile");
  ASSERT_EQ(base.unit_paths.size(), 12u);
  ReportModel after = report_of_json(blocks_trace(4, 16, 1.3, 400, 900), default_book());
  apply_gate(after, default_rules(), &base, {});
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  ASSERT_EQ(f->status, FindingStatus::Fail) << f->reason;
  std::string p = f->problem;
  EXPECT_NE(p.find("Over the 8 matched units with a critical path in both runs"), std::string::npos) << p;
  EXPECT_NE(p.find("of the worker whose path of it is longest): on the critical path per matched unit, 200.0 "
                   "us → 500.0 us (+300.0 us)"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("grew GPU compute +300.0 us (100.0 us → 400.0 us)"), std::string::npos) << p;
  // Off the path: the matched units' mean span less the path, (1000 + 1040 + 1080 + 1120) / 4 = 1060 us
  // - 200 before, 1060 x 1.3 - 500 after.
  EXPECT_NE(p.find("Off the path (unit time no path explains) 860.0 us → 878.0 us (+18.0 us)."),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("By name (each run's critical-path ops a matched unit, 200.0 us → 500.0 us): grew blk "
                   "(GPU compute) +300.0 us (100.0 us → 400.0 us); everything else 0.0 us."),
            std::string::npos)
      << p;
  EXPECT_EQ(p.find("is not computed"), std::string::npos) << p;

  // The same through the baseline's JSON report: the unit tables are read back.
  std::string path = write_text(temp_dir() + "/unit_paths_before.json", render_json(before));
  Baseline read = read_baseline_report(path);
  ASSERT_EQ(read.unit_paths.size(), 12u);
  EXPECT_EQ(read.unit_paths[4].unit, "layer.4");
  EXPECT_NEAR(read.unit_paths[4].length_us, 200, 1e-9);
  ReportModel against_json = report_of_json(blocks_trace(4, 16, 1.3, 400, 900), default_book());
  apply_gate(against_json, default_rules(), &read, {});
  EXPECT_EQ(problem_of(against_json), p);
}

// A baseline without paths per unit (a history keeps none) says so, and does not divide a window's
// path by its units; a run with window steps has no paths per unit (its steps have their own).
TEST(UnitPaths, WithoutTheBaselinesUnitPathsTheFindingSaysWhy) {
  ReportModel before = report_of_json(blocks_trace(0, 12, 1, 100, 100), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  base.unit_paths.clear();
  ReportModel after = report_of_json(blocks_trace(4, 16, 1.3, 400, 900), default_book());
  apply_gate(after, default_rules(), &base, {});
  std::string p = problem_of(after);
  EXPECT_NE(p.find("What grew on the critical path per unit is not computed: the baseline keeps no critical "
                   "path per unit"),
            std::string::npos)
      << p;

  TraceBuilder stepped;
  for (int k = 0; k < 4; ++k) {
    stepped.step(k, k * 1000.0, 900);
    stepped.op("layer." + std::to_string(k), k * 1000.0 + 1, 50, k + 1);
    stepped.launch("blk", k * 1000.0 + 10, k * 1000.0 + 100, 100, k + 1);
  }
  ReportModel with_steps = report_of_json(stepped.json(), default_book());
  ASSERT_FALSE(with_steps.workers.empty());
  EXPECT_FALSE(find_table(with_steps.workers.front().tables, Table::CriticalPathUnits));
}

}  // namespace
}  // namespace perfgate::testing
