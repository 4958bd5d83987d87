#include "baseline/gate_table_reader.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "common/errors.h"

#include "io/input_limit.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

constexpr std::size_t kRowBytes = 48;  // a row's vector and its allocation's overhead, about

}  // namespace

void KeptBytes::add(std::size_t bytes) {
  held_ += bytes;
  check_input_memory(path_, held_, limit_);
}

std::string_view summed_table(std::string_view run_table) {
  for (auto [run, table] :
       {std::pair{Table::RunOps, Table::Ops}, std::pair{Table::RunRegions, Table::Regions},
        std::pair{Table::RunKernels, Table::Kernels}})
    if (run_table == table_name(run)) return table_name(table);
  return "";
}

// The run's sums (run_ops, run_regions, run_kernels) have the worker tables' columns of the same names.
std::vector<std::string> gate_columns(std::string_view table) {
  constexpr Table kOps = Table::Ops, kRegions = Table::Regions, kSites = Table::MemoryLiveAtPeak;
  constexpr Table kKernels = Table::Kernels;
  if (table == table_name(kOps))
    return {std::string(shared_column(kOps, Table::RunOps, "name")),
            std::string(shared_column(kOps, Table::RunOps, "device_self_us")),
            std::string(shared_column(kOps, Table::RunOps, "host_self_us")),
            std::string(shared_column(kOps, Table::RunOps, "calls"))};
  if (table == table_name(kRegions))
    return {std::string(shared_column(kRegions, Table::RunRegions, "name")),
            std::string(shared_column(kRegions, Table::RunRegions, "gpu_us")),
            std::string(shared_column(kRegions, Table::RunRegions, "cpu_total_us")),
            std::string(shared_column(kRegions, Table::RunRegions, "calls"))};
  if (table == table_name(kSites))
    return {std::string(table_column(kSites, "site")), std::string(table_column(kSites, "bytes"))};
  // A worker's critical path (baseline/baseline.h PathProfile): its steps' lengths, its ops on it.
  if (table == table_name(Table::CriticalPath))
    return {std::string(table_column(Table::CriticalPath, "length_us"))};
  if (table == table_name(Table::CriticalPathOps))
    return {std::string(table_column(Table::CriticalPathOps, "name")),
            std::string(table_column(Table::CriticalPathOps, "bound_by")),
            std::string(table_column(Table::CriticalPathOps, "time_us"))};
  // A worker's critical path per inferred unit (baseline/baseline.h UnitPath).
  if (constexpr Table kUnits = Table::CriticalPathUnits; table == table_name(kUnits))
    return {std::string(table_column(kUnits, "unit")),
            std::string(table_column(kUnits, "span_us")),
            std::string(table_column(kUnits, "length_us")),
            std::string(table_column(kUnits, "cpu_bound_us")),
            std::string(table_column(kUnits, "data_loading_us")),
            std::string(table_column(kUnits, "launch_overhead_us")),
            std::string(table_column(kUnits, "kernel_gap_us")),
            std::string(table_column(kUnits, "gpu_compute_us")),
            std::string(table_column(kUnits, "communication_us"))};
  if (table == table_name(Table::CriticalPathUnitOps))
    return {std::string(table_column(Table::CriticalPathUnitOps, "unit")),
            std::string(table_column(Table::CriticalPathUnitOps, "name")),
            std::string(table_column(Table::CriticalPathUnitOps, "bound_by")),
            std::string(table_column(Table::CriticalPathUnitOps, "time_us"))};
  return {std::string(shared_column(kKernels, Table::RunKernels, "name")),
          std::string(shared_column(kKernels, Table::RunKernels, "total_us")),
          std::string(shared_column(kKernels, Table::RunKernels, "calls"))};
}

void GateTableReader::begin(ReportTableFields& fields, std::string_view name) {
  kept_.add(sizeof(ReportTableFields) + name.size());
  fields_ = &fields;
  gate_ = gate_columns(name);
  gate_index_.assign(gate_.size(), std::nullopt);
  columns_known_ = false;
  columns_seen_ = 0;
  column_name_.reset();
  early_rows_.clear();
  row_.clear();
  cell_ = 0;
  limit_ = max_table_rows();
  kept_rows_ = 0;
  rows_seen_ = 0;
  skipping_ = false;
  checks_measures_ = false;
  for (Table t :
       {Table::Ops, Table::Regions, Table::Kernels, Table::RunOps, Table::RunRegions, Table::RunKernels})
    checks_measures_ = checks_measures_ || name == table_name(t);
  fields.rows_past_limit = 0;
  fields.table.name = std::string(name);
  std::vector<ReportColumn> columns;
  columns.reserve(gate_.size());
  for (const std::string& column : gate_) columns.push_back({column, "", ""});
  fields.table.columns = std::move(columns);
}

void GateTableReader::columns(JsonKind kind) {
  fields_->columns = kind;
  fields_->column_not_object = false;
  gate_index_.assign(gate_.size(), std::nullopt);
  columns_known_ = false;
  columns_seen_ = 0;
}

void GateTableReader::rows(JsonKind kind) {
  fields_->rows = kind;
  fields_->row_not_array = false;
  fields_->table.rows.clear();
  early_rows_.clear();
  kept_rows_ = 0;
  rows_seen_ = 0;
  fields_->rows_past_limit = 0;
}

void GateTableReader::column(bool is_object) {
  column_name_.reset();
  if (is_object) return;
  fields_->column_not_object = true;
  ++columns_seen_;
}

void GateTableReader::column_name(const ReportScalar* name) {
  if (name && name->kind == JsonKind::String)
    column_name_ = std::string(name->text);
  else
    column_name_.reset();
}

// A column's first appearance under a gate name gives that gate column's place in the rows.
void GateTableReader::end_column() {
  std::size_t index = columns_seen_++;
  if (!column_name_) return;
  for (std::size_t g = 0; g < gate_.size(); ++g)
    if (!gate_index_[g] && gate_[g] == *column_name_) gate_index_[g] = index;
}

void GateTableReader::row(bool is_array) {
  row_.clear();
  cell_ = 0;
  ++rows_seen_;
  row_problem_.clear();
  if (!is_array) fields_->row_not_array = true;
  skipping_ = limit_ > 0 && kept_rows_ >= limit_;
  if (skipping_) ++fields_->rows_past_limit;
}

// A table cell as the report model holds it (ReportCell): an integer within int64 stays one.
ReportCell GateTableReader::cell_of(const ReportScalar* v) {
  if (!v) return std::monostate{};
  switch (v->kind) {
    case JsonKind::String:
      return std::string(v->text);
    case JsonKind::Bool:
      return v->number != 0;
    case JsonKind::Number:
      return v->integer ? ReportCell(*v->integer) : ReportCell(v->number);
    default:
      return std::monostate{};
  }
}

std::string GateTableReader::measure_problem(std::size_t gate_column, const ReportCell& cell) const {
  if (!checks_measures_ || gate_column == 0) return "";  // the name
  constexpr double kMost = 9007199254740992.0;           // 2^53: beyond it a double skips integers
  // A host self time is the op's time less its children's whole times: perfgate's own reports have
  // small negative ones where a child's recorded end passes its parent's (-9 us in a PyTorch 1.13 CPU
  // run's ops table), so a negative one is read as it is written.
  bool may_be_negative = gate_[gate_column] == "host_self_us";
  std::string problem;
  if (std::holds_alternative<std::monostate>(cell)) {
    problem = "null (or not a scalar), not a number";
  } else if (const auto* i = std::get_if<std::int64_t>(&cell)) {
    if (*i < 0 && !may_be_negative) problem = fmt::format("{}, negative", *i);
    if (static_cast<double>(*i) > kMost) problem = fmt::format("{}, beyond 2^53", *i);
  } else if (const auto* d = std::get_if<double>(&cell)) {
    if (std::isnan(*d) || (*d < 0 && !may_be_negative)) problem = fmt::format("{}, negative", *d);
    if (*d > kMost) problem = fmt::format("{:g}, beyond 2^53", *d);
  } else {
    problem = "not a number";
  }
  return problem.empty() ? "" : fmt::format("'{}' is {}", gate_[gate_column], problem);
}

void GateTableReader::refuse(std::size_t row, const std::string& problem) const {
  throw InputError(fmt::format("{}: not a usable perfgate report: table '{}', row {}: {}", kept_.path(),
                               fields_->table.name, row, problem));
}

void GateTableReader::cell(const ReportScalar* value) {
  if (skipping_) return;
  std::size_t index = cell_++;
  auto gate = std::find(gate_index_.begin(), gate_index_.end(), std::optional<std::size_t>(index));
  if (columns_known_ && gate == gate_index_.end()) return;
  kept_.add(sizeof(ReportCell) + (value && value->kind == JsonKind::String ? value->text.size() : 0));
  if (!columns_known_) return row_.push_back(cell_of(value));
  if (row_.empty()) row_.resize(gate_.size());
  auto g = static_cast<std::size_t>(gate - gate_index_.begin());
  row_[g] = cell_of(value);
  if (row_problem_.empty()) row_problem_ = measure_problem(g, row_[g]);
}

void GateTableReader::end_row() {
  if (skipping_) return;
  ++kept_rows_;
  kept_.add(kRowBytes);
  if (!columns_known_) {
    early_rows_.push_back(std::move(row_));
  } else {
    if (!row_problem_.empty() && !row_.empty() && std::holds_alternative<std::string>(row_[0]))
      refuse(rows_seen_, row_problem_);
    row_.resize(gate_.size());  // cells the row did not reach have no value
    fields_->table.rows.push_back(std::move(row_));
  }
  row_ = {};
}

// Rows read before the columns are cut down now, ahead of those read after them (the table's
// order).
void GateTableReader::end() {
  std::vector<std::vector<ReportCell>> cut;
  for (std::size_t r = 0; r < early_rows_.size(); ++r) {
    std::vector<ReportCell>& whole = early_rows_[r];
    std::vector<ReportCell> row(gate_.size());
    for (std::size_t g = 0; g < gate_.size(); ++g)
      if (gate_index_[g] && *gate_index_[g] < whole.size()) row[g] = std::move(whole[*gate_index_[g]]);
    if (std::holds_alternative<std::string>(row[0]))
      for (std::size_t g = 1; g < gate_.size(); ++g)
        if (gate_index_[g] && *gate_index_[g] < whole.size())
          if (std::string problem = measure_problem(g, row[g]); !problem.empty()) refuse(r + 1, problem);
    cut.push_back(std::move(row));
  }
  auto& rows = fields_->table.rows;
  rows.insert(rows.begin(), std::make_move_iterator(cut.begin()), std::make_move_iterator(cut.end()));
  early_rows_.clear();
  fields_ = nullptr;
}

}  // namespace perfgate
