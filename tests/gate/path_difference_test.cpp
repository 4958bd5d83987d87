// A step-time regression explained along the critical path (issue 74, item 6): the two runs' paths
// per step by bound, what grew, moved onto the path, left it or shrank, adding up to the path's change.
#include <gtest/gtest.h>

#include <numeric>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "gate/path_difference.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/slowed_pair.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

MetricValues path(double length_us, double cpu, double data, double launch, double gaps, double compute,
                  double communication, double uncovered) {
  MetricValues m;
  m.set(Metric::CriticalPathLengthUs, length_us);
  m.set(Metric::CriticalPathCpuBoundPct, cpu);
  m.set(Metric::CriticalPathDataLoadingPct, data);
  m.set(Metric::CriticalPathGpuKernelLaunchOverheadPct, launch);
  m.set(Metric::CriticalPathGpuKernelKernelOverheadPct, gaps);
  m.set(Metric::CriticalPathGpuComputeBoundPct, compute);
  m.set(Metric::CriticalPathGpuCommunicationBoundPct, communication);
  m.set(Metric::CriticalPathUncoveredStepPct, uncovered);
  return m;
}

// Before: a 9000 us path, 10% host (900 us), 2% data loading (180), 5% launch delays (450), 5% gaps
// (450), 78% GPU compute (7020), no communication; 10% of the span off the path (9000 x 10/90 =
// 1000 us). After: 10000 us, 20% host (2000: +1100), no data loading (-180: left the path), 4.5%
// launch delays and gaps (450 each: unchanged), 67% compute (6700: -320), 4% communication (400:
// moved onto the path, a collective no longer hidden); 20% off the path (10000 x 20/80 = 2500).
// +1100 - 180 - 320 + 400 = +1000 us, the path's change.
TEST(PathDifference, WhatGrewMovedOntoAndLeftThePathAddsUpToItsChange) {
  MetricValues before = path(9000, 10, 2, 5, 5, 78, 0, 10);
  MetricValues after = path(10000, 20, 0, 4.5, 4.5, 67, 4, 20);
  std::optional<PathDifference> d = path_difference(before, after);
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->baseline_off_us, 1000, 1e-9);
  EXPECT_NEAR(d->off_us, 2500, 1e-9);
  double sum = 0;
  for (const PathBoundChange& b : d->bounds) sum += b.delta();
  EXPECT_NEAR(sum, 1000, 1e-9);
  ASSERT_EQ(d->bounds.size(), 6u);
  EXPECT_EQ(d->bounds.front().what, "host ops and runtime calls");
  EXPECT_NEAR(d->bounds.front().delta(), 1100, 1e-9);
  EXPECT_EQ(
      path_difference_sentence(*d),
      "On the critical path per step, 9.00 ms → 10.00 ms (+1.00 ms): grew host ops and runtime calls "
      "+1.10 ms (900.0 us → 2.00 ms); moved onto the path communication +400.0 us (0.0 us → 400.0 us); "
      "left the path data loading -180.0 us (180.0 us → 0.0 us); shrank GPU compute -320.0 us (7.02 ms → "
      "6.70 ms). Off the path (step time no path explains) 1.00 ms → 2.50 ms (+1.50 ms).");

  // Either run without a path (no critical-path metrics, or none covering its steps): nothing to say.
  EXPECT_FALSE(path_difference(MetricValues{}, after));
  EXPECT_FALSE(path_difference(before, path(10000, 20, 0, 4.5, 4.5, 67, 4, 100)));
}

// A row of critical_path_changes by hand: the part, its kind, where its bar starts and ends.
struct WaterfallRow {
  std::string part, kind;
  double from_us, to_us;
};

double cell(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* c = find_cell(t, row, column);
  return c && cell_number(*c) ? *cell_number(*c) : -1;
}

std::string cell_text(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* c = find_cell(t, row, column);
  const std::string* s = c ? std::get_if<std::string>(c) : nullptr;
  return s ? *s : "";
}

// The waterfall's bars between its two totals, summed: what they say the step changed by.
double sum_of_parts(const ReportTable& t) {
  double parts = 0;
  for (std::size_t i = 1; i + 1 < t.rows.size(); ++i) parts += cell(t, i, "delta_us");
  return parts;
}

void expect_waterfall(const ReportTable& t, const std::vector<WaterfallRow>& expected) {
  ASSERT_EQ(t.rows.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(cell_text(t, i, "part"), expected[i].part) << i;
    EXPECT_EQ(cell_text(t, i, "kind"), expected[i].kind) << i;
    EXPECT_NEAR(cell(t, i, "from_us"), expected[i].from_us, 1e-9) << i;
    EXPECT_NEAR(cell(t, i, "to_us"), expected[i].to_us, 1e-9) << i;
  }
}

// The same two paths as a waterfall (issue 76): the baseline's step, 9000 us on the path + 1000 off
// it = 10000 us; host +1100 (10000 → 11100), communication +400 (→ 11500), data loading -180 (→
// 11320), GPU compute -320 (→ 11000); launch delays and gaps unchanged: no bar; off the path
// 1000 → 2500, +1500 (→ 12500); this run's step 10000 + 2500 = 12500 us. The parts' sum, +2500 us,
// is the step's change.
TEST(PathDifference, AWaterfallWhosePartsAddUpToTheStepsChange) {
  MetricValues before = path(9000, 10, 2, 5, 5, 78, 0, 10);
  ReportTable t = critical_path_changes(*path_difference(before, path(10000, 20, 0, 4.5, 4.5, 67, 4, 20)));
  EXPECT_EQ(t.name, "critical_path_changes");
  expect_waterfall(t, {{"Baseline step (mean)", "total", 0, 10000},
                       {"host ops and runtime calls", "bound", 10000, 11100},
                       {"communication", "bound", 11100, 11500},
                       {"data loading", "bound", 11500, 11320},
                       {"GPU compute", "bound", 11320, 11000},
                       {"off the path", "off path", 11000, 12500},
                       {"This run's step (mean)", "total", 0, 12500}});
  EXPECT_NEAR(sum_of_parts(t), 2500, 1e-9);
  EXPECT_NEAR(cell(t, t.rows.size() - 1, "delta_us"), 2500, 1e-9);
  EXPECT_NEAR(cell(t, 1, "baseline_us"), 900, 1e-9);
  EXPECT_NEAR(cell(t, 1, "us"), 2000, 1e-9);

  // Launch delays 450 → 470 us (+20, under 0.5% of the 10000 us path: not named) and compute 6680
  // (-340): the other bounds, the path less the named ones, 900 → 920 us, carry the +20.
  t = critical_path_changes(*path_difference(before, path(10000, 20, 0, 4.7, 4.5, 66.8, 4, 20)));
  expect_waterfall(t, {{"Baseline step (mean)", "total", 0, 10000},
                       {"host ops and runtime calls", "bound", 10000, 11100},
                       {"communication", "bound", 11100, 11500},
                       {"data loading", "bound", 11500, 11320},
                       {"GPU compute", "bound", 11320, 10980},
                       {"other bounds", "bounds", 10980, 11000},
                       {"off the path", "off path", 11000, 12500},
                       {"This run's step (mean)", "total", 0, 12500}});
  EXPECT_NEAR(cell(t, 5, "baseline_us"), 900, 1e-9);
  EXPECT_NEAR(cell(t, 5, "us"), 920, 1e-9);
}

// With both runs' median steps (the headline's statistic, issue 93) the waterfall runs from the
// baseline's median, 9500 us, to this run's, 13000 us: +500 us to the baseline's mean step (10000), the
// same parts as above to this run's mean step (12500), +500 us to its median. The parts add up to the
// change of the median step, +3500 us.
TEST(PathDifference, AWaterfallBetweenTheMedianStepsGoesThroughTheMeans) {
  MetricValues before = path(9000, 10, 2, 5, 5, 78, 0, 10);
  ReportTable t = critical_path_changes(*path_difference(before, path(10000, 20, 0, 4.5, 4.5, 67, 4, 20)),
                                        MedianSteps{9500, 13000});
  expect_waterfall(t, {{"Baseline step (median)", "total", 0, 9500},
                       {"baseline: its mean step against its median", "statistic", 9500, 10000},
                       {"host ops and runtime calls", "bound", 10000, 11100},
                       {"communication", "bound", 11100, 11500},
                       {"data loading", "bound", 11500, 11320},
                       {"GPU compute", "bound", 11320, 11000},
                       {"off the path", "off path", 11000, 12500},
                       {"this run: its median step against its mean", "statistic", 12500, 13000},
                       {"This run's step (median)", "total", 0, 13000}});
  EXPECT_NEAR(sum_of_parts(t), 3500, 1e-9);
  EXPECT_NEAR(cell(t, t.rows.size() - 1, "delta_us"), 3500, 1e-9);
  EXPECT_NEAR(cell(t, 1, "baseline_us"), 9500, 1e-9);
  EXPECT_NEAR(cell(t, 1, "us"), 10000, 1e-9);
}

// A failing step-time finding states the difference: 2 ms of host work without kernels at each
// step's start (the GPU idle meanwhile) puts about those 2 ms of host time onto the path.
TEST(PathDifference, AFailingStepTimeStatesIt) {
  SlowedPair pair = host_slowed_pair();
  const ReportModel &before = pair.before, &after = pair.after;
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  std::optional<PathDifference> d = path_difference(before.metrics, after.metrics);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->bounds.front().what, "host ops and runtime calls");
  EXPECT_NEAR(d->bounds.front().delta(), 2000, 100);
  EXPECT_NE(f->problem.find(path_difference_sentence(*d)), std::string::npos) << f->problem;
  // The baseline's host bound is about 1 us on the path: the 2 ms moved onto it.
  EXPECT_NE(f->problem.find("moved onto the path host ops and runtime calls +2.00 ms"), std::string::npos)
      << f->problem;

  // The gate hands the same difference to the report as the waterfall: from the baseline's median
  // step (the headline's statistic, issue 93) through its mean step (path + off it) to this run's
  // mean and median, the parts between adding up to the change.
  const ReportTable* t = find_table(after.tables, Table::CriticalPathChanges);
  ASSERT_TRUE(t);
  std::size_t last = t->rows.size() - 1;
  ASSERT_TRUE(before.metric(Metric::StepsMedianUs) && after.metric(Metric::StepsMedianUs));
  EXPECT_EQ(cell_text(*t, 0, "part"), "Baseline step (median)");
  EXPECT_NEAR(cell(*t, 0, "to_us"), *before.metric(Metric::StepsMedianUs), 1e-6);
  EXPECT_NEAR(cell(*t, 1, "to_us"), d->baseline_length_us + d->baseline_off_us, 1e-6);
  EXPECT_NEAR(cell(*t, last - 1, "from_us"), d->length_us + d->off_us, 1e-6);
  EXPECT_NEAR(cell(*t, last, "to_us"), *after.metric(Metric::StepsMedianUs), 1e-6);
  EXPECT_EQ(cell_text(*t, 1, "kind"), "statistic");
  EXPECT_EQ(cell_text(*t, 2, "part"), "host ops and runtime calls");
  double parts = 0;
  for (std::size_t i = 1; i < last; ++i) {
    EXPECT_NEAR(cell(*t, i, "from_us"), cell(*t, i - 1, "to_us"), 1e-6) << i;
    parts += cell(*t, i, "delta_us");
  }
  EXPECT_NEAR(cell(*t, last - 1, "to_us"), cell(*t, last, "to_us"), 1e-6);
  EXPECT_NEAR(parts, cell(*t, last, "delta_us"), 1e-6);

  // Every output shows it: the page as a waterfall chart and a table, Markdown and JSON as a table.
  std::string html = render_html(after).page;
  EXPECT_NE(html.find("<h3>What the step time grew by on the critical path</h3><svg"), std::string::npos);
  EXPECT_NE(html.find("id=\"table-critical_path_changes\""), std::string::npos);
  EXPECT_NE(html.find("host ops and runtime calls: +"), std::string::npos);  // a bar's tooltip
  EXPECT_NE(render_markdown(after).find("What the step time grew by on the critical path"),
            std::string::npos);
  EXPECT_NE(render_json(after).find("\"critical_path_changes\""), std::string::npos);
  // Without a baseline there is nothing to difference.
  TrainingRun slow;
  slow.host_only_us = 2000;
  ReportModel alone = report_of_json(training_trace(slow), default_book());
  apply_gate(alone, default_rules(), nullptr, {});
  EXPECT_FALSE(find_table(alone.tables, Table::CriticalPathChanges));
}

// By name, from both runs' path ops per step. Before: a 1000 us path, A (GPU compute) 600, B (host)
// 300, D (host) 50, 50 in no listed row. After: 1200 us, A 600 (no change), B 450 (+150, grew),
// C (communication) 120 (moved onto the path: a collective exposed), no D (-50, left the path), 30
// unlisted (-20). +150 + 120 - 50 - 20 = +200, the path's change; the sentence names B, C and D
// and puts the rest (A's 0 and the unlisted -20) in "everything else".
TEST(PathDifference, ByNameWhatGrewMovedOntoAndLeftThePathAddsUpToItsChange) {
  PathProfile before{
      2, 1000, {{"A", "gpu_compute_bound", 600}, {"B", "cpu_bound", 300}, {"D", "cpu_bound", 50}}};
  PathProfile after{
      2,
      1200,
      {{"A", "gpu_compute_bound", 600}, {"B", "cpu_bound", 450}, {"C", "gpu_communication_bound", 120}}};
  PathOpsDifference d = path_ops_difference(before, after);
  ASSERT_EQ(d.ops.size(), 4u);
  EXPECT_EQ(d.ops[0].name, "B");
  EXPECT_NEAR(d.ops[0].delta(), 150, 1e-9);
  EXPECT_EQ(d.ops[1].name, "C");
  EXPECT_NEAR(d.ops[1].delta(), 120, 1e-9);
  EXPECT_EQ(d.ops[2].name, "D");
  EXPECT_NEAR(d.ops[2].delta(), -50, 1e-9);
  EXPECT_NEAR(d.baseline_rest_us, 50, 1e-9);
  EXPECT_NEAR(d.rest_us, 30, 1e-9);
  double sum = d.rest_us - d.baseline_rest_us;
  for (const PathOpChange& op : d.ops) sum += op.delta();
  EXPECT_NEAR(sum, 200, 1e-9);
  EXPECT_EQ(
      path_ops_sentence(d),
      "By name (each run's critical-path ops a step, 1.00 ms → 1.20 ms): grew B (host) +150.0 us (300.0 us "
      "→ 450.0 us); moved onto the path C (communication) +120.0 us (0.0 us → 120.0 us); left the path D "
      "(host) -50.0 us (50.0 us → 0.0 us); everything else -20.0 us.");
}

using WorkerPaths = std::vector<std::pair<const ReportTable*, const ReportTable*>>;

ReportTable table(Table id, std::vector<ReportColumn> columns, std::vector<std::vector<ReportCell>> rows) {
  return ReportTable{std::string(table_name(id)), "", "", std::move(columns), std::move(rows)};
}

// The worker whose mean path is longest gives the profile (the run's critical_path metrics are its):
// worker 1's steps 100 and 300 us (mean 200) against worker 2's one of 150. Its ops per step: the
// kernel 200 / 2 = 100; the host wrapper of blocks 3 and 4 one family, (40 + 60) / 2 = 50; a
// kernel's digits (a tile size) keep it apart from another's.
TEST(PathDifference, TheProfileIsTheLongestWorkersWithHostOpsByFamily) {
  std::vector<ReportColumn> step_columns{{"step", "", ""}, {"length_us", "us", ""}};
  std::vector<ReportColumn> op_columns{{"name", "", ""}, {"bound_by", "", ""}, {"time_us", "us", ""}};
  ReportTable steps1 = table(Table::CriticalPath, step_columns,
                             {{ReportCell{std::string("s1")}, ReportCell{100.0}},
                              {ReportCell{std::string("s2")}, ReportCell{300.0}}});
  ReportTable ops1 = table(Table::CriticalPathOps, op_columns,
                           {{ReportCell{std::string("gemm_128x64")},
                             ReportCell{std::string("gpu_compute_bound")}, ReportCell{200.0}},
                            {ReportCell{std::string("gemm_128x128")},
                             ReportCell{std::string("gpu_compute_bound")}, ReportCell{20.0}},
                            {ReportCell{std::string("FSDP::pre_forward (blocks.3)")},
                             ReportCell{std::string("cpu_bound")}, ReportCell{40.0}},
                            {ReportCell{std::string("FSDP::pre_forward (blocks.4)")},
                             ReportCell{std::string("cpu_bound")}, ReportCell{60.0}}});
  ReportTable steps2 =
      table(Table::CriticalPath, step_columns, {{ReportCell{std::string("s1")}, ReportCell{150.0}}});
  ReportTable ops2 =
      table(Table::CriticalPathOps, op_columns,
            {{ReportCell{std::string("other")}, ReportCell{std::string("cpu_bound")}, ReportCell{150.0}}});
  std::optional<PathProfile> p = path_profile(WorkerPaths{{&steps2, &ops2}, {&steps1, &ops1}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->steps, 2);
  EXPECT_NEAR(p->length_us_per_step, 200, 1e-9);
  ASSERT_EQ(p->ops.size(), 3u);
  EXPECT_EQ(p->ops[0].name, "gemm_128x64");
  EXPECT_NEAR(p->ops[0].us_per_step, 100, 1e-9);
  EXPECT_EQ(p->ops[1].name, "FSDP::pre_forward (blocks.#)");
  EXPECT_NEAR(p->ops[1].us_per_step, 50, 1e-9);
  EXPECT_EQ(p->ops[2].name, "gemm_128x128");
  EXPECT_NEAR(p->ops[2].us_per_step, 10, 1e-9);
  // No worker with both tables: no profile.
  EXPECT_FALSE(path_profile(WorkerPaths{{&steps1, nullptr}}));
}

// A failing step-time finding names the op that grew on the path: 2 ms of host work (one op,
// aten::cpu_preprocess, without kernels) at each step's start, which the baseline does not have,
// is on the path in each step: it moved onto the path, 0 → 2 ms a step. A JSON baseline keeps the
// path's ops (the same profile as the model's); a baseline without them says no op is named.
TEST(PathDifference, AFailingStepTimeNamesTheOpThatMovedOntoThePath) {
  TrainingRun base_run;
  base_run.extra_us = {0, 70, 30, 90, 10, 50, 80, 20};
  TrainingRun slow = base_run;
  slow.host_only_us = 2000;
  ReportModel before = report_of_json(training_trace(base_run), default_book());
  std::string path = write_text(temp_dir() + "/path_ops_before.json", render_json(before));
  Baseline read = read_baseline_report(path);
  Baseline direct = baseline_from_report(before, path, "report");
  ASSERT_TRUE(read.path_profile);
  ASSERT_TRUE(direct.path_profile);
  EXPECT_EQ(read.path_profile->steps, 8);
  EXPECT_NEAR(read.path_profile->length_us_per_step, direct.path_profile->length_us_per_step, 1e-3);
  ASSERT_EQ(read.path_profile->ops.size(), direct.path_profile->ops.size());
  for (std::size_t i = 0; i < read.path_profile->ops.size(); ++i) {
    EXPECT_EQ(read.path_profile->ops[i].name, direct.path_profile->ops[i].name);
    EXPECT_NEAR(read.path_profile->ops[i].us_per_step, direct.path_profile->ops[i].us_per_step, 1e-3);
  }
  ReportModel after = report_of_json(training_trace(slow), default_book());
  apply_gate(after, default_rules(), &read, {});
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  EXPECT_NE(f->problem.find("By name (each run's critical-path ops a step"), std::string::npos) << f->problem;
  EXPECT_NE(f->problem.find("moved onto the path aten::cpu_preprocess (host) +2.00 ms (0.0 us → 2.00 ms)"),
            std::string::npos)
      << f->problem;

  read.path_profile.reset();
  ReportModel again = report_of_json(training_trace(slow), default_book());
  apply_gate(again, default_rules(), &read, {});
  const ReportFinding* g = find_finding(again, "regression.step-time");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->problem.find("By name"), std::string::npos) << g->problem;
  EXPECT_NE(g->problem.find("The baseline keeps no critical-path ops"), std::string::npos) << g->problem;
}

}  // namespace
}  // namespace perfgate::testing
