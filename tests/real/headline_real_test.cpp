// Headlines on the shared gated pairs (issue 93, item 1): the ResNet-50 failed gate (num_workers=0
// against num_workers=4) and the H100 FSDP pair. Its step-time finding was about 2,000 characters
// with whole cuDNN template signatures; its headline is one line without them. The inputs without a
// baseline are checked in report_invariants_real_test.cpp.
#include <gtest/gtest.h>

#include "baseline/baseline.h"
#include "common/utf8.h"
#include "gate/gate.h"
#include "gate/headline.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// `path` gated against `baseline_path` (a profile as the baseline, as --baseline PROFILE does).
ReportModel gated_pair(const std::string& path, const std::string& baseline_path) {
  ReportModel before = report_of_files({baseline_path}, default_book());
  Baseline base = baseline_from_report(before, baseline_path, "profile");
  ReportModel report = report_of_files({path}, default_book());
  apply_gate(report, default_rules(), &base, {});
  return report;
}

void expect_short_headlines(const ReportModel& report) {
  std::size_t fired = 0;
  for (const ReportFinding& f : report.findings) {
    if (f.status != FindingStatus::Fail && f.status != FindingStatus::Warn &&
        f.status != FindingStatus::Inconclusive)
      continue;
    ++fired;
    EXPECT_LE(code_points(f.headline), kHeadlineChars) << f.id << ": " << f.headline;
    EXPECT_EQ(f.headline.find("void "), std::string::npos) << f.headline;  // no whole signature
  }
  EXPECT_GT(fired, 3u);
}

TEST(HeadlinesReal, TheResNet50FailedGatesStepTimeIsOneShortLine) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel report = gated_pair(dir + "/resnet50_v100_workers0.pt.trace.json.gz",
                                  dir + "/resnet50_v100_workers4.pt.trace.json.gz");
  expect_short_headlines(report);
  const ReportFinding* f = find_finding(report, "regression.step-time");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Fail);
  // The problem text says "The median step takes 177.44 ms, +50.76 ms against the baseline's
  // 126.68 ms (limit +5%)" and names the whole cuDNN signatures (dgrad_engine<float, 512, ...>).
  EXPECT_NE(f->problem.find("dgrad_engine<float, 512"), std::string::npos);
  EXPECT_TRUE(f->headline.starts_with(
      "Step time regressed: median step 177.44 ms vs 126.68 ms in the baseline (+50.76 ms, limit +5%)"))
      << f->headline;
  EXPECT_EQ(f->headline.find("<float"), std::string::npos) << f->headline;
  EXPECT_LT(code_points(f->headline), f->problem.size() / 5) << f->headline;
}

TEST(HeadlinesReal, TheFsdpPairsKernelsAreFolded) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel report = gated_pair(dir + "/nsys/h100x2_fsdp_training_after.sqlite",
                                  dir + "/nsys/h100x2_fsdp_training_before.sqlite");
  expect_short_headlines(report);
  // Its first offender is "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)".
  const ReportFinding* f = find_finding(report, "regression.tensor-cores");
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->offenders.empty());
  EXPECT_TRUE(f->offenders[0].label.starts_with("ncclDevKernel_SendRecv(")) << f->offenders[0].label;
  EXPECT_NE(f->headline.find("; top: ncclDevKernel_SendRecv ("), std::string::npos) << f->headline;
  EXPECT_NE(f->headline_whole.find(f->offenders[0].label), std::string::npos) << f->headline_whole;
}

}  // namespace
}  // namespace perfgate::testing
