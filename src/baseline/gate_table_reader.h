// One table of a report ("ops", "regions" or "kernels") read as it streams past the report
// handler, cut down to the columns the gate sums (ReportTableFields): a row keeps the cells of
// those columns only, once the columns are known; a row before them is kept whole until the table
// ends. What it keeps is counted in the reader's KeptBytes; rows past --max-rows are counted in
// ReportTableFields::rows_past_limit and not kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baseline/report_parser.h"

namespace perfgate {

// The memory a report's reader holds, against the input memory limit.
class KeptBytes {
 public:
  KeptBytes(std::string path, std::uint64_t limit) : path_(std::move(path)), limit_(limit) {}
  // Counts `bytes` more; throws InputMemoryError past the limit.
  void add(std::size_t bytes);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::uint64_t limit_;
  std::uint64_t held_ = 0;
};

// A scalar of the report as the gate reads it.
struct ReportScalar {
  JsonKind kind = JsonKind::Null;
  std::string_view text;                // a string's
  double number = 0;                    // a number's (a flag: 1 or 0)
  std::optional<std::int64_t> integer;  // a number written as an integer within int64
};

class GateTableReader {
 public:
  explicit GateTableReader(KeptBytes& kept) : kept_(kept) {}

  // A table object of the gate begins: its fields are filled until end().
  void begin(ReportTableFields& fields, std::string_view name);
  // The table's "columns" (or "rows") value begins, of this kind (read on only for an array).
  void columns(JsonKind kind);
  void rows(JsonKind kind);
  // An entry of "columns": an object is read on (its "name", then end_column); others are only
  // counted as columns that are not objects.
  void column(bool is_object);
  void column_name(const ReportScalar* name);  // nullptr: a container
  void end_column();
  void columns_end() { columns_known_ = true; }
  // An entry of "rows": an array is read on (its cells, then end_row).
  void row(bool is_array);
  void cell(const ReportScalar* value);  // nullptr: a container, a cell with no value
  void end_row();
  void end();

 private:
  static ReportCell cell_of(const ReportScalar* value);
  // A time or count of the ops, regions or kernels table that no run can have (null, text, negative,
  // beyond 2^53), in a row with a name (the rows the gate sums), is an error naming the file, the
  // table, the row and the column (issue 92); a cell a short row does not reach reads as 0.
  std::string measure_problem(std::size_t gate_column, const ReportCell& cell) const;
  void refuse(std::size_t row, const std::string& problem) const;

  KeptBytes& kept_;
  ReportTableFields* fields_ = nullptr;
  std::vector<std::string> gate_;  // the gate's column names, in the cut-down table's order
  std::vector<std::optional<std::size_t>> gate_index_;  // their first column in the report
  bool columns_known_ = false;                          // a "columns" array has ended
  std::size_t columns_seen_ = 0;
  std::optional<std::string> column_name_;           // of the column object being read
  std::vector<std::vector<ReportCell>> early_rows_;  // whole: rows before the columns
  std::vector<ReportCell> row_;                      // the row being read
  std::size_t cell_ = 0;                             // its next cell's index
  // The table's first --max-rows rows are kept, as perfgate writes them (most time first, already
  // cut there); a forged file's millions of rows past them are counted, never held (issue 92).
  std::size_t limit_ = 0;
  std::size_t kept_rows_ = 0;
  std::size_t rows_seen_ = 0;
  bool skipping_ = false;         // the row being read is past the limit
  bool checks_measures_ = false;  // ops, regions, kernels and their run sums
  std::string row_problem_;       // the row's first impossible measure
};

}  // namespace perfgate
