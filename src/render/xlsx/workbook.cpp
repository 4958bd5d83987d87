#include "render/xlsx/workbook.h"
#include "render/xlsx/xlsx_library.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/utf8.h"
#include "render/cell_format.h"
#include "render/escape.h"

namespace perfgate {
namespace {

constexpr std::size_t kMaxColumnWidth = 60;

const char* number_format(std::string_view unit) {
  if (unit == "us") return "#,##0.0";
  if (unit == "%") return "0.0%";  // of a fraction: number() stores 55.5% as 0.555
  if (unit == "bytes" || unit == "count") return "#,##0";
  if (unit == "count-fraction") return "#,##0.00";  // a mean of counts
  if (unit == "flop") return "0.00E+00";
  if (unit == "GB/s" || unit == "ratio" || unit == "TFLOP/s") return "0.00";
  if (unit == "version") return "0.0";
  return "General";
}

}  // namespace

Workbook::Workbook(const std::string& path, const std::string& tmpdir, bool constant_memory, time_t created)
    : path_(path), tmpdir_(tmpdir) {
  lxw_workbook_options options{};
  options.constant_memory = constant_memory ? LXW_TRUE : LXW_FALSE;
  options.tmpdir = tmpdir_.data();
  wb_ = xlsx_library().workbook_new_opt(path.c_str(), &options);
  if (!wb_) throw OutputError("cannot create the workbook file");
  lxw_doc_properties properties{};
  std::string title = "perfgate report";
  properties.title = title.data();
  properties.created = created;
  xlsx_library().workbook_set_properties(wb_, &properties);
  header_ = xlsx_library().workbook_add_format(wb_);
  xlsx_library().format_set_bold(header_);
  xlsx_library().format_set_bottom(header_, LXW_BORDER_THIN);
  xlsx_library().format_set_bg_color(header_, 0xE8ECF2);
  bold_ = xlsx_library().workbook_add_format(wb_);
  xlsx_library().format_set_bold(bold_);
  // Text from traces and rule files: a string cell in the Text number format ("@"), so that editing
  // it in Excel never turns "=..." into a formula. (Debian's libxlsxwriter 1.1.4 predates
  // format_set_quote_prefix; the Text format protects the same way.)
  text_ = xlsx_library().workbook_add_format(wb_);
  xlsx_library().format_set_num_format(text_, "@");
  // Text longer than the widest column wraps instead of running under the next cells.
  wrapped_ = xlsx_library().workbook_add_format(wb_);
  xlsx_library().format_set_num_format(wrapped_, "@");
  xlsx_library().format_set_text_wrap(wrapped_);
  link_ = xlsx_library().workbook_add_format(wb_);
  xlsx_library().format_set_underline(link_, LXW_UNDERLINE_SINGLE);
  xlsx_library().format_set_font_color(link_, 0x2F6FDE);
}

Workbook::~Workbook() {
  if (wb_)
    xlsx_library().workbook_close(wb_);  // an unclosed workbook leaks; its file is removed by the caller
}

namespace {

constexpr std::size_t kMaxSheetChars = 31;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A title cut to `limit` characters at a word, without the small words a cut leaves dangling
// ("Critical path on the step timeline" -> "Critical path on the step"); cut mid-word only where one
// word is longer than the limit.
std::string cut_at_word(std::string_view title, std::size_t limit) {
  if (title.size() <= limit) return std::string(title);
  std::string_view cut = title.substr(0, limit);
  if (title[limit] != ' ' && cut.rfind(' ') != std::string_view::npos) cut = cut.substr(0, cut.rfind(' '));
  static constexpr std::string_view kDangling[] = {"a",  "an", "and", "at",  "by", "for", "in",
                                                   "of", "on", "or",  "the", "to", "with"};
  while (cut.rfind(' ') != std::string_view::npos) {
    std::string_view last = cut.substr(cut.rfind(' ') + 1);
    if (std::find(std::begin(kDangling), std::end(kDangling), last) == std::end(kDangling) && !last.empty())
      break;
    cut = cut.substr(0, cut.rfind(' '));
  }
  return std::string(cut);
}

}  // namespace

std::string Workbook::sheet_name(std::string_view title) {
  std::string name = cut_at_word(title, kMaxSheetChars);
  // Excel's sheet names are unique regardless of case; a second one gets its number.
  for (int n = 2; used_names_.count(lower(name)) > 0; ++n) {
    std::string suffix = fmt::format(" ({})", n);
    name = cut_at_word(title, kMaxSheetChars - suffix.size()) + suffix;
  }
  used_names_.insert(lower(name));
  return name;
}

lxw_worksheet* Workbook::sheet(const std::string& title) {
  std::string name = sheet_name(title);
  lxw_worksheet* ws = xlsx_library().workbook_add_worksheet(wb_, name.c_str());
  if (!ws) throw OutputError(fmt::format("cannot add the sheet '{}'", name));
  sheet_names_.push_back(name);
  return ws;
}

lxw_format* Workbook::format_for(std::string_view unit) {
  // One format per number format, not per unit: libxlsxwriter keeps the index of a format it has
  // seen, but looks a second format of the same settings up again at every cell (3,400
  // instructions each: "bytes" and "count", "ratio" and "GB/s" share theirs).
  std::string_view number = number_format(unit);
  auto it = number_formats_.find(number);
  if (it != number_formats_.end()) return it->second;
  lxw_format* f = xlsx_library().workbook_add_format(wb_);
  xlsx_library().format_set_num_format(f, number.data());
  return number_formats_.emplace(std::string(number), f).first->second;
}

std::vector<std::size_t>& Workbook::widths(lxw_worksheet* ws) {
  if (ws != widths_sheet_) {
    sheet_widths_ = &widths_[ws];  // a map's element stays where it is
    widths_sheet_ = ws;
  }
  return *sheet_widths_;
}

void Workbook::note_width(lxw_worksheet* ws, std::size_t col, std::size_t chars) {
  auto& sheet = widths(ws);
  if (sheet.size() <= col) sheet.resize(col + 1, 8);
  sheet[col] = std::max(sheet[col], std::min(chars + 2, kMaxColumnWidth));
}

bool Workbook::may_widen(lxw_worksheet* ws, std::size_t col, std::size_t chars) {
  const auto& sheet = widths(ws);
  return col >= sheet.size() || sheet[col] < std::min(chars + 2, kMaxColumnWidth);
}

void Workbook::text(lxw_worksheet* ws, std::size_t row, std::size_t col, std::string_view s,
                    lxw_format* format) {
  // libxlsxwriter escapes markup but not bytes: invalid UTF-8 and the characters XML 1.0 forbids
  // would make sharedStrings.xml unreadable. Printable ASCII (nearly every cell) has nothing to
  // repair, and is copied into a buffer reused cell after cell (libxlsxwriter copies it again).
  bool plain = s.size() <= kMaxCellChars && printable_ascii_prefix(s) == s.size();
  if (plain)
    cell_text_.assign(s);
  else
    cell_text_ = shorten(xml_safe_text(s), kMaxCellChars);
  const std::string& value = cell_text_;
  if (!format) format = value.size() > kMaxColumnWidth ? wrapped_ : text_;
  xlsx_library().worksheet_write_string(ws, static_cast<lxw_row_t>(row), static_cast<lxw_col_t>(col),
                                        value.c_str(), format);
  note_width(ws, col, std::min<std::size_t>(value.size(), kMaxColumnWidth));
}

void Workbook::link(lxw_worksheet* ws, std::size_t row, std::size_t col, const std::string& url) {
  // Only web links, short enough for Excel (255 characters); anything else stays text.
  bool web = url.starts_with("https://") || url.starts_with("http://");
  if (!web || url.size() > 255 || url.find_first_of(" \"<>") != std::string::npos)
    return text(ws, row, col, url);
  if (xlsx_library().worksheet_write_url(ws, static_cast<lxw_row_t>(row), static_cast<lxw_col_t>(col),
                                         url.c_str(), link_) != LXW_NO_ERROR)
    return text(ws, row, col, url);
  note_width(ws, col, std::min<std::size_t>(url.size(), kMaxColumnWidth));
}

void Workbook::sheet_link(lxw_worksheet* ws, std::size_t row, std::size_t col, const std::string& sheet,
                          std::string_view text) {
  // A sheet's name is quoted, its quotes doubled (Excel's reference syntax).
  std::string quoted;
  for (char c : sheet) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  std::string url = fmt::format("internal:'{}'!A1", quoted);
  std::string shown = xml_safe_text(text);
  if (xlsx_library().worksheet_write_url_opt(ws, static_cast<lxw_row_t>(row), static_cast<lxw_col_t>(col),
                                             url.c_str(), link_, shown.c_str(), nullptr) != LXW_NO_ERROR)
    return this->text(ws, row, col, text);
  note_width(ws, col, std::min<std::size_t>(shown.size(), kMaxColumnWidth));
}

void Workbook::status_text(lxw_worksheet* ws, std::size_t row, std::size_t col, std::string_view text,
                           std::string_view status) {
  struct Color {
    std::string_view status;
    lxw_color_t fill, font;
  };
  static constexpr Color kColors[] = {{"fail", 0xFBE5E4, 0xA1221D},
                                      {"warn", 0xFDF1DC, 0x8A5200},
                                      {"inconclusive", 0xEEEAFC, 0x4B3BB0},
                                      {"pass", 0xE6F4EC, 0x17693A}};
  auto it = status_formats_.find(status);
  if (it == status_formats_.end()) {
    lxw_format* f = xlsx_library().workbook_add_format(wb_);
    xlsx_library().format_set_bold(f);
    xlsx_library().format_set_num_format(f, "@");
    for (const Color& c : kColors)
      if (c.status == status) {
        xlsx_library().format_set_bg_color(f, c.fill);
        xlsx_library().format_set_font_color(f, c.font);
      }
    it = status_formats_.emplace(std::string(status), f).first;
  }
  this->text(ws, row, col, text, it->second);
}

double rounded_for_unit(double v, std::string_view unit) {
  // Multiplied and divided by a power of ten, so that 55.5 is the double nearest 55.5.
  auto decimals = [v](int n) { return std::round(v * std::pow(10.0, n)) / std::pow(10.0, n); };
  auto significant = [&](int digits) {
    return v == 0 ? v : decimals(digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  };
  if (unit == "%" || unit == "us" || unit == "version") return decimals(1);
  if (unit == "bytes") return std::round(v);
  if (unit == "count") return std::fabs(v - std::round(v)) < 1e-9 ? std::round(v) : decimals(2);
  if (unit == "ratio" || unit == "GB/s") return decimals(2);
  if (unit == "flop" || unit == "TFLOP/s") return significant(3);
  return significant(4);
}

void Workbook::number(lxw_worksheet* ws, std::size_t row, std::size_t col, std::optional<double> v,
                      std::string_view unit) {
  if (!v || !std::isfinite(*v)) return;  // an empty cell: not applicable
  write_number(ws, row, col, *v, unit, nullptr);
}

void Workbook::write_number(lxw_worksheet* ws, std::size_t row, std::size_t col, double v,
                            std::string_view unit, lxw_format* format) {
  if (unit == "count" && v != std::round(v)) {
    unit = "count-fraction";
    format = nullptr;
  }
  // Excel's percentages are fractions in a percent format, so that formulas on them work.
  double stored = unit == "%" ? v / 100 : v;
  xlsx_library().worksheet_write_number(ws, static_cast<lxw_row_t>(row), static_cast<lxw_col_t>(col), stored,
                                        format ? format : format_for(unit));
  // Formatting a number only to measure it was 14 M of the workbook's 225 M instructions (ResNet-50).
  std::optional<std::size_t> bound = cell_text_length_bound(v, unit);
  if (bound && !may_widen(ws, col, *bound + 2)) return;
  cell_text_.clear();
  append_cell_text(cell_text_, ReportCell(v), unit);
  note_width(ws, col, cell_text_.size() + 2);
}

void Workbook::header(lxw_worksheet* ws, std::size_t row, const std::vector<std::string>& names) {
  for (std::size_t c = 0; c < names.size(); ++c) text(ws, row, c, names[c], header_);
}

void Workbook::table_header(lxw_worksheet* ws, std::size_t row, const ReportTable& t,
                            std::string_view label_column) {
  std::vector<std::string> names;
  if (!label_column.empty()) names.emplace_back(label_column);
  for (const auto& c : t.columns) names.push_back(column_header(c));
  header(ws, row, names);
}

std::size_t Workbook::table_rows(lxw_worksheet* ws, std::size_t row, const ReportTable& t,
                                 const ReportColumns& columns, const std::string_view* label) {
  std::size_t first_col = label ? 1 : 0;
  // Each column's number format looked up once, not a cell at a time.
  std::vector<lxw_format*> formats;
  for (const ReportColumn& c : columns) formats.push_back(format_for(c.unit));
  for (const std::vector<ReportCell>& cells : t.rows) {
    if (label) text(ws, row, 0, *label);
    for (std::size_t c = 0; c < columns.size() && c < cells.size(); ++c) {
      const ReportCell& value = cells[c];
      if (const auto* s = std::get_if<std::string>(&value)) {
        text(ws, row, c + first_col, *s);
      } else if (const auto* b = std::get_if<bool>(&value)) {
        text(ws, row, c + first_col, *b ? "yes" : "no");
      } else if (std::optional<double> v = cell_number(value); v && std::isfinite(*v)) {
        write_number(ws, row, c + first_col, *v, columns[c].unit, formats[c]);
      }
    }
    ++row;
  }
  return row;
}

void Workbook::freeze_and_filter(lxw_worksheet* ws, const ReportTable& t, std::size_t first_col,
                                 std::size_t end) {
  // The header row, and the name column when the table starts with one, stay in view.
  bool name_first = !t.columns.empty() && t.columns[0].unit.empty();
  xlsx_library().worksheet_freeze_panes(ws, 1, static_cast<lxw_col_t>(name_first ? first_col + 1 : 0));
  std::size_t columns = first_col + t.columns.size();
  if (columns > 0)
    xlsx_library().worksheet_autofilter(ws, 0, 0, static_cast<lxw_row_t>(std::max<std::size_t>(end - 1, 1)),
                                        static_cast<lxw_col_t>(columns - 1));
}

std::size_t Workbook::write_table(lxw_worksheet* ws, const ReportTable& t, std::size_t first_row) {
  table_header(ws, first_row, t, "");
  std::size_t end = table_rows(ws, first_row + 1, t, t.columns, nullptr);
  if (first_row == 0) freeze_and_filter(ws, t, 0, end);
  return end;
}

std::size_t Workbook::write_parts(lxw_worksheet* ws, const std::vector<Part>& parts,
                                  std::string_view label_column) {
  if (parts.empty()) return 0;
  // The first part's columns head the sheet (a table has the same declared columns in every worker).
  const ReportTable& first = *parts.front().table;
  table_header(ws, 0, first, label_column);
  std::size_t row = 1;
  for (const Part& part : parts)
    row = table_rows(ws, row, *part.table, first.columns, label_column.empty() ? nullptr : &part.label);
  freeze_and_filter(ws, first, label_column.empty() ? 0 : 1, row);
  return row;
}

void Workbook::fit_columns(lxw_worksheet* ws) {
  const auto& widths = widths_[ws];
  for (std::size_t c = 0; c < widths.size(); ++c)
    xlsx_library().worksheet_set_column(ws, static_cast<lxw_col_t>(c), static_cast<lxw_col_t>(c),
                                        static_cast<double>(widths[c]), nullptr);
}

void Workbook::status_colors(lxw_worksheet* ws, std::size_t first_row, std::size_t last_row,
                             std::size_t col) {
  if (last_row < first_row) return;
  struct Color {
    const char* status;
    lxw_color_t fill, font;
  };
  for (const Color& c : {Color{"fail", 0xFBE5E4, 0xA1221D}, Color{"warn", 0xFDF1DC, 0x8A5200},
                         Color{"inconclusive", 0xEEEAFC, 0x4B3BB0}, Color{"pass", 0xE6F4EC, 0x17693A}}) {
    lxw_format* f = xlsx_library().workbook_add_format(wb_);
    xlsx_library().format_set_bg_color(f, c.fill);
    xlsx_library().format_set_font_color(f, c.font);
    lxw_conditional_format cf{};
    cf.type = LXW_CONDITIONAL_TYPE_CELL;
    cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
    std::string quoted = fmt::format("\"{}\"", c.status);
    cf.value_string = quoted.data();
    cf.format = f;
    xlsx_library().worksheet_conditional_format_range(
        ws, static_cast<lxw_row_t>(first_row), static_cast<lxw_col_t>(col), static_cast<lxw_row_t>(last_row),
        static_cast<lxw_col_t>(col), &cf);
  }
}

void Workbook::close() {
  lxw_error error = xlsx_library().workbook_close(wb_);
  wb_ = nullptr;
  if (error != LXW_NO_ERROR)
    throw OutputError(fmt::format("cannot write the workbook: {}", xlsx_library().lxw_strerror(error)));
}

}  // namespace perfgate
