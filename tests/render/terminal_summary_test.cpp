// Issue 93, item 2: the terminal's summary is one screen. The bundled example's was 40 lines, the
// longest 1,320 characters (the roofline's remedy), and a failed gate's first screen led with gpu.idle,
// not with the rules that failed. Now at most kSummaryLines lines (and the CLI's "Reports" line) of at
// most kSummaryColumns columns: what ran, the verdict, the failed and inconclusive rules first, then
// the first warnings' headlines, the headline numbers; --verbose (TerminalOptions::verbose) the rest.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

void expect_one_screen(const std::string& summary) {
  std::vector<std::string> lines = lines_of(summary);
  EXPECT_LE(lines.size(), kSummaryLines) << summary;
  for (const std::string& line : lines) EXPECT_LE(columns(line), kSummaryColumns) << line;
}

TEST(TerminalSummary, TheBundledExampleIsOneScreenWithItsVerdictAndFindings) {
  ReportModel report = report_of_files(
      {std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz"}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  std::string summary = render_terminal(report, {.color = false, .verbose = false});
  expect_one_screen(summary);
  std::vector<std::string> lines = lines_of(summary);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[2], "Verdict      PASS with warnings (exit 0: 0 failed, 6 warnings, 0 inconclusive)");
  // The first three warnings' headlines, the others named on one line.
  EXPECT_EQ(lines[3],
            "  WARN  dataloader.bottleneck: The data loader holds up the step (27.0%), gain up to 27.0%");
  EXPECT_EQ(lines[6], "  and 3 more: memcpy.pageable, compute.low-mfu, ops.far-from-roofline");
  // The breakdown's largest shares first: the data loader's 27.0% is not cut off behind the zeros.
  EXPECT_NE(summary.find("Breakdown    Kernel 69.9% · Data loader 27.0% · Memcpy 1.9%"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("--verbose for every section"), std::string::npos);
  // The whole text is still there with --verbose: the remedy the summary leaves out.
  std::string verbose = render_terminal(report, {.color = false, .verbose = true});
  EXPECT_GT(lines_of(verbose).size(), 30u);
  EXPECT_NE(verbose.find("-> Set num_workers on the DataLoader"), std::string::npos);
  EXPECT_EQ(summary.find("-> Set num_workers"), std::string::npos);
}

// A failed gate leads with the rules that failed, each with its value and the baseline's, before the
// warnings, on the terminal and in the Markdown (issue 93, item 3): here the region the data loader
// grew (100 to 1,100 us a step).
TEST(TerminalSummary, AFailedGateLeadsWithWhatFailed) {
  TrainingRun before;
  before.dataloader_us = 100;
  before.dataloader_annotation = true;
  TrainingRun after = before;
  after.dataloader_us = 1100;
  Baseline base =
      baseline_from_report(report_of_json(training_trace(before), default_book()), "base.json", "report");
  ReportModel report = report_of_json(training_trace(after), default_book());
  apply_gate(report, default_rules(), &base, {});
  ASSERT_TRUE(report.verdict);
  ASSERT_EQ(report.verdict->status, "fail");
  std::string summary = render_terminal(report, {.color = false, .verbose = false});
  expect_one_screen(summary);
  std::vector<std::string> lines = lines_of(summary);
  std::size_t verdict = 0;
  while (verdict < lines.size() && !lines[verdict].starts_with("Verdict")) ++verdict;
  ASSERT_LT(verdict + 1, lines.size()) << summary;
  EXPECT_TRUE(lines[verdict].starts_with("Verdict      FAIL (exit 1: ")) << lines[verdict];
  // Every failed rule is named before any warning.
  std::size_t failed = 0;
  for (std::size_t i = verdict + 1; i < lines.size() && lines[i].starts_with("  FAIL"); ++i) {
    ++failed;
    EXPECT_NE(lines[i].find(", baseline "), std::string::npos) << lines[i];
  }
  EXPECT_EQ(failed, std::min<std::size_t>(report.verdict->failures, 3)) << summary;
  // The Markdown summary and the PR comment name them under the counts, before the metric table.
  std::vector<std::string> md = lines_of(render_markdown(report));
  ASSERT_GE(md.size(), 5u);
  EXPECT_TRUE(md[2].starts_with("**1 failed") || md[2].starts_with("**2 failed") ||
              md[2].starts_with("**3 failed"))
      << md[2];
  EXPECT_TRUE(md[4].starts_with("❌ `regression.")) << md[4];
  // Each by its headline: the value against the baseline's (issue 93, item 1).
  EXPECT_NE(md[4].find(" in the baseline ("), std::string::npos) << md[4];
}

}  // namespace
}  // namespace perfgate::testing
