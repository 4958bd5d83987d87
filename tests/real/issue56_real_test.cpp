// Issue 56 on the FSDP pair that nsys-ai documents (h100x2_fsdp_training_{before,after}: two 300 ms
// windows of 2 H100s, no step markers), against tests/real/issue56_expected.py (plain SQL on the
// files, read-only):
//   kernels 4010 -> 3587 (-10.5%); 27 of 27 kernel names in common (100.0% / 100.0% of the time)
//   flash_fwd_kernel 272317.378 -> 240755.667 us (-31561.711 us), calls 68 -> 60, 4004.667 -> 4012.594 us a
//   call ncclDevKernel_SendRecv 25401.752 -> 33742.101 us (+8340.349 us), calls 66 -> 62, 384.875 -> 544.227
//   us a call
#include <gtest/gtest.h>

#include "perfgate/baseline.h"
#include "perfgate/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

struct Row {
  std::string direction, change;
  double delta_us = 0, baseline_calls = 0, calls = 0, per_call_pct = 0;
};

std::optional<Row> change_of(const ReportModel& r, std::string_view prefix) {
  const ReportTable* t = find_table(r.tables, "changes");
  if (!t) return std::nullopt;
  auto text = [&](std::size_t i, const char* c) {
    const ReportCell* cell = find_cell(*t, i, c);
    return cell && std::holds_alternative<std::string>(*cell) ? std::get<std::string>(*cell) : "";
  };
  auto number = [&](std::size_t i, const char* c) {
    const ReportCell* cell = find_cell(*t, i, c);
    return cell ? cell_number(*cell).value_or(-1) : -1;
  };
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    std::string name = text(i, "name");
    if (text(i, "item") != "kernel" || name.find(prefix) == std::string::npos) continue;
    return Row{text(i, "direction"),           text(i, "change"),
               number(i, "delta_us_per_step"), number(i, "baseline_calls_per_step"),
               number(i, "calls_per_step"),    number(i, "delta_per_call_pct")};
  }
  return std::nullopt;
}

TEST(Issue56RealTraces, FsdpPairComparesLikeWithLike) {
  std::string before_path = shared_trace("nsys/h100x2_fsdp_training_before.sqlite");
  std::string after_path = shared_trace("nsys/h100x2_fsdp_training_after.sqlite");
  if (before_path.empty() || after_path.empty()) GTEST_SKIP() << "../shared/traces is absent";
  ReportModel before = report_of_files({before_path}, default_rules());
  Baseline base = baseline_from_report(before, before_path, "profile");
  ReportModel after = report_of_files({after_path}, default_rules());
  apply_gate(after, default_rules(), &base, {});

  // The largest change of the pair, an improvement of the window total at the same time a call.
  std::optional<Row> flash = change_of(after, "flash_fwd_kernel");
  ASSERT_TRUE(flash);
  EXPECT_EQ(flash->direction, "faster");
  EXPECT_NEAR(flash->delta_us, -31561.711, 0.01);
  EXPECT_EQ(flash->baseline_calls, 68);
  EXPECT_EQ(flash->calls, 60);
  EXPECT_NEAR(flash->per_call_pct, (4012.594 / 4004.667 - 1) * 100, 0.01);  // +0.20%
  std::optional<Row> sendrecv = change_of(after, "ncclDevKernel_SendRecv");
  ASSERT_TRUE(sendrecv);
  EXPECT_EQ(sendrecv->direction, "slower");
  EXPECT_NEAR(sendrecv->delta_us, 8340.349, 0.01);
  EXPECT_EQ(sendrecv->baseline_calls, 66);
  EXPECT_EQ(sendrecv->calls, 62);
  EXPECT_NEAR(sendrecv->per_call_pct, (544.227 / 384.875 - 1) * 100, 0.01);  // +41.40%

  // The work of each window: 4010 -> 3587 kernels (-10.5%), beyond 5%, and no steps align them.
  ASSERT_TRUE(after.baseline);
  EXPECT_TRUE(after.baseline->different_work);
  const ReportMetricChange* kernels = after.baseline->change(Metric::KernelsCount);
  ASSERT_TRUE(kernels && kernels->baseline && kernels->value);
  EXPECT_EQ(*kernels->baseline, 4010);
  EXPECT_EQ(*kernels->value, 3587);
  // Comparable otherwise: the same devices, 27 of 27 kernel names with all of each side's time.
  for (const ReportComparability& c : after.baseline->comparability) {
    if (c.factor == "steps") {
      EXPECT_FALSE(c.holds) << c.text;
    } else {
      EXPECT_TRUE(c.holds) << c.factor << ": " << c.text;
    }
    if (c.factor == "kernels") {
      EXPECT_EQ(
          c.text.rfind("27 of 27 kernel names in common (100.0% of the baseline's kernel time, 100.0%", 0),
          0u)
          << c.text;
    }
  }
  // No silent pass on step time: inconclusive, no steps to compare.
  const ReportFinding* step_time = find_finding(after, "regression.step-time");
  ASSERT_TRUE(step_time);
  EXPECT_EQ(step_time->status, FindingStatus::Inconclusive);
  EXPECT_EQ(step_time->reason.rfind("no steps to compare", 0), 0u) << step_time->reason;

  std::string terminal = render_terminal(after);
  EXPECT_NE(terminal.find("Work         window steps 0 → 0 · kernels 4010 → 3587 (-423 (-10.5%))"),
            std::string::npos)
      << terminal;
  EXPECT_NE(terminal.find("-31.56 ms (68 → 60 calls, +0.2% a call)"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("+8.34 ms (66 → 62 calls, +41.4% a call)"), std::string::npos) << terminal;
}

}  // namespace
}  // namespace perfgate::testing
