// Changes against the baseline in both directions (issue 56): the largest regressions and the
// largest improvements of ops, regions and kernels, each with its calls before and after, in the
// table "changes" and every output that shows changes.
#include <gtest/gtest.h>

#include "baseline/baseline.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// No step markers. Each op attn (host 50 us) launches one attn_kernel; the baseline's kernels are
// 100 us, the run's 60 us (10 calls each: 1000 us -> 600 us, -400 us). The run adds 5 ops comm,
// each launching a comm_kernel of 40 us (new: +200 us of kernel time, 5 calls).
std::string pair_trace(double attn_us, int comm_calls) {
  TraceBuilder t;
  std::int64_t ext = 1;
  for (int i = 0; i < 10; ++i, ++ext) {
    double s = 1000.0 * i;
    t.op("aten::attn", s, 50, ext).launch("attn_kernel", s + 10, s + 100, attn_us, ext);
  }
  for (int i = 0; i < comm_calls; ++i, ++ext) {
    double s = 1000.0 * i + 500;
    t.op("c10d::comm", s, 20, ext).launch("comm_kernel", s + 5, s + 200, 40, ext);
  }
  return t.json();
}

ReportModel gated_pair(double attn_us, int comm_calls) {
  ReportModel before = report_of_json(pair_trace(100, 0), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  // Whole windows: the repeated aten::attn would be matched inferred units, counted per unit.
  if (base.inferred_iterations) base.inferred_iterations->unit_names.clear();
  ReportModel after = report_of_json(pair_trace(attn_us, comm_calls), default_book());
  apply_gate(after, default_rules(), &base, {});
  return after;
}

struct ChangeRow {
  std::string direction, item, name, change;
  std::optional<double> baseline_us, us, delta_us, baseline_calls, calls;
};

std::vector<ChangeRow> change_rows(const ReportModel& r) {
  const ReportTable* t = find_table(r.tables, "changes");
  EXPECT_TRUE(t);
  std::vector<ChangeRow> rows;
  if (!t) return rows;
  auto text = [&](std::size_t i, const char* c) {
    const ReportCell* cell = find_cell(*t, i, c);
    return cell && std::holds_alternative<std::string>(*cell) ? std::get<std::string>(*cell) : "";
  };
  auto number = [&](std::size_t i, const char* c) {
    const ReportCell* cell = find_cell(*t, i, c);
    return cell ? cell_number(*cell) : std::nullopt;
  };
  for (std::size_t i = 0; i < t->rows.size(); ++i)
    rows.push_back({text(i, "direction"), text(i, "item"), text(i, "name"), text(i, "change"),
                    number(i, "baseline_us_per_step"), number(i, "us_per_step"),
                    number(i, "delta_us_per_step"), number(i, "baseline_calls_per_step"),
                    number(i, "calls_per_step")});
  return rows;
}

const ChangeRow* row_of(const std::vector<ChangeRow>& rows, std::string_view item, std::string_view name) {
  for (const ChangeRow& r : rows)
    if (r.item == item && r.name == name) return &r;
  return nullptr;
}

TEST(Changes, AnImprovementIsListedBesideTheRegressions) {
  ReportModel after = gated_pair(60, 5);
  std::vector<ChangeRow> rows = change_rows(after);
  // attn_kernel: 10 x 100 = 1000 us -> 10 x 60 = 600 us: -400 us, calls 10 -> 10.
  const ChangeRow* attn = row_of(rows, "kernel", "attn_kernel");
  ASSERT_TRUE(attn);
  EXPECT_EQ(attn->direction, "faster");
  EXPECT_EQ(attn->change, "improvement");
  EXPECT_NEAR(attn->delta_us.value_or(0), -400, 1e-6);
  EXPECT_NEAR(attn->baseline_us.value_or(0), 1000, 1e-6);
  EXPECT_NEAR(attn->us.value_or(0), 600, 1e-6);
  EXPECT_EQ(attn->baseline_calls, 10);
  EXPECT_EQ(attn->calls, 10);
  // comm_kernel: new, 5 x 40 = +200 us, calls none -> 5.
  const ChangeRow* comm = row_of(rows, "kernel", "comm_kernel");
  ASSERT_TRUE(comm);
  EXPECT_EQ(comm->direction, "slower");
  EXPECT_EQ(comm->change, "new");
  EXPECT_NEAR(comm->delta_us.value_or(0), 200, 1e-6);
  EXPECT_FALSE(comm->baseline_calls);
  EXPECT_EQ(comm->calls, 5);
  // The op aten::attn: its GPU self time fell by the same 400 us; its host time (10 x 50 us) held.
  const ChangeRow* op = row_of(rows, "op", "aten::attn");
  ASSERT_TRUE(op);
  EXPECT_EQ(op->direction, "faster");
  EXPECT_NEAR(op->delta_us.value_or(0), -400, 1e-6);
  EXPECT_EQ(op->calls, 10);
  // c10d::comm is new: 5 x (20 - 1) us of host self time (its 1 us launch call is a child) and
  // 5 x 40 us of GPU time, +295 us.
  const ChangeRow* comm_op = row_of(rows, "op", "c10d::comm");
  ASSERT_TRUE(comm_op);
  EXPECT_EQ(comm_op->direction, "slower");
  EXPECT_NEAR(comm_op->delta_us.value_or(0), 295, 1e-6);
  // Slower rows first, then faster ones.
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front().direction, "slower");
  EXPECT_EQ(rows.back().direction, "faster");
}

TEST(Changes, EveryOutputShowsBothDirections) {
  ReportModel after = gated_pair(60, 5);
  std::string terminal = render_terminal(after);
  EXPECT_NE(terminal.find("slower  comm_kernel +200.0 us (– → 5 calls)"), std::string::npos) << terminal;
  // 10 -> 15 kernels (+50%): the windows hold different work, so each entry has its change a call:
  // attn_kernel 100 -> 60 us a call, -40%.
  EXPECT_NE(terminal.find("faster  attn_kernel -400.0 us (10 → 10 calls, -40.0% a call)"), std::string::npos)
      << terminal;
  for (bool compact : {false, true}) {
    MarkdownOptions o;
    o.compact = compact;
    std::string md = render_markdown(after, o);
    std::size_t changed = md.find("### What changed over each run's whole window");
    ASSERT_NE(changed, std::string::npos) << md;
    EXPECT_LT(changed, md.find("### Findings"));  // before the findings
    EXPECT_NE(md.find("| faster | kernel | attn\\_kernel | improvement |"), std::string::npos) << md;
    EXPECT_NE(md.find("| slower | kernel | comm\\_kernel | new |"), std::string::npos) << md;
  }
  std::string html = render_html(after).page;
  EXPECT_NE(html.find("id=\"table-changes\""), std::string::npos);
  std::string json = render_json(after);
  EXPECT_NE(json.find("\"changes\""), std::string::npos);
}

TEST(Changes, ARunAgainstItselfListsNothing) {
  ReportModel after = gated_pair(100, 0);
  EXPECT_TRUE(change_rows(after).empty());
  EXPECT_EQ(render_terminal(after).find("Changes"), std::string::npos);
  EXPECT_EQ(render_markdown(after).find("What changed"), std::string::npos);
  ASSERT_TRUE(after.verdict);
  EXPECT_EQ(after.verdict->exit_code, 0);
  EXPECT_EQ(after.verdict->failures, 0u);
}

// Each kind lists at most kChangesPerItem rows in each direction, largest first: 7 kernels that each
// got slower by 10, 20, ..., 70 us list the 5 largest, 70 us first.
TEST(Changes, EachKindListsItsLargestFirst) {
  auto trace = [](double extra) {
    TraceBuilder t;
    for (int k = 1; k <= 7; ++k)
      t.launch("k" + std::to_string(k), 1000.0 * k, 1000.0 * k + 10, 100 + extra * k);
    return t.json();
  };
  ReportModel before = report_of_json(trace(0), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel after = report_of_json(trace(10), default_book());
  apply_gate(after, default_rules(), &base, {});
  std::vector<ChangeRow> rows = change_rows(after);
  std::vector<std::string> kernels;
  for (const ChangeRow& r : rows)
    if (r.item == "kernel") kernels.push_back(r.name);
  EXPECT_EQ(kernels, (std::vector<std::string>{"k7", "k6", "k5", "k4", "k3"}));
}

// Two windows of different work and no steps (issue 74, item 7: the FSDP pair's first "faster"
// kernel was flash attention, -31.56 ms for 68 -> 60 calls at +0.2% a call). The baseline runs big
// 20 x 500 us and small 10 x 100 us; the run big 12 x 501 us (+0.2% a call, -3988 us over the
// window) and small 10 x 80 us (-20% a call, -200 us): kernels 30 -> 22, different work.
std::string cut_trace(int big_calls, double big_us, double small_us) {
  TraceBuilder t;
  double s = 0;
  for (int i = 0; i < big_calls; ++i, s += 1000) t.launch("big", s, s + 10, big_us);
  for (int i = 0; i < 10; ++i, s += 1000) t.launch("small", s, s + 10, small_us);
  return t.json();
}

TEST(Changes, WindowsOfDifferentWorkAreOrderedByTheTimeACall) {
  ReportModel before = report_of_json(cut_trace(20, 500, 100), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel after = report_of_json(cut_trace(12, 501, 80), default_book());
  apply_gate(after, default_rules(), &base, {});
  ASSERT_TRUE(after.baseline);
  EXPECT_TRUE(after.baseline->different_work);
  EXPECT_EQ(after.baseline->changes_basis, ChangeBasis::Window);
  EXPECT_TRUE(after.baseline->changes_by_call);
  std::vector<ChangeRow> rows = change_rows(after);
  std::vector<std::string> faster;
  for (const ChangeRow& r : rows)
    if (r.item == "kernel" && r.direction == "faster") faster.push_back(r.name);
  // small is the faster kernel: big's time a call held (+1 us at 12 calls, under 1% of its time).
  EXPECT_EQ(faster, std::vector<std::string>{"small"});
  EXPECT_EQ(row_of(rows, "kernel", "big"), nullptr);
  const ReportTable* t = find_table(after.tables, Table::Changes);
  ASSERT_TRUE(t);
  // Its columns say what they count: each run's whole window, and the change at this run's calls.
  std::vector<std::string> names;
  for (const ReportColumn& c : t->columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "direction", "item", "name", "change", "baseline_us_per_window", "us_per_window",
                       "delta_us_per_window", "baseline_calls_per_window", "calls_per_window",
                       "baseline_us_per_call", "us_per_call", "delta_per_call_pct", "delta_us_by_call"}));
  std::size_t small = 0;
  while (small < t->rows.size() && std::get<std::string>(t->rows[small][2]) != "small") ++small;
  ASSERT_LT(small, t->rows.size());
  EXPECT_NEAR(cell_number(*find_cell(*t, small, "delta_us_by_call")).value_or(0), -200, 1e-6);
  EXPECT_NEAR(cell_number(*find_cell(*t, small, "delta_us_per_window")).value_or(0), -200, 1e-6);
  std::string terminal = render_terminal(after);
  EXPECT_NE(terminal.find("Changes      over each run's whole window against the baseline, largest change of "
                          "the time a call first"),
            std::string::npos)
      << terminal;
  EXPECT_NE(terminal.find("faster  small -200.0 us (10 → 10 calls, -20.0% a call)"), std::string::npos)
      << terminal;
  std::string md = render_markdown(after);
  EXPECT_NE(md.find("Rows: largest change of the time a call first"), std::string::npos) << md;
  std::string json = render_json(after);
  EXPECT_NE(json.find("\"changes_basis\": \"window\""), std::string::npos);
  EXPECT_NE(json.find("\"changes_by_call\": true"), std::string::npos);
  EXPECT_NE(json.find("\"delta_us_per_window\""), std::string::npos);
  EXPECT_EQ(json.find("_per_step\""), std::string::npos);
}

// Runs with steps keep their per-step columns, ordered by the change per step.
TEST(Changes, StepsKeepTheirColumnsPerStep) {
  auto trace = [](double us) {
    TraceBuilder t;
    for (int i = 0; i < 3; ++i) {
      double s = 10000.0 * i;
      t.step(i, s, 9000).launch("k", s + 100, s + 200, us);
    }
    return t.json();
  };
  ReportModel before = report_of_json(trace(100), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel after = report_of_json(trace(150), default_book());
  apply_gate(after, default_rules(), &base, {});
  ASSERT_TRUE(after.baseline);
  EXPECT_EQ(after.baseline->changes_basis, ChangeBasis::Step);
  EXPECT_FALSE(after.baseline->changes_by_call);
  const ReportTable* t = find_table(after.tables, Table::Changes);
  ASSERT_TRUE(t);
  ASSERT_EQ(t->columns.size(), 12u);
  EXPECT_EQ(t->columns[6].name, "delta_us_per_step");
  ASSERT_FALSE(t->rows.empty());
  EXPECT_NEAR(cell_number(t->rows[0][6]).value_or(0), 50, 1e-6);  // 3 x 50 us over 3 steps
  EXPECT_NE(render_json(after).find("\"changes_basis\": \"step\""), std::string::npos);
}

// Where neither run marks steps and the gate matches the inferred units both repeat, the deltas are
// per unit. Against a baseline that holds no work per unit (a JSON report, a history: here cleared),
// each run's window totals over its units: the baseline's 12 units (blocks 0-11) hold 13 kernels of
// 100 us (1300 us, 108.33 us a unit); the run's 8 units (blocks 4-11) 9 (900 us, 112.5). Where both
// hold it, the matched units' work (matched_unit_work_test.cpp): 100 us a unit on both sides.
TEST(Changes, MatchedInferredUnitsCountPerUnit) {
  auto blocks = [](int first, int last) {
    TraceBuilder t;
    double s = 0;
    for (int k = first; k <= last; ++k, s += 1000)
      t.op("layer." + std::to_string(k), s, 50, k + 1).launch("blk", s + 10, s + 100, 100, k + 1);
    return t.json();
  };
  ReportModel before = report_of_json(blocks(0, 12), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel matched = report_of_json(blocks(4, 12), default_book());
  apply_gate(matched, default_rules(), &base, {});
  ASSERT_TRUE(matched.baseline);
  EXPECT_EQ(matched.baseline->changes_basis, ChangeBasis::Unit);
  EXPECT_FALSE(matched.baseline->changes_by_call);
  const ReportTable* matched_kernels = find_table(matched.tables, Table::KernelDeltas);
  ASSERT_TRUE(matched_kernels && matched_kernels->rows.size() == 1u);
  EXPECT_NEAR(cell_number(*find_cell(*matched_kernels, 0, "baseline_us_per_unit")).value_or(0), 100, 1e-6);
  EXPECT_NEAR(cell_number(*find_cell(*matched_kernels, 0, "us_per_unit")).value_or(0), 100, 1e-6);
  ASSERT_TRUE(base.inferred_iterations);
  base.inferred_iterations->unit_work.clear();
  ReportModel after = report_of_json(blocks(4, 12), default_book());
  apply_gate(after, default_rules(), &base, {});
  ASSERT_TRUE(after.baseline);
  EXPECT_EQ(after.baseline->changes_basis, ChangeBasis::Unit);
  // blk's every call took 100 us in both: +3.8% a unit (13 calls over 12 units, 9 over 8) is no change.
  EXPECT_TRUE(after.baseline->changes_by_call);
  const ReportTable* changes = find_table(after.tables, Table::Changes);
  ASSERT_TRUE(changes);
  for (std::size_t r = 0; r < changes->rows.size(); ++r)
    EXPECT_NE(std::get<std::string>(*find_cell(*changes, r, "name")), "blk") << "blk is unchanged a call";
  const ReportTable* kernels = find_table(after.tables, Table::KernelDeltas);
  ASSERT_TRUE(kernels);
  ASSERT_EQ(kernels->rows.size(), 1u);
  EXPECT_EQ(kernels->columns[2].name, "baseline_us_per_unit");
  EXPECT_NEAR(cell_number(*find_cell(*kernels, 0, "baseline_us_per_unit")).value_or(0), 1300.0 / 12, 1e-6);
  EXPECT_NEAR(cell_number(*find_cell(*kernels, 0, "us_per_unit")).value_or(0), 900.0 / 8, 1e-6);
  EXPECT_NE(kernels->description.find("per inferred unit"), std::string::npos) << kernels->description;
  EXPECT_NE(
      render_terminal(after).find("Changes      per inferred unit against the baseline, largest change of "
                                  "the time a call first"),
      std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
