#include "render/html/table_view.h"
#include "render/format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <variant>
#include <vector>

#include "render/cell_format.h"
#include "render/escape.h"
#include "render/html/table_order.h"
#include "render/json_writer.h"
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

// A column's class in the page: numbers right-aligned ("n": a data table's cells are most of a
// large page, and a 128-rank page holds 14,000 numbers, 29 kB of "num" against "n"), one-line texts
// cut by the style sheet; other texts have none (the style sheet's default for a data table's cell),
// which spared a 128-rank page 116 kB of class="text".
std::string_view cell_class(const ReportColumn& c) {
  return numeric_unit(c.unit) ? "n" : is_one_line_column(c.name) ? "line" : "";
}

// How rows are written: in the page with the keys the script sorts them by (data-sort), or in the
// page of a table cut to its first rows, whose orders are listed instead (sort_orders). The rows
// kept aside for those orders are data (aside_rows_json).
enum class RowMarkup { Sortable, Listed };

// What a column's cells are written with, worked out once per column rather than per cell.
struct ColumnMarkup {
  std::string_view unit;
  std::string_view td_open;  // "<td" and the class of a page row's cell
  bool numeric = false;
  bool one_line = false;
  bool on_trace_clock = false;
  bool tensor_core_rule = false;  // the kernels' tc_rule: a pattern, shown as what decided
};

// The kernels table's tc_rule (the pattern that decided whether a kernel is Tensor Core work) as a
// reader reads it: which rule list matched, the pattern itself in the cell's tooltip.
std::string tensor_core_rule_meaning(std::string_view pattern) {
  if (pattern.empty()) return "";
  return pattern.starts_with("simt: ") ? "SIMT kernel (rules: non_tensor_core_kernels)"
                                       : words("Tensor Core kernel (rules: tensor_core_kernels)");
}

std::vector<ColumnMarkup> column_markup(const ReportTable& t) {
  std::vector<ColumnMarkup> out;
  for (const ReportColumn& c : t.columns) {
    std::string_view td = numeric_unit(c.unit)         ? "<td class=\"n\""
                          : is_one_line_column(c.name) ? "<td class=\"line\""
                                                       : "<td";
    out.push_back({c.unit, td, numeric_unit(c.unit), is_one_line_column(c.name),
                   on_trace_clock(t.name, c.name), t.name == "kernels" && c.name == "tc_rule"});
  }
  return out;
}

// A cell as the page shows it: its text (a text cell's own, or a number formatted), and what is
// shown of a text too long for the cell (cut so that no two read the same), whose whole text is the
// tooltip.
struct CellText {
  std::string_view text;
  bool own = false;  // a text cell's own text (escaped on its way out), not one formatted
  bool cut = false;
  std::string_view shown;             // the text, or its cut form
  const ReportCell* value = nullptr;  // the cell (a trace-clock one from the window start)
  std::string_view tooltip;           // where not the whole text: the pattern behind a tc_rule
};

// The rows' cells as text: a table's template data held a map per cell, and kainjow copies a list
// on every set and push_back, so building and rendering that data took 140 M of the 175 M
// instructions of the ResNet-50 page. The markup is table.html.mustache's for a row, written here
// straight into one string.
class RowWriter {
 public:
  RowWriter(const ReportTable& t, std::optional<double> window_start_us,
            const std::vector<std::vector<std::string>>& short_texts)
      : t_(t),
        window_start_us_(window_start_us),
        short_texts_(short_texts),
        columns_(column_markup(t)),
        rule_source_column_(column_index(t, "tc_rule_source")) {}

  std::string rows(const std::vector<std::size_t>& rows, RowMarkup markup) {
    std::string out;
    for (std::size_t r : rows) {
      out += "<tr>";
      for (std::size_t c = 0; c < t_.rows[r].size() && c < columns_.size(); ++c) add_cell(out, r, c, markup);
      out += "</tr>\n";
    }
    return out;
  }

  // The rows kept aside as a JSON list of rows, each a list of cells: the index of its text in
  // `texts`, or [shown, whole] for a cut text (its tooltip the whole). No class, no tooltip of a
  // one-line cell: the script completes a row from the column's header as it shows it.
  std::string aside_json(const std::vector<std::size_t>& rows, AsideTexts& texts) {
    std::string out = "[";
    char digits[24];
    auto add_index = [&](std::string_view text) {
      out.append(digits, std::to_chars(digits, digits + sizeof digits, texts.index(text)).ptr);
    };
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += i ? ",[" : "[";
      std::size_t r = rows[i];
      for (std::size_t c = 0; c < t_.rows[r].size() && c < columns_.size(); ++c) {
        if (c) out += ',';
        CellText cell = cell_text(r, c);
        std::string_view shown = cell.own ? visible(cell.shown) : cell.shown;
        if (!cell.cut) {
          add_index(shown);
          continue;
        }
        out += '[';
        add_index(shown);
        out += ',';
        add_index(cell.own ? visible(cell.text) : cell.text);
        out += ']';
      }
      out += ']';
    }
    out += ']';
    return out;
  }

 private:
  // The text as shown: `s` itself, or its visible form (valid until the next call).
  std::string_view visible(std::string_view s) {
    if (shown_as_is(s)) return s;
    visible_ = visible_text(s);
    return visible_;
  }

  CellText cell_text(std::size_t r, std::size_t c) {
    const ReportCell& cell = shown(t_.rows[r][c], columns_[c]);
    // The others' (numbers, "–", "yes") formatted into text_: digits, signs and units, which
    // escaping would leave as they are.
    CellText out;
    out.value = &cell;
    const auto* own = std::get_if<std::string>(&cell);
    if (!own) {
      text_.clear();
      append_cell_text(text_, cell, columns_[c].unit);
    }
    out.text = own ? std::string_view(*own) : std::string_view(text_);
    out.own = own != nullptr;
    if (own && columns_[c].tensor_core_rule && !own->empty()) {
      meaning_ = tensor_core_rule_meaning(*own);
      // The entry that decided and where its figures come from: its pattern, then its source.
      const std::string* source = rule_source_column_ < t_.rows[r].size()
                                      ? std::get_if<std::string>(&t_.rows[r][rule_source_column_])
                                      : nullptr;
      tooltip_ = source && !source->empty() ? *own + "\nsource: " + *source : *own;
      out.tooltip = tooltip_;
      out.text = out.shown = meaning_;
      return out;
    }
    out.cut = out.text.size() > kMaxCellChars;
    if (!out.cut) {
      out.shown = out.text;
    } else if (c < short_texts_.size() && r < short_texts_[c].size()) {
      out.shown = short_texts_[c][r];
    } else {
      cut_ = shorten(out.text, kMaxCellChars);
      out.shown = cut_;
    }
    return out;
  }

  void add_cell(std::string& out, std::size_t r, std::size_t c, RowMarkup markup) {
    const ColumnMarkup& col = columns_[c];
    CellText cell = cell_text(r, c);
    auto append_text = [&](std::string_view s) {
      if (cell.own)
        append_template_escaped(out, s);
      else
        out.append(s);
    };
    out += col.td_open;
    if (auto n = cell_number(*cell.value); n && col.numeric && markup == RowMarkup::Sortable) {
      out += " data-sort=\"";
      append_number(out, *n, std::chars_format::general, 17);  // as "{:.17g}"
      out += '"';
    }
    // A tooltip where the cell is cut: by perfgate (a long text), or perhaps by the style sheet (a
    // one-line cell; not its "–", which the script leaves too).
    if (!cell.tooltip.empty()) {
      out += " title=\"";
      append_template_escaped(out, cell.tooltip);
      out += '"';
    } else if (cell.cut || (col.one_line && cell.text.size() > 1 && cell.text != "–")) {
      out += " title=\"";
      append_text(cell.text);
      out += '"';
    }
    out += '>';
    append_text(cell.shown);
    out += "</td>";
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
  const std::vector<std::vector<std::string>>& short_texts_;
  std::vector<ColumnMarkup> columns_;
  std::string text_;                // the cell's text, its buffer reused cell after cell
  std::string cut_;                 // a long text cut where no short label was made
  std::size_t rule_source_column_;  // the kernels' tc_rule_source, or npos
  std::string meaning_;             // a tc_rule cell's text
  std::string tooltip_;             // a tc_rule cell's tooltip: its pattern and the entry's source
  std::string visible_;             // a text's visible form, where it is not shown as it is
  ReportCell shifted_;              // a trace-clock cell from the window start
};

// The header row's cells: the label, the id in the tooltip, the unit after the label; for a table cut
// to its first rows, each column's orders for the script (data-desc, data-asc, and its cells' class
// as data-td). Written here rather than as template data per column: kainjow copies each column's
// map as it is listed, which cost a page of 19 tables 0.7 M instructions.
std::string header_cells(const ReportTable& t, const SortOrders& orders,
                         std::optional<double> window_start_us) {
  std::string out;
  auto attribute = [&](std::string_view name, std::string_view value) {
    out.append(" ").append(name).append("=\"");
    append_template_escaped(out, value);
    out += '"';
  };
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const ReportColumn& c = t.columns[i];
    out += "<th scope=\"col\"";
    attribute("title", c.name);
    if (numeric_unit(c.unit)) out += " class=\"num\"";
    if (i < orders.descending.size()) {
      attribute("data-desc", orders.descending[i]);
      attribute("data-asc", orders.ascending[i]);
      if (std::string_view td = cell_class(c); !td.empty()) attribute("data-td", td);
    }
    out += '>';
    append_template_escaped(out, column_label(c.name, c.unit));
    std::string_view unit =
        window_start_us && on_trace_clock(t.name, c.name) ? kFromWindowStart : header_unit(c);
    if (!unit.empty()) {
      out += " <span class=\"unit\">(";
      append_template_escaped(out, unit);
      out += ")</span>";
    }
    out += "</th>";
  }
  return out;
}

// The table without the columns no row has a value in: they say nothing on the page (the JSON,
// Markdown and workbook keep every column); none where every column has one, or there are no rows.
// Issue 91: the roofline's host-link columns, empty in a capture without host transfers.
std::optional<ReportTable> without_empty_columns(const ReportTable& t) {
  if (t.rows.empty()) return std::nullopt;
  std::vector<bool> used(t.columns.size(), false);
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < row.size() && c < used.size(); ++c)
      used[c] = used[c] || !std::holds_alternative<std::monostate>(row[c]);
  if (std::find(used.begin(), used.end(), false) == used.end()) return std::nullopt;
  ReportTable out{t.name, t.title, t.description, {}, {}};
  std::vector<ReportColumn> columns;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (used[c]) columns.push_back(t.columns[c]);
  out.columns = ReportColumns(std::move(columns));
  out.rows.reserve(t.rows.size());
  for (const auto& row : t.rows) {
    std::vector<ReportCell>& kept = out.rows.emplace_back();
    kept.reserve(out.columns.size());
    for (std::size_t c = 0; c < row.size() && c < used.size(); ++c)
      if (used[c]) kept.push_back(row[c]);
  }
  return out;
}

}  // namespace

TemplateData table_view(const ReportTable& whole, std::size_t max_rows, const std::string& id,
                        AsideTexts& aside, std::size_t collapse_over, std::optional<double> window_start_us) {
  std::optional<ReportTable> trimmed = without_empty_columns(whole);
  const ReportTable& t = trimmed ? *trimmed : whole;
  TemplateData view;
  view.set("collapsed", t.rows.size() > collapse_over);
  view.set("id", id);
  view.set("title", t.title);
  view.set("description", t.description);
  std::size_t shown = std::min(max_rows, t.rows.size());
  SortOrders orders = shown < t.rows.size() ? sort_orders(t, shown) : SortOrders{};
  view.set("header_html", header_cells(t, orders, window_start_us));
  std::vector<std::size_t> first(shown);
  for (std::size_t r = 0; r < shown; ++r) first[r] = r;
  // Over every row, as the page's sorting and filtering may show any of them together.
  std::vector<std::vector<std::string>> short_texts = short_text_cells(t, t.rows.size(), kMaxCellChars);
  RowWriter writer(t, window_start_us, short_texts);
  if (!orders.aside.empty()) view.set("rows_aside", writer.aside_json(orders.aside, aside));
  view.set("column_count", std::to_string(t.columns.size()));
  view.set("rows_html", writer.rows(first, shown == t.rows.size() ? RowMarkup::Sortable : RowMarkup::Listed));
  view.set("has_rows", shown > 0);
  view.set("shown", std::to_string(shown));
  view.set("total", std::to_string(t.rows.size()));
  view.set("truncated", shown < t.rows.size());
  return view;
}

std::size_t AsideTexts::index(std::string_view text) {
  if (auto it = index_.find(text); it != index_.end()) return it->second;
  auto it = index_.emplace(std::string(text), texts_.size()).first;
  texts_.push_back(&it->first);
  return it->second;
}

std::string AsideTexts::json() const {
  std::string out = "[";
  for (std::size_t i = 0; i < texts_.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, *texts_[i]);
  }
  out += ']';
  return script_json_escape(out);
}

}  // namespace perfgate
