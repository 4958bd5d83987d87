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

}  // namespace
}  // namespace perfgate::testing
