#include "render/html/table_view.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/cell_format.h"
#include "render/html/table_order.h"
#include "render/short_labels.h"

namespace perfgate {
namespace {

// Longer cell texts (demangled kernel names, call stacks) are cut in the page, so that no two read
// the same (short_labels.h), the whole text in the cell's tooltip; the JSON report and the workbook
// have them whole.
constexpr std::size_t kMaxCellChars = 96;

bool numeric_unit(std::string_view unit) {
  return !unit.empty();
}

// Columns of long structured text, kept to one line in the page (the tooltip has all of it).
bool is_one_line_column(std::string_view name) {
  return name == "call_stack" || name == "input_shapes" || name == "module";
}

const char* cell_class(const ReportColumn& c) {
  return numeric_unit(c.unit) ? "num" : is_one_line_column(c.name) ? "text line" : "text";
}

// How rows are written: in the page with the keys the script sorts them by (data-sort); in the page
// of a table cut to its first rows, whose orders are listed instead (sort_orders); or kept aside in
// its <template>, short: no class (the column header's data-td has it) and no end tags (HTML needs
// none), a one-line cell's tooltip left to the script, which completes a row as it shows it.
enum class RowMarkup { Sortable, Listed, Aside };

// What a column's cells are written with, worked out once per column rather than per cell.
struct ColumnMarkup {
  std::string_view unit;
  std::string_view td_open;  // "<td" and the class of a page row's cell
  bool numeric = false;
  bool one_line = false;
  bool on_trace_clock = false;
};

std::vector<ColumnMarkup> column_markup(const ReportTable& t, bool aside) {
  std::vector<ColumnMarkup> out;
  for (const ReportColumn& c : t.columns) {
    std::string_view td = aside                        ? "<td"
                          : numeric_unit(c.unit)       ? "<td class=\"num\""
                          : is_one_line_column(c.name) ? "<td class=\"text line\""
                                                       : "<td class=\"text\"";
    out.push_back(
        {c.unit, td, numeric_unit(c.unit), is_one_line_column(c.name), on_trace_clock(t.name, c.name)});
  }
  return out;
}

// The rows as HTML, escaped as the templates escape: a table's template data held a map per
// cell, and kainjow copies a list on every set and push_back, so building and rendering that data
// took 140 M of the 175 M instructions of the ResNet-50 page. The markup is table.html.mustache's
// for a row, written here straight into one string.
class RowWriter {
 public:
  RowWriter(const ReportTable& t, std::optional<double> window_start_us, RowMarkup markup,
            const std::vector<std::vector<std::string>>& short_texts)
      : t_(t),
        window_start_us_(window_start_us),
        markup_(markup),
        short_texts_(short_texts),
        columns_(column_markup(t, markup == RowMarkup::Aside)) {}

  std::string rows(const std::vector<std::size_t>& rows) {
    std::string out;
    bool aside = markup_ == RowMarkup::Aside;
    for (std::size_t r : rows) {
      out += "<tr>";
      for (std::size_t c = 0; c < t_.rows[r].size() && c < columns_.size(); ++c) add_cell(out, r, c);
      out += aside ? "\n" : "</tr>\n";
    }
    return out;
  }

 private:
  void add_cell(std::string& out, std::size_t r, std::size_t c) {
    const ColumnMarkup& col = columns_[c];
    const ReportCell& cell = shown(t_.rows[r][c], col);
    // A text cell's own text, escaped on its way out; the others' (numbers, "–", "yes") formatted
    // into text_: digits, signs and units, which escaping would leave as they are.
    const auto* own = std::get_if<std::string>(&cell);
    if (!own) {
      text_.clear();
      append_cell_text(text_, cell, col.unit);
    }
    std::string_view text = own ? std::string_view(*own) : std::string_view(text_);
    auto append_text = [&](std::string_view s) {
      if (own)
        append_template_escaped(out, s);
      else
        out.append(s);
    };
    bool aside = markup_ == RowMarkup::Aside;
    out += col.td_open;
    if (auto n = cell_number(cell); n && col.numeric && markup_ == RowMarkup::Sortable) {
      out += " data-sort=\"";
      append_number(out, *n, std::chars_format::general, 17);  // as "{:.17g}"
      out += '"';
    }
    bool long_text = text.size() > kMaxCellChars;
    if (long_text || (col.one_line && text.size() > 1 && !aside)) {
      out += " title=\"";
      append_text(text);
      out += '"';
    }
    out += '>';
    if (!long_text)
      append_text(text);
    else if (c < short_texts_.size() && r < short_texts_[c].size())
      append_text(short_texts_[c][r]);
    else
      append_text(shorten(text, kMaxCellChars));
    if (!aside) out += "</td>";
  }

  // The cell as shown_cell shows it, without copying a text cell.
  const ReportCell& shown(const ReportCell& cell, const ColumnMarkup& col) {
    std::optional<double> n = col.on_trace_clock && window_start_us_ ? cell_number(cell) : std::nullopt;
    if (!n) return cell;
    shifted_ = *n - *window_start_us_;
    return shifted_;
  }

  const ReportTable& t_;
  std::optional<double> window_start_us_;
  RowMarkup markup_;
  const std::vector<std::vector<std::string>>& short_texts_;
  std::vector<ColumnMarkup> columns_;
  std::string text_;    // the cell's text, its buffer reused cell after cell
  ReportCell shifted_;  // a trace-clock cell from the window start
};

std::string rows_html(const ReportTable& t, const std::vector<std::size_t>& rows,
                      std::optional<double> window_start_us, RowMarkup markup,
                      const std::vector<std::vector<std::string>>& short_texts) {
  return RowWriter(t, window_start_us, markup, short_texts).rows(rows);
}

}  // namespace

TemplateData table_view(const ReportTable& t, std::size_t max_rows, const std::string& id,
                        std::size_t collapse_over, std::optional<double> window_start_us) {
  TemplateData view;
  view.set("collapsed", t.rows.size() > collapse_over);
  view.set("id", id);
  view.set("title", t.title);
  view.set("description", t.description);
  std::size_t shown = std::min(max_rows, t.rows.size());
  SortOrders orders = shown < t.rows.size() ? sort_orders(t, shown) : SortOrders{};
  TemplateData columns = template_list();
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const ReportColumn& c = t.columns[i];
    TemplateData col;
    if (i < orders.descending.size()) {
      col.set("desc", orders.descending[i]);
      col.set("asc", orders.ascending[i]);
      col.set("td", std::string(cell_class(c)));
    }
    col.set("name", c.name);
    if (std::string_view unit = header_unit(c); !unit.empty()) col.set("unit", std::string(unit));
    if (window_start_us && on_trace_clock(t.name, c.name)) col.set("unit", std::string(kFromWindowStart));
    col.set("num", numeric_unit(c.unit));
    columns.push_back(col);
  }
  std::vector<std::size_t> first(shown);
  for (std::size_t r = 0; r < shown; ++r) first[r] = r;
  // Over every row, as the page's sorting and filtering may show any of them together.
  std::vector<std::vector<std::string>> short_texts = short_text_cells(t, t.rows.size(), kMaxCellChars);
  if (!orders.aside.empty())
    view.set("rows_aside", rows_html(t, orders.aside, window_start_us, RowMarkup::Aside, short_texts));
  set_moved(view, "columns", std::move(columns));
  view.set("column_count", std::to_string(t.columns.size()));
  view.set("rows_html",
           rows_html(t, first, window_start_us,
                     shown == t.rows.size() ? RowMarkup::Sortable : RowMarkup::Listed, short_texts));
  view.set("has_rows", shown > 0);
  view.set("shown", std::to_string(shown));
  view.set("total", std::to_string(t.rows.size()));
  view.set("truncated", shown < t.rows.size());
  return view;
}

}  // namespace perfgate
