// The gate on the shared real traces: the expert system's findings on the two ResNet-50 runs, a
// run against itself, against a faster run and against a copy of itself made 25% slower.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string trace(const std::string& name) {
  std::string dir = shared_traces_dir();
  return dir.empty() ? "" : dir + "/" + name;
}

ReportModel gated(const std::string& path, const Baseline* baseline = nullptr) {
  ReportModel report = report_of_files({path}, default_book());
  apply_gate(report, default_rules(), baseline, {});
  return report;
}

FindingStatus status_of(const ReportModel& r, std::string_view id) {
  const ReportFinding* f = find_finding(r, id);
  return f ? f->status : FindingStatus::Skipped;
}

constexpr const char* kWorkers0 = "resnet50_v100_workers0.pt.trace.json.gz";
constexpr const char* kWorkers4 = "resnet50_v100_workers4.pt.trace.json.gz";

// Issue 14, item 5: ResNet-50 (num_workers=0) idles in one long gap at each step start while the
// DataLoader runs: the idle finding names it and advises on it, and the launch-bound rule, which
// said "launching, not computing, sets the pace", does not apply.
TEST(GateOnRealTraces, ResNet50IdleTimeIsTheDataLoaders) {
  if (trace(kWorkers0).empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel w0 = gated(trace(kWorkers0));
  const ReportFinding* idle = find_finding(w0, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->status, FindingStatus::Warn);
  EXPECT_NE(idle->recommendation.find("DataLoader num_workers"), std::string::npos) << idle->recommendation;
  EXPECT_EQ(status_of(w0, "kernels.launch-bound"), FindingStatus::NotApplicable);
  const ReportTable* gaps = find_table(w0.workers.at(0).tables, "gpu_gaps");
  ASSERT_NE(gaps, nullptr);
  ASSERT_FALSE(gaps->rows.empty());
  EXPECT_EQ(std::get<std::string>(*find_cell(*gaps, 0, "cause")), "dataloader");  // the longest gap
}

TEST(GateOnRealTraces, DataLoaderAndTensorCoreFindingsOnResNet50) {
  if (trace(kWorkers0).empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel w0 = gated(trace(kWorkers0));
  ReportModel w4 = gated(trace(kWorkers4));
  // num_workers=0: a third of the step in the DataLoader; num_workers=4: under 1%.
  EXPECT_EQ(status_of(w0, "dataloader.bottleneck"), FindingStatus::Warn);
  EXPECT_EQ(status_of(w4, "dataloader.bottleneck"), FindingStatus::Pass);
  for (const ReportModel* r : {&w0, &w4}) {  // FP32 on a V100: no Tensor Core kernel at all
    EXPECT_EQ(status_of(*r, "tensor-cores.eligible-ops"), FindingStatus::Warn);
    EXPECT_EQ(status_of(*r, "tensor-cores.amp"), FindingStatus::Warn);
    const ReportFinding* f = find_finding(*r, "tensor-cores.eligible-ops");
    ASSERT_FALSE(f->offenders.empty());
    EXPECT_NE(f->offenders[0].label.find("cudnn_convolution"), std::string::npos) << f->offenders[0].label;
  }
}

TEST(GateOnRealTraces, ARunAgainstItselfPasses) {
  if (trace(kWorkers0).empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel first = gated(trace(kWorkers0));
  Baseline base = baseline_from_report(first, "self", "report");
  ReportModel again = gated(trace(kWorkers0), &base);
  for (const ReportFinding& f : again.findings) {
    if (!f.id.starts_with("regression.")) continue;
    EXPECT_TRUE(f.status == FindingStatus::Pass || f.status == FindingStatus::NotApplicable)
        << f.id << " " << f.reason;
  }
  EXPECT_EQ(status_of(again, "regression.step-time"), FindingStatus::Pass);
  EXPECT_EQ(again.verdict->failures, 0u);
}

TEST(GateOnRealTraces, TheSingleProcessLoaderIsSignificantlySlower) {
  if (trace(kWorkers0).empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel fast = gated(trace(kWorkers4));
  Baseline base = baseline_from_report(fast, "workers4", "report");
  ReportModel slow = gated(trace(kWorkers0), &base);
  const ReportFinding* f = find_finding(slow, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  EXPECT_LT(f->step_test->p_value, 0.05);
  EXPECT_GT(f->step_test->ci_low, 1.03);
  // workers4's steps are 182.3, 126.2, 127.2, 123.1, 163.5 and 124.2 ms: the first and fifth are
  // outliers (beyond 5 on the logs, with one scale over both runs' residuals), the others are
  // compared. The first, a slow step that opens the run, is a warm-up: the run's first step is set
  // aside by position too, so both sides compare the same part of the loop (issue 74). The
  // estimate is the ratio of geometric means of the steps compared.
  EXPECT_EQ(f->step_test->baseline_outlier_steps, 2u);
  EXPECT_EQ(f->step_test->baseline_steps, 4u);
  auto log_mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += std::log(x);
    return sum / static_cast<double>(v.size());
  };
  std::vector<double> slow_steps, fast_steps;
  for (const ReportStep& st : slow.steps) slow_steps.push_back(st.duration_us);
  ASSERT_EQ(f->step_test->outlier_steps, std::vector<std::string>{slow.steps.front().name});
  slow_steps.erase(slow_steps.begin());
  for (const ReportStep& st : fast.steps) fast_steps.push_back(st.duration_us);
  std::sort(fast_steps.begin(), fast_steps.end());
  fast_steps.resize(4);  // without the two longest
  EXPECT_NEAR(f->step_test->ratio, std::exp(log_mean(slow_steps) - log_mean(fast_steps)), 1e-9);
  EXPECT_EQ(f->status, FindingStatus::Fail);
  EXPECT_EQ(status_of(slow, "regression.dataloader"), FindingStatus::Warn);
  // Its FLOPs cover 0.1% of the matrix work, under MFU's 50%: no kernel time a TFLOP is stated
  // (issue 74, item 7; it read 252.117 s -> 250.704 s).
  ASSERT_TRUE(slow.baseline);
  EXPECT_LT(slow.metric(Metric::ComputeFlopsCoveragePct).value_or(100), 1);
  EXPECT_FALSE(slow.baseline->kernel_us_per_tflop);
  const ReportTable* ops = find_table(slow.tables, "op_deltas");
  ASSERT_TRUE(ops && !ops->rows.empty());
}

// Issue 74, item 2: ResNet-50 with each step's work twice (a batch x2 as two micro-batches: FLOPs and
// kernels a step +100%) and each step 1.6 x as long failed on "+60.9% step time". The variant is the
// real report as the gate reads kineto_variant.py --double-work 1.6 of the trace: its window steps
// 1.6 x, its FLOPs and kernels x2. The FLOPs cover 0.1% of the matrix work, so nothing measures the
// work: the rule abstains, naming the work per step and the coverage, and keeps the +60% it computed.
// Where a rule file lets FLOPs at any coverage measure work (compute.mfu_min_flops_coverage_pct 0),
// the time per FLOP compares: 1.6 / 2 = 0.8 of the baseline's, a pass.
TEST(GateOnRealTraces, ABatchTwiceAsLargeIsNoStepTimeRegression) {
  if (trace(kWorkers0).empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel original = report_of_files({trace(kWorkers0)}, default_book());
  Baseline base = baseline_from_report(original, "workers0", "profile");
  ReportModel batch = original;
  for (ReportStep& s : batch.steps)
    if (s.in_window) s.duration_us *= 1.6;
  for (Metric id : {Metric::ComputeFlops, Metric::KernelsCount})
    batch.metrics.set(id, batch.metric(id).value_or(0) * 2);
  ReportModel abstains = batch;
  apply_gate(abstains, default_rules(), &base, {});
  const ReportFinding* f = find_finding(abstains, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  EXPECT_EQ(f->status, FindingStatus::Inconclusive) << f->reason;
  EXPECT_EQ(f->reason.rfind("not comparable with the baseline (work: FLOPs a step", 0), 0u) << f->reason;
  EXPECT_NE(
      f->reason.find("(+100.0%), kernels a step 1462.0 → 2924.0 (+100.0%): the FLOPs are counted for 0.1% "
                     "of the matrix work, under the 50% that measures it"),
      std::string::npos)
      << f->reason;
  EXPECT_NEAR(f->step_test->ratio, 1.6, 1e-9);
  EXPECT_NE(status_of(abstains, "regression.critical-path"), FindingStatus::Warn);
  ASSERT_TRUE(abstains.verdict);
  EXPECT_EQ(abstains.verdict->failures, 0u);
  std::string rule =
      write_text(temp_dir() + "/any_coverage.yaml", "compute:\n  mfu_min_flops_coverage_pct: 0\n");
  RuleBook any_coverage = load_rule_book({rule});
  ReportModel per_flop = batch;
  apply_gate(per_flop, any_coverage.rules, &base, {});
  f = find_finding(per_flop, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  EXPECT_EQ(f->status, FindingStatus::Pass) << f->reason;
  EXPECT_NEAR(f->step_test->ratio, 0.8, 1e-9);
  EXPECT_NE(f->reason.find("compared per FLOP: time per FLOP -20.0%"), std::string::npos) << f->reason;
}

double metric_of(const ReportModel& r, Metric id) {
  if (std::optional<double> value = r.metric(id)) return *value;
  ADD_FAILURE() << "no " << metric_name(id);
  return 0;
}

// Issue 29, item 2: against workers4, workers0's step-time failure names what grew most per step:
// the DataLoader's host time (an op in this PyTorch 1.x trace, new: workers4 loads in other
// processes), then the GPU idle time. It named aten::cudnn_convolution_backward_weight's 193.5 us.
TEST(GateOnRealTraces, TheStepTimeFailureNamesTheDataLoaderFirst) {
  if (trace(kWorkers0).empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel fast = gated(trace(kWorkers4));
  Baseline base = baseline_from_report(fast, "workers4", "report");
  ReportModel slow = gated(trace(kWorkers0), &base);
  const ReportFinding* f = find_finding(slow, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Fail);
  ASSERT_GE(f->offenders.size(), 2u) << f->problem;
  const char* loader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  EXPECT_EQ(f->offenders[0].label, std::string(loader) + " (host)") << f->problem;
  EXPECT_EQ(f->offenders[1].label, "GPU idle") << f->problem;
  // The loader's host self time in workers0's op table, per window step.
  const ReportTable* ops = find_table(slow.workers.at(0).tables, "ops");
  ASSERT_TRUE(ops);
  double loader_us = 0;
  for (std::size_t r = 0; r < ops->rows.size(); ++r)
    if (std::get<std::string>(*find_cell(*ops, r, "name")) == loader)
      loader_us = *cell_number(*find_cell(*ops, r, "host_self_us"));
  EXPECT_NEAR(*f->offenders[0].value, loader_us / static_cast<double>(slow.steps.size()), 1e-6);
  EXPECT_GT(*f->offenders[0].value, 45'000);
  // The GPU idle time of the mean step in each run (one GPU each).
  auto idle_us = [](const ReportModel& r) {
    return metric_of(r, Metric::GpuIdlePct) / 100 * metric_of(r, Metric::StepsMeanUs);
  };
  EXPECT_NEAR(*f->offenders[1].value, idle_us(slow) - idle_us(fast), 1e-6 * idle_us(slow));
}

// A trace with every timestamp and duration scaled by 1.25: each step is 25% longer.
std::string slowed_copy(const std::string& path) {
  std::string out = temp_dir() + "/slowed.pt.trace.json";
  std::string text = read_gzip(path);
  boost::json::value doc = boost::json::parse(text);
  for (auto& e : doc.at("traceEvents").as_array()) {
    auto& o = e.as_object();
    for (const char* key : {"ts", "dur"})
      if (auto* v = o.if_contains(key); v && v->is_number()) *v = 1.25 * v->to_number<double>();
  }
  return write_text(out, boost::json::serialize(doc));
}

// workers0's steps vary by a few percent (cv 3%); the slowed copy's are each 25% longer.
TEST(GateOnRealTraces, AClearlySlowerRunFailsWithSignificance) {
  if (trace(kWorkers0).empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel original = gated(trace(kWorkers0));
  Baseline base = baseline_from_report(original, "workers0", "report");
  ReportModel slowed = gated(slowed_copy(trace(kWorkers0)), &base);
  const ReportFinding* f = find_finding(slowed, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  EXPECT_NEAR(f->step_test->ratio, 1.25, 1e-6);
  // Both runs have the same log-scale spread s: t = ln 1.25 / (s sqrt(2 / 6)) with 10 df.
  std::vector<double> logs;
  for (const ReportStep& st : original.steps) logs.push_back(std::log(st.duration_us));
  double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / 6, ss = 0;
  for (double x : logs) ss += (x - mean) * (x - mean);
  double t = std::log(1.25) / (std::sqrt(ss / 5) * std::sqrt(2.0 / 6));
  EXPECT_NEAR(f->step_test->p_value,
              boost::math::cdf(boost::math::complement(boost::math::students_t(10), t)),
              1e-3 * f->step_test->p_value);
  EXPECT_EQ(slowed.verdict->exit_code, 1);
}

TEST(GateOnRealTraces, EveryTraceGetsAFindingForEveryRule) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.path().string().ends_with(".json.gz")) continue;
    SCOPED_TRACE(e.path().string());
    ReportModel r = gated(e.path().string());
    // Every rule of the trace family: the 10 Neuron rules are not evaluated on a Kineto trace.
    EXPECT_EQ(r.findings.size(), default_rules().rules.size() - 10);
    for (const ReportFinding& f : r.findings) {
      bool fired = f.status == FindingStatus::Warn || f.status == FindingStatus::Fail;
      EXPECT_EQ(fired, !f.problem.empty()) << f.id;
      EXPECT_EQ(f.problem.find('{'), std::string::npos) << f.id << ": " << f.problem;
      if (f.status == FindingStatus::NotApplicable) {
        EXPECT_FALSE(f.reason.empty()) << f.id;
      }
    }
  }
}

}  // namespace
}  // namespace perfgate::testing
