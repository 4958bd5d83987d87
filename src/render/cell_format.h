// Cells of report tables as text, shared by the renderers that show tables (HTML, Markdown).
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include "report_model/report.h"

namespace perfgate {

// A cell of `row` by column name: as a number (0 when missing or text), or as text ("" when
// missing or a number).
double number_at(const ReportTable& t, std::size_t row, std::string_view column);
std::string text_at(const ReportTable& t, std::size_t row, std::string_view column);
// The number in a column, or none where the cell is empty (a row new in the run has no baseline calls).
std::optional<double> optional_number_at(const ReportTable& t, std::size_t row, std::string_view column);

// The same by a column's index (column_index: the first of that name, or npos when none), for loops
// over many rows: a lookup by name compares the names of the columns before it.
std::size_t column_index(const ReportTable& t, std::string_view column);
double number_in(const ReportTable& t, std::size_t row, std::size_t column);
std::string_view text_in(const ReportTable& t, std::size_t row, std::size_t column);

// Formatted by the column's unit ("12.5", "1.2 MB", "yes"); "–" when the cell has no value.
std::string cell_text(const ReportCell& cell, std::string_view unit);
// `v` as fmt's "{:.<precision>f}" (fixed) or "{:.<precision>g}" (general) writes it, appended to
// `out`: write_fixed and std::to_chars give the same correctly rounded digits in a fraction of
// fmt's instructions.
void append_number(std::string& out, double v, std::chars_format format, int precision);
// cell_text appended to `out` (a buffer reused cell after cell allocates nothing).
void append_cell_text(std::string& out, const ReportCell& cell, std::string_view unit);
// At least the length of cell_text of a finite number, without formatting it, for the units
// cell_text formats itself ("us", "%", "count"); nullopt for the others. The workbook sizes columns
// by the text's length and formats only a number that might widen its column.
std::optional<std::size_t> cell_text_length_bound(double v, std::string_view unit);

// The unit a column's header shows in parentheses ("µs" for a time), or "" when it would say
// nothing: text and count columns ("rank", "calls"), and a column named as its unit ("bytes").
std::string_view header_unit(const ReportColumn& column);
// A column's header as a reader reads it, from its id (the id stays in the JSON report and in the
// HTML tooltip): words for the underscores, the unit's suffix left to the unit after it,
// abbreviations spelt as written ("gpu_busy_pct" reads "GPU busy", "tc_rule" "Tensor Core rule").
std::string column_label(std::string_view id, std::string_view unit);
// The label with its unit after it, as every output that shows tables heads them (issue 93):
// "Device self time (µs)", "GPU busy (%)"; `unit` in place of header_unit's (kFromWindowStart).
std::string column_header(const ReportColumn& column, std::string_view unit);
std::string column_header(const ReportColumn& column);

// Columns on the trace clock (epoch microseconds: iteration and gap starts, memory curve times). The outputs
// that show tables show them from the worker's window start, with the header saying so.
bool on_trace_clock(std::string_view table, std::string_view column);
inline constexpr std::string_view kFromWindowStart = "from the window start";
// A cell as shown: a trace-clock value from `window_start_us` when one is given.
ReportCell shown_cell(const ReportTable& table, std::size_t row, std::size_t column,
                      std::optional<double> window_start_us);
// The same without copying a text cell: a trace-clock number is shifted into `shifted`, which the
// result then refers to.
const ReportCell& shown_cell(const ReportTable& table, std::size_t row, std::size_t column,
                             std::optional<double> window_start_us, ReportCell& shifted);

// The first `n` bytes of `s`, not ending inside a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, std::size_t n);

// `s` cut to `n` bytes with an ellipsis when longer.
std::string shorten(std::string_view s, std::size_t n);

}  // namespace perfgate
