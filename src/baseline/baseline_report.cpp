// Reads a previous JSON report as the baseline: the fields the gate compares, streamed from the
// file (report_parser.h), checked here in the order of their messages; gzip-compressed reports are
// read the same way.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "baseline/baseline_checks.h"
#include "baseline/report_parser.h"
#include "common/errors.h"
#include "io/gzip.h"
#include "io/input_limit.h"

namespace perfgate {
namespace {

constexpr std::uint64_t kMaxReportBytes = std::uint64_t{1} << 30;
constexpr std::string_view kSchemaPrefix = "perfgate-report/";
// The schemas read: version 2 left out what version 1 wrote twice, and kept every field read here
// where it was (src/render/json_report.cpp), so both read alike; a minor version of 2 (2.1, or a
// later perfgate's 2.N) only adds fields, which are read where this perfgate knows them.
constexpr std::string_view kReadableSchemas =
    "perfgate-report/1, perfgate-report/2 and its minor versions 2.N";

bool readable_schema(std::string_view schema) {
  if (!schema.starts_with(kSchemaPrefix)) return false;
  std::string_view version = schema.substr(kSchemaPrefix.size());
  if (version == "1" || version == "2") return true;
  std::string_view minor = version.starts_with("2.") ? version.substr(2) : std::string_view();
  return !minor.empty() &&
         std::all_of(minor.begin(), minor.end(), [](char c) { return c >= '0' && c <= '9'; });
}

constexpr std::string_view kBom = "\xEF\xBB\xBF";  // a UTF-8 byte order mark, as some editors save

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw InputError(fmt::format("{}: not a usable perfgate report: {}", path, what));
}

// A size as a report states it: a number of bytes, else 0 (the conversion of a negative, huge or
// NaN double would be undefined).
std::uint64_t bytes_of(std::optional<double> bytes) {
  if (!bytes || !(*bytes >= 0 && *bytes < 18446744073709551616.0)) return 0;
  return static_cast<std::uint64_t>(*bytes);
}

// The writer: only perfgate's reports are read (another tool's numbers would be compared as if they
// were perfgate's); another perfgate version is noted by the gate.
void read_tool(const std::string& path, const ReportFields& report, Baseline& b) {
  if (report.tool != JsonKind::Object) bad(path, "no 'tool' object naming the program that wrote it");
  const std::string& name = report.tool_name.text;
  b.info.tool_version = report.tool_version.text;
  if (name != "perfgate")
    bad(path, fmt::format("written by '{}' {}, not by perfgate", name.empty() ? "an unnamed tool" : name,
                          b.info.tool_version.empty() ? "(no version)" : b.info.tool_version));
  if (b.info.tool_version.empty()) bad(path, "'tool' has no 'version'");
}

// The run's device families (perfgate-report/2.1; an older report states none, and its families
// stay unknown). A name this perfgate does not know (a later one's family) is not kept.
void read_families(const std::string& path, const ReportFields& report, Baseline& b) {
  if (report.families == JsonKind::Missing) return;
  if (report.families != JsonKind::Array || report.family_not_string)
    bad(path, "'families' must be an array of device family names");
  for (const std::string& name : report.family_names)
    if (std::optional<DeviceFamily> family = device_family_named(name)) b.families.add(*family);
}

void read_description(const std::string& path, const ReportFields& report, Baseline& b) {
  read_tool(path, report, b);
  if (report.inputs != JsonKind::Array) bad(path, "'inputs' must be an array");
  for (const ReportInputEntry& i : report.input_entries) {
    if (!i.is_object) bad(path, "'inputs' entries must be objects");
    b.info.inputs.push_back(ReportInput{i.path, bytes_of(i.bytes), i.format, i.worker, {}});
  }
  read_families(path, report, b);
  if (report.gpus != JsonKind::Array) bad(path, "'gpus' must be an array");
  b.gpu_counts = name_counts(report.gpu_names);
  b.info.gpu_names = sorted_distinct(report.gpu_names);
}

// A table of the report, checked as the gate reads it.
const ReportTable& table_of(const std::string& path, const ReportTableFields& t) {
  const std::string& name = t.table.name;
  if (t.columns != JsonKind::Array) bad(path, "'columns' must be an array");
  if (t.column_not_object) bad(path, fmt::format("table '{}': columns must be objects", name));
  if (t.rows != JsonKind::Array) bad(path, "'rows' must be an array");
  if (t.row_not_array) bad(path, fmt::format("table '{}': rows must be arrays", name));
  return t.table;
}

const ReportTableFields* named(const std::vector<std::pair<std::string, ReportTableFields>>& tables,
                               std::string_view name) {
  for (const auto& [n, t] : tables)
    if (n == name) return &t;
  return nullptr;
}

// The critical path by name of the worker whose mean path is longest (the critical_path and
// critical_path_ops tables each worker keeps); none where no worker keeps them. The paths per
// inferred unit likewise (critical_path_units and critical_path_unit_ops).
void read_path_profile(const std::string& path, const ReportFields& report, Baseline& b) {
  if (report.workers != JsonKind::Array) return;
  std::vector<std::pair<const ReportTable*, const ReportTable*>> workers, unit_workers;
  for (const ReportWorkerEntry& w : report.worker_entries) {
    if (!w.is_object || w.tables != JsonKind::Object) continue;
    const ReportTableFields* steps = named(w.named_tables, table_name(Table::CriticalPath));
    const ReportTableFields* ops = named(w.named_tables, table_name(Table::CriticalPathOps));
    if (steps && ops) workers.emplace_back(&table_of(path, *steps), &table_of(path, *ops));
    const ReportTableFields* units = named(w.named_tables, table_name(Table::CriticalPathUnits));
    const ReportTableFields* unit_ops = named(w.named_tables, table_name(Table::CriticalPathUnitOps));
    if (units && unit_ops) unit_workers.emplace_back(&table_of(path, *units), &table_of(path, *unit_ops));
  }
  b.path_profile = path_profile(workers);
  b.unit_paths = unit_paths(unit_workers);
}

// The ops, user regions and kernels of every worker, summed by name: the run's sums ("run_ops")
// where the report has them, else each worker's tables.
void read_row_tables(const std::string& path, const ReportFields& report, Baseline& b) {
  std::vector<const ReportTable*> tables;
  for (std::string_view name :
       {table_name(Table::Ops), table_name(Table::Regions), table_name(Table::Kernels)}) {
    if (const ReportTableFields* run = named(report.run_tables, name)) {
      tables.push_back(&table_of(path, *run));
      continue;
    }
    if (report.workers != JsonKind::Array) bad(path, "'workers' must be an array");
    for (const ReportWorkerEntry& w : report.worker_entries) {
      if (!w.is_object) bad(path, "'workers' entries must be objects");
      if (w.tables != JsonKind::Object) bad(path, "'tables' must be an object");
      if (const ReportTableFields* t = named(w.named_tables, name)) tables.push_back(&table_of(path, *t));
    }
  }
  auto of = [&](std::string_view name) {
    std::vector<const ReportTable*> out;
    for (const ReportTable* t : tables)
      if (t->name == name) out.push_back(t);
    return out;
  };
  auto note_cut = [&](const ReportTableFields& t) {
    if (t.rows_past_limit > 0) b.rows_past_limit.emplace_back(t.table.name, t.rows_past_limit);
  };
  for (const auto& [name, t] : report.run_tables) note_cut(t);
  for (const ReportWorkerEntry& w : report.worker_entries)
    for (const auto& [name, t] : w.named_tables) note_cut(t);
  b.ops = op_rows(of(table_name(Table::Ops)));
  b.regions = region_rows(of(table_name(Table::Regions)));
  b.kernels = kernel_rows(of(table_name(Table::Kernels)));
  read_path_profile(path, report, b);
}

void read_measurements(const std::string& path, const ReportFields& report, Baseline& b) {
  if (report.metrics != JsonKind::Object) bad(path, "'metrics' must be an object");
  for (const ReportMetricEntry& m : report.metric_entries) {
    if (m.kind != JsonKind::Null && m.kind != JsonKind::Number)
      bad(path, fmt::format("metric '{}' must be a number or null", m.name));
    std::optional<double> v = m.kind == JsonKind::Number ? std::optional<double>(m.value) : std::nullopt;
    if (std::string problem = v ? metric_value_problem(m.name, *v) : ""; !problem.empty()) bad(path, problem);
    // Resolved once, here: a name this build's catalog lacks (another version's) is not kept.
    if (std::optional<Metric> id = metric_id(m.name)) b.metrics.set(*id, v);
  }
  const ReportStepFields& steps = report.steps;
  if (steps.kind != JsonKind::Array) bad(path, "'steps' must be an array");
  switch (steps.problem) {
    case ReportStepFields::Problem::NotObject:
      bad(path, "'steps' entries must be objects");
    case ReportStepFields::Problem::NoDuration:
      bad(path, "a step needs a numeric 'duration_us'");
    case ReportStepFields::Problem::BadDuration:
      bad(path, step_duration_problem(steps.problem_step, steps.problem_duration));
    case ReportStepFields::Problem::None:
      break;
  }
  b.step_durations_us = steps.window_durations_us;
  b.info.steps = b.step_durations_us.size();
  // Inferred iterations (a report of an older perfgate has none): kept only whole and well formed.
  const ReportInferredFields& inferred = report.inferred;
  if (inferred.kind == JsonKind::Object && inferred.family.kind == JsonKind::String &&
      inferred.unit_kind.kind == JsonKind::String && inferred.units == JsonKind::Array &&
      !inferred.bad_unit) {
    bool durations = std::all_of(inferred.units_us.begin(), inferred.units_us.end(),
                                 [](double d) { return std::isfinite(d) && d >= 0; });
    if (durations) {
      ReportInferredIterations i;
      i.family = inferred.family.text;
      i.kind = inferred.unit_kind.text;
      i.key_op = inferred.key_op.text;
      i.units_us = inferred.units_us;
      // The units' identities only where each unit has one: else they compare unmatched.
      if (inferred.names == JsonKind::Array && !inferred.bad_name &&
          inferred.unit_names.size() == inferred.units_us.size())
        i.unit_names = inferred.unit_names;
      b.inferred_iterations = std::move(i);
    }
  }
  read_row_tables(path, report, b);
}

}  // namespace

bool is_report_file(const std::string& path) {
  // Opening a FIFO would block: anything but a regular file is left to the trace loader to refuse.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  char head[256];
  std::size_t n = 0;
  try {
    std::unique_ptr<ByteSource> in = open_maybe_gzip_file(path);
    n = read_fully(*in, head, sizeof head);
  } catch (const InputError&) {
    return false;  // unreadable, or gzip that does not inflate
  }
  if (n == 0) return false;
  std::string_view text(head, n);
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());
  std::size_t schema = text.find("\"schema\"");
  return schema != std::string_view::npos && text.find(kSchemaPrefix, schema) != std::string_view::npos &&
         text.find_first_not_of(" \t\r\n") == text.find('{');
}

Baseline read_baseline_report(const std::string& path, std::uint64_t max_memory) {
  ReportFields report = parse_report_file(path, kMaxReportBytes, max_memory);
  const std::string& schema = report.schema.text;
  if (report.schema.kind != JsonKind::String || !schema.starts_with(kSchemaPrefix))
    bad(path, fmt::format("no 'schema': \"{}\"", kReportSchema));
  if (!readable_schema(schema))
    bad(path, fmt::format("schema '{}' is not one this perfgate reads ({})", schema, kReadableSchemas));
  Baseline b;
  b.info.path = path;
  b.info.kind = "report";
  read_description(path, report, b);
  read_measurements(path, report, b);
  return b;
}

Baseline read_baseline_report(const std::string& path) {
  return read_baseline_report(path, max_input_memory_from_environment());
}

}  // namespace perfgate
