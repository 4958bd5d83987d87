// Reads a previous JSON report as the baseline. A report is small next to a trace, so it is read
// whole into a Boost.JSON DOM; gzip-compressed reports are read the same way (zlib's gzread
// passes plain files through).
#include <zlib.h>

#include <boost/json/parser.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "perfgate/baseline.h"
#include "perfgate/errors.h"

namespace perfgate {
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxReportBytes = std::size_t{1} << 30;
constexpr std::string_view kSchemaPrefix = "perfgate-report/";

struct GzFile {
  gzFile f;
  ~GzFile() {
    if (f) gzclose(f);
  }
};

std::string read_all(const std::string& path, std::size_t limit) {
  GzFile in{gzopen(path.c_str(), "rb")};
  if (!in.f) throw InputError(fmt::format("{}: cannot open the baseline: {}", path, std::strerror(errno)));
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(in.f, buffer, sizeof buffer)) > 0) {
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > limit) break;
  }
  if (n < 0) {
    int code = 0;
    const char* message = gzerror(in.f, &code);
    throw InputError(fmt::format("{}: cannot read the baseline: {}", path, message));
  }
  return text;
}

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

json::object parse_report(const std::string& path) {
  std::string text = read_all(path, kMaxReportBytes);
  if (text.size() > kMaxReportBytes) bad(path, "larger than 1 GiB");
  json::parser parser;
  boost::system::error_code ec;
  std::size_t used = parser.write(text.data(), text.size(), ec);
  if (ec) throw InputError(fmt::format("{}: invalid JSON at byte {}: {}", path, used, ec.message()));
  json::value root = parser.release();
  if (!root.is_object()) bad(path, "the top level must be an object");
  return std::move(root.get_object());
}

InputFormat format_named(std::string_view name) {
  for (InputFormat f : {InputFormat::KinetoJson, InputFormat::KinetoJsonGzip, InputFormat::NsysSqlite})
    if (name == format_name(f)) return f;
  return InputFormat::Unknown;
}

void read_description(const std::string& path, const json::object& root, Baseline& b) {
  if (const json::value* tool = root.if_contains("tool"); tool && tool->is_object())
    b.info.tool_version = string_at(tool->get_object(), "version");
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

void read_measurements(const std::string& path, const json::object& root, Baseline& b) {
  for (const auto& [name, value] : object_at(path, root, "metrics")) {
    if (!value.is_null() && !number_of(value))
      bad(path, fmt::format("metric '{}' must be a number or null", std::string_view(name)));
    b.metrics.emplace_back(std::string(name), number_of(value));
  }
  for (const json::value& s : array_at(path, root, "steps")) {
    if (!s.is_object()) bad(path, "'steps' entries must be objects");
    const json::object& o = s.get_object();
    const json::value* in_window = o.if_contains("in_window");
    const json::value* duration = o.if_contains("duration_us");
    if (!duration || !number_of(*duration)) bad(path, "a step needs a numeric 'duration_us'");
    if (!in_window || (in_window->is_bool() && in_window->get_bool()))
      b.step_durations_us.push_back(*number_of(*duration));
  }
  b.info.steps = b.step_durations_us.size();
  std::vector<ReportTable> ops, kernels;
  for (const json::value& w : array_at(path, root, "workers")) {
    if (!w.is_object()) bad(path, "'workers' entries must be objects");
    const json::object& tables = object_at(path, w.get_object(), "tables");
    if (const json::value* t = tables.if_contains("ops"); t && t->is_object())
      ops.push_back(table_of(path, "ops", t->get_object()));
    if (const json::value* t = tables.if_contains("kernels"); t && t->is_object())
      kernels.push_back(table_of(path, "kernels", t->get_object()));
  }
  std::vector<const ReportTable*> op_tables, kernel_tables;
  for (const auto& t : ops) op_tables.push_back(&t);
  for (const auto& t : kernels) kernel_tables.push_back(&t);
  b.ops = op_rows(op_tables);
  b.kernels = kernel_rows(kernel_tables);
}

}  // namespace

bool is_report_file(const std::string& path) {
  GzFile in{gzopen(path.c_str(), "rb")};
  if (!in.f) return false;
  char head[256];
  int n = gzread(in.f, head, sizeof head);
  if (n <= 0) return false;
  std::string_view text(head, static_cast<std::size_t>(n));
  std::size_t schema = text.find("\"schema\"");
  return schema != std::string_view::npos && text.find(kSchemaPrefix, schema) != std::string_view::npos &&
         text.find_first_not_of(" \t\r\n") == text.find('{');
}

Baseline read_baseline_report(const std::string& path) {
  json::object root = parse_report(path);
  std::string schema = string_at(root, "schema");
  if (!schema.starts_with(kSchemaPrefix)) bad(path, "no 'schema': \"perfgate-report/1\"");
  if (schema != kReportSchema)
    bad(path, fmt::format("schema '{}' is not one this perfgate reads ({})", schema, kReportSchema));
  Baseline b;
  b.info.path = path;
  b.info.kind = "report";
  read_description(path, root, b);
  read_measurements(path, root, b);
  return b;
}

}  // namespace perfgate
