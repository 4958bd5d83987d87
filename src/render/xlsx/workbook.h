// A thin C++ layer over libxlsxwriter for the report workbook: formats by unit, tables as sheets
// (frozen header, autofilter, widths), and text that is always a string, never a formula.
#pragma once

#include <xlsxwriter.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

// Excel's limits: a cell holds at most 32,767 characters; a sheet name at most 31.
inline constexpr std::size_t kMaxCellChars = 32767;

// `v` rounded as its unit is shown: a percentage to a tenth of a point, a time to a tenth of a
// microsecond, a ratio to two decimals, a count to a whole number (or two decimals), FLOPs to three
// significant digits; for a finding's value, which is one number to read, not to add up.
double rounded_for_unit(double v, std::string_view unit);

class Workbook {
 public:
  // Opens `path` for writing (the file is written by close()). `created` fixes the document's
  // creation time so that the same report gives the same bytes.
  // `tmpdir`: where libxlsxwriter keeps its temporary files (constant_memory mode).
  Workbook(const std::string& path, const std::string& tmpdir, bool constant_memory, time_t created);
  ~Workbook();
  Workbook(const Workbook&) = delete;
  Workbook& operator=(const Workbook&) = delete;

  // A new sheet named `title`, cut to Excel's 31 characters at a word and numbered where a sheet
  // of that name exists ("Ops (2)"); its name as written is the sheet's `name`.
  lxw_worksheet* sheet(const std::string& title);
  // Writes a table with its header in row `first_row`; returns the row after it. The header row is
  // frozen and filtered when `first_row` is 0.
  std::size_t write_table(lxw_worksheet* ws, const ReportTable& table, std::size_t first_row = 0);
  // Writes the rows of several tables of the same columns (each worker's) under one header from row
  // 0, each part's rows with its label in a first column named `label_column`; returns the row after
  // them. The parts are written where they are, not copied into one table first.
  struct Part {
    const ReportTable* table = nullptr;
    std::string_view label;
  };
  std::size_t write_parts(lxw_worksheet* ws, const std::vector<Part>& parts, std::string_view label_column);
  void text(lxw_worksheet* ws, std::size_t row, std::size_t col, std::string_view s,
            lxw_format* format = nullptr);
  // A number in its unit's format; a percentage (unit "%", 55.5) is stored as a fraction (0.555) in
  // Excel's 0.0% format.
  void number(lxw_worksheet* ws, std::size_t row, std::size_t col, std::optional<double> v,
              std::string_view unit);
  // A clickable link for an http(s) URL; anything else is written as text.
  void link(lxw_worksheet* ws, std::size_t row, std::size_t col, const std::string& url);
  // A link to cell A1 of the sheet `sheet` of this workbook, showing `text`.
  void sheet_link(lxw_worksheet* ws, std::size_t row, std::size_t col, const std::string& sheet,
                  std::string_view text);
  // A cell in the colours of a status ("fail", "warn", "inconclusive", "pass"), bold.
  void status_text(lxw_worksheet* ws, std::size_t row, std::size_t col, std::string_view text,
                   std::string_view status);
  void header(lxw_worksheet* ws, std::size_t row, const std::vector<std::string>& names);
  // Column widths from the longest text seen in each column (capped).
  void fit_columns(lxw_worksheet* ws);
  // Colours a status column: fail red, warn amber, inconclusive violet, pass green.
  void status_colors(lxw_worksheet* ws, std::size_t first_row, std::size_t last_row, std::size_t col);
  // The sheets' names as written, in order.
  const std::vector<std::string>& sheet_names() const { return sheet_names_; }
  lxw_workbook* raw() { return wb_; }
  lxw_format* bold() { return bold_; }
  // Writes the file. Throws OutputError naming the path.
  void close();

 private:
  std::string sheet_name(std::string_view title);
  lxw_format* format_for(std::string_view unit);
  // The header row of a table's columns, after a first column `label_column` where one is named.
  void table_header(lxw_worksheet* ws, std::size_t row, const ReportTable& t, std::string_view label_column);
  // A table's rows from sheet row `row`, as `columns` say (their units), each after `label` in a
  // first column where one is given; returns the row after them.
  std::size_t table_rows(lxw_worksheet* ws, std::size_t row, const ReportTable& t,
                         const ReportColumns& columns, const std::string_view* label);
  // The header row frozen (and the name column, where the table starts with one), and a filter over
  // the header and the rows up to `end`.
  void freeze_and_filter(lxw_worksheet* ws, const ReportTable& t, std::size_t first_col, std::size_t end);
  // A finite number in `format` (its unit's, or nullptr: looked up).
  void write_number(lxw_worksheet* ws, std::size_t row, std::size_t col, double v, std::string_view unit,
                    lxw_format* format);
  // The sheet's column widths so far (the last sheet's kept at hand: rows are written a sheet at a time).
  std::vector<std::size_t>& widths(lxw_worksheet* ws);
  void note_width(lxw_worksheet* ws, std::size_t col, std::size_t chars);
  // Whether a text of up to `chars` characters would widen the column (note_width's rule).
  bool may_widen(lxw_worksheet* ws, std::size_t col, std::size_t chars);

  std::string path_;
  std::string tmpdir_;
  lxw_workbook* wb_ = nullptr;
  lxw_format* header_ = nullptr;
  lxw_format* bold_ = nullptr;
  lxw_format* text_ = nullptr;
  lxw_format* wrapped_ = nullptr;
  lxw_format* link_ = nullptr;
  std::map<std::string, lxw_format*, std::less<>> status_formats_;  // by status ("fail")
  std::map<std::string, lxw_format*, std::less<>> number_formats_;  // by number format ("#,##0")
  std::map<lxw_worksheet*, std::vector<std::size_t>> widths_;
  lxw_worksheet* widths_sheet_ = nullptr;
  std::vector<std::size_t>* sheet_widths_ = nullptr;  // widths_[widths_sheet_]
  std::string cell_text_;                             // a cell's text, the buffer reused cell after cell
  std::set<std::string> used_names_;                  // the sheets' names, lower case
  std::vector<std::string> sheet_names_;
};

}  // namespace perfgate
