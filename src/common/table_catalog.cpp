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

std::string table_text(std::string_view text, TableWording wording) {
  std::string out(text);
  if (out.find('{') == std::string::npos) return out;
  replace_all(out, "{per window step}",
              wording.per_step ? "per window step" : "over each run's whole window (a run has no steps)");
  replace_all(out, "{per step}", wording.per_step ? "per step" : "over the whole window");
  replace_all(out, "{per item}", std::to_string(wording.per_item));
  return out;
}

}  // namespace perfgate
