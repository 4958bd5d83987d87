// The Boost.JSON SAX handler behind parse_report_file (report_parser.h): it walks the document
// with a stack of the containers it keeps something of, fills ReportFields as values pass, and
// skips every other value by counting its depth. Duplicate keys end as a JSON object keeps them:
// the last value wins.
#pragma once

#include <boost/json/basic_parser.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "baseline/gate_table_reader.h"
#include "baseline/report_parser.h"

namespace perfgate {

class ReportHandler {
 public:
  using error_code = boost::system::error_code;
  using string_view = boost::json::string_view;

  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t{1} << 20;
  static constexpr std::size_t max_string_size = std::size_t{64} << 20;

  // Messages name `path`; the fields kept may hold at most `max_memory` bytes (0: no limit).
  ReportHandler(ReportFields& out, std::string path, std::uint64_t max_memory)
      : out_(out), kept_(std::move(path), max_memory), table_(kept_) {}

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) { return open(false); }
  bool on_object_end(std::size_t, error_code&) { return close(); }
  bool on_array_begin(error_code&) { return open(true); }
  bool on_array_end(std::size_t, error_code&) { return close(); }
  bool on_key_part(string_view s, std::size_t, error_code&);
  bool on_key(string_view s, std::size_t, error_code&);
  bool on_string_part(string_view s, std::size_t, error_code&);
  bool on_string(string_view s, std::size_t, error_code&);
  bool on_number_part(string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, string_view, error_code&);
  bool on_uint64(std::uint64_t v, string_view, error_code&);
  bool on_double(double v, string_view, error_code&);
  bool on_bool(bool v, error_code&);
  bool on_null(error_code&);
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

 private:
  // Where a value goes, from the container it is in and its key; also the containers kept.
  enum class Slot : unsigned char {
    Skip,
    Document,
    Top,
    Schema,
    Tool,
    ToolName,
    ToolVersion,
    Inputs,
    Input,
    InputPath,
    InputWorker,
    InputFormat,
    InputBytes,
    Gpus,
    Gpu,
    GpuName,
    Metrics,
    Metric,
    Steps,
    Step,
    StepDuration,
    StepInWindow,
    Tables,
    RunTable,
    Workers,
    Worker,
    WorkerTables,
    WorkerTable,
    Columns,
    Column,
    ColumnName,
    Rows,
    Row,
    Cell
  };

  using Scalar = JsonScalar;

  Slot slot() const;
  Slot slot_in_table() const;
  bool open(bool array);
  void open_in_table(bool array, Slot slot);
  bool close();
  bool scalar(const Scalar& v);
  void scalar_in_table(Slot slot, const Scalar& v);
  void begin_table(std::vector<std::pair<std::string, ReportTableFields>>& tables, std::string_view name);
  static void erase_table(std::vector<std::pair<std::string, ReportTableFields>>& tables,
                          std::string_view name);
  void set_metric(JsonKind kind, double value);
  void end_step();
  void step_problem(ReportStepFields::Problem problem, double duration = 0);
  [[noreturn]] void not_an_object() const;

  ReportFields& out_;
  KeptBytes kept_;
  GateTableReader table_;     // the table being read (tables do not nest)
  std::vector<Slot> frames_;  // the containers kept, outermost first
  std::uint64_t skip_depth_ = 0;
  std::string key_;    // the key whose value comes next
  std::string parts_;  // a key or a string arriving in parts
  std::unordered_map<std::string, std::size_t> metric_index_;
  std::optional<double> step_duration_;
  bool step_in_window_ = true;
};

}  // namespace perfgate
