// Issue 13: tables with a row per name are capped (200,000 distinct op names made a 299 MB JSON
// report): the rows with the most time, then one "(N more)" row with the totals of the rest.
#include <gtest/gtest.h>

#include "baseline/baseline.h"
#include "render/render.h"
#include "report_model/table_limits.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Twelve ops op0..op11 each launching one kernel k0..k11 of (i + 1) * 10 us, in one step.
std::string twelve_ops() {
  TraceBuilder t;
  t.step(1, 0, 10000);
  for (int i = 0; i < 12; ++i) {
    std::string n = std::to_string(i);
    t.op("op" + n, 10 + 700.0 * i, 600, 10 + i);
    t.launch("k" + n, 20 + 700.0 * i, 30 + 700.0 * i, 10.0 * (i + 1), 10 + i);
  }
  return t.json();
}

struct RowLimit {
  explicit RowLimit(std::size_t rows) { set_max_table_rows(rows); }
  ~RowLimit() { set_max_table_rows(kDefaultMaxTableRows); }
};

TEST(RowLimit, TablesKeepTheLongestRowsAndOneRowForTheRest) {
  RowLimit limit(5);
  ReportModel report = report_of_json(twelve_ops(), default_book());
  const ReportTable* kernels = find_table(report.workers.at(0).tables, "kernels");
  ASSERT_NE(kernels, nullptr);
  ASSERT_EQ(kernels->rows.size(), 6u);
  // k11 (120 us) .. k7 (80 us) kept, longest first; k0..k6 (10 + ... + 70 = 280 us, 7 calls) summed.
  EXPECT_EQ(std::get<std::string>(*find_cell(*kernels, 0, "name")), "k11");
  EXPECT_EQ(std::get<std::string>(*find_cell(*kernels, 4, "name")), "k7");
  EXPECT_EQ(std::get<std::string>(*find_cell(*kernels, 5, "name")), "(7 more)");
  EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*kernels, 5, "total_us")), 280);
  EXPECT_EQ(*cell_number(*find_cell(*kernels, 5, "calls")), 7);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*find_cell(*kernels, 5, "avg_us")));
  const ReportTable* ops = find_table(report.workers.at(0).tables, "ops");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->rows.size(), 6u);
  std::string json = render_json(report);
  EXPECT_NE(json.find("(7 more)"), std::string::npos);
  for (const char* name : {"kernels_by_op", "regions", "ops_by_shape"}) {
    const ReportTable* t = find_table(report.workers.at(0).tables, name);
    EXPECT_TRUE(t == nullptr || t->rows.size() <= 6u) << name;
  }
  // A capped report as a baseline: the "(N more)" row is no op or kernel.
  Baseline b = baseline_from_report(report, "b.json", "report");
  for (const BaselineRow& r : b.kernels) EXPECT_FALSE(is_more_rows_label(r.name)) << r.name;
  EXPECT_EQ(b.kernels.size(), 5u);
}

// Rows are ranked in batches as they are added (never more than twice the limit held); the result
// is the single ranking of all rows: ties keep their order, the rest is summed once.
TEST(RowLimit, RankingInBatchesKeepsTheRowsOfOneRanking) {
  ReportTable t{
      "kernels", "Kernels", "", {{"name", "", ""}, {"calls", "count", ""}, {"total_us", "us", ""}}, {}};
  std::vector<std::vector<ReportCell>> all;
  for (int i = 0; i < 23; ++i)  // times 0..6 repeating: many ties across batches
    all.push_back(
        {ReportCell{"k" + std::to_string(i)}, ReportCell{std::int64_t{1}}, ReportCell{double(i % 7)}});
  RowLimiter limiter(t, 4);
  for (const auto& row : all) {
    limiter.add(std::vector<ReportCell>(row));  // a copy: the limiter takes its rows
    EXPECT_LT(t.rows.size(), 8u);
  }
  limiter.finish();
  // Expected, by hand: time 6 rows are k6, k13, k20; then time 5: k5 (first added).
  ASSERT_EQ(t.rows.size(), 5u);
  const char* kept[] = {"k6", "k13", "k20", "k5"};
  for (std::size_t r = 0; r < 4; ++r) EXPECT_EQ(std::get<std::string>(t.rows[r][0]), kept[r]) << r;
  EXPECT_EQ(std::get<std::string>(t.rows[4][0]), "(19 more)");
  EXPECT_EQ(std::get<std::int64_t>(t.rows[4][1]), 19);
  // All times: 3 * (0+...+6) + (0+1) = 64; kept 6 * 3 + 5 = 23.
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[4][2]), 64.0 - 23.0);
}

// 23 steps of 100 us, step i running one kernel of (i % 7 + 1) * 10 us: the kernels of each step
// (a row a step here) cut to 4 rows as the analysis makes them (issue 78, item 5: 200,000 steps held
// 78 MB of these rows before the report cut them) give the report the table that the report's own
// cut of every row gives, worked out as RankingInBatchesKeepsTheRowsOfOneRanking's.
TEST(RowLimit, TheKernelsOfEachStepAreCutAsTheAnalysisMakesThem) {
  TraceBuilder t;
  for (int i = 0; i < 23; ++i) {
    t.step(i, 100.0 * i, 100);
    t.launch("k", 100.0 * i + 1, 100.0 * i + 5, 10.0 * (i % 7 + 1));
  }
  AnalysisOptions whole;
  EXPECT_EQ(analyse_json(t.json(), whole).tables.kernels_by_iteration.size(), 23u);
  AnalysisOptions cut;
  cut.table_rows = 4;
  WorkerAnalysis w = analyse_json(t.json(), cut);
  EXPECT_EQ(w.tables.kernels_by_iteration.size(), 4u);
  EXPECT_EQ(w.tables.kernels_by_iteration_set_aside.rows, 19u);
  EXPECT_EQ(w.tables.kernels_by_iteration_set_aside.calls, 19u);
  EXPECT_DOUBLE_EQ(w.tables.kernels_by_iteration_set_aside.total_us, 600);

  RowLimit limit(4);  // the report's limit, which the engine passes to the analysis
  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* steps = find_table(report.workers.at(0).tables, "kernels_by_iteration");
  ASSERT_NE(steps, nullptr);
  ASSERT_EQ(steps->rows.size(), 5u);
  // 70 us: steps 6, 13, 20; then 60 us: step 5 (the first). All 3 * 280 + 10 + 20 = 870 us; kept 270.
  const char* kept[] = {"ProfilerStep#6", "ProfilerStep#13", "ProfilerStep#20", "ProfilerStep#5"};
  for (std::size_t r = 0; r < 4; ++r)
    EXPECT_EQ(std::get<std::string>(*find_cell(*steps, r, "group")), kept[r]) << r;
  EXPECT_EQ(std::get<std::string>(*find_cell(*steps, 4, "group")), "(19 more)");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*find_cell(*steps, 4, "kernel")));
  EXPECT_EQ(std::get<std::int64_t>(*find_cell(*steps, 4, "calls")), 19);
  EXPECT_DOUBLE_EQ(std::get<double>(*find_cell(*steps, 4, "total_us")), 600);

  // Each kernel's launching op is its step: a row per step by op too, cut the same way. By op
  // (top), the ops of equal time are in name order: 70 us ProfilerStep#13, #20, #6; 60 us #12 first.
  EXPECT_EQ(w.tables.kernels_by_op.size(), 4u);
  EXPECT_EQ(w.tables.kernels_by_op_set_aside.rows, 19u);
  EXPECT_EQ(w.tables.kernels_by_op_top.size(), 4u);
  EXPECT_EQ(w.tables.kernels_by_op_top_set_aside.rows, 19u);
  const ReportTable* by_op = find_table(report.workers.at(0).tables, "kernels_by_op");
  const ReportTable* top = find_table(report.workers.at(0).tables, "kernels_by_op_top");
  ASSERT_NE(by_op, nullptr);
  ASSERT_NE(top, nullptr);
  ASSERT_EQ(by_op->rows.size(), 5u);
  ASSERT_EQ(top->rows.size(), 5u);
  const char* ops[] = {"ProfilerStep#13", "ProfilerStep#20", "ProfilerStep#6", "ProfilerStep#12"};
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(std::get<std::string>(*find_cell(*by_op, r, "op")), ops[r]) << r;
    EXPECT_EQ(std::get<std::string>(*find_cell(*top, r, "group")), ops[r]) << r;
  }
  for (const ReportTable* table : {by_op, top}) {
    EXPECT_EQ(std::get<std::string>(table->rows[4][0]), "(19 more)");
    EXPECT_EQ(std::get<std::int64_t>(*find_cell(*table, 4, "calls")), 19);
    EXPECT_DOUBLE_EQ(std::get<double>(*find_cell(*table, 4, "total_us")), 600);
  }
}

TEST(RowLimit, SmallTablesAreUntouched) {
  ReportModel report = report_of_json(twelve_ops(), default_book());
  EXPECT_EQ(find_table(report.workers.at(0).tables, "kernels")->rows.size(), 12u);
  EXPECT_TRUE(is_more_rows_label("(12 more)"));
  EXPECT_FALSE(is_more_rows_label("(more)"));
  EXPECT_FALSE(is_more_rows_label("(1x more)"));
}

}  // namespace
}  // namespace perfgate::testing
