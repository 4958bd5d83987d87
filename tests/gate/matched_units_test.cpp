// Inferred units matched one to one by identity (issue 74, item 4): a window of blocks 0-11 against
// one of blocks 4-15 compares blocks 4-11 on both sides, not one side's slow blocks with the other's
// fast ones; the units' names travel through a JSON report and a history as the gate reads them.
#include <gtest/gtest.h>

#include <cmath>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "history/history.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Block k's unit (layer.k's start to layer.k+1's) in the baseline: 1000, 1040, 1080, 1120 us in
// turn; blocks 12 and later, which only the run reaches, take 1600 us (another layer's work).
double block_us(int k) {
  return k >= 12 ? 1600.0 : 1000.0 + 40.0 * (k % 4);
}

// No step markers: ops layer.first ... layer.last (host 50 us, one 100 us kernel each), block k's
// unit lasting block_us(k) x `factor`. The units are layer.first ... layer.(last - 1).
std::string blocks_trace(int first, int last, double factor) {
  TraceBuilder t;
  double s = 0;
  for (int k = first; k <= last; ++k) {
    t.op("layer." + std::to_string(k), s, 50, k + 1).launch("blk", s + 10, s + 100, 100, k + 1);
    s += block_us(k) * factor;
  }
  return t.json();
}

ReportModel gated(const std::string& after_json, const Baseline& base) {
  ReportModel after = report_of_json(after_json, default_book());
  apply_gate(after, default_rules(), &base, {});
  return after;
}

// The baseline's units are blocks 0-11 (12), the run's blocks 4-15 (12) at +8% each: blocks 4-11
// match (8 of each), each exactly 1.08 x; blocks 0-3 (fast) and 12-15 (1600 us, slow) have no match
// and are set aside on both sides. The matched medians: (1040 + 1080) / 2 = 1060 us before, 1060 x
// 1.08 = 1144.8 us after; the test's change (geometric mean of the matched ratios) +8.0%. Pooled,
// the run's slow blocks read as the change: its median (1166.4 + 1209.6) / 2 = 1188 us against 1060.
TEST(MatchedUnits, TheSameBlocksCompareOneToOne) {
  ReportModel before = report_of_json(blocks_trace(0, 12, 1), default_book());
  ASSERT_TRUE(before.inferred_iterations);
  const ReportInferredIterations& i = *before.inferred_iterations;
  EXPECT_EQ(i.family, "layer.#");
  ASSERT_EQ(i.unit_names.size(), 12u);
  EXPECT_EQ(i.unit_names.front(), "layer.0");
  EXPECT_EQ(i.unit_names.back(), "layer.11");
  EXPECT_NEAR(i.units_us[5], 1040, 1e-6);
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel after = gated(blocks_trace(4, 16, 1.08), base);
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f && f->value && f->baseline && f->step_test);
  EXPECT_NEAR(*f->baseline, 1060, 1e-6);
  EXPECT_NEAR(*f->value, 1144.8, 1e-6);
  EXPECT_NEAR(f->step_test->ratio, 1.08, 1e-9);
  EXPECT_EQ(f->step_test->current_steps, 8u);
  EXPECT_EQ(f->step_test->baseline_steps, 8u);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  // Paired (each block against the same block): every log ratio is log 1.08, no noise, p = 0.
  EXPECT_EQ(f->step_test->method, "paired-t-log");
  EXPECT_NEAR(f->step_test->p_value, 0, 1e-12);
  EXPECT_NE(f->reason.find("Paired t-test on the log ratios of the 8 matched units"), std::string::npos)
      << f->reason;
  EXPECT_NE(f->reason.find("(8 of 12 units in the baseline and 12 in this run matched by name, 'layer.4' to "
                           "'layer.11'; the units without a match are set aside on both sides;"),
            std::string::npos)
      << f->reason;
  for (const ReportComparability& c : after.baseline->comparability) {
    if (c.factor == "steps") {
      EXPECT_NE(c.text.find("12 in this run, 8 matched by name)"), std::string::npos) << c.text;
    }
  }

  // The same through the baseline's JSON report: the names are read back with the units.
  std::string path = write_text(temp_dir() + "/before.json", render_json(before));
  Baseline read = read_baseline_report(path);
  ASSERT_TRUE(read.inferred_iterations);
  EXPECT_EQ(read.inferred_iterations->unit_names, i.unit_names);
  EXPECT_NEAR(find_finding(gated(blocks_trace(4, 16, 1.08), read), "regression.step-time")->step_test->ratio,
              1.08, 1e-9);
}

// A baseline that names no units (a report of a perfgate before perfgate-report/2.3) compares every
// unit unmatched and says so; no unit in common is inconclusive, not a comparison of other blocks.
TEST(MatchedUnits, UnnamedUnitsCompareUnmatchedAndNoCommonUnitAbstains) {
  ReportModel before = report_of_json(blocks_trace(0, 12, 1), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  base.inferred_iterations->unit_names.clear();
  ReportModel unmatched = gated(blocks_trace(4, 16, 1.08), base);
  const ReportFinding* f = find_finding(unmatched, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  EXPECT_EQ(f->step_test->current_steps + f->step_test->outlier_steps.size(), 12u);
  EXPECT_NE(f->reason.find("12 units in the baseline, 12 in this run, unmatched"), std::string::npos)
      << f->reason;

  Baseline other =
      baseline_from_report(report_of_json(blocks_trace(0, 12, 1), default_book()), "b", "profile");
  ReportModel after = report_of_json(blocks_trace(20, 28, 1), default_book());
  apply_gate(after, default_rules(), &other, {});
  f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Inconclusive) << f->reason;
  EXPECT_NE(f->reason.find("0 of 12 units in the baseline and 8 in this run matched by name"),
            std::string::npos)
      << f->reason;
}

// The recommended CI set-up: --record the baseline run into a history, then gate against the
// history. The history keeps the units and their names (schema 4), so the gate compares the same
// blocks as against the JSON report (before: no steps to compare, inconclusive).
TEST(MatchedUnits, AHistoryBaselineKeepsTheUnits) {
  ReportModel before = report_of_json(blocks_trace(0, 12, 1), default_book());
  std::string db = temp_dir() + "/h.db";
  open_history(db, HistoryAccess::Record)->record(history_run_of(before, {"main", "abc", {}}, utc_now()));
  auto store = open_history(db, HistoryAccess::Read);
  std::vector<std::string> gpus = baseline_from_report(before, "b", "profile").info.gpu_names;
  HistoryBaselines chosen = history_baselines(*store, "main", gpus, 10);
  ASSERT_EQ(chosen.runs.size(), 1u) << chosen.skip_reason;
  Baseline base = combine_baselines(std::move(chosen.runs));
  ASSERT_TRUE(base.inferred_iterations);
  ReportModel after = gated(blocks_trace(4, 16, 1.08), base);
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  EXPECT_NEAR(f->step_test->ratio, 1.08, 1e-9);
  EXPECT_NE(f->reason.find("8 of 12 units in the baseline and 12 in this run matched by name"),
            std::string::npos)
      << f->reason;
}

// --step-pattern inferred makes the units the window's steps, named "layer.4 (inferred #0)": the gate
// matches them with the baseline's by the unit they are and pairs them, as where neither run marks
// steps (before: 12 steps against 12 compared unmatched, the run's slow blocks 12-15 against the
// baseline's fast 0-3), whether the baseline is the profile, its JSON report or a history of it.
TEST(MatchedUnits, StepsMadeOfInferredUnitsArePairedByName) {
  AnalysisOptions inferred;
  inferred.step_pattern = "inferred";
  ReportModel before = report_of_json(blocks_trace(0, 12, 1), default_book(), inferred);
  ASSERT_TRUE(before.inferred_iterations && before.inferred_iterations->steps);
  ASSERT_EQ(before.steps.size(), 12u);
  EXPECT_EQ(before.steps.front().name, "layer.0 (inferred #0)");
  std::string json = write_text(temp_dir() + "/before_steps.json", render_json(before));
  std::string db = temp_dir() + "/steps.db";
  open_history(db, HistoryAccess::Record)->record(history_run_of(before, {"main", "abc", {}}, utc_now()));
  Baseline profile = baseline_from_report(before, "before", "profile");
  HistoryBaselines chosen =
      history_baselines(*open_history(db, HistoryAccess::Read), "main", profile.info.gpu_names, 10);
  ASSERT_EQ(chosen.runs.size(), 1u) << chosen.skip_reason;
  for (const Baseline& base :
       {profile, read_baseline_report(json), combine_baselines(std::move(chosen.runs))}) {
    SCOPED_TRACE(base.info.kind);
    ReportModel after = report_of_json(blocks_trace(4, 16, 1.08), default_book(), inferred);
    ASSERT_EQ(after.steps.size(), 12u);
    apply_gate(after, default_rules(), &base, {});
    const ReportFinding* f = find_finding(after, "regression.step-time");
    ASSERT_TRUE(f && f->step_test && f->value && f->baseline);
    EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
    EXPECT_EQ(f->step_test->method, "paired-t-log");
    EXPECT_NEAR(f->step_test->ratio, 1.08, 1e-9);
    EXPECT_EQ(f->step_test->current_steps, 8u);
    EXPECT_NEAR(*f->baseline, 1060, 1e-6);
    EXPECT_NEAR(*f->value, 1144.8, 1e-6);
    EXPECT_EQ(f->reason.rfind("compared per inferred iteration: this run's steps are its inferred units "
                              "(--step-pattern inferred), both repeat the op 'layer.#' (8 of 12 units in the "
                              "baseline and 12 in this run matched by name, 'layer.4' to 'layer.11'; the "
                              "units without a match are set aside on both sides;",
                              0),
              0u)
        << f->reason;
    // Each step has its own path: nothing says the path per unit is not computed.
    EXPECT_EQ(f->problem.find("is not computed"), std::string::npos) << f->problem;
  }
}

// Units of one name (micro-batches: "mb", "mb (2)", ...) as steps, the run's window its steps 3-8:
// each step is the unit at its position ("mb (4)" to "mb (9)"), not the window's first, second, ...
// repeat; paired with the same units of the baseline, each exactly 1.08 x (numbered from the window's
// start, the pairs would be three blocks apart and differ by up to 12%).
TEST(MatchedUnits, RepeatedUnitsAsStepsPairByTheirPosition) {
  auto micro_batches = [](double factor) {
    TraceBuilder t;
    double s = 0;
    for (int k = 0; k <= 12; ++k) {
      t.op("mb", s, 50, k + 1).launch("blk", s + 10, s + 100, 100, k + 1);
      s += block_us(k) * factor;
    }
    return t.json();
  };
  AnalysisOptions inferred;
  inferred.step_pattern = "inferred";
  ReportModel before = report_of_json(micro_batches(1), default_book(), inferred);
  ASSERT_TRUE(before.inferred_iterations);
  ASSERT_EQ(before.inferred_iterations->unit_names.size(), 12u);
  EXPECT_EQ(before.inferred_iterations->unit_names[3], "mb (4)");
  Baseline base = baseline_from_report(before, "before", "profile");
  AnalysisOptions window = inferred;
  window.window.iter_start = 3;
  window.window.iter_stop = 8;
  ReportModel after = report_of_json(micro_batches(1.08), default_book(), window);
  apply_gate(after, default_rules(), &base, {});
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  EXPECT_EQ(f->step_test->method, "paired-t-log");
  EXPECT_EQ(f->step_test->current_steps, 6u);
  EXPECT_NEAR(f->step_test->ratio, 1.08, 1e-9);
  EXPECT_NE(f->reason.find("6 of 12 units in the baseline and 6 in this run matched by name, 'mb (4)' to "
                           "'mb (9)'"),
            std::string::npos)
      << f->reason;
}

}  // namespace
}  // namespace perfgate::testing
