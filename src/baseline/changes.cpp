// The largest changes against the baseline in both directions: the ops, regions and kernels that got
// slower most and those that got faster most, each with its calls in both runs. The delta tables are
// sorted by growth, so a short view of their head shows regressions only; a change that made a run
// faster (a kernel with fewer calls, a cheaper op) sits at their tail. This table puts both ends
// side by side, so that every output can show what the change did, both ways. Where the windows
// hold different work and nothing aligns them, the window totals compare different amounts of work:
// the rows are then ordered by the change of their time a call (issue 74).
#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include "baseline/baseline.h"

namespace perfgate {
namespace {

struct Candidate {
  const char* item;  // "op", "region", "kernel"
  std::string name, change;
  std::optional<double> baseline_us, us, baseline_calls, calls;
  double delta_us = 0;   // what orders the rows: the totals' change, or by_call's
  bool by_call = false;  // delta_us is the change of the time a call at this run's calls
};

std::optional<double> number(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  return cell ? cell_number(*cell) : std::nullopt;
}

std::string text(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  return cell && std::holds_alternative<std::string>(*cell) ? std::get<std::string>(*cell) : "";
}

std::optional<double> sum(std::optional<double> a, std::optional<double> b) {
  if (!a && !b) return std::nullopt;
  return a.value_or(0) + b.value_or(0);
}

// A delta table's rows with their time (GPU plus host, as the table is sorted by) and calls.
// The op and region delta tables name their columns alike (src/baseline/deltas.cpp).
std::vector<Candidate> candidates(const ReportTable& t, const char* item) {
  constexpr Table kOps = Table::OpDeltas, kKernels = Table::KernelDeltas;
  // Ops and regions have GPU and host columns; kernels have one duration column.
  bool split = t.name != table_name(kKernels);
  std::vector<Candidate> out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    Candidate c{item,
                text(t, r, table_column(kOps, "name")),
                text(t, r, table_column(kOps, "change")),
                {},
                {},
                {},
                {},
                0,
                false};
    if (split) {
      c.baseline_us = sum(number(t, r, table_column(kOps, "baseline_gpu_us_per_step")),
                          number(t, r, table_column(kOps, "baseline_cpu_us_per_step")));
      c.us = sum(number(t, r, table_column(kOps, "gpu_us_per_step")),
                 number(t, r, table_column(kOps, "cpu_us_per_step")));
    } else {
      c.baseline_us = number(t, r, table_column(kKernels, "baseline_us_per_step"));
      c.us = number(t, r, table_column(kKernels, "us_per_step"));
    }
    c.delta_us = c.us.value_or(0) - c.baseline_us.value_or(0);
    c.baseline_calls = number(t, r, table_column(kOps, "baseline_calls_per_step"));
    c.calls = number(t, r, table_column(kOps, "calls_per_step"));
    out.push_back(std::move(c));
  }
  return out;
}

// Time a call: what compares where the windows hold different work (different numbers of calls).
std::optional<double> per_call(std::optional<double> us, std::optional<double> calls) {
  if (!us || !calls || *calls <= 0) return std::nullopt;
  return *us / *calls;
}

// Where the windows hold different work, a row's change is that of its time a call at this run's
// calls (a new row's whole time, a gone row's less), and its kind follows that change: a kernel cut
// from fewer calls is no faster kernel. A change under 1 us or 1% of the time is none (deltas.cpp).
void by_call(Candidate& c) {
  c.by_call = true;
  std::optional<double> before = per_call(c.baseline_us, c.baseline_calls), after = per_call(c.us, c.calls);
  if (!before || !after) return;  // new or gone, or without calls: the window totals' change stands
  double at_calls = *before * *c.calls;
  c.delta_us = (*after - *before) * *c.calls;
  c.change = std::fabs(c.delta_us) < std::max(1.0, 0.01 * at_calls) ? "unchanged"
             : c.delta_us > 0                                       ? "regression"
                                                                    : "improvement";
}

bool slower(const Candidate& c) {
  return (c.change == "regression" || c.change == "new") && c.delta_us > 0;
}
bool faster(const Candidate& c) {
  return (c.change == "improvement" || c.change == "gone") && c.delta_us < 0;
}

ReportCell cell(std::optional<double> v) {
  if (!v) return std::monostate{};
  return *v;
}

std::optional<double> change_pct(std::optional<double> before, std::optional<double> after) {
  if (!before || !after || *before <= 0) return std::nullopt;
  return (*after / *before - 1) * 100;
}

void add_rows(ReportTable& out, std::vector<Candidate> rows, bool (*keep)(const Candidate&),
              const char* direction, std::size_t per_item) {
  std::erase_if(rows, [&](const Candidate& c) { return !keep(c); });
  // Largest first: the most positive slower change, the most negative faster one; names break ties.
  std::stable_sort(rows.begin(), rows.end(), [](const Candidate& a, const Candidate& b) {
    double x = std::abs(a.delta_us), y = std::abs(b.delta_us);
    return x != y ? x > y : a.name < b.name;
  });
  std::map<std::string_view, std::size_t> shown;
  for (const Candidate& c : rows) {
    if (shown[c.item]++ >= per_item) continue;
    std::optional<double> before = per_call(c.baseline_us, c.baseline_calls), after = per_call(c.us, c.calls);
    double total_delta = c.us.value_or(0) - c.baseline_us.value_or(0);
    std::vector<ReportCell> row = {
        std::string(direction), std::string(c.item), c.name,      c.change,
        cell(c.baseline_us),    cell(c.us),          total_delta, cell(c.baseline_calls),
        cell(c.calls),          cell(before),        cell(after), cell(change_pct(before, after))};
    if (c.by_call) row.emplace_back(std::in_place_type<double>, c.delta_us);
    out.rows.push_back(std::move(row));
  }
}

}  // namespace

// The rows' cells, in the declared columns' order: direction, item, name, change, the time (baseline,
// now, change), the calls (baseline, now), the time a call (baseline, now, change), and where the
// change a call orders the rows, that change at this run's calls (optional: only then).
static_assert(table_column_names(Table::Changes).size() == 13);

ReportTable largest_changes_table(const std::vector<ReportTable>& deltas, TableWording wording) {
  ReportTable t = declared_table(Table::Changes, wording);
  if (!wording.by_call) t.columns.pop_back();
  std::vector<Candidate> all;
  for (const auto& [table, item] :
       {std::pair{Table::OpDeltas, "op"}, std::pair{Table::RegionDeltas, "region"},
        std::pair{Table::KernelDeltas, "kernel"}})
    if (const ReportTable* d = find_table(deltas, table))
      for (Candidate& c : candidates(*d, item)) {
        if (wording.by_call) by_call(c);
        all.push_back(std::move(c));
      }
  add_rows(t, all, slower, "slower", wording.per_item);
  add_rows(t, std::move(all), faster, "faster", wording.per_item);
  return t;
}

}  // namespace perfgate
