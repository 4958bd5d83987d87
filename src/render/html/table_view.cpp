#include "render/html/table_view.h"

#include <cmath>

#include <fmt/format.h>

#include "render/cell_format.h"

namespace perfgate {
namespace {

// Longer cell texts (demangled kernel names, call stacks) are cut in the page, the whole text in
// the cell's tooltip; the JSON report and the workbook have them whole.
constexpr std::size_t kMaxCellChars = 96;

bool numeric_unit(std::string_view unit) {
  return !unit.empty();
}

// Columns of long structured text, kept to one line in the page (the tooltip has all of it).
bool is_one_line_column(std::string_view name) {
  return name == "call_stack" || name == "input_shapes" || name == "module";
}

}  // namespace

TemplateData table_view(const ReportTable& t, std::size_t max_rows, const std::string& id,
                        std::size_t collapse_over, std::optional<double> window_start_us) {
  TemplateData view;
  view.set("collapsed", t.rows.size() > collapse_over);
  view.set("id", id);
  view.set("title", t.title);
  view.set("description", t.description);
  TemplateData columns = template_list();
  for (const auto& c : t.columns) {
    TemplateData col;
    col.set("name", c.name);
    if (std::string_view unit = header_unit(c); !unit.empty()) col.set("unit", std::string(unit));
    if (window_start_us && on_trace_clock(t.name, c.name)) col.set("unit", std::string(kFromWindowStart));
    col.set("num", numeric_unit(c.unit));
    columns.push_back(col);
  }
  view.set("columns", columns);
  view.set("column_count", std::to_string(t.columns.size()));
  TemplateData rows = template_list();
  std::size_t shown = std::min(max_rows, t.rows.size());
  for (std::size_t r = 0; r < shown; ++r) {
    TemplateData cells = template_list();
    for (std::size_t c = 0; c < t.rows[r].size() && c < t.columns.size(); ++c) {
      ReportCell cell = shown_cell(t, r, c, window_start_us);
      TemplateData v;
      std::string text = cell_text(cell, t.columns[c].unit);
      bool line = is_one_line_column(t.columns[c].name);
      if (text.size() > kMaxCellChars || (line && text.size() > 1)) v.set("full", text);
      if (text.size() > kMaxCellChars) text = shorten(text, kMaxCellChars);
      v.set("text", text);
      v.set("num", numeric_unit(t.columns[c].unit));
      v.set("line", line);
      if (auto n = cell_number(cell); n && numeric_unit(t.columns[c].unit))
        v.set("sort", fmt::format("{:.17g}", *n));
      cells.push_back(v);
    }
    TemplateData row;
    row.set("cells", cells);
    rows.push_back(row);
  }
  view.set("rows", rows);
  view.set("shown", std::to_string(shown));
  view.set("total", std::to_string(t.rows.size()));
  view.set("truncated", shown < t.rows.size());
  return view;
}

}  // namespace perfgate
