// Reads a JSON report for use as a baseline by streaming it (Boost.JSON's SAX parser): only the
// fields the gate reads are kept, each as it comes, and everything else is skipped unseen. What is
// kept is counted against the input memory limit, so a hostile report (a gzip bomb of zeros, or of
// keys) costs time but not memory. baseline_report.cpp checks the fields, in the order the
// messages have always come in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

// What a value of the document was, where only its kind matters (or it is missing).
enum class JsonKind : unsigned char { Missing, Null, Bool, Number, String, Array, Object };

// A string field: its text when the value was a string, else empty (as a missing one).
struct KeptString {
  JsonKind kind = JsonKind::Missing;
  std::string text;
};

struct ReportInputEntry {
  bool is_object = true;
  std::string path, worker, format;  // "" when missing or not strings
  std::optional<double> bytes;       // when a number
};

// A metric by name: the last value given for it (as a JSON object keeps duplicate keys).
struct ReportMetricEntry {
  std::string name;
  JsonKind kind = JsonKind::Null;
  double value = 0;  // when kind is Number
};

// One table ("ops", "regions" or "kernels"), cut down to the columns the gate sums: "name", then
// the table's GPU time, CPU time (none for kernels) and "calls" columns, each cell as the report
// had it where the row reached that column (the first column of the name, as find_cell reads it).
struct ReportTableFields {
  JsonKind columns = JsonKind::Missing;
  JsonKind rows = JsonKind::Missing;
  bool column_not_object = false;   // an entry of "columns" that is not an object
  bool row_not_array = false;       // an entry of "rows" that is not an array
  ReportTable table;                // the gate's columns and their cells
  std::size_t rows_past_limit = 0;  // rows after the first --max-rows, not kept (issue 92)
};

struct ReportWorkerEntry {
  bool is_object = true;
  JsonKind tables = JsonKind::Missing;
  std::vector<std::pair<std::string, ReportTableFields>> named_tables;  // ops, regions, kernels present
};

// The steps: the first one the gate cannot use and why, else their window's durations.
struct ReportStepFields {
  JsonKind kind = JsonKind::Missing;
  std::size_t count = 0;  // entries of "steps"
  enum class Problem { None, NotObject, NoDuration, BadDuration } problem = Problem::None;
  std::size_t problem_step = 0;  // 1-based
  double problem_duration = 0;
  std::vector<double> window_durations_us;  // of the steps in the window ("in_window" missing: in it)
};

// "inferred_iterations": an object whose family, kind and units the gate compares; anything else
// (null, another shape, a unit that is no number) is no inferred iterations.
struct ReportInferredFields {
  JsonKind kind = JsonKind::Missing;
  KeptString family, unit_kind, key_op;
  JsonKind units = JsonKind::Missing;
  std::vector<double> units_us;
  bool bad_unit = false;               // an entry of "units_us" that is not a number
  JsonKind names = JsonKind::Missing;  // "unit_names" (perfgate-report/2.3)
  std::vector<std::string> unit_names;
  bool bad_name = false;  // an entry of "unit_names" that is not a string
};

struct ReportFields {
  KeptString schema;
  JsonKind tool = JsonKind::Missing;
  KeptString tool_name, tool_version;
  JsonKind inputs = JsonKind::Missing;
  std::vector<ReportInputEntry> input_entries;
  // "families" (perfgate-report/2.1): the run's device family names; missing in older reports.
  JsonKind families = JsonKind::Missing;
  std::vector<std::string> family_names;  // of the string entries
  bool family_not_string = false;         // an entry that is not a string
  JsonKind gpus = JsonKind::Missing;
  std::vector<std::string> gpu_names;  // of the object entries ("" when the name is not a string)
  JsonKind metrics = JsonKind::Missing;
  std::vector<ReportMetricEntry> metric_entries;  // in the order of first appearance
  ReportStepFields steps;
  ReportInferredFields inferred;
  std::vector<std::pair<std::string, ReportTableFields>> run_tables;  // run_ops, run_regions, run_kernels
  JsonKind workers = JsonKind::Missing;
  std::vector<ReportWorkerEntry> worker_entries;
};

// The gate's column names of a table ("ops", "regions", "kernels"): name, GPU, CPU ("" for none),
// calls.
std::vector<std::string> gate_columns(std::string_view table);
// The worker table whose rows a run table sums over the workers (run_ops: ops), or "" for none.
std::string_view summed_table(std::string_view run_table);

// Reads `path` (plain or gzip, a UTF-8 byte order mark allowed), at most `max_text` bytes of JSON
// text, holding at most `max_memory` bytes of fields (0: no limit). Throws InputError naming the
// file: unreadable, too large, invalid JSON with its byte offset, not an object at the top level;
// InputMemoryError past the memory limit.
ReportFields parse_report_file(const std::string& path, std::uint64_t max_text, std::uint64_t max_memory);

}  // namespace perfgate
