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

// The rows as HTML, escaped as the templates escape: a table's template data held a map per
// cell, and kainjow copies a list on every set and push_back, so building and rendering that data
// took 140 M of the 175 M instructions of the ResNet-50 page. The markup is table.html.mustache's
// for a row, written here.
std::string rows_html(const ReportTable& t, std::size_t shown, std::optional<double> window_start_us) {
  std::string out;
  for (std::size_t r = 0; r < shown; ++r) {
    out += "<tr>";
    for (std::size_t c = 0; c < t.rows[r].size() && c < t.columns.size(); ++c) {
      ReportCell cell = shown_cell(t, r, c, window_start_us);
      std::string text = cell_text(cell, t.columns[c].unit);
      bool num = numeric_unit(t.columns[c].unit);
      bool line = is_one_line_column(t.columns[c].name);
      out += num ? "<td class=\"num\"" : line ? "<td class=\"text line\"" : "<td class=\"text\"";
      if (auto n = cell_number(cell); n && num) out += fmt::format(" data-sort=\"{:.17g}\"", *n);
      if (text.size() > kMaxCellChars || (line && text.size() > 1))
        out += " title=\"" + template_escape(text) + "\"";
      if (text.size() > kMaxCellChars) text = shorten(text, kMaxCellChars);
      out += ">" + template_escape(text) + "</td>";
    }
    out += "</tr>\n";
  }
  return out;
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
  std::size_t shown = std::min(max_rows, t.rows.size());
  view.set("rows_html", rows_html(t, shown, window_start_us));
  view.set("has_rows", shown > 0);
  view.set("shown", std::to_string(shown));
  view.set("total", std::to_string(t.rows.size()));
  view.set("truncated", shown < t.rows.size());
  return view;
}

}  // namespace perfgate
