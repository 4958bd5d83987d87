#include "report/table_limits.h"

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
  return std::none_of(std::begin(kNot), std::end(kNot),
                      [&](std::string_view part) { return c.name.find(part) != std::string::npos; });
}

std::vector<ReportCell> more_row(const ReportTable& t, std::size_t keep) {
  std::vector<ReportCell> row(t.columns.size());
  bool labelled = false;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (!labelled && t.columns[c].unit.empty() && std::holds_alternative<std::string>(t.rows[keep][c])) {
      row[c] = fmt::format("({} more)", t.rows.size() - keep);
      labelled = true;
      continue;
    }
    if (!additive(t.columns[c])) continue;
    bool integral = true;
    double sum = 0;
    for (std::size_t r = keep; r < t.rows.size(); ++r) {
      const ReportCell& cell = t.rows[r][c];
      integral = integral && !std::holds_alternative<double>(cell);
      if (number_or_lowest(cell) != std::numeric_limits<double>::lowest()) sum += number_or_lowest(cell);
    }
    row[c] = integral ? ReportCell{static_cast<std::int64_t>(sum)} : ReportCell{sum};
  }
  return row;
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
  if (auto c = time_column(table))
    std::stable_sort(table.rows.begin(), table.rows.end(), [&](const auto& a, const auto& b) {
      return number_or_lowest(a[*c]) > number_or_lowest(b[*c]);
    });
  std::vector<ReportCell> more = more_row(table, max_rows);
  table.rows.resize(max_rows);
  table.rows.push_back(std::move(more));
}

bool is_more_rows_label(std::string_view name) {
  if (!name.starts_with('(') || !name.ends_with(" more)")) return false;
  std::string_view digits = name.substr(1, name.size() - 7);
  return !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace perfgate
