// The table catalog's texts, from its rows in common/table_catalog.def, and the look-up by name.
#include <algorithm>
#include <string>

#include "common/tables.h"

namespace perfgate {
namespace {

// Each table's columns, an array per table named by its id.
#define PERFGATE_COLUMN(name, unit, description) ColumnInfo{name, unit, description, false},
#define PERFGATE_OPTIONAL_COLUMN(name, unit, description) ColumnInfo{name, unit, description, true},
#define PERFGATE_TABLE(id, name, title, description, ...) constexpr ColumnInfo k##id[] = {__VA_ARGS__};
#include "common/table_catalog.def"
#undef PERFGATE_TABLE
#undef PERFGATE_OPTIONAL_COLUMN
#undef PERFGATE_COLUMN

constexpr TableInfo kCatalog[] = {
#define PERFGATE_TABLE(id, name, title, description, ...) {Table::id, name, title, description, k##id},
#include "common/table_catalog.def"
#undef PERFGATE_TABLE
};
static_assert(std::size(kCatalog) == kTableCount);

// Only the last columns of a table may be optional: the others keep their places in every row.
constexpr bool optional_columns_last() {
  for (const TableInfo& t : kCatalog)
    for (std::size_t c = 1; c < t.columns.size(); ++c)
      if (t.columns[c - 1].optional && !t.columns[c].optional) return false;
  return true;
}
static_assert(optional_columns_last());

void replace_all(std::string& text, std::string_view what, std::string_view with) {
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

}  // namespace

std::span<const TableInfo> table_catalog() {
  return kCatalog;
}

const TableInfo& table_info(Table table) {
  return kCatalog[table_position(table)];
}

std::optional<Table> table_id(std::string_view name) {
  auto it = std::find(std::begin(kTableNames), std::end(kTableNames), name);
  if (it == std::end(kTableNames)) return std::nullopt;
  return static_cast<Table>(it - std::begin(kTableNames));
}

std::string_view basis_suffix(ChangeBasis basis) {
  switch (basis) {
    case ChangeBasis::Step:
      return "_per_step";
    case ChangeBasis::Unit:
      return "_per_unit";
    case ChangeBasis::Window:
      return "_per_window";
  }
  return "_per_step";
}

std::string table_text(std::string_view text, TableWording wording) {
  std::string out(text);
  if (out.find('{') == std::string::npos && out.find("_per_step") == std::string::npos) return out;
  constexpr std::string_view kWindowStep[] = {"per window step",
                                              "per inferred unit (the work inside the units "
                                              "the gate matched in both runs, over their count)",
                                              "over each run's whole window (no steps or matched units "
                                              "align the runs)"};
  constexpr std::string_view kStep[] = {"per step", "per unit", "over the whole window"};
  auto basis = static_cast<std::size_t>(wording.basis);
  replace_all(out, "{per window step}", kWindowStep[basis]);
  replace_all(out, "{per step}", kStep[basis]);
  replace_all(out, "{per item}", std::to_string(wording.per_item));
  replace_all(out, "{order}",
              wording.by_call ? "by delta_us_by_call: the windows hold different work, so the change of "
                                "the time a call orders them, not the window totals"
                              : "GPU plus host time, as the op, region and kernel delta tables");
  if (wording.basis != ChangeBasis::Step) replace_all(out, "_per_step", basis_suffix(wording.basis));
  return out;
}

std::string column_name(std::string_view declared, ChangeBasis basis) {
  constexpr std::string_view kDeclared = "_per_step";
  if (basis == ChangeBasis::Step || !declared.ends_with(kDeclared)) return std::string(declared);
  std::string out(declared.substr(0, declared.size() - kDeclared.size()));
  return out += basis_suffix(basis);
}

bool names_column(std::string_view column, std::string_view declared) {
  if (column == declared) return true;
  constexpr std::string_view kDeclared = "_per_step";
  if (!declared.ends_with(kDeclared)) return false;
  std::string_view stem = declared.substr(0, declared.size() - kDeclared.size());
  if (!column.starts_with(stem)) return false;
  std::string_view rest = column.substr(stem.size());
  return rest == basis_suffix(ChangeBasis::Unit) || rest == basis_suffix(ChangeBasis::Window);
}

}  // namespace perfgate
