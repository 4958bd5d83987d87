// The report's tables and their columns, written once (common/table_catalog.def) and used by the
// report's builders, the gate's rule-file checks, the renderers, the reading of a baseline report,
// `perfgate metrics --tables` and the documentation. The code names a table by its id, Table::Ops,
// and a column by table_column(Table::Ops, "device_self_us"): a misspelt one does not compile.
// Names are for what comes from outside (rules, JSON reports): table_id() resolves one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace perfgate {

// The declaration's tables, in its order (the ids are made from its rows).
enum class Table : std::uint8_t {
#define PERFGATE_TABLE(id, ...) id,
#include "common/table_catalog.def"
#undef PERFGATE_TABLE
};

// Each table's name, by id.
inline constexpr std::string_view kTableNames[] = {
#define PERFGATE_TABLE(id, name, ...) name,
#include "common/table_catalog.def"
#undef PERFGATE_TABLE
};
inline constexpr std::size_t kTableCount = std::size(kTableNames);

namespace table_catalog_detail {
// Each table's column names, an array per table named by its id.
#define PERFGATE_COLUMN(name, unit, description) std::string_view{name},
#define PERFGATE_OPTIONAL_COLUMN(name, unit, description) std::string_view{name},
#define PERFGATE_TABLE(id, name, title, description, ...) \
  inline constexpr std::string_view id[] = {__VA_ARGS__};
#include "common/table_catalog.def"
#undef PERFGATE_TABLE
#undef PERFGATE_OPTIONAL_COLUMN
#undef PERFGATE_COLUMN
}  // namespace table_catalog_detail

inline constexpr std::span<const std::string_view> kTableColumnNames[] = {
#define PERFGATE_TABLE(id, ...) table_catalog_detail::id,
#include "common/table_catalog.def"
#undef PERFGATE_TABLE
};

constexpr std::size_t table_position(Table table) {
  return static_cast<std::size_t>(table);
}
constexpr std::string_view table_name(Table table) {
  return kTableNames[table_position(table)];
}
// The table's columns' names, in the order of its cells.
constexpr std::span<const std::string_view> table_column_names(Table table) {
  return kTableColumnNames[table_position(table)];
}

// A column's name, checked against the declaration as the code compiles: a column the table does
// not declare is no constant expression, and does not compile.
consteval std::string_view table_column(Table table, std::string_view column) {
  for (std::string_view name : table_column_names(table))
    if (name == column) return name;
  throw "common/table_catalog.def declares no such column of the table";
}
// A column that both tables declare, for what reads either one (a step's timeline or its critical
// path's).
consteval std::string_view shared_column(Table table, Table other, std::string_view column) {
  table_column(other, column);
  return table_column(table, column);
}

struct ColumnInfo {
  std::string_view name;
  std::string_view unit;  // "us", "%", "count", "bytes", "flop", ...; "" for text and flags
  std::string_view description;
  bool optional = false;  // left out of a table none of whose rows has a value in it
};

struct TableInfo {
  Table id{};
  std::string_view name;
  std::string_view title;  // how every output heads the table
  std::string_view description;
  std::span<const ColumnInfo> columns;
};

std::span<const TableInfo> table_catalog();
const TableInfo& table_info(Table table);
// The first table of a name (of `ranks`: the workers'); empty for a name the declaration lacks.
std::optional<Table> table_id(std::string_view name);

// What the delta tables' times and calls are counted over (issue 74): each run's window steps; its
// inferred units where no steps align and the gate matched the units the two runs repeat; else each
// run's whole window. The catalog names their columns per step ("delta_us_per_step"); a table of
// another basis names them by it ("delta_us_per_unit", "delta_us_per_window").
enum class ChangeBasis : std::uint8_t { Step, Unit, Window };
// "_per_step", "_per_unit", "_per_window".
std::string_view basis_suffix(ChangeBasis basis);

// How the delta tables count their changes, which their texts and column names leave open (the
// basis), and at most `per_item` rows of each kind; `by_call`: the table "changes" ordered by the
// change of the time a call, where the windows hold different work and no steps or units align them.
struct TableWording {
  ChangeBasis basis = ChangeBasis::Step;
  std::size_t per_item = 0;
  bool by_call = false;
};
// A declared text with what it leaves open ({per window step}, {per step}, {per item}, {order},
// and the columns' "_per_step" where the basis is another) filled in.
std::string table_text(std::string_view text, TableWording wording);
// A declared column's name as a table of the basis names it: "delta_us_per_step" -> "delta_us_per_window".
std::string column_name(std::string_view declared, ChangeBasis basis);
// A table's column named `column` is the one the code and the rules look up as `declared` (the
// catalog's name): the same name, or a delta table's "_per_step" column named by another basis.
bool names_column(std::string_view column, std::string_view declared);

}  // namespace perfgate
