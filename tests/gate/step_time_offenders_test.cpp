// Issue 29, item 2: regression.step-time names what grew most per step wherever it grew: an op's
// GPU or host self time, a user region's host time or the GPU idle time (step_time_deltas). It
// named the ops whose GPU time grew most, so a slower DataLoader (host time, GPU idle) was
// reported as a 193.5 us convolution.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

constexpr const char* kLoader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

// Eight steps, each: aten::mm at its start launching a GEMM of `gemm_us` (from 20 us in), the
// DataLoader as a user annotation from 30 us in, lasting `loader_us` while the GEMM runs, then
// aten::relu on the host alone for `relu_us`, then `unrecorded_us` with nothing recorded. The steps
// follow each other; a few microseconds of jitter give the step-time test its noise.
struct StepShape {
  double gemm_us = 4000;
  double loader_us = 1000;
  double relu_us = 100;
  double unrecorded_us = 100;
};

constexpr double kJitterUs[] = {0, 7, 3, 9, 1, 5, 8, 2};  // mean 35 / 8

std::string step_trace(const StepShape& shape) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  double s = 0;
  for (int i = 0; i < 8; ++i) {
    double host_end = std::max(30 + shape.loader_us, 20 + shape.gemm_us);
    double duration = host_end + shape.relu_us + shape.unrecorded_us + kJitterUs[i];
    t.step(i + 1, s, duration);
    t.op("aten::mm", s + 5, 10, 100 + i);
    t.launch("gemm_kernel", s + 6, s + 20, shape.gemm_us, 100 + i);
    t.annotation(kLoader, s + 30, shape.loader_us);
    t.op("aten::relu", s + host_end, shape.relu_us);
    s += duration;
  }
  return t.json();
}

ReportModel gated(const StepShape& run, const StepShape& before) {
  Baseline base =
      baseline_from_report(report_of_json(step_trace(before), default_book()), "base.json", "report");
  ReportModel report = report_of_json(step_trace(run), default_book());
  apply_gate(report, default_rules(), &base, {});
  return report;
}

std::vector<std::string> offender_labels(const ReportFinding& f) {
  std::vector<std::string> labels;
  for (const ReportOffender& o : f.offenders) labels.push_back(o.label);
  return labels;
}

// The DataLoader grows from 1000 to 6000 us while the GEMM (4000 to 4300 us) runs beside it: the
// steps grow from 4020 + 200 + jitter to 6030 + 200 + jitter us, the region by 5000 us, the GPU
// idle time (step minus GEMM) from 220 to 1930 us plus the jitter, aten::mm's GPU time by 300 us.
TEST(StepTimeOffenders, AGrowingRegionIsNamedFirst) {
  StepShape before, after;
  after.loader_us = 6000;
  after.gemm_us = 4300;
  ReportModel report = gated(after, before);
  const ReportFinding* f = find_finding(report, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  EXPECT_EQ(offender_labels(*f),
            (std::vector<std::string>{std::string(kLoader) + " (region)", "GPU idle", "aten::mm (GPU)"}));
  ASSERT_EQ(f->offenders.size(), 3u);
  EXPECT_NEAR(*f->offenders[0].value, 5000, 1e-6);
  EXPECT_NEAR(*f->offenders[1].value, 1710, 1e-3);
  EXPECT_NEAR(*f->offenders[2].value, 300, 1e-6);
  EXPECT_NE(f->problem.find("What grew most per step: " + std::string(kLoader) +
                            " (region) (5.00 ms), GPU idle (1.71 ms), aten::mm (GPU) (300.0 us)."),
            std::string::npos)
      << f->problem;
  // The table behind it: the GPU idle row from the metrics, the mean step's idle time.
  const ReportTable* t = find_table(report.tables, "step_time_deltas");
  ASSERT_TRUE(t);
  ASSERT_GE(t->rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(*find_cell(*t, 1, "kind")), "GPU idle");
  EXPECT_NEAR(std::get<double>(*find_cell(*t, 1, "baseline_us_per_step")), 220 + 35.0 / 8, 1e-3);
  EXPECT_NEAR(std::get<double>(*find_cell(*t, 1, "us_per_step")), 1930 + 35.0 / 8, 1e-3);
}

// Time with nothing recorded grows by 1500 us and aten::relu's host time by 500 us per step; the
// GPU waits through both: its idle time grows by 2000 us, the most.
TEST(StepTimeOffenders, GrowingGpuIdleTimeIsNamedFirst) {
  StepShape before, after;
  after.unrecorded_us = 1600;
  after.relu_us = 600;
  ReportModel report = gated(after, before);
  const ReportFinding* f = find_finding(report, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  EXPECT_EQ(offender_labels(*f), (std::vector<std::string>{"GPU idle", "aten::relu (host)"}));
  ASSERT_EQ(f->offenders.size(), 2u);
  EXPECT_NEAR(*f->offenders[0].value, 2000, 1e-3);
  EXPECT_NEAR(*f->offenders[1].value, 500, 1e-6);
}

// Every label of the table is different, though an op and a region share a name and an op has
// both GPU and host time; the rows are sorted by their growth.
TEST(StepTimeOffenders, TheTablesLabelsAreDistinctAndSorted) {
  StepShape before, after;
  after.loader_us = 2000;
  ReportModel report = gated(after, before);
  const ReportTable* t = find_table(report.tables, "step_time_deltas");
  ASSERT_TRUE(t);
  std::vector<std::string> labels;
  double previous = 1e300;
  for (std::size_t r = 0; r < t->rows.size(); ++r) {
    labels.push_back(std::get<std::string>(*find_cell(*t, r, "label")));
    double delta = std::get<double>(*find_cell(*t, r, "delta_us_per_step"));
    EXPECT_LE(delta, previous) << labels.back();
    previous = delta;
  }
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(std::adjacent_find(labels.begin(), labels.end()), labels.end());
  for (const char* label : {"aten::mm (GPU)", "aten::mm (host)", "aten::relu (host)", "GPU idle"})
    EXPECT_TRUE(std::binary_search(labels.begin(), labels.end(), std::string(label))) << label;
  EXPECT_TRUE(std::binary_search(labels.begin(), labels.end(), std::string(kLoader) + " (region)"));
  EXPECT_FALSE(std::binary_search(labels.begin(), labels.end(), std::string("aten::relu (GPU)")))
      << "an op without GPU work has no GPU row";
}

}  // namespace
}  // namespace perfgate::testing
