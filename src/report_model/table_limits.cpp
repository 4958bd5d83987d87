#include "report_model/table_limits.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <limits>

#include <fmt/format.h>

namespace perfgate {
namespace {

std::atomic<std::size_t> g_max_rows{kDefaultMaxTableRows};

// The column the rows are ranked by: the first of these that the table has.
constexpr std::array<std::string_view, 7> kTimeColumns = {"device_total_us", "total_us",     "gpu_us",
                                                          "duration_us",     "cpu_total_us", "host_total_us",
                                                          "device_self_us"};

std::optional<std::size_t> time_column(const ReportTable& t) {
  for (std::string_view name : kTimeColumns)
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].name == name) return c;
  return std::nullopt;
}

double number_or_lowest(const ReportCell& cell) {
  if (const auto* d = std::get_if<double>(&cell)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return static_cast<double>(*i);
  return std::numeric_limits<double>::lowest();
}

// A total can be summed over rows; an average, a minimum, a position or a percentage cannot.
bool additive(const ReportColumn& c) {
  static constexpr std::string_view kUnits[] = {"us", "count", "bytes", "flop"};
  static constexpr std::string_view kNot[] = {"avg",   "min",    "max",  "mean",      "median",
                                              "start", "number", "rank", "registers", "shared_memory"};
  if (std::find(std::begin(kUnits), std::end(kUnits), c.unit) == std::end(kUnits)) return false;
  if (c.name == "device") return false;  // a GPU's id
  return std::none_of(std::begin(kNot), std::end(kNot),
                      [&](std::string_view part) { return c.name.find(part) != std::string::npos; });
}

}  // namespace

void set_max_table_rows(std::size_t rows) {
  g_max_rows = rows;
}

std::size_t max_table_rows() {
  return g_max_rows;
}

void limit_table_rows(ReportTable& table, std::size_t max_rows) {
  if (table.rows.size() <= max_rows || max_rows == 0) return;
  std::vector<std::vector<ReportCell>> rows = std::move(table.rows);
  table.rows.clear();
  RowLimiter limiter(table, max_rows);
  for (auto& row : rows) limiter.add(std::move(row));
  limiter.finish();
}

// The time column and the sums are found and made when rows are first set aside: most tables never
// reach the limit, and a run folder of many small ranks made some thirty limiters a rank (issue 78).
RowLimiter::RowLimiter(ReportTable& table, std::size_t max_rows, bool ranked)
    : table_(table), max_rows_(max_rows), ranked_(ranked) {}

void RowLimiter::add(std::vector<ReportCell>&& row) {
  table_.rows.push_back(std::move(row));
  if (max_rows_ > 0 && table_.rows.size() >= 2 * max_rows_) set_aside();
}

// Ranks the rows held (a stable sort: ties keep the order they were added in, so ranking in
// batches keeps the rows a single ranking of all would) and folds those past the limit into the sums.
void RowLimiter::set_aside() {
  std::vector<std::vector<ReportCell>>& rows = table_.rows;
  if (max_rows_ == 0 || rows.size() <= max_rows_) return;
  if (ranked_ && !time_column_) time_column_ = time_column(table_);
  if (time_column_)
    std::stable_sort(rows.begin(), rows.end(), [c = *time_column_](const auto& a, const auto& b) {
      return number_or_lowest(a[c]) > number_or_lowest(b[c]);
    });
  fold(std::span(rows).subspan(max_rows_));
  set_aside_ += rows.size() - max_rows_;
  rows.resize(max_rows_);
}

void RowLimiter::fold(std::span<const std::vector<ReportCell>> rows) {
  if (sums_.empty()) {
    sums_.assign(table_.columns.size(), 0.0);
    integral_.assign(table_.columns.size(), true);
  }
  for (std::size_t c = 0; c < table_.columns.size(); ++c) {
    if (!label_column_ && table_.columns[c].unit.empty() &&
        std::holds_alternative<std::string>(rows.front()[c]))
      label_column_ = c;
    if (!additive(table_.columns[c])) continue;
    for (const std::vector<ReportCell>& row : rows) {
      const ReportCell& cell = row[c];
      integral_[c] = integral_[c] && !std::holds_alternative<double>(cell);
      if (number_or_lowest(cell) != std::numeric_limits<double>::lowest()) sums_[c] += number_or_lowest(cell);
    }
  }
}

void RowLimiter::add_set_aside(std::size_t rows, const std::vector<ReportCell>& totals) {
  if (rows == 0) return;
  fold(std::span(&totals, 1));
  set_aside_ += rows;
}

void RowLimiter::finish() {
  set_aside();
  if (set_aside_ == 0) return;
  std::vector<ReportCell> more(table_.columns.size());
  for (std::size_t c = 0; c < table_.columns.size(); ++c) {
    if (label_column_ == c)
      more[c] = fmt::format("({} more)", set_aside_);
    else if (additive(table_.columns[c]))
      more[c] = integral_[c] ? ReportCell{static_cast<std::int64_t>(sums_[c])} : ReportCell{sums_[c]};
  }
  table_.rows.push_back(std::move(more));
}

bool is_more_rows_label(std::string_view name) {
  if (!name.starts_with('(') || !name.ends_with(" more)")) return false;
  std::string_view digits = name.substr(1, name.size() - 7);
  return !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace perfgate
