// A gate that compares like with like (issue 56): the work of each window, windows of different
// work without steps, no steps to compare (inconclusive, --fail-on inconclusive), and pairs that are
// not comparable (other devices, kernels mostly not in common), stated and not claimed as regressions.
#include <gtest/gtest.h>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

ReportModel gated(const std::string& before_json, const std::string& after_json, const RuleSet& rules,
                  FailOn fail_on = FailOn::Error) {
  ReportModel before = report_of_json(before_json, default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel after = report_of_json(after_json, default_book());
  GateOptions options;
  options.fail_on = fail_on;
  apply_gate(after, rules, &base, options);
  return after;
}

const ReportComparability* factor(const ReportModel& r, std::string_view name) {
  if (!r.baseline) return nullptr;
  for (const ReportComparability& c : r.baseline->comparability)
    if (c.factor == name) return &c;
  return nullptr;
}

FindingStatus status_of(const ReportModel& r, std::string_view id) {
  const ReportFinding* f = find_finding(r, id);
  return f ? f->status : FindingStatus::Skipped;
}

// No step markers: `blocks` blocks, each an op layer.<i> (host 50 us) launching one kernel blk of
// `block_us`, 1000 us apart.
std::string blocks_trace(int blocks, double block_us) {
  TraceBuilder t;
  for (int i = 0; i < blocks; ++i) {
    double s = 1000.0 * i;
    t.op("layer." + std::to_string(i), s, 50, i + 1).launch("blk", s + 10, s + 100, block_us, i + 1);
  }
  return t.json();
}

// The baseline's window holds 10 blocks, the run's 8 of the same 100 us: kernels 10 -> 8 (-20%,
// beyond 5%) and no steps align them. The window totals fall by 2 x 100 us = 200 us; a call takes
// 100 us in both (0%).
TEST(WorkPerWindow, WindowsOfDifferentWorkAreSaidToBe) {
  ReportModel after = gated(blocks_trace(10, 100), blocks_trace(8, 100), default_rules());
  ASSERT_TRUE(after.baseline);
  EXPECT_TRUE(after.baseline->different_work);
  std::string terminal = render_terminal(after);
  EXPECT_NE(terminal.find("Work         window steps 0 → 0 · kernels 10 → 8 (-2 (-20.0%))"),
            std::string::npos)
      << terminal;
  EXPECT_NE(terminal.find("The two windows hold different work and no steps align them"), std::string::npos);
  // Both repeat layer.# (matched units): the changes count the work inside the 7 matched units
  // (issue 95), no longer the window totals' -200 us (issue 74, item 7) nor those totals over each
  // run's units (10/9 and 8/7 calls a unit): blk is one 100 us call in each matched unit of both
  // runs, so nothing changed and the terminal lists no change.
  const ReportTable* kernels = find_table(after.tables, Table::KernelDeltas);
  ASSERT_TRUE(kernels);
  ASSERT_EQ(kernels->rows.size(), 1u);
  auto number = [&](std::string_view column) {
    return cell_number(*find_cell(*kernels, 0, column)).value_or(-1);
  };
  EXPECT_EQ(std::get<std::string>(*find_cell(*kernels, 0, "name")), "blk");
  EXPECT_NEAR(number("baseline_us_per_step"), 100, 1e-9);
  EXPECT_NEAR(number("us_per_step"), 100, 1e-9);
  EXPECT_NEAR(number("calls_per_step"), 1, 1e-9);
  EXPECT_EQ(terminal.find("Changes      per inferred unit against the baseline"), std::string::npos)
      << terminal;
  EXPECT_EQ(terminal.find("blk -200.0 us"), std::string::npos) << terminal;
  const ReportTable* changes = find_table(after.tables, "changes");
  ASSERT_TRUE(changes);
  bool found = false;
  for (std::size_t r = 0; r < changes->rows.size(); ++r) {
    const ReportCell* name = find_cell(*changes, r, "name");
    if (!name || std::get<std::string>(*name) != "blk") continue;
    found = true;
    EXPECT_NEAR(cell_number(*find_cell(*changes, r, "baseline_us_per_call")).value_or(0), 100, 1e-9);
    EXPECT_NEAR(cell_number(*find_cell(*changes, r, "us_per_call")).value_or(0), 100, 1e-9);
    EXPECT_NEAR(cell_number(*find_cell(*changes, r, "delta_per_call_pct")).value_or(1), 0, 1e-9);
  }
  EXPECT_FALSE(found) << "blk took 100 us a call in both runs";
  // No steps, but both runs repeat layer.# (one launch a unit; 10 blocks: 9 units, 8 blocks: 7): the
  // step times compare per inferred iteration, and the factor says the whole windows do not.
  const ReportComparability* steps = factor(after, "steps");
  ASSERT_TRUE(steps);
  EXPECT_TRUE(steps->holds);
  EXPECT_EQ(
      steps->text,
      "neither run has window steps: step times compared per inferred iteration (op 'layer.#', 9 units in "
      "the baseline, 7 in this run, 7 matched by name); the whole windows hold different work (kernels 10 → "
      "8 "
      "(-20.0%))");
  const ReportComparability* ops = factor(after, "ops");
  ASSERT_TRUE(ops);
  EXPECT_TRUE(ops->holds);
  EXPECT_EQ(ops->text.rfind("1 of 1 op names in common", 0), 0u) << ops->text;
  std::string md = render_markdown(after);
  EXPECT_NE(md.find("**Work per window** (baseline → this run): window steps 0 → 0 · kernels 10 → 8"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("steps: neither run has window steps: step times compared per inferred iteration"),
            std::string::npos)
      << md;
  EXPECT_NE(render_json(after).find("\"different_work\": true"), std::string::npos);
}

// Where both runs count FLOPs, the work line states the kernel time a TFLOP: 8 steps of a GEMM of
// 2 x 8192^3 FLOP (6000 us) and an elementwise kernel (3000 us) against the GEMM at 7200 us:
// 8 x 9000 us / (8 x 2 x 8192^3) x 1e12 = 8185.5 us and 8 x 10200 us / ... = 9276.9 us a TFLOP.
TEST(WorkPerWindow, KernelTimeATflopIsStated) {
  TrainingRun before, after;
  after.gemm_us = 7200;
  ReportModel r = gated(training_trace(before), training_trace(after), default_rules());
  ASSERT_TRUE(r.baseline && r.baseline->kernel_us_per_tflop);
  const ReportMetricChange& c = *r.baseline->kernel_us_per_tflop;
  double flops = 8 * 2.0 * 8192.0 * 8192.0 * 8192.0;
  EXPECT_NEAR(c.baseline.value_or(0), 8 * 9000.0 / flops * 1e12, 1e-6);
  EXPECT_NEAR(c.value.value_or(0), 8 * 10200.0 / flops * 1e12, 1e-6);
  EXPECT_NEAR(c.ratio.value_or(0), 10200.0 / 9000.0, 1e-12);
  std::string terminal = render_terminal(r);
  EXPECT_NE(terminal.find("kernel time a TFLOP 8.19 ms → 9.28 ms (+1.09 ms (+13.3%))"), std::string::npos)
      << terminal;
  EXPECT_NE(render_json(r).find("\"kernel_us_per_tflop\": {"), std::string::npos);
}

// 10 blocks against 10.5 (kernels within 5%): alike. 20 -> 20 blocks of 100 us: nothing said.
TEST(WorkPerWindow, WindowsOfLikeWorkAreNotFlagged) {
  ReportModel after = gated(blocks_trace(20, 100), blocks_trace(20, 100), default_rules());
  ASSERT_TRUE(after.baseline);
  EXPECT_FALSE(after.baseline->different_work);
  EXPECT_EQ(render_terminal(after).find("different work"), std::string::npos);
  const ReportComparability* steps = factor(after, "steps");
  ASSERT_TRUE(steps);
  EXPECT_TRUE(steps->holds);
}

// A rule on a window total (kernels.total_us, +5%): 10 blocks of 100 us (1000 us) against 12 of
// 100 us (1200 us, +20%) would warn; the windows hold different work (10 -> 12 kernels, +20%), so it
// is inconclusive. Against 10 blocks of 120 us (the same work, +20%) it warns.
TEST(WorkPerWindow, AWindowTotalOfDifferentWorkIsNoRegression) {
  std::string rule = write_text(temp_dir() + "/total.yaml",
                                "rules:\n"
                                "  - id: test.kernel-total\n"
                                "    title: Kernel time grew\n"
                                "    family: [gpu]\n"
                                "    metric: kernels.total_us\n"
                                "    compare: baseline\n"
                                "    better: lower\n"
                                "    warn: \"+5%\"\n"
                                "    source: test\n");
  RuleBook rules_book = load_rule_book({rule});
  RuleSet& rules = rules_book.rules;
  ReportModel more_work = gated(blocks_trace(10, 100), blocks_trace(12, 100), rules);
  EXPECT_EQ(status_of(more_work, "test.kernel-total"), FindingStatus::Inconclusive);
  EXPECT_NE(find_finding(more_work, "test.kernel-total")->reason.find("hold different work"),
            std::string::npos);
  ReportModel slower = gated(blocks_trace(10, 100), blocks_trace(10, 120), rules);
  EXPECT_EQ(status_of(slower, "test.kernel-total"), FindingStatus::Warn);
}

// A share of the window compares no better than a total where the windows hold different work
// (issue 74, item 7): 10 blocks with a 600 us kernel every 1000 us (GPU busy about 60%) against 8
// with a 100 us one (about 10%) hold different work (kernels 10 -> 8), and where each capture ends
// decides the share: the utilization rule is inconclusive. 10 blocks against 10: it warns.
TEST(WorkPerWindow, AShareOfWindowsOfDifferentWorkIsNoRegression) {
  std::string rule = write_text(temp_dir() + "/share.yaml",
                                "rules:\n"
                                "  - id: test.gpu-share\n"
                                "    title: GPU utilization dropped\n"
                                "    family: [gpu]\n"
                                "    metric: gpu.utilization_pct\n"
                                "    compare: baseline\n"
                                "    better: higher\n"
                                "    warn: \"-5 pts\"\n"
                                "    source: test\n");
  RuleBook book = load_rule_book({rule});
  ReportModel other_work = gated(blocks_trace(10, 600), blocks_trace(8, 100), book.rules);
  const ReportFinding* f = find_finding(other_work, "test.gpu-share");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Inconclusive);
  EXPECT_NE(f->reason.find("a share of the window depends on where each capture was cut"), std::string::npos)
      << f->reason;
  ReportModel same_work = gated(blocks_trace(10, 600), blocks_trace(10, 100), book.rules);
  EXPECT_EQ(status_of(same_work, "test.gpu-share"), FindingStatus::Warn);
}

// FLOPs that cover little of the matrix work state no kernel time a TFLOP (issue 74, item 7;
// resnet50's 0.1% read "252.117 s -> 250.704 s"): the GEMM without its input shapes leaves only the
// misaligned one counted, 100 of the run's 7300 us of matrix work a step (1.4%, under MFU's 50%).
TEST(WorkPerWindow, NoKernelTimeATflopAtALowFlopCoverage) {
  TrainingRun before, after;
  after.gemm_us = 7200;
  before.misaligned_gemm = after.misaligned_gemm = true;
  ReportModel counted = gated(training_trace(before), training_trace(after), default_rules());
  ASSERT_TRUE(counted.baseline);
  EXPECT_TRUE(counted.baseline->kernel_us_per_tflop);
  before.gemm_shapes = after.gemm_shapes = false;
  ReportModel sliver = gated(training_trace(before), training_trace(after), default_rules());
  ASSERT_TRUE(sliver.baseline);
  EXPECT_NEAR(sliver.metric(Metric::ComputeFlopsCoveragePct).value_or(0), 100.0 * 100 / 7300, 0.01);
  EXPECT_FALSE(sliver.baseline->kernel_us_per_tflop);
  EXPECT_EQ(render_terminal(sliver).find("kernel time a TFLOP"), std::string::npos);
}

// Neither run has steps, nor repeats a top-level range 4 times (3 iterations: nothing is inferred):
// the step-time rule is inconclusive ("no steps to compare"), not "n/a"; it counts as a warning
// (exit 0), and --fail-on inconclusive fails the gate on it (exit 1).
TEST(NoSteps, TheStepTimeRuleIsInconclusive) {
  TrainingRun run;
  run.profiler_steps = false;
  run.steps = 3;
  std::string json = training_trace(run);
  ReportModel after = gated(json, json, default_rules());
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Inconclusive);
  EXPECT_EQ(f->reason.rfind("no steps to compare: neither this run nor the baseline has window steps", 0), 0u)
      << f->reason;
  EXPECT_TRUE(f->problem.empty());
  EXPECT_TRUE(f->offenders.empty());
  EXPECT_EQ(f->recommendation.rfind("Give both runs steps", 0), 0u) << f->recommendation;
  ASSERT_TRUE(after.verdict);
  EXPECT_EQ(after.verdict->exit_code, 0);
  ReportModel strict = gated(json, json, default_rules(), FailOn::Inconclusive);
  ASSERT_TRUE(strict.verdict);
  EXPECT_EQ(strict.verdict->exit_code, 1);
  EXPECT_EQ(strict.verdict->fail_on, "inconclusive");
  // With steps on both sides the same pair compares, and --fail-on inconclusive passes it.
  std::string stepped = training_trace(TrainingRun{});
  ReportModel compared = gated(stepped, stepped, default_rules(), FailOn::Inconclusive);
  EXPECT_EQ(status_of(compared, "regression.step-time"), FindingStatus::Pass);
  ASSERT_TRUE(compared.verdict);
  EXPECT_EQ(compared.verdict->exit_code, 0);
}

TEST(NoSteps, OneSideWithoutStepsIsNamed) {
  TrainingRun bare;
  bare.profiler_steps = false;
  ReportModel after = gated(training_trace(TrainingRun{}), training_trace(bare), default_rules());
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Inconclusive);
  EXPECT_EQ(f->reason.rfind("no steps to compare: this run has no window steps", 0), 0u) << f->reason;
}

// Each step's GEMM 6000 us against 7200 us: +1200 us on a step of about 9 ms, beyond +5%. On the
// same GPUs the step-time rule fails; against a baseline on other GPUs it is inconclusive, naming
// the devices, and the gate passes (with a warning).
TEST(Comparability, OtherDevicesAreNotClaimedAsARegression) {
  TrainingRun before, after;
  after.gemm_us = 7200;
  after.extra_us = before.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  ReportModel same = gated(training_trace(before), training_trace(after), default_rules());
  EXPECT_EQ(status_of(same, "regression.step-time"), FindingStatus::Fail);
  const ReportComparability* devices = factor(same, "devices");
  ASSERT_TRUE(devices);
  EXPECT_TRUE(devices->holds);
  EXPECT_EQ(devices->text, "1 x NVIDIA A100-SXM4-40GB in both");
  before.gpu_name = "Tesla V100-SXM2-16GB";
  before.compute_major = 7;
  ReportModel other = gated(training_trace(before), training_trace(after), default_rules());
  devices = factor(other, "devices");
  ASSERT_TRUE(devices);
  EXPECT_FALSE(devices->holds);
  EXPECT_EQ(devices->text,
            "the baseline ran on 1 x Tesla V100-SXM2-16GB, this run on 1 x NVIDIA A100-SXM4-40GB");
  const ReportFinding* f = find_finding(other, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Inconclusive);
  EXPECT_EQ(f->reason.rfind("not comparable with the baseline (devices: the baseline ran on", 0), 0u)
      << f->reason;
  ASSERT_TRUE(other.verdict);
  EXPECT_EQ(other.verdict->failures, 0u);
  EXPECT_EQ(other.verdict->exit_code, 0);
  EXPECT_NE(render_terminal(other).find("devices (does not hold): the baseline ran on"), std::string::npos);
}

// Abstention does not depend on the direction (issue 74): the run 6000 us a GEMM against a baseline
// of 7200 us (faster by 1200 us a step) with the GPU idle 2000 us a step in the baseline only (its
// utilization rises). On the same GPUs both rules pass; against a baseline on other GPUs both are
// inconclusive, as the slower pair is, and --fail-on inconclusive fails the job.
TEST(Comparability, AFasterRunOnOtherDevicesIsInconclusiveToo) {
  TrainingRun before, after;
  before.gemm_us = 7200;
  before.dataloader_us = 2000;
  after.extra_us = before.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  ReportModel same =
      gated(training_trace(before), training_trace(after), default_rules(), FailOn::Inconclusive);
  EXPECT_EQ(status_of(same, "regression.step-time"), FindingStatus::Pass);
  EXPECT_EQ(status_of(same, "regression.gpu-utilization"), FindingStatus::Pass);
  ASSERT_TRUE(same.verdict);
  EXPECT_EQ(same.verdict->exit_code, 0);
  before.gpu_name = "Tesla V100-SXM2-16GB";
  before.compute_major = 7;
  for (FailOn fail_on : {FailOn::Error, FailOn::Inconclusive}) {
    ReportModel other = gated(training_trace(before), training_trace(after), default_rules(), fail_on);
    for (std::string_view id : {"regression.step-time", "regression.gpu-utilization"}) {
      const ReportFinding* f = find_finding(other, id);
      ASSERT_TRUE(f) << id;
      EXPECT_EQ(f->status, FindingStatus::Inconclusive) << id;
      EXPECT_EQ(f->reason.rfind("not comparable with the baseline (devices: the baseline ran on", 0), 0u)
          << f->reason;
    }
    // The change computed is kept for the reader: the step test's estimate and interval.
    const ReportFinding* step = find_finding(other, "regression.step-time");
    EXPECT_NE(step->reason.find("step time -"), std::string::npos) << step->reason;
    ASSERT_TRUE(step->step_test);
    EXPECT_LT(step->step_test->ratio, 1.0);
    ASSERT_TRUE(other.verdict);
    EXPECT_EQ(other.verdict->failures, 0u);
    EXPECT_EQ(other.verdict->exit_code, fail_on == FailOn::Inconclusive ? 1 : 0);
  }
}

// Kernel time under names both runs have: a 600 + b 400 against a 600 + c 400 is 600 of 1000 us on
// each side (60%, at least 50%: holds); a 400 + b 600 against a 400 + c 600 is 40% (does not hold).
TEST(Comparability, KernelOverlapIsTheSharedTime) {
  auto trace = [](double a_us, const std::string& other, double other_us) {
    TraceBuilder t;
    t.launch("a", 10, 100, a_us);
    t.launch(other, 20, 2000, other_us);
    return t.json();
  };
  ReportModel most = gated(trace(600, "b", 400), trace(600, "c", 400), default_rules());
  const ReportComparability* kernels = factor(most, "kernels");
  ASSERT_TRUE(kernels);
  EXPECT_TRUE(kernels->holds);
  EXPECT_NEAR(kernels->overlap_pct.value_or(0), 60, 1e-9);
  EXPECT_EQ(kernels->text,
            "1 of 3 kernel names in common (60.0% of the baseline's kernel time, 60.0% of this run's)");
  ReportModel least = gated(trace(400, "b", 600), trace(400, "c", 600), default_rules());
  kernels = factor(least, "kernels");
  ASSERT_TRUE(kernels);
  EXPECT_FALSE(kernels->holds);
  EXPECT_NEAR(kernels->overlap_pct.value_or(0), 40, 1e-9);
}

// A run against itself: every factor holds, nothing changed, exit 0.
TEST(Comparability, ARunAgainstItselfIsComparable) {
  std::string json = training_trace(TrainingRun{});
  ReportModel after = gated(json, json, default_rules());
  ASSERT_TRUE(after.baseline);
  ASSERT_EQ(after.baseline->comparability.size(), 4u);
  for (const ReportComparability& c : after.baseline->comparability)
    EXPECT_TRUE(c.holds) << c.factor << c.text;
  EXPECT_FALSE(after.baseline->different_work);
  ASSERT_TRUE(after.verdict);
  EXPECT_EQ(after.verdict->exit_code, 0);
}

// Pageable copies in both runs (2 a step) fire memcpy.pageable on the baseline's metrics too: the
// finding was there before. Synchronous copies (1 a step) only in the run fire memcpy.sync: what
// the change did, listed first and not marked.
TEST(FirstScreen, FindingsTheBaselineHadComeAfterTheChange) {
  TrainingRun before, after;
  before.pageable_copies = after.pageable_copies = 2;
  after.sync_copies = 1;
  ReportModel r = gated(training_trace(before), training_trace(after), default_rules());
  const ReportFinding* pageable = find_finding(r, "memcpy.pageable");
  const ReportFinding* sync = find_finding(r, "memcpy.sync");
  ASSERT_TRUE(pageable && sync);
  ASSERT_EQ(pageable->status, FindingStatus::Warn);
  ASSERT_EQ(sync->status, FindingStatus::Warn);
  EXPECT_TRUE(pageable->in_baseline);
  EXPECT_FALSE(sync->in_baseline);
  std::string terminal = render_terminal(r);
  std::size_t new_one = terminal.find("memcpy.sync:"), old_one = terminal.find("memcpy.pageable:");
  ASSERT_NE(new_one, std::string::npos);
  ASSERT_NE(old_one, std::string::npos);
  EXPECT_LT(new_one, old_one) << terminal;
  EXPECT_NE(terminal.find("[also in the baseline]", old_one), std::string::npos);
  EXPECT_EQ(terminal.substr(new_one, old_one - new_one).find("[also in the baseline]"), std::string::npos);
  std::string md = render_markdown(r);
  EXPECT_LT(md.find("(`memcpy.sync`)"), md.find("(`memcpy.pageable`) _also in the baseline_")) << md;
  EXPECT_NE(render_json(r).find("\"in_baseline\": true"), std::string::npos);
  // Without a baseline nothing is marked.
  ReportModel alone = report_of_json(training_trace(after), default_book());
  apply_gate(alone, default_rules(), nullptr, {});
  EXPECT_FALSE(find_finding(alone, "memcpy.pageable")->in_baseline);
}

// The HTML page's "What to fix first" opens with what the change did: the regression the gate found
// and the largest change each way (the GEMM's kernel slower by 8 x 1200 us = 9.60 ms).
TEST(FirstScreen, TheHtmlPageLeadsWithWhatTheChangeDid) {
  TrainingRun before, after;
  after.gemm_us = 7200;
  after.extra_us = before.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  ReportModel r = gated(training_trace(before), training_trace(after), default_rules());
  std::string html = render_html(r).page;
  std::size_t lead = html.find("What the change did.");
  ASSERT_NE(lead, std::string::npos);
  std::size_t end = html.find("</p>", lead);
  std::string text = html.substr(lead, end - lead);
  EXPECT_NE(text.find("Regressions: Step time regressed"), std::string::npos) << text;
  EXPECT_NE(text.find("Slower: "), std::string::npos) << text;
  EXPECT_NE(text.find("+1.20 ms, 1 → 1 calls"), std::string::npos) << text;
}

}  // namespace
}  // namespace perfgate::testing
