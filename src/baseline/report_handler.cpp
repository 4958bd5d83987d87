#include "baseline/report_handler.h"

#include <algorithm>

#include <fmt/format.h>

#include "baseline/baseline_checks.h"
#include "common/errors.h"

namespace perfgate {
namespace {

constexpr std::size_t kEntry = 48;  // a vector element's or an index node's own bytes, about

bool is_gate_table(std::string_view name) {
  return name == table_name(Table::Ops) || name == table_name(Table::Regions) ||
         name == table_name(Table::Kernels) || name == table_name(Table::MemoryLiveAtPeak) ||
         name == table_name(Table::CriticalPath) || name == table_name(Table::CriticalPathOps) ||
         name == table_name(Table::CriticalPathUnits) || name == table_name(Table::CriticalPathUnitOps);
}

}  // namespace

void ReportHandler::not_an_object() const {
  throw InputError(
      fmt::format("{}: not a usable perfgate report: the top level must be an object", kept_.path()));
}

ReportHandler::Slot ReportHandler::slot() const {
  if (frames_.empty()) return Slot::Document;
  const std::string& k = key_;
  switch (frames_.back()) {
    case Slot::Top:
      if (k == "schema") return Slot::Schema;
      if (k == "tool") return Slot::Tool;
      if (k == "inputs") return Slot::Inputs;
      if (k == "families") return Slot::Families;
      if (k == "gpus") return Slot::Gpus;
      if (k == "metrics") return Slot::Metrics;
      if (k == "steps") return Slot::Steps;
      if (k == "inferred_iterations") return Slot::Inferred;
      if (k == "tables") return Slot::Tables;
      if (k == "workers") return Slot::Workers;
      return Slot::Skip;
    case Slot::Tool:
      return k == "name" ? Slot::ToolName : k == "version" ? Slot::ToolVersion : Slot::Skip;
    case Slot::Inputs:
      return Slot::Input;
    case Slot::Input:
      return k == "path"     ? Slot::InputPath
             : k == "worker" ? Slot::InputWorker
             : k == "format" ? Slot::InputFormat
             : k == "bytes"  ? Slot::InputBytes
                             : Slot::Skip;
    case Slot::Families:
      return Slot::Family;
    case Slot::Gpus:
      return Slot::Gpu;
    case Slot::Gpu:
      return k == "name" ? Slot::GpuName : Slot::Skip;
    case Slot::Metrics:
      return Slot::Metric;
    case Slot::Steps:
      return Slot::Step;
    case Slot::Step:
      return k == "duration_us" ? Slot::StepDuration : k == "in_window" ? Slot::StepInWindow : Slot::Skip;
    case Slot::Inferred:
      return k == "family"       ? Slot::InferredFamily
             : k == "kind"       ? Slot::InferredKind
             : k == "key_op"     ? Slot::InferredKeyOp
             : k == "units_us"   ? Slot::InferredUnits
             : k == "unit_names" ? Slot::InferredNames
                                 : Slot::Skip;
    case Slot::InferredUnits:
      return Slot::InferredUnit;
    case Slot::InferredNames:
      return Slot::InferredName;
    case Slot::Tables:
      return summed_table(k).empty() ? Slot::Skip : Slot::RunTable;
    case Slot::Workers:
      return Slot::Worker;
    case Slot::Worker:
      return k == "tables" ? Slot::WorkerTables : Slot::Skip;
    case Slot::WorkerTables:
      return is_gate_table(k) ? Slot::WorkerTable : Slot::Skip;
    default:
      return slot_in_table();
  }
}

ReportHandler::Slot ReportHandler::slot_in_table() const {
  switch (frames_.back()) {
    case Slot::RunTable:
    case Slot::WorkerTable:
      return key_ == "columns" ? Slot::Columns : key_ == "rows" ? Slot::Rows : Slot::Skip;
    case Slot::Columns:
      return Slot::Column;
    case Slot::Column:
      return key_ == "name" ? Slot::ColumnName : Slot::Skip;
    case Slot::Rows:
      return Slot::Row;
    case Slot::Row:
      return Slot::Cell;
    default:
      return Slot::Skip;
  }
}

bool ReportHandler::open(bool array, error_code&) {
  if (skip_depth_ > 0) {
    ++skip_depth_;
    return true;
  }
  const Slot s = slot();
  const JsonKind kind = array ? JsonKind::Array : JsonKind::Object;
  bool keep = false;  // the container is walked (else skipped)
  switch (s) {
    case Slot::Document:
      if (array) not_an_object();
      frames_.push_back(Slot::Top);
      return true;
    case Slot::Tool:
      out_.tool = kind;
      out_.tool_name = out_.tool_version = {};
      keep = !array;
      break;
    case Slot::Inputs:
      out_.inputs = kind;
      out_.input_entries.clear();
      keep = array;
      break;
    case Slot::Input:
      kept_.add(sizeof(ReportInputEntry));
      out_.input_entries.push_back({!array, {}, {}, {}, std::nullopt});
      keep = !array;
      break;
    case Slot::Families:
      out_.families = kind;
      out_.family_names.clear();
      out_.family_not_string = false;
      keep = array;
      break;
    case Slot::Family:
      out_.family_not_string = true;
      break;
    case Slot::Gpus:
      out_.gpus = kind;
      out_.gpu_names.clear();
      keep = array;
      break;
    case Slot::Gpu:
      if (!array) {
        kept_.add(sizeof(std::string));
        out_.gpu_names.emplace_back();
      }
      keep = !array;
      break;
    case Slot::Metrics:
      out_.metrics = kind;
      out_.metric_entries.clear();
      metric_index_.clear();
      keep = !array;
      break;
    case Slot::Metric:
      set_metric(kind, 0);
      break;
    case Slot::Steps:
      out_.steps = ReportStepFields{};
      out_.steps.kind = kind;
      keep = array;
      break;
    case Slot::Step:
      ++out_.steps.count;
      if (array) step_problem(ReportStepFields::Problem::NotObject);
      step_duration_.reset();
      step_in_window_ = true;
      keep = !array;
      break;
    case Slot::StepDuration:
      step_duration_.reset();
      break;
    case Slot::StepInWindow:
      step_in_window_ = false;
      break;
    case Slot::Inferred:
      out_.inferred = ReportInferredFields{};
      out_.inferred.kind = kind;
      keep = !array;
      break;
    case Slot::InferredFamily:
      out_.inferred.family = {kind, {}};
      break;
    case Slot::InferredKind:
      out_.inferred.unit_kind = {kind, {}};
      break;
    case Slot::InferredKeyOp:
      out_.inferred.key_op = {kind, {}};
      break;
    case Slot::InferredUnits:
      out_.inferred.units = kind;
      out_.inferred.units_us.clear();
      out_.inferred.bad_unit = false;
      keep = array;
      break;
    case Slot::InferredUnit:
      out_.inferred.bad_unit = true;
      break;
    case Slot::InferredNames:
      out_.inferred.names = kind;
      out_.inferred.unit_names.clear();
      out_.inferred.bad_name = false;
      keep = array;
      break;
    case Slot::InferredName:
      out_.inferred.bad_name = true;
      break;
    case Slot::Tables:
      keep = !array;
      break;
    case Slot::Workers:
      out_.workers = kind;
      out_.worker_entries.clear();
      keep = array;
      break;
    case Slot::Worker:
      kept_.add(sizeof(ReportWorkerEntry));
      out_.worker_entries.push_back({!array, JsonKind::Missing, {}});
      keep = !array;
      break;
    case Slot::WorkerTables:
      out_.worker_entries.back().tables = kind;
      out_.worker_entries.back().named_tables.clear();
      keep = !array;
      break;
    case Slot::RunTable:
      if (array) {
        erase_table(out_.run_tables, summed_table(key_));
      } else {
        begin_table(out_.run_tables, summed_table(key_));
        keep = true;
      }
      break;
    case Slot::WorkerTable:
      if (array) {
        erase_table(out_.worker_entries.back().named_tables, key_);
      } else {
        begin_table(out_.worker_entries.back().named_tables, key_);
        keep = true;
      }
      break;
    case Slot::Columns:
    case Slot::Column:
    case Slot::ColumnName:
    case Slot::Rows:
    case Slot::Row:
    case Slot::Cell:
      open_in_table(array, s);
      return true;
    default:
      break;  // a scalar's slot given a container, or Skip
  }
  if (keep)
    frames_.push_back(s);
  else
    skip_depth_ = 1;
  return true;
}

// Containers in a table; a cell that is a container is a cell with no value.
void ReportHandler::open_in_table(bool array, Slot s) {
  const JsonKind kind = array ? JsonKind::Array : JsonKind::Object;
  bool keep = false;
  switch (s) {
    case Slot::Columns:
      table_.columns(kind);
      keep = array;
      break;
    case Slot::Column:
      table_.column(!array);
      keep = !array;
      break;
    case Slot::ColumnName:
      table_.column_name(nullptr);
      break;
    case Slot::Rows:
      table_.rows(kind);
      keep = array;
      break;
    case Slot::Row:
      table_.row(array);
      keep = array;
      break;
    default:
      table_.cell(nullptr);
      break;
  }
  if (keep)
    frames_.push_back(s);
  else
    skip_depth_ = 1;
}

bool ReportHandler::close(bool, error_code&) {
  if (skip_depth_ > 0) {
    --skip_depth_;
    return true;
  }
  Slot s = frames_.back();
  frames_.pop_back();
  switch (s) {
    case Slot::Step:
      end_step();
      break;
    case Slot::Column:
      table_.end_column();
      break;
    case Slot::Columns:
      table_.columns_end();
      break;
    case Slot::Row:
      table_.end_row();
      break;
    case Slot::RunTable:
    case Slot::WorkerTable:
      table_.end();
      break;
    default:
      break;
  }
  return true;
}

// As the gate reads it: a number, its value (and its integer, where written as one within int64); a
// flag, 1 or 0.
bool ReportHandler::scalar(const JsonScalar& v, error_code&) {
  switch (v.kind) {
    case JsonScalar::Kind::String:
      return value({JsonKind::String, v.text, 0, std::nullopt});
    case JsonScalar::Kind::Int:
      return value({JsonKind::Number, {}, static_cast<double>(v.i), v.i});
    case JsonScalar::Kind::UInt:
      return value({JsonKind::Number, {}, static_cast<double>(v.u), std::nullopt});
    case JsonScalar::Kind::Double:
      return value({JsonKind::Number, {}, v.d, std::nullopt});
    case JsonScalar::Kind::Bool:
      return value({JsonKind::Bool, {}, v.b ? 1.0 : 0.0, std::nullopt});
    case JsonScalar::Kind::Null:
      break;
  }
  return value({JsonKind::Null, {}, 0, std::nullopt});
}

bool ReportHandler::value(const Scalar& v) {
  auto text = [&](KeptString& field) {
    kept_.add(v.text.size());
    field = {v.kind, std::string(v.text)};
  };
  auto string = [&](std::string& field) {
    kept_.add(v.text.size());
    field.assign(v.kind == JsonKind::String ? v.text : std::string_view());
  };
  Slot s = slot();
  switch (s) {
    case Slot::Document:
      not_an_object();
    case Slot::Schema:
      text(out_.schema);
      break;
    case Slot::Tool:
      out_.tool = v.kind;
      break;
    case Slot::ToolName:
      text(out_.tool_name);
      break;
    case Slot::ToolVersion:
      text(out_.tool_version);
      break;
    case Slot::Inputs:
      out_.inputs = v.kind;
      break;
    case Slot::Input:
      kept_.add(sizeof(ReportInputEntry));
      out_.input_entries.push_back({false, {}, {}, {}, std::nullopt});
      break;
    case Slot::InputPath:
      string(out_.input_entries.back().path);
      break;
    case Slot::InputWorker:
      string(out_.input_entries.back().worker);
      break;
    case Slot::InputFormat:
      string(out_.input_entries.back().format);
      break;
    case Slot::InputBytes:
      out_.input_entries.back().bytes =
          v.kind == JsonKind::Number ? std::optional<double>(v.number) : std::nullopt;
      break;
    case Slot::Families:
      out_.families = v.kind;
      out_.family_names.clear();
      out_.family_not_string = false;
      break;
    case Slot::Family:
      if (v.kind != JsonKind::String) {
        out_.family_not_string = true;
      } else {
        kept_.add(sizeof(std::string) + v.text.size());
        out_.family_names.emplace_back(v.text);
      }
      break;
    case Slot::Gpus:
      out_.gpus = v.kind;
      break;
    case Slot::GpuName:
      string(out_.gpu_names.back());
      break;
    case Slot::Metrics:
      out_.metrics = v.kind;
      break;
    case Slot::Metric:
      set_metric(v.kind, v.number);
      break;
    case Slot::Steps:
      out_.steps = ReportStepFields{};
      out_.steps.kind = v.kind;
      break;
    case Slot::Step:
      ++out_.steps.count;
      step_problem(ReportStepFields::Problem::NotObject);
      break;
    case Slot::StepDuration:
      step_duration_ = v.kind == JsonKind::Number ? std::optional<double>(v.number) : std::nullopt;
      break;
    case Slot::StepInWindow:
      step_in_window_ = v.kind == JsonKind::Bool && v.number != 0;  // not a flag: not in it
      break;
    case Slot::Inferred:
      out_.inferred = ReportInferredFields{};
      out_.inferred.kind = v.kind;
      break;
    case Slot::InferredFamily:
      text(out_.inferred.family);
      break;
    case Slot::InferredKind:
      text(out_.inferred.unit_kind);
      break;
    case Slot::InferredKeyOp:
      text(out_.inferred.key_op);
      break;
    case Slot::InferredUnits:
      out_.inferred.units = v.kind;
      break;
    case Slot::InferredUnit:
      if (v.kind != JsonKind::Number) {
        out_.inferred.bad_unit = true;
      } else {
        kept_.add(sizeof(double));
        out_.inferred.units_us.push_back(v.number);
      }
      break;
    case Slot::InferredNames:
      out_.inferred.names = v.kind;
      break;
    case Slot::InferredName:
      if (v.kind != JsonKind::String) {
        out_.inferred.bad_name = true;
      } else {
        kept_.add(sizeof(std::string) + v.text.size());
        out_.inferred.unit_names.emplace_back(v.text);
      }
      break;
    case Slot::Workers:
      out_.workers = v.kind;
      break;
    case Slot::Worker:
      kept_.add(sizeof(ReportWorkerEntry));
      out_.worker_entries.push_back({false, JsonKind::Missing, {}});
      break;
    case Slot::WorkerTables:
      out_.worker_entries.back().tables = v.kind;
      out_.worker_entries.back().named_tables.clear();
      break;
    default:
      scalar_in_table(s, v);
      break;
  }
  return true;
}

void ReportHandler::scalar_in_table(Slot s, const Scalar& v) {
  switch (s) {
    case Slot::RunTable:
      erase_table(out_.run_tables, summed_table(key_));
      break;
    case Slot::WorkerTable:
      erase_table(out_.worker_entries.back().named_tables, key_);
      break;
    case Slot::Columns:
      table_.columns(v.kind);
      break;
    case Slot::Column:
      table_.column(false);
      break;
    case Slot::ColumnName:
      table_.column_name(&v);
      break;
    case Slot::Rows:
      table_.rows(v.kind);
      break;
    case Slot::Row:
      table_.row(false);
      break;
    case Slot::Cell:
      table_.cell(&v);
      break;
    default:
      break;  // skipped
  }
}

// A table of the gate: replaces an earlier one of the name (the last value of a key wins).
void ReportHandler::begin_table(std::vector<std::pair<std::string, ReportTableFields>>& tables,
                                std::string_view name) {
  erase_table(tables, name);
  tables.emplace_back(std::string(name), ReportTableFields{});
  table_.begin(tables.back().second, name);
}

void ReportHandler::erase_table(std::vector<std::pair<std::string, ReportTableFields>>& tables,
                                std::string_view name) {
  std::erase_if(tables, [&](const auto& t) { return t.first == name; });
}

void ReportHandler::set_metric(JsonKind kind, double value) {
  auto [it, added] = metric_index_.try_emplace(key_, out_.metric_entries.size());
  if (added) {
    kept_.add(2 * (sizeof(std::string) + key_.size()) + kEntry + sizeof(ReportMetricEntry));
    out_.metric_entries.push_back({key_, kind, value});
  } else {
    out_.metric_entries[it->second].kind = kind;  // the last value of a key wins, in its first place
    out_.metric_entries[it->second].value = value;
  }
}

void ReportHandler::step_problem(ReportStepFields::Problem problem, double duration) {
  ReportStepFields& steps = out_.steps;
  if (steps.problem != ReportStepFields::Problem::None) return;
  steps.problem = problem;
  steps.problem_step = steps.count;
  steps.problem_duration = duration;
}

void ReportHandler::end_step() {
  if (!step_duration_) return step_problem(ReportStepFields::Problem::NoDuration);
  double d = *step_duration_;
  if (!step_duration_problem(out_.steps.count, d).empty())
    return step_problem(ReportStepFields::Problem::BadDuration, d);
  if (!step_in_window_) return;
  kept_.add(sizeof(double));
  out_.steps.window_durations_us.push_back(d);
}

}  // namespace perfgate
