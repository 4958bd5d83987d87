// Row limits of the report's name-keyed tables (ops, kernels, regions, ...): a trace with 200,000
// distinct op names made a 299 MB JSON report. Beyond the limit a table keeps its rows with the
// most time and one "(N more)" row holding the totals of the rest, in every output.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "report_model/report.h"

namespace perfgate {

inline constexpr std::size_t kDefaultMaxTableRows = 5000;

// The limit for the reports built from now on (`--max-rows N`).
void set_max_table_rows(std::size_t rows);
std::size_t max_table_rows();

// Keeps the `max_rows` rows with the most time (the table's first time column of those it is
// ordered by) and replaces the others with one "(N more)" row: additive columns (times that are
// totals, counts, bytes, FLOPs) hold their sum, the others are empty.
void limit_table_rows(ReportTable& table, std::size_t max_rows);

// Adds rows to a table under a row limit as they are made, so that no more than twice the limit
// are ever held (200,000 op names held 256 MB of cells when the table was capped once made).
// The result is the one limit_table_rows gives on the whole table. 0 is no limit.
class RowLimiter {
 public:
  // `ranked`: keep the rows with the most time (a table with a row per name); else the first rows
  // in the order they are added (a table with a row per step: the first steps, in step order).
  RowLimiter(ReportTable& table, std::size_t max_rows, bool ranked = true);
  void add(std::vector<ReportCell>&& row);  // moved in: a row taken by value was moved twice
  // Counts `rows` that were set aside before they became cells (an analysis that keeps only the rows
  // a report keeps): `totals` holds their sums in the additive columns and, as a row set aside
  // would, text in the label column.
  void add_set_aside(std::size_t rows, const std::vector<ReportCell>& totals);
  // Ranks the rows and appends the "(N more)" row, if any were set aside.
  void finish();

 private:
  void set_aside();
  // Adds `rows` (the first one names the label column) to the sums.
  void fold(std::span<const std::vector<ReportCell>> rows);

  ReportTable& table_;
  std::size_t max_rows_;
  bool ranked_;
  std::optional<std::size_t> time_column_;  // where ranked_, once rows are set aside
  std::size_t set_aside_ = 0;
  std::optional<std::size_t> label_column_;
  std::vector<double> sums_;    // per column, of the rows set aside (empty until some are)
  std::vector<bool> integral_;  // no double among them
};

// True for the label of a "(N more)" row: it is no op, kernel or region, and baselines skip it.
bool is_more_rows_label(std::string_view name);

}  // namespace perfgate
