// Reads a previous JSON report as the baseline: a Boost.JSON DOM of everything but its steps, of
// which only the durations are kept (report_parser.h); gzip-compressed reports are read the same
// way (zlib's gzread passes plain files through).
#include <zlib.h>

#include <boost/json/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "baseline/baseline_checks.h"
#include "baseline/report_parser.h"
#include "perfgate/baseline.h"
#include "perfgate/errors.h"

namespace perfgate {
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxReportBytes = std::size_t{1} << 30;
constexpr std::string_view kSchemaPrefix = "perfgate-report/";
constexpr std::string_view kBom = "\xEF\xBB\xBF";  // a UTF-8 byte order mark, as some editors save

struct GzFile {
  gzFile f;
  ~GzFile() {
    if (f) gzclose(f);
  }
};

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw InputError(fmt::format("{}: not a usable perfgate report: {}", path, what));
}

const json::object& object_at(const std::string& path, const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || !v->is_object()) bad(path, fmt::format("'{}' must be an object", key));
  return v->get_object();
}

const json::array& array_at(const std::string& path, const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || !v->is_array()) bad(path, fmt::format("'{}' must be an array", key));
  return v->get_array();
}

std::optional<double> number_of(const json::value& v) {
  if (v.is_double()) return v.get_double();
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return std::nullopt;
}

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : "";
}

ReportCell cell_of(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_bool()) return v.get_bool();
  if (v.is_int64()) return v.get_int64();
  if (auto n = number_of(v)) return *n;
  return std::monostate{};
}

// A table of the report, back into the model's form.
ReportTable table_of(const std::string& path, std::string_view name, const json::object& t) {
  ReportTable table;
  table.name = std::string(name);
  for (const json::value& c : array_at(path, t, "columns")) {
    if (!c.is_object()) bad(path, fmt::format("table '{}': columns must be objects", name));
    table.columns.push_back({string_at(c.get_object(), "name"), string_at(c.get_object(), "unit"), ""});
  }
  for (const json::value& r : array_at(path, t, "rows")) {
    if (!r.is_array()) bad(path, fmt::format("table '{}': rows must be arrays", name));
    std::vector<ReportCell> row;
    for (const json::value& v : r.get_array()) row.push_back(cell_of(v));
    table.rows.push_back(std::move(row));
  }
  return table;
}

InputFormat format_named(std::string_view name) {
  for (InputFormat f : {InputFormat::KinetoJson, InputFormat::KinetoJsonGzip, InputFormat::NsysSqlite})
    if (name == format_name(f)) return f;
  return InputFormat::Unknown;
}

// The writer: only perfgate's reports are read (another tool's numbers would be compared as if they
// were perfgate's); another perfgate version is noted by the gate.
void read_tool(const std::string& path, const json::object& root, Baseline& b) {
  const json::value* tool = root.if_contains("tool");
  if (!tool || !tool->is_object()) bad(path, "no 'tool' object naming the program that wrote it");
  std::string name = string_at(tool->get_object(), "name");
  b.info.tool_version = string_at(tool->get_object(), "version");
  if (name != "perfgate")
    bad(path, fmt::format("written by '{}' {}, not by perfgate", name.empty() ? "an unnamed tool" : name,
                          b.info.tool_version.empty() ? "(no version)" : b.info.tool_version));
  if (b.info.tool_version.empty()) bad(path, "'tool' has no 'version'");
}

void read_description(const std::string& path, const json::object& root, Baseline& b) {
  read_tool(path, root, b);
  for (const json::value& i : array_at(path, root, "inputs")) {
    if (!i.is_object()) bad(path, "'inputs' entries must be objects");
    const json::object& o = i.get_object();
    InputFile f;
    f.path = string_at(o, "path");
    f.worker = string_at(o, "worker");
    f.format = format_named(string_at(o, "format"));
    if (const json::value* bytes = o.if_contains("bytes"))
      f.bytes = static_cast<std::uint64_t>(number_of(*bytes).value_or(0));
    b.info.inputs.push_back(std::move(f));
  }
  std::vector<std::string> gpus;
  for (const json::value& g : array_at(path, root, "gpus"))
    if (g.is_object()) gpus.push_back(string_at(g.get_object(), "name"));
  b.gpu_counts = name_counts(gpus);
  b.info.gpu_names = sorted_distinct(std::move(gpus));
}

// The ops, user regions and kernels of every worker, summed by name: the run's sums ("run_ops")
// where the report has them, else each worker's tables.
void read_row_tables(const std::string& path, const json::object& root, Baseline& b) {
  std::vector<ReportTable> tables;
  const json::value* run_tables = root.if_contains("tables");
  for (std::string_view name : {"ops", "regions", "kernels"}) {
    std::string run_name = fmt::format("run_{}", name);
    const json::value* run =
        run_tables && run_tables->is_object() ? run_tables->get_object().if_contains(run_name) : nullptr;
    if (run && run->is_object()) {
      tables.push_back(table_of(path, name, run->get_object()));
      continue;
    }
    for (const json::value& w : array_at(path, root, "workers")) {
      if (!w.is_object()) bad(path, "'workers' entries must be objects");
      const json::object& worker_tables = object_at(path, w.get_object(), "tables");
      if (const json::value* t = worker_tables.if_contains(name); t && t->is_object())
        tables.push_back(table_of(path, name, t->get_object()));
    }
  }
  auto named = [&](std::string_view name) {
    std::vector<const ReportTable*> out;
    for (const ReportTable& t : tables)
      if (t.name == name) out.push_back(&t);
    return out;
  };
  b.ops = op_rows(named("ops"));
  b.regions = region_rows(named("regions"));
  b.kernels = kernel_rows(named("kernels"));
}

void read_measurements(const std::string& path, const ParsedReport& report, Baseline& b) {
  for (const auto& [name, value] : object_at(path, report.root, "metrics")) {
    if (!value.is_null() && !number_of(value))
      bad(path, fmt::format("metric '{}' must be a number or null", std::string_view(name)));
    std::optional<double> v = number_of(value);
    if (std::string problem = v ? metric_value_problem(std::string_view(name), *v) : ""; !problem.empty())
      bad(path, problem);
    b.metrics.emplace_back(std::string(name), v);
  }
  if (!report.has_steps) bad(path, "'steps' must be an array");
  std::size_t number = 0;
  for (const ReportStepValues& s : report.steps) {
    ++number;
    if (!s.is_object) bad(path, "'steps' entries must be objects");
    if (!s.duration_us) bad(path, "a step needs a numeric 'duration_us'");
    if (std::string problem = step_duration_problem(number, *s.duration_us); !problem.empty())
      bad(path, problem);
    if (s.in_window.value_or(true)) b.step_durations_us.push_back(*s.duration_us);
  }
  b.info.steps = b.step_durations_us.size();
  read_row_tables(path, report.root, b);
}

}  // namespace

bool is_report_file(const std::string& path) {
  // Opening a FIFO would block: anything but a regular file is left to the trace loader to refuse.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  GzFile in{gzopen(path.c_str(), "rb")};
  if (!in.f) return false;
  char head[256];
  int n = gzread(in.f, head, sizeof head);
  if (n <= 0) return false;
  std::string_view text(head, static_cast<std::size_t>(n));
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());
  std::size_t schema = text.find("\"schema\"");
  return schema != std::string_view::npos && text.find(kSchemaPrefix, schema) != std::string_view::npos &&
         text.find_first_not_of(" \t\r\n") == text.find('{');
}

Baseline read_baseline_report(const std::string& path) {
  ParsedReport report = parse_report_file(path, kMaxReportBytes);
  const json::object& root = report.root;
  std::string schema = string_at(root, "schema");
  if (!schema.starts_with(kSchemaPrefix)) bad(path, "no 'schema': \"perfgate-report/1\"");
  if (schema != kReportSchema)
    bad(path, fmt::format("schema '{}' is not one this perfgate reads ({})", schema, kReportSchema));
  Baseline b;
  b.info.path = path;
  b.info.kind = "report";
  read_description(path, root, b);
  read_measurements(path, report, b);
  return b;
}

}  // namespace perfgate
