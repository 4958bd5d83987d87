// A report table declared once as its columns (name, unit, description, and how each cell is read
// from an analysis row) and made from a list of rows. The column lists are the tables'
// documentation (docs/metrics.md, "Tables").
#pragma once

#include <algorithm>
#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "perfgate/report.h"
#include "report_model/table_limits.h"

namespace perfgate {

template <typename Row>
struct Column {
  const char* name;
  const char* unit;
  const char* description;
  ReportCell (*cell)(const Row&);
};

// The tables that grow with the number of distinct names in a trace (docs/reports.md, "Row limits").
bool row_per_name(std::string_view table);

// The tables that grow with the number of steps: a row per window step (docs/reports.md, "Row
// limits"). A million steps held 1.1 GB of their cells.
bool row_per_step(std::string_view table);

// A table with a row per name or per step is capped as it is made (table_limits.h): only the kept
// rows are ever held as cells. A name's rows with the most time are kept; a step's first rows.
template <typename Row>
ReportTable make_table(const char* name, const char* title, const char* description,
                       std::span<const Column<Row>> columns, const std::vector<Row>& rows) {
  ReportTable t{name, title, description, {}, {}};
  for (const auto& c : columns) t.columns.push_back({c.name, c.unit, c.description});
  bool per_step = row_per_step(name);
  std::size_t limit = row_per_name(name) || per_step ? max_table_rows() : 0;
  t.rows.reserve(limit > 0 ? std::min(rows.size(), 2 * limit) : rows.size());
  RowLimiter limiter(t, limit, !per_step);
  for (const Row& r : rows) {
    std::vector<ReportCell> cells;
    cells.reserve(columns.size());
    for (const auto& c : columns) cells.push_back(c.cell(r));
    limiter.add(std::move(cells));
  }
  limiter.finish();
  return t;
}

template <typename Row, std::size_t N>
ReportTable make_table(const char* name, const char* title, const char* description,
                       const std::array<Column<Row>, N>& columns, const std::vector<Row>& rows) {
  return make_table(name, title, description, std::span<const Column<Row>>(columns), rows);
}

}  // namespace perfgate
