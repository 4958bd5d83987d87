// The Boost.JSON SAX handler behind parse_report_file (report_parser.h): it walks the document
// with a stack of the containers it keeps something of, fills ReportFields as values pass, and
// skips every other value by counting its depth. Duplicate keys end as a JSON object keeps them:
// the last value wins.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "baseline/gate_table_reader.h"
#include "baseline/report_parser.h"
#include "io/json_handler.h"

namespace perfgate {

class ReportHandler : public ScalarJsonHandler<ReportHandler> {
 public:
  static constexpr std::size_t max_key_size = std::size_t{1} << 20;
  static constexpr std::size_t max_string_size = std::size_t{64} << 20;

  // Messages name `path`; the fields kept may hold at most `max_memory` bytes (0: no limit).
  ReportHandler(ReportFields& out, std::string path, std::uint64_t max_memory)
      : out_(out), kept_(std::move(path), max_memory), table_(kept_) {}

 private:
  friend ScalarJsonHandler<ReportHandler>;
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
    Families,
    Family,
    Gpus,
    Gpu,
    GpuName,
    Metrics,
    Metric,
    Steps,
    Step,
    StepDuration,
    StepInWindow,
    Inferred,
    InferredFamily,
    InferredKind,
    InferredKeyOp,
    InferredUnits,
    InferredUnit,
    InferredNames,
    InferredName,
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

  using Scalar = ReportScalar;

  // ScalarJsonHandler's: inside a skipped value nothing but its depth is followed.
  bool skipping() const { return skip_depth_ > 0; }
  bool open(bool array, error_code&);
  bool close(bool array, error_code&);
  bool key(std::string_view key, error_code&) {
    key_.assign(key);
    return true;
  }
  bool scalar(const JsonScalar& v, error_code&);

  Slot slot() const;
  Slot slot_in_table() const;
  void open_in_table(bool array, Slot slot);
  bool value(const Scalar& v);
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
  std::string key_;  // the key whose value comes next
  std::unordered_map<std::string, std::size_t> metric_index_;
  std::optional<double> step_duration_;
  bool step_in_window_ = true;
};

}  // namespace perfgate
