// A report table made from a list of rows by its declared columns (common/table_catalog.def: name,
// unit, description) and how each column's cell is read from a row. A builder's column list is
// checked against the declaration as it compiles: a column missing, added, misspelt or out of
// place does not compile.
#pragma once

#include <algorithm>
#include <array>
#include <new>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "analyse/ops/op_results.h"
#include "common/tables.h"
#include "report_model/report.h"
#include "report_model/table_limits.h"

namespace perfgate {

// A column's cell, read from a row; the name is the declaration's, in its place.
template <typename Row>
struct Column {
  std::string_view name;
  ReportCell (*cell)(const Row&);
};

// The cells of a declared table, one per column of its declaration, in its order.
template <typename Row, std::size_t N>
struct DeclaredColumns {
  Table table;
  std::array<Column<Row>, N> columns;
};

// `columns` as the cells of table T: only where their names are T's columns, in their order
// (consteval: a difference is no constant expression, and does not compile).
template <Table T, typename Row, std::size_t N>
consteval DeclaredColumns<Row, N> declared(const std::array<Column<Row>, N>& columns) {
  std::span<const std::string_view> names = table_column_names(T);
  if (names.size() != N) throw "the columns are not as many as common/table_catalog.def declares";
  for (std::size_t i = 0; i < N; ++i)
    if (columns[i].name != names[i]) throw "a column is not the one common/table_catalog.def declares";
  return {T, columns};
}

// The tables that grow with the number of distinct names in a trace (docs/reports.md, "Row limits").
bool row_per_name(Table table);

// The tables that grow with the number of steps: a row per window step (docs/reports.md, "Row
// limits"). A million steps held 1.1 GB of their cells.
bool row_per_step(Table table);

// The cells that stand for the rows an analysis set aside under the row limit
// (RowLimiter::add_set_aside): their sums in the calls and total_us columns, text in the unit-less
// ones as a row's names are.
std::vector<ReportCell> set_aside_cells(const ReportTable& table, const RowsSetAside& set_aside);

// `column`'s cell of `row`, made where it lies over the empty cell `slot` (whose end does nothing):
// a cell returned and then moved into its row cost as much as making it (a variant's move, the
// returned one's end, the vector's room checked), a third of a tiny rank's tables (issue 78). Where
// making it throws, an empty cell is put back for the row's end.
template <typename Row>
void make_cell_in_place(ReportCell& slot, const Column<Row>& column, const Row& row) {
  try {
    ::new (static_cast<void*>(&slot)) ReportCell(column.cell(row));
  } catch (...) {
    ::new (static_cast<void*>(&slot)) ReportCell();
    throw;
  }
}

// A table with a row per name or per step is capped as it is made (table_limits.h): only the kept
// rows are ever held as cells. A name's rows with the most time are kept; a step's first rows.
// `shown`: the first columns that the table has (the declared optional ones last), all by default.
// `set_aside`: the rows its analysis left out under the row limit, counted in the "(N more)" row.
// `rows`: a vector, or a part of one (Row is taken from `declared`).
template <typename Row, std::size_t N>
ReportTable make_table(const DeclaredColumns<Row, N>& declared,
                       std::type_identity_t<std::span<const Row>> rows, std::size_t shown = N,
                       const RowsSetAside& set_aside = {}) {
  ReportTable t = declared_table(declared.table);
  t.columns.keep_first(shown);
  std::span<const Column<Row>> columns = std::span(declared.columns).first(t.columns.size());
  bool per_step = row_per_step(declared.table);
  std::size_t limit = row_per_name(declared.table) || per_step ? max_table_rows() : 0;
  t.rows.reserve(limit > 0 ? std::min(rows.size(), 2 * limit) : rows.size());
  RowLimiter limiter(t, limit, !per_step);
  for (const Row& r : rows) {
    std::vector<ReportCell> cells(columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i) make_cell_in_place(cells[i], columns[i], r);
    limiter.add(std::move(cells));
  }
  if (set_aside.rows > 0) limiter.add_set_aside(set_aside.rows, set_aside_cells(t, set_aside));
  limiter.finish();
  return t;
}

}  // namespace perfgate
