// The per-unit change tables count the work inside the matched inferred units (issue 95, item 2):
// not each window's totals over its units, which spread the work outside the units (other blocks
// in the window, an optimizer after the last block) over them; with --step-pattern inferred the
// steps' units are matched one to one as well, not 6 steps against 4.
#include <gtest/gtest.h>

#include "baseline/baseline.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Block k's kernel blk: 100 + 10k us in the baseline, x `factor` in the run.
double blk_us(int k, double factor) {
  return (100.0 + 10.0 * k) * factor;
}

// No step markers: ops layer.first ... layer.last 1000 us apart (host 50 us), each launching one
// blk; the units are layer.first ... layer.(last - 1). With `extra`, an op aten::extra 200 us after
// the last opening launches a 3000 us extra_kernel: work in the window outside every unit.
std::string blocks(int first, int last, double factor, bool extra) {
  TraceBuilder t;
  double s = 0;
  std::int64_t ext = 1;
  for (int k = first; k <= last; ++k, ++ext, s += 1000)
    t.op("layer." + std::to_string(k), s, 50, ext).launch("blk", s + 10, s + 100, blk_us(k, factor), ext);
  if (extra) t.op("aten::extra", s - 800, 50, ext).launch("extra_kernel", s - 790, s - 600, 3000, ext);
  return t.json();
}

std::optional<double> cell(const ReportTable& t, std::string_view name, std::string_view column) {
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const ReportCell* n = find_cell(t, r, "name");
    if (n && std::holds_alternative<std::string>(*n) && std::get<std::string>(*n) == name)
      if (const ReportCell* c = find_cell(t, r, column)) return cell_number(*c);
  }
  return std::nullopt;
}

bool has_row(const ReportTable& t, std::string_view name) {
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    if (const ReportCell* n = find_cell(t, r, "name");
        n && std::holds_alternative<std::string>(*n) && std::get<std::string>(*n) == name)
      return true;
  return false;
}

// The baseline's units are blocks 0-5 (6), the run's blocks 2-6 (5) at 1.2 x, and the run's window
// holds an extra_kernel of 3000 us after its last opening. Matched: blocks 2-5. blk a matched unit:
// (120 + 130 + 140 + 150) / 4 = 135 us before, 162 us after; one call a unit on both sides. The
// window totals over the units read (100 + ... + 160) / 6 = 151.67 us against 1.2 x (120 + ... +
// 170) / 5 = 208.8 us, and extra_kernel 600 us a unit of new work.
TEST(MatchedUnitWork, PerUnitTablesCountOnlyTheMatchedUnits) {
  ReportModel before = report_of_json(blocks(0, 6, 1, false), default_book());
  ASSERT_TRUE(before.inferred_iterations);
  ASSERT_EQ(before.inferred_iterations->unit_names.size(), 6u);
  ASSERT_EQ(before.inferred_iterations->unit_work.size(), 6u);
  const ReportUnitWork& second = before.inferred_iterations->unit_work[1];
  EXPECT_TRUE(second.counted);
  ASSERT_EQ(second.kernels.size(), 1u);
  EXPECT_EQ(second.kernels[0].name, "blk");
  EXPECT_NEAR(second.kernels[0].gpu_us, 110, 1e-6);
  EXPECT_EQ(second.kernels[0].calls, 1);
  ASSERT_EQ(second.ops.size(), 1u);
  EXPECT_EQ(second.ops[0].name, "layer.1");
  EXPECT_NEAR(second.ops[0].gpu_us, 110, 1e-6);
  EXPECT_NEAR(second.gpu_idle_us, 1000 - 110, 1e-6);  // its 1000 us span less blk's 110 us
  Baseline base = baseline_from_report(before, "before", "profile");
  ReportModel after = report_of_json(blocks(2, 7, 1.2, true), default_book());
  ASSERT_TRUE(after.inferred_iterations);
  ASSERT_EQ(after.inferred_iterations->unit_names.size(), 5u);  // blocks 2-6
  apply_gate(after, default_rules(), &base, {});
  ASSERT_TRUE(after.baseline);
  EXPECT_EQ(after.baseline->changes_basis, ChangeBasis::Unit);
  EXPECT_FALSE(after.baseline->changes_by_call);  // the matched units hold like work
  const ReportTable* kernels = find_table(after.tables, Table::KernelDeltas);
  ASSERT_TRUE(kernels);
  EXPECT_NEAR(cell(*kernels, "blk", "baseline_us_per_unit").value_or(0), 135, 1e-6);
  EXPECT_NEAR(cell(*kernels, "blk", "us_per_unit").value_or(0), 162, 1e-6);
  EXPECT_NEAR(cell(*kernels, "blk", "delta_us_per_unit").value_or(0), 27, 1e-6);
  EXPECT_NEAR(cell(*kernels, "blk", "baseline_calls_per_unit").value_or(0), 1, 1e-9);
  EXPECT_NEAR(cell(*kernels, "blk", "calls_per_unit").value_or(0), 1, 1e-9);
  EXPECT_FALSE(has_row(*kernels, "extra_kernel"));  // outside every unit
  const ReportTable* ops = find_table(after.tables, Table::OpDeltas);
  ASSERT_TRUE(ops);
  // layer.3's unit is one of 4 matched: its 130 us (156 us) of GPU self time is 32.5 (39) a unit.
  EXPECT_NEAR(cell(*ops, "layer.3", "baseline_gpu_us_per_unit").value_or(0), 32.5, 1e-6);
  EXPECT_NEAR(cell(*ops, "layer.3", "gpu_us_per_unit").value_or(0), 39, 1e-6);
  for (const char* outside : {"layer.0", "layer.1", "layer.6", "layer.7", "aten::extra"})
    EXPECT_FALSE(has_row(*ops, outside)) << outside;
  // The GPU idle a matched unit: its 1000 us span less blk's time on the one GPU, 1000 - 135 = 865 us
  // before and 1000 - 162 = 838 us after (the extra kernel runs after the last unit), not the
  // windows' idle over their units.
  const ReportTable* parts = find_table(after.tables, Table::StepTimeDeltas);
  ASSERT_TRUE(parts);
  bool idle = false;
  for (std::size_t r = 0; r < parts->rows.size(); ++r) {
    if (std::get<std::string>(*find_cell(*parts, r, "label")) != "GPU idle") continue;
    idle = true;
    EXPECT_NEAR(cell_number(*find_cell(*parts, r, "baseline_us_per_step")).value_or(0), 865, 1e-6);
    EXPECT_NEAR(cell_number(*find_cell(*parts, r, "us_per_step")).value_or(0), 838, 1e-6);
  }
  EXPECT_TRUE(idle) << "no GPU idle row";
}

// A matched unit a side did not count (here: the run's first unit, set aside by hand) is set aside
// on both sides; a baseline whose report holds no work per unit (a JSON report, a history) leaves the
// tables to the window totals over the units, ordered by the change a call.
TEST(MatchedUnitWork, UnitsWithoutWorkFallBack) {
  ReportModel before = report_of_json(blocks(0, 6, 1, false), default_book());
  Baseline base = baseline_from_report(before, "before", "profile");
  ReportModel after = report_of_json(blocks(2, 7, 1.2, true), default_book());
  ASSERT_TRUE(after.inferred_iterations && after.inferred_iterations->unit_work.size() == 5u);
  after.inferred_iterations->unit_work[0].counted = false;  // block 2
  std::optional<MatchedUnitWork> m = matched_unit_work(*after.inferred_iterations, base);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->names, (std::vector<std::string>{"layer.3", "layer.4", "layer.5"}));
  EXPECT_EQ(m->run_units, 3);
  ASSERT_EQ(m->baseline_kernels.size(), 1u);
  EXPECT_NEAR(m->baseline_kernels[0].gpu_us, 130 + 140 + 150, 1e-6);
  ASSERT_EQ(m->run_kernels.size(), 1u);
  EXPECT_NEAR(m->run_kernels[0].gpu_us, (130 + 140 + 150) * 1.2, 1e-6);

  std::string json = write_text(temp_dir() + "/matched_unit_work_before.json", render_json(before));
  Baseline from_json = read_baseline_report(json);
  ASSERT_TRUE(from_json.inferred_iterations);
  EXPECT_TRUE(from_json.inferred_iterations->unit_work.empty());
  ReportModel gated = report_of_json(blocks(2, 7, 1.2, true), default_book());
  apply_gate(gated, default_rules(), &from_json, {});
  ASSERT_TRUE(gated.baseline);
  EXPECT_EQ(gated.baseline->changes_basis, ChangeBasis::Unit);
  EXPECT_TRUE(gated.baseline->changes_by_call);
  const ReportTable* kernels = find_table(gated.tables, Table::KernelDeltas);
  ASSERT_TRUE(kernels);
  EXPECT_NEAR(cell(*kernels, "blk", "baseline_us_per_unit").value_or(0), 910.0 / 6, 1e-6);
  EXPECT_NEAR(cell(*kernels, "blk", "us_per_unit").value_or(0), 1044.0 / 5, 1e-6);
}

// --step-pattern inferred: the units are the steps, 6 in the baseline (blocks 0-5) and 5 in the run
// (blocks 2-6); the per-step tables compare blocks 2-5 one to one, 135 us of blk a step against 162,
// not the window's (100 + ... + 150) / 6 = 125 us against 1.2 x (120 + ... + 160) / 5 = 168 us.
TEST(MatchedUnitWork, StepsMadeOfInferredUnitsCompareTheMatchedUnits) {
  AnalysisOptions inferred;
  inferred.step_pattern = "inferred";
  ReportModel before = report_of_json(blocks(0, 6, 1, false), default_book(), inferred);
  ASSERT_TRUE(before.inferred_iterations && before.inferred_iterations->steps);
  ASSERT_EQ(before.steps.size(), 6u);
  Baseline base = baseline_from_report(before, "before", "profile");
  ReportModel after = report_of_json(blocks(2, 7, 1.2, true), default_book(), inferred);
  ASSERT_EQ(after.steps.size(), 5u);
  apply_gate(after, default_rules(), &base, {});
  ASSERT_TRUE(after.baseline);
  EXPECT_EQ(after.baseline->changes_basis, ChangeBasis::Step);
  const ReportTable* kernels = find_table(after.tables, Table::KernelDeltas);
  ASSERT_TRUE(kernels);
  EXPECT_NEAR(cell(*kernels, "blk", "baseline_us_per_step").value_or(0), 135, 1e-6);
  EXPECT_NEAR(cell(*kernels, "blk", "us_per_step").value_or(0), 162, 1e-6);
  EXPECT_NEAR(cell(*kernels, "blk", "calls_per_step").value_or(0), 1, 1e-9);
  EXPECT_FALSE(has_row(*kernels, "extra_kernel"));
}

}  // namespace
}  // namespace perfgate::testing
