#include "render/cell_format.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "common/fixed_text.h"
#include "common/units.h"
#include "common/utf8.h"
#include "render/format.h"
#include "render/render.h"

namespace perfgate {
namespace {

// "142461.0" -> "142,461.0": `text` appended with thousands separators in the integer part
// (locale-independent).
void append_grouped(std::string& out, std::string_view text) {
  std::size_t digits_end = std::min(text.find('.'), text.size());
  std::size_t digits_start = text.starts_with('-') ? 1 : 0;
  out.append(text.substr(0, digits_start));
  for (std::size_t at = digits_start; at < digits_end; ++at) {
    if (at > digits_start && (digits_end - at) % 3 == 0) out += ',';
    out += text[at];
  }
  out.append(text.substr(digits_end));
}

// `v` in fixed notation with `precision` decimals, appended grouped.
void append_grouped_fixed(std::string& out, double v, int precision) {
  char digits[kFixedTextMax];
  char* end = write_fixed(digits, v, precision);
  append_grouped(out, std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

}  // namespace

double number_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  return cell ? cell_number(*cell).value_or(0) : 0;
}

std::string text_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  const auto* s = cell ? std::get_if<std::string>(cell) : nullptr;
  return s ? *s : "";
}

std::optional<double> optional_number_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  return cell ? cell_number(*cell) : std::nullopt;
}

std::size_t column_index(const ReportTable& t, std::string_view column) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (names_column(t.columns[c].name, column)) return c;
  return std::string_view::npos;
}

double number_in(const ReportTable& t, std::size_t row, std::size_t column) {
  return column < t.rows[row].size() ? cell_number(t.rows[row][column]).value_or(0) : 0;
}

std::string_view text_in(const ReportTable& t, std::size_t row, std::size_t column) {
  const auto* s = column < t.rows[row].size() ? std::get_if<std::string>(&t.rows[row][column]) : nullptr;
  return s ? std::string_view(*s) : std::string_view();
}

void append_number(std::string& out, double v, std::chars_format format, int precision) {
  char text[kFixedTextMax];
  char* end = format == std::chars_format::fixed
                  ? write_fixed(text, v, precision)
                  : std::to_chars(text, text + sizeof text, v, format, precision).ptr;
  out.append(text, end);
}

std::string cell_text(const ReportCell& cell, std::string_view unit) {
  std::string out;
  append_cell_text(out, cell, unit);
  return out;
}

void append_cell_text(std::string& out, const ReportCell& cell, std::string_view unit) {
  if (std::holds_alternative<std::monostate>(cell)) {
    out += "–";
  } else if (const auto* s = std::get_if<std::string>(&cell)) {
    out += *s;
  } else if (const auto* b = std::get_if<bool>(&cell)) {
    out += *b ? "yes" : "no";
  } else if (double v = *cell_number(cell); unit == "us") {
    append_grouped_fixed(out, v, 1);
  } else if (unit == "%") {
    append_number(out, v, std::chars_format::fixed, 1);
  } else if (unit == "count") {
    append_grouped_fixed(out, v, std::fabs(v - std::round(v)) < 1e-9 ? 0 : 2);
  } else {
    out += format_value(v, unit);
  }
}

std::optional<std::size_t> cell_text_length_bound(double v, std::string_view unit) {
  // The decimals append_cell_text writes for the unit.
  int decimals = 1;
  if (unit == "count")
    decimals = std::fabs(v - std::round(v)) < 1e-9 ? 0 : 2;
  else if (unit != "us" && unit != "%")
    return std::nullopt;
  // At least the magnitude of the text's number: rounding adds at most half its last digit, and the
  // margins cover the sum's own rounding (a bound one digit long at a power of ten is still a bound).
  constexpr double kHalfLastDigit[] = {0.5, 0.05, 0.005};
  double magnitude = std::fabs(v) * (1 + 1e-12) + kHalfLastDigit[decimals] + 1e-9;
  // Integer digits, by comparisons below 1e15 (log10 costs more than the numbers of a table need).
  std::size_t digits = 1;
  if (magnitude < 1e15)
    for (double power = 10; magnitude >= power; power *= 10) ++digits;
  else
    digits = static_cast<std::size_t>(std::floor(std::log10(magnitude))) + 2;
  std::size_t separators = unit == "%" ? 0 : (digits - 1) / 3;
  std::size_t sign = std::signbit(v) ? 1 : 0;  // write_fixed writes "-0.0" for -0.04
  return sign + digits + separators + (decimals > 0 ? 1 + static_cast<std::size_t>(decimals) : 0);
}

bool on_trace_clock(std::string_view table, std::string_view column) {
  return (column == shared_column(Table::Iterations, Table::GpuGaps, "start_us") &&
          (table == table_name(Table::Iterations) || table == table_name(Table::GpuGaps))) ||
         (column == table_column(Table::MemoryCurve, "time_us") && table == table_name(Table::MemoryCurve));
}

ReportCell shown_cell(const ReportTable& table, std::size_t row, std::size_t column,
                      std::optional<double> window_start_us) {
  ReportCell shifted;
  return shown_cell(table, row, column, window_start_us, shifted);
}

const ReportCell& shown_cell(const ReportTable& table, std::size_t row, std::size_t column,
                             std::optional<double> window_start_us, ReportCell& shifted) {
  const ReportCell& cell = table.rows[row][column];
  std::optional<double> n = cell_number(cell);
  if (!n || !window_start_us || !on_trace_clock(table.name, table.columns[column].name)) return cell;
  shifted = *n - *window_start_us;
  return shifted;
}

std::string_view header_unit(const ReportColumn& column) {
  std::string_view unit = column.unit;
  std::string_view suffix = unit == "%" ? "pct" : unit;
  if (unit.empty() || unit == "count" || column.name == suffix) return "";
  return unit == "us" ? "µs" : unit;
}

// Words of a column id spelt as written in prose.
namespace {

std::string_view spelt(std::string_view word) {
  static const std::unordered_map<std::string_view, std::string_view> words = {
      {"gpu", "GPU"},     {"gpus", "GPUs"}, {"cpu", "CPU"},   {"sm", "SM"},          {"tc", "Tensor Core"},
      {"id", "ID"},       {"cv", "CV"},     {"nccl", "NCCL"}, {"tflops", "TFLOP/s"}, {"hbm", "HBM"},
      {"mfu", "MFU"},     {"mbu", "MBU"},   {"dram", "DRAM"}, {"pid", "PID"},        {"tid", "TID"},
      {"flops", "FLOPs"}, {"api", "API"},   {"cuda", "CUDA"}, {"hlo", "HLO"},        {"xla", "XLA"},
      {"os", "OS"},       {"io", "I/O"},    {"dma", "DMA"},   {"us", "time"},        {"pct", "share"},
      {"tb", "TB"},       {"gb", "GB"}};
  auto it = words.find(word);
  return it == words.end() ? word : it->second;
}

// A unit's suffix on a column id, which the header's unit after it says: "utilization_pct" reads
// "Utilization (%)"; "kernel_us" keeps its word ("Kernel time (us)") unless the id says time already.
bool unit_suffix(const std::vector<std::string_view>& words, std::string_view unit) {
  std::string_view last = words.back(), before = words[words.size() - 2];
  if (last == "us" && unit == "us")
    return before == "duration" || before == "time" || before == "start" || before == "end";
  return (last == "pct" && unit == "%") || (last == "bytes" && unit == "bytes");
}

}  // namespace

std::string column_label(std::string_view id, std::string_view unit) {
  std::vector<std::string_view> words;
  for (std::size_t at = 0; at <= id.size();) {
    std::size_t end = std::min(id.find('_', at), id.size());
    if (end > at) words.push_back(id.substr(at, end - at));
    at = end + 1;
  }
  if (words.size() > 1 && unit_suffix(words, unit)) words.pop_back();
  std::string label;
  for (std::string_view w : words) {
    if (!label.empty()) label += ' ';
    label += spelt(w);
  }
  if (!label.empty() && label[0] >= 'a' && label[0] <= 'z')
    label[0] = static_cast<char>(label[0] - 'a' + 'A');
  return perfgate::words(label);  // "GPU us" is "TPU time" on a TPU's page
}

std::string column_header(const ReportColumn& column, std::string_view unit) {
  std::string header = column_label(column.name, column.unit);
  if (!unit.empty()) header.append(" (").append(unit).append(")");
  return header;
}

std::string column_header(const ReportColumn& column) {
  return column_header(column, header_unit(column));
}

std::string_view utf8_prefix(std::string_view s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// render.h: shorten's kin for the terminal, which counts columns (code points), not bytes.
std::string cut_to_columns(std::string_view text, std::size_t columns) {
  return cut_to_code_points(text, columns);
}

std::string shorten(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  return std::string(utf8_prefix(s, n - 3)) + "…";
}

}  // namespace perfgate
