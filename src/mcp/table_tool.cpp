// table: one of a report's tables (the JSON report's, run-wide or a worker's), filtered, sorted and
// cut into pages of at most kMaxTableRows rows and kMaxResultBytes bytes.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "mcp/report_summary.h"
#include "mcp/session.h"
#include "mcp/tool_args.h"

namespace perfgate::mcp {
namespace {

constexpr std::size_t kCellBytes = 500;  // a longer string cell (a kernel's name) is cut

const json::array* workers_of(const json::object& doc) {
  const json::value* w = doc.if_contains("workers");
  return w && w->is_array() ? &w->get_array() : nullptr;
}

// Only objects: a json::value parameter would take the report by a temporary copy.
const json::object* tables_of(const json::object& holder) {
  const json::value* t = holder.if_contains("tables");
  return t && t->is_object() ? &t->get_object() : nullptr;
}

// Every table: {name, title, rows, worker}, the run's then each worker's.
json::array table_list(const json::object& doc) {
  json::array out;
  auto add = [&](const json::object* tables, const std::string& worker) {
    if (!tables) return;
    for (const auto& [name, t] : *tables) {
      if (!t.is_object()) continue;
      const json::value* rows = t.get_object().if_contains("rows");
      json::object entry{{"name", name}, {"rows", rows && rows->is_array() ? rows->get_array().size() : 0}};
      if (const json::value* title = t.get_object().if_contains("title")) entry["title"] = *title;
      if (!worker.empty()) entry["worker"] = worker;
      out.push_back(std::move(entry));
    }
  };
  add(tables_of(doc), "");
  if (const json::array* workers = workers_of(doc))
    for (const json::value& w : *workers)
      if (w.is_object() && w.get_object().contains("name"))
        add(tables_of(w.get_object()), json::value_to<std::string>(w.get_object().at("name")));
  return out;
}

std::size_t column_index(const json::array& columns, const std::string& name) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    std::string n = json::value_to<std::string>(columns[i].as_object().at("name"));
    if (n == name) return i;
    names.push_back(n);
  }
  throw ConfigError(fmt::format("table: no column \"{}\" (columns: {})", name, fmt::join(names, ", ")));
}

// Numbers before strings before null; numbers by value, strings by bytes.
int compare_cells(const json::value& a, const json::value& b) {
  auto rank = [](const json::value& v) { return v.is_number() || v.is_bool() ? 0 : v.is_string() ? 1 : 2; };
  if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
  if (a.is_number() || a.is_bool()) {
    double x = a.is_bool() ? a.get_bool() : a.to_number<double>();
    double y = b.is_bool() ? b.get_bool() : b.to_number<double>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_string()) return a.get_string().subview().compare(b.get_string().subview());
  return 0;
}

struct Filter {
  std::size_t column;
  std::string op;
  json::value value;
};

bool matches(const Filter& f, const json::array& row) {
  const json::value& cell = row.at(f.column);
  if (f.op == "contains")
    return cell.is_string() && f.value.is_string() &&
           cell.get_string().subview().find(f.value.get_string().subview()) != std::string_view::npos;
  bool comparable = (cell.is_number() && f.value.is_number()) || (cell.is_string() && f.value.is_string()) ||
                    (cell.is_bool() && f.value.is_bool()) || cell.is_null() || f.value.is_null();
  if (!comparable) return f.op == "!=";
  if (cell.is_null() || f.value.is_null()) return (f.op == "=") == (cell.is_null() && f.value.is_null());
  int c = compare_cells(cell, f.value);
  return f.op == "="    ? c == 0
         : f.op == "!=" ? c != 0
         : f.op == "<"  ? c < 0
         : f.op == "<=" ? c <= 0
         : f.op == ">"  ? c > 0
                        : c >= 0;
}

std::vector<Filter> read_filters(const ToolArgs& args, const json::object& raw, const json::array& columns) {
  std::vector<Filter> out;
  const json::value* given = raw.if_contains("filter");
  if (!given || given->is_null()) return out;
  if (!given->is_array() || given->get_array().size() > 16)
    throw ConfigError("table: argument \"filter\" must be an array of at most 16 {column, op, value}");
  for (const json::value& f : given->get_array()) {
    if (!f.is_object()) throw ConfigError("table: each filter is an object {column, op, value}");
    ToolArgs one("filter", f.get_object(), {"column", "op", "value"});
    Filter filter{column_index(columns, one.required_text("column")), one.text("op").value_or("="), nullptr};
    static const std::vector<std::string> ops = {"=", "!=", "<", "<=", ">", ">=", "contains"};
    if (std::find(ops.begin(), ops.end(), filter.op) == ops.end())
      throw ConfigError(fmt::format("filter: op \"{}\" is not one of {}", filter.op, fmt::join(ops, " ")));
    if (const json::value* v = f.get_object().if_contains("value")) filter.value = *v;
    out.push_back(std::move(filter));
  }
  (void)args;
  return out;
}

json::value cut_cell(const json::value& cell) {
  if (cell.is_string() && cell.get_string().size() > kCellBytes)
    return json::string(cut_text(cell.get_string(), kCellBytes));
  return cell;
}

}  // namespace

FoundTable find_table(const json::object& doc, const std::string& name,
                      const std::optional<std::string>& worker) {
  if (!worker)
    if (const json::object* run = tables_of(doc); run && run->contains(name))
      return {&run->at(name).as_object(), ""};
  if (const json::array* workers = workers_of(doc))
    for (const json::value& w : *workers) {
      if (!w.is_object()) continue;
      std::string wname =
          w.get_object().contains("name") ? json::value_to<std::string>(w.get_object().at("name")) : "";
      if (worker && *worker != wname) continue;
      if (const json::object* t = tables_of(w.get_object()); t && t->contains(name))
        return {&t->at(name).as_object(), wname};
    }
  throw ConfigError(
      fmt::format("table: no table \"{}\"{} in this report (call table without \"table\" to list them)", name,
                  worker ? " of worker " + *worker : ""));
}

ToolOutput table_tool(Session& session, const json::object& raw) {
  ToolArgs args("table", raw, {"report", "table", "worker", "columns", "filter", "sort", "offset", "limit"});
  const StoredReport& report = session.report(args.required_text("report"));
  std::optional<std::string> name = args.text("table");
  if (!name) {
    return {{"report_id", report.id}, {"tables", table_list(report.doc)}};
  }
  FoundTable found = find_table(report.doc, *name, args.text("worker"));
  const json::array& columns = found.table->at("columns").as_array();
  const json::array& rows = found.table->at("rows").as_array();
  std::vector<std::size_t> picked_columns;
  for (const std::string& c : args.texts("columns", 64)) picked_columns.push_back(column_index(columns, c));
  if (picked_columns.empty())
    for (std::size_t i = 0; i < columns.size(); ++i) picked_columns.push_back(i);
  std::vector<Filter> filters = read_filters(args, raw, columns);
  std::vector<const json::array*> kept;
  for (const json::value& row : rows)
    if (row.is_array() && row.get_array().size() == columns.size() &&
        std::all_of(filters.begin(), filters.end(),
                    [&](const Filter& f) { return matches(f, row.get_array()); }))
      kept.push_back(&row.get_array());
  if (std::optional<std::string> sort = args.text("sort"); sort && !sort->empty()) {
    bool descending = sort->front() == '-';
    std::size_t by = column_index(columns, descending ? sort->substr(1) : *sort);
    std::stable_sort(kept.begin(), kept.end(), [&](const json::array* a, const json::array* b) {
      int c = compare_cells(a->at(by), b->at(by));
      return descending ? c > 0 : c < 0;
    });
  }
  std::size_t offset = static_cast<std::size_t>(args.integer("offset", 0, std::int64_t{1} << 40).value_or(0));
  std::size_t limit = static_cast<std::size_t>(args.integer("limit", 1, kMaxTableRows).value_or(50));
  json::array out_columns;
  for (std::size_t c : picked_columns) out_columns.push_back(columns[c]);
  json::array out_rows;
  std::size_t bytes = 0;
  std::size_t i = offset;
  for (; i < kept.size() && out_rows.size() < limit; ++i) {
    json::array row;
    for (std::size_t c : picked_columns) row.push_back(cut_cell(kept[i]->at(c)));
    bytes += json::serialize(row).size();
    if (bytes > kMaxResultBytes && !out_rows.empty()) break;  // the page ends early; next_offset goes on
    out_rows.push_back(std::move(row));
  }
  json::object out{{"report_id", report.id},
                   {"table", *name},
                   {"title", found.table->at("title")},
                   {"columns", std::move(out_columns)},
                   {"total_rows", kept.size()},
                   {"offset", offset},
                   {"rows", std::move(out_rows)}};
  if (!found.worker.empty()) out["worker"] = found.worker;
  out["next_offset"] = i < kept.size() ? json::value(i) : json::value(nullptr);
  return out;
}

}  // namespace perfgate::mcp
