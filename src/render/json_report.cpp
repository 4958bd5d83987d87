// The JSON report: the report model, versioned ("schema": "perfgate-report/2.7"), each fact once. It
// is also what --baseline and history import read, which read version 1 and every 2.N too: version 2
// keeps every field they read where version 1 had it, and a minor version only adds fields. Version 1
// wrote each GPU three times (the run's "gpus", the worker's "gpus" and the worker's "gpus" table)
// and the system configuration twice (the worker's "system" and its "system" table); version 2 writes
// the run's "gpus" (with the table's kernel_us and busy_us) and the worker's "system", and leaves out
// the worker's "gpus" and the two tables, which are views of them. Version 2.1 adds the run's device
// "families" and each worker's "family" in its "system"; 2.2 the "invariants" the run's and each
// worker's numbers broke; 2.5 the run's "capture" profile (docs/reports.md, "The JSON report").
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "render/format.h"
#include "render/json_gate.h"
#include "render/json_report.h"
#include "render/json_writer.h"
#include "render/render.h"

namespace perfgate {
namespace {

// `keys`: the metrics' names (kMetricNames), made once a report for each worker's ~240.
void write_metrics(JsonWriter& j, const MetricValues& metrics, JsonKeyRun& keys) {
  std::array<double, kMetricCount> values;  // a NaN where a metric does not apply: null, as a NaN
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = metrics.at(i).value_or(std::numeric_limits<double>::quiet_NaN());
  j.key("metrics").begin_object().members(keys, values);
  j.end_object();
}

// The breakdown's parts as keys checked when compiled.
template <std::size_t... I>
consteval std::array<JsonKey, sizeof...(I)> breakdown_keys(std::index_sequence<I...>) {
  return {JsonKey::known(kBreakdownPartNames[I])...};
}
constexpr auto kBreakdownKeys = breakdown_keys(std::make_index_sequence<kBreakdownParts>());

void write_step(JsonWriter& j, const ReportStep& s) {
  j.begin_object();
  j.key("name").value(s.name);
  j.key("number").value(s.number);
  if (s.start_us) j.key("start_us").value(*s.start_us);
  j.key("duration_us").value(s.duration_us);
  if (s.gpu_activities) j.key("gpu_activities").value(*s.gpu_activities);
  j.key("in_window").value(s.in_window);
  if (s.breakdown_us) {
    j.key("breakdown_us").begin_object();
    for (std::size_t i = 0; i < kBreakdownParts; ++i) j.key(kBreakdownKeys[i]).value((*s.breakdown_us)[i]);
    j.end_object();
  }
  j.end_object();
}

void write_steps(JsonWriter& j, JsonKey key, const std::vector<ReportStep>& steps) {
  j.key(key).begin_array();
  for (const auto& s : steps) write_step(j, s);
  j.end_array();
}

void write_inferred_iterations(JsonWriter& j, const std::optional<ReportInferredIterations>& inferred) {
  j.key("inferred_iterations");
  if (!inferred) {
    j.null();
    return;
  }
  const ReportInferredIterations& i = *inferred;
  j.begin_object();
  j.key("family").value(i.family);
  j.key("kind").value(i.kind);
  j.key("key_op").value(i.key_op);
  j.key("units_us").begin_array();
  for (double u : i.units_us) j.value(u);
  j.end_array();
  j.key("unit_names").begin_array();
  for (const std::string& name : i.unit_names) j.value(name);
  j.end_array();
  j.key("set_aside").value(i.set_aside);
  j.key("work_per_unit").value(i.work_per_unit);
  j.key("host_work").value(i.host_work);
  j.key("steps").value(i.steps);
  j.key("workers").value(i.workers);
  j.end_object();
}

void write_gpus(JsonWriter& j, const std::vector<ReportGpu>& gpus) {
  j.key("gpus").begin_array();
  for (const auto& g : gpus) {
    j.begin_object();
    j.key("worker").value(g.worker);
    j.key("id").value(g.device);
    // What the trace does not say is null, as in the per-worker gpus table.
    j.key("name").value(g.name.empty() ? std::optional<std::string>() : g.name);
    j.key("compute_capability")
        .value(g.compute_capability.empty() ? std::optional<std::string>() : g.compute_capability);
    j.key("architecture").value(g.architecture.empty() ? std::optional<std::string>() : g.architecture);
    j.key("architecture_inferred").value(g.architecture_inferred);
    j.key("sm_count").value(g.sm_count > 0 ? std::optional<std::int64_t>(g.sm_count) : std::nullopt);
    j.key("memory_bytes")
        .value(g.memory_bytes > 0 ? std::optional<std::uint64_t>(g.memory_bytes) : std::nullopt);
    j.key("kernel_count").value(g.kernel_count);
    j.key("kernel_us").value(static_cast<double>(g.kernel_ns) / 1e3);
    j.key("busy_us").value(static_cast<double>(g.busy_ns) / 1e3);
    j.key("utilization_pct").value(g.utilization_pct);
    j.key("busy_pct").value(g.busy_pct);
    j.key("idle_pct").value(g.idle_pct);
    j.key("sm_efficiency_pct").value(g.sm_efficiency_pct);
    j.key("achieved_occupancy_pct").value(g.achieved_occupancy_pct);
    j.key("tensor_core_kernel_time_pct").value(g.tensor_core_kernel_time_pct);
    j.end_object();
  }
  j.end_array();
}

void write_strings(JsonWriter& j, JsonKey key, const std::vector<std::string>& items) {
  j.key(key).begin_array();
  for (const auto& s : items) j.value(s);
  j.end_array();
}

// The capture profile (perfgate-report/2.5): what the capture is, each field with its evidence;
// null or "unknown" where the trace cannot tell.
void write_capture(JsonWriter& j, const CaptureProfile& c, const std::string* line) {
  j.key("capture").begin_object();
  if (line) j.key("line").value(*line);
  j.key("devices").begin_array();
  for (const CaptureDevices& d : c.devices) {
    j.begin_object();
    j.key("kind").value(device_kind_name(d.kind));
    j.key("vendor").value(device_vendor_name(d.vendor));
    j.key("model").value(d.model);
    j.key("count").value(static_cast<std::uint64_t>(d.count));
    j.key("evidence").value(d.evidence);
    j.end_object();
  }
  j.end_array();
  j.key("frameworks").begin_array();
  for (const CaptureFramework& f : c.frameworks)
    j.begin_object().key("name").value(f.name).key("evidence").value(f.evidence).end_object();
  j.end_array();
  j.key("workload").value(capture_workload_name(c.workload));
  j.key("workload_evidence").value(c.workload_evidence);
  j.key("phases").begin_object();
  j.key("window_us").value(c.phases.window_us);
  j.key("setup_us").value(c.phases.setup_us);
  j.key("teardown_us").value(c.phases.teardown_us);
  j.key("profiler_us").value(c.phases.profiler_us);
  j.key("steady_us").value(c.phases.steady_us);
  j.key("evidence").value(c.phases.evidence);
  j.end_object();
  write_strings(j, "overridden", c.overridden);
  j.end_object();
}

// Report invariants the numbers broke (perfgate-report/2.2): each with what it found, what the
// report withheld and the assumption in doubt.
void write_invariants(JsonWriter& j, const std::vector<InvariantViolation>& violations) {
  j.key("invariants").begin_array();
  for (const InvariantViolation& v : violations) {
    j.begin_object();
    j.key("invariant").value(invariant_info(v.invariant).name);
    j.key("found").value(v.found);
    write_strings(j, "withheld", v.withheld);
    j.key("assumption").value(v.assumption);
    j.end_object();
  }
  j.end_array();
}

void write_window(JsonWriter& j, const ReportWindow& w) {
  j.key("window").begin_object();
  j.key("step_source").value(w.step_source);
  j.key("start_us").value(w.start_us);
  j.key("end_us").value(w.end_us);
  j.key("wall_us").value(w.wall_us);
  j.key("steps_total").value(static_cast<std::uint64_t>(w.steps_total));
  j.key("steps_in_window").value(static_cast<std::uint64_t>(w.steps_in_window));
  j.key("iter_start").value(w.iter_start);
  j.key("iter_stop").value(w.iter_stop);
  j.end_object();
}

void write_system(JsonWriter& j, const ReportSystem& s) {
  j.key("system").begin_object();
  j.key("trace_format").value(s.trace_format);
  j.key("family").value(s.family ? std::optional<std::string_view>(device_family_name(*s.family))
                                 : std::nullopt);
  j.key("schema_version").value(s.schema_version);
  j.key("trace_name").value(s.trace_name);
  j.key("rank").value(s.rank);
  j.key("world_size").value(s.world_size);
  j.key("distributed_backend").value(s.distributed_backend);
  j.key("base_time_ns").value(s.base_time_ns);
  j.key("attributes").begin_object();
  for (const auto& [k, v] : s.attributes) j.key(k).value(v);
  j.end_object();
  j.end_object();
}

void write_cell(JsonWriter& j, const ReportCell& cell) {
  std::visit(
      [&](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
          j.null();
        else
          j.value(v);
      },
      cell);
}

// A worker's tables that only show what the report holds elsewhere: its "system" and the run's
// "gpus" (the pages and the workbook show them as tables).
constexpr std::string_view kViewTables[] = {table_name(Table::System), table_name(Table::Gpus)};

// Each table's "columns" as last written, by table name: every worker of a run writes the same
// columns (45 a worker in a folder of tiny ranks, ~20 k instructions), so a worker whose columns
// equal the last ones at the same depth copies their text. Columns held once for every table made
// from one declaration (ReportColumns::shares) are the same without comparing their names.
class WrittenColumns {
 public:
  void write(JsonWriter& j, const ReportTable& t) {
    Written& last = written(t.name);
    if (last.depth == j.depth() && last.indent == j.indent() && !last.text.empty() &&
        ((last.held.shares(t.columns) && last.held.size() == t.columns.size()) ||
         same(last.columns, t.columns))) {
      j.json(last.text);
      return;
    }
    JsonWriter::Mark mark = j.mark();
    j.begin_array();
    for (const auto& c : t.columns)
      j.begin_object().key("name").value(c.name).key("unit").value(c.unit).end_object();
    j.end_array();
    std::optional<std::string_view> text = j.since(mark);
    last.depth = j.depth();
    last.indent = j.indent();
    last.text = text ? std::string(*text) : std::string();
    last.columns.clear();
    for (const auto& c : t.columns) last.columns.emplace_back(c.name, c.unit);
    last.held = t.columns;
  }

 private:
  using NameAndUnit = std::pair<std::string, std::string>;
  struct Written {
    std::string table;
    std::size_t depth = 0;
    int indent = 0;
    std::vector<NameAndUnit> columns;
    ReportColumns held;  // the columns themselves, shared where the table's are
    std::string text;
  };
  static bool same(const std::vector<NameAndUnit>& written, const ReportColumns& columns) {
    return written.size() == columns.size() && std::equal(written.begin(), written.end(), columns.begin(),
                                                          [](const NameAndUnit& w, const ReportColumn& c) {
                                                            return w.first == c.name && w.second == c.unit;
                                                          });
  }
  // A table's last columns. Every worker writes its tables in one order, so the one after the last
  // found is nearly always the one asked for: one comparison of names, not a tree's four or five.
  Written& written(const std::string& table) {
    if (next_ < by_table_.size() && by_table_[next_].table == table) return by_table_[next_++];
    auto it =
        std::find_if(by_table_.begin(), by_table_.end(), [&](const Written& w) { return w.table == table; });
    if (it == by_table_.end()) {
      by_table_.emplace_back().table = table;
      it = by_table_.end() - 1;
    }
    next_ = static_cast<std::size_t>(it - by_table_.begin()) + 1;
    return *it;
  }
  std::vector<Written> by_table_;
  std::size_t next_ = 0;
};

// A table as its columns (name and unit) and rows of cells in column order.
void write_tables(JsonWriter& j, const std::vector<ReportTable>& tables, WrittenColumns& written) {
  j.key("tables").begin_object();
  for (const auto& t : tables) {
    if (std::find(std::begin(kViewTables), std::end(kViewTables), t.name) != std::end(kViewTables)) continue;
    j.key(t.name).begin_object();
    j.key("title").value(t.title);
    j.key("columns");
    written.write(j, t);
    j.key("rows").begin_array();
    for (const auto& row : t.rows) {
      j.begin_array();
      for (const auto& cell : row) write_cell(j, cell);
      j.end_array();
    }
    j.end_array();
    j.end_object();
  }
  j.end_object();
}

// What every worker of a run writes alike, made once a report.
struct WrittenAlike {
  JsonKeyRun metric_keys{kMetricNames};
  WrittenColumns columns;
};

// A worker past --detailed-workers is written on one line: a run folder of 65,536 ranks wrote a
// 1.25 GB report, 0.80 GB without its summaries' indentation, and a rank's line is what
// `grep '"name": "rank-517"'` finds.
void write_worker(JsonWriter& j, const ReportWorker& w, bool with_metrics, WrittenAlike& alike) {
  j.begin_object();
  int indent = j.indent();
  if (!w.detailed) j.set_indent(JsonWriter::kOneLine);
  j.key("name").value(w.name);
  j.key("input").value(w.input_path);
  j.key("detailed").value(w.detailed);
  if (!w.detailed_as.empty()) j.key("detailed_as").value(w.detailed_as);
  if (!w.roofline_note.empty()) j.key("roofline_note").value(w.roofline_note);
  // Each worker's own capture profile (2.6): the run's sums them, and says where they differ.
  write_capture(j, w.capture, nullptr);
  write_window(j, w.window);
  if (with_metrics)
    write_metrics(j, w.metrics, alike.metric_keys);
  else
    j.key("metrics").begin_object().end_object();
  write_steps(j, "steps", w.steps);
  j.key("dropped_steps").begin_array();
  for (const auto& d : w.dropped_steps) {
    j.begin_object();
    j.key("name").value(d.name);
    j.key("reason").value(d.reason);
    j.end_object();
  }
  j.end_array();
  write_system(j, w.system);
  j.key("timeline").begin_object();
  j.key("step").value(w.timeline.step);
  j.key("step_start_us").value(w.timeline.step_start_us);
  j.key("step_duration_us").value(w.timeline.step_duration_us);
  j.key("activities").value(static_cast<std::uint64_t>(w.timeline.activities));
  if (w.timeline.gpu_clock) j.key("clock").value("gpu");  // only then: other reports keep their bytes
  j.end_object();
  if (!w.memory_peak.op.empty()) {
    j.key("memory_peak").begin_object();
    j.key("op").value(w.memory_peak.op);
    j.key("device").value(static_cast<std::int64_t>(w.memory_peak.device));
    j.key("time_us").value(w.memory_peak.time_us);
    j.key("lower_bound").value(w.memory_peak.lower_bound);
    j.end_object();
  }
  write_tables(j, w.tables, alike.columns);
  write_invariants(j, w.invariants);
  write_strings(j, "warnings", note_words(w.warnings));
  j.end_object();
  j.set_indent(indent);
}

void write_report(const ReportModel& r, const std::function<void(std::string_view)>& write,
                  bool worker_metrics) {
  JsonWriter j(2, write);
  j.begin_object();
  j.key("schema").value(r.schema);
  j.key("tool")
      .begin_object()
      .key("name")
      .value("perfgate")
      .key("version")
      .value(r.tool_version)
      .end_object();
  j.key("inputs").begin_array();
  for (const auto& in : r.inputs) {
    j.begin_object();
    j.key("path").value(in.path);
    j.key("bytes").value(in.bytes);
    j.key("format").value(in.format);
    j.key("worker").value(in.worker);
    j.end_object();
  }
  j.end_array();
  // Empty where they are not known (a report built by hand): a reader then tells nothing from them.
  j.key("families").begin_array();
  for (DeviceFamily f : r.families.list()) j.value(device_family_name(f));
  j.end_array();
  write_capture(j, r.capture, &r.capture_line);
  j.key("settings").begin_object();
  j.key("iter_start").value(r.settings.iter_start);
  j.key("iter_stop").value(r.settings.iter_stop);
  j.key("skip_first").value(r.settings.skip_first);
  // Only where given, so that the reports of runs without them keep their bytes.
  if (r.settings.time_start)
    j.key("time_start_us").value(static_cast<double>(*r.settings.time_start) / 1000.0);
  if (r.settings.time_stop) j.key("time_stop_us").value(static_cast<double>(*r.settings.time_stop) / 1000.0);
  if (r.settings.device) j.key("device").value(static_cast<std::int64_t>(*r.settings.device));
  j.key("key_op").value(r.settings.key_op);
  write_strings(j, "rules", r.settings.rule_sources);
  j.end_object();
  write_gate(j, r);
  WrittenAlike alike;
  write_metrics(j, r.metrics, alike.metric_keys);
  write_steps(j, "steps", r.steps);
  write_inferred_iterations(j, r.inferred_iterations);
  write_gpus(j, r.gpus);
  write_tables(j, r.tables, alike.columns);
  j.key("workers").begin_array();
  for (const auto& w : r.workers) write_worker(j, w, worker_metrics, alike);
  j.end_array();
  write_invariants(j, r.invariants);
  write_strings(j, "run_warnings", note_words(r.run_warnings));
  write_strings(j, "warnings", note_lines(r.warnings));
  j.end_object();
  j.flush();
}

}  // namespace

void write_json(const ReportModel& r, const std::function<void(std::string_view)>& write) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  write_report(r, write, true);
}

std::string render_json(const ReportModel& r) {
  std::string out;
  write_json(r, [&out](std::string_view piece) { out.append(piece); });
  return out;
}

std::string render_json_without_worker_metrics(const ReportModel& r) {
  std::string out;
  write_report(
      r, [&out](std::string_view piece) { out.append(piece); }, false);
  return out;
}

}  // namespace perfgate
