// Each tool's name, description and JSON Schema (docs/agents.md shows the same).
#include <string>
#include <string_view>

#include "engine/request_options.h"
#include "mcp/session.h"

namespace perfgate::mcp {
namespace {

struct ToolSchema {
  const char* name;
  const char* title;
  const char* description;
  const char* input_schema;   // JSON
  const char* output_schema;  // JSON: structuredContent on success (an error's is added to it)
};

// analyze's and compare's result (report_summary.cpp).
constexpr const char* kSummaryOutput =
    R"json({"type": "object", "required": ["report_id", "verdict", "metrics", "findings"],
   "properties": {
     "report_id": {"type": "string", "description": "The id table, explain, metrics, events and the resources take"},
     "report_id_lasts": {"type": "boolean", "description": "true: the id names the report in the cache folder, for a later server too"},
     "report_id_note": {"type": "string", "description": "Why a writing server's report is not in the cache folder (a full disk): its id lasts while this server runs"},
     "resources": {"type": "object", "additionalProperties": {"type": "string"}},
     "verdict": {"type": "object", "description": "The gate's verdict: status and exit_code, as the JSON report's"},
     "capture": {"type": "object", "description": "The capture profile, as the JSON report's: devices, frameworks, workload, phases, each with its evidence, and the one line"},
     "inputs": {"type": "array", "items": {"type": "object"}}, "inputs_total": {"type": "integer"},
     "metrics": {"type": "object", "description": "The headline metrics by catalog name"},
     "findings": {"type": "array", "items": {"type": "object", "required": ["id", "status"]}},
     "findings_not_shown": {"type": "integer"},
     "other_findings": {"type": "object", "additionalProperties": {"type": "integer"}},
     "warnings": {"type": "array", "items": {"type": "string"}}, "warnings_total": {"type": "integer"},
     "tables": {"type": "array", "items": {"type": "string"}},
     "baseline": {"type": "object", "description": "compare: the baseline, its comparability and the headline deltas"},
     "changes": {"type": "object", "description": "compare: the changes table's largest rows each way (slower, faster)"}}})json";

// The paging arguments of the tools that list.
constexpr std::string_view kPageProperties =
    R"json("offset": {"type": "integer", "minimum": 0, "default": 0},
     "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50})json";

const ToolSchema kTools[] = {
    {"analyze", "Analyse profiles",
     "Analyse profiles (Kineto/PyTorch traces, Nsight Systems SQLite exports, Neuron, XPlane, rocprofv3, run "
     "folders) as `perfgate analyze` does: returns the verdict, the headline metrics, the findings that did "
     "not pass with their evidence and estimated gains, and a report id for table, explain, compare and the "
     "perfgate://report/{id} resources. Paths must lie under the server's roots.",
     R"json({"type": "object", "additionalProperties": false, "required": ["paths"],
   "properties": {
     "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 64,
               "description": "Trace files or run folders: several files are the workers of one run"},
     "baseline": {"type": "array", "items": {"type": "string"}, "maxItems": 16,
                  "description": "Baselines: previous JSON reports, profiles or a run history (SQLite)"},
     "history": {"type": "string", "description": "A run history (SQLite file); with record, the run is recorded (needs --allow-write)"},
     "record": {"type": "boolean", "description": "Record the run into history (only with --allow-write)"},
     "branch": {"type": "string", "description": "The run's branch, when recorded"},
     "commit": {"type": "string", "description": "The run's commit, when recorded"},
     "@RULES@": {}}})json",
     kSummaryOutput},
    {"compare", "Compare a run with a baseline",
     "Gate a run against a baseline as `perfgate analyze --baseline` does: the verdict, the regression "
     "findings, what changed in both directions (the changes table's largest rows each way), and how "
     "comparable the two runs are (devices, kernels, ops, steps). The run: paths, or report (an analyze id, "
     "analysed again). The baseline: baseline (paths of a JSON report or profiles), baseline_report (an "
     "analyze id) or history (a run history).",
     R"json({"type": "object", "additionalProperties": false,
   "properties": {
     "paths": {"type": "array", "items": {"type": "string"}, "maxItems": 64, "description": "The run's profiles"},
     "report": {"type": "string", "description": "The run as a report id from analyze"},
     "baseline": {"type": "array", "items": {"type": "string"}, "maxItems": 16,
                  "description": "A previous JSON report or profiles (several are pooled)"},
     "baseline_report": {"type": "string", "description": "The baseline as a report id from analyze"},
     "history": {"type": "string", "description": "A run history (SQLite) whose recent runs are the baseline"},
     "branch": {"type": "string", "description": "The history's branch to compare with (default main)"},
     "@RULES@": {}}})json",
     kSummaryOutput},
    {"table", "Read a report table, a page at a time",
     "Rows of one of a report's tables (ops, kernels, iterations, gpu_gaps, changes, ...): columns chosen, "
     "rows filtered and sorted, at most 200 rows a page (next_offset continues). Without table: the list of "
     "tables with their row counts.",
     R"json({"type": "object", "additionalProperties": false, "required": ["report"],
   "properties": {
     "report": {"type": "string", "description": "A report id from analyze or compare"},
     "table": {"type": "string", "description": "The table's name; omit to list the tables"},
     "worker": {"type": "string", "description": "A worker's table (default: the run's table, else the first worker's)"},
     "columns": {"type": "array", "items": {"type": "string"}, "description": "Columns to return (default: all)"},
     "filter": {"type": "array", "maxItems": 16, "items": {"type": "object", "additionalProperties": false,
                "required": ["column"], "properties": {
                  "column": {"type": "string"},
                  "op": {"type": "string", "enum": ["=", "!=", "<", "<=", ">", ">=", "contains"]},
                  "value": {"type": ["string", "number", "boolean", "null"]}}},
                "description": "Every filter must hold"},
     "sort": {"type": "string", "description": "A column to sort by; -column sorts descending"},
     @PAGE@}})json",
     R"json({"type": "object", "required": ["report_id"],
   "properties": {
     "report_id": {"type": "string"},
     "tables": {"type": "array", "description": "Without table: every table",
                "items": {"type": "object", "required": ["name", "rows"], "properties": {
                  "name": {"type": "string"}, "title": {"type": "string"}, "rows": {"type": "integer"},
                  "worker": {"type": "string"}}}},
     "table": {"type": "string"}, "title": {"type": "string"}, "worker": {"type": "string"},
     "columns": {"type": "array", "items": {"type": "object"}},
     "rows": {"type": "array", "items": {"type": "array"}},
     "total_rows": {"type": "integer"}, "offset": {"type": "integer"},
     "next_offset": {"type": ["integer", "null"], "description": "The offset of the next page; null: none"}}})json"},
    {"metrics", "The metric catalog",
     "Metric definitions from perfgate's catalog (name, label, unit, definition, whose definition it "
     "follows), by exact name or by prefix (gpu., steps., tensor_core., ...); with report, each metric's "
     "value in that report.",
     R"json({"type": "object", "additionalProperties": false,
   "properties": {
     "name": {"type": "string", "description": "An exact metric name, e.g. gpu.utilization_pct"},
     "prefix": {"type": "string", "description": "Metrics whose names begin so, e.g. breakdown."},
     "report": {"type": "string", "description": "A report id: add each metric's value (and baseline change)"},
     @PAGE@}})json",
     R"json({"type": "object", "required": ["metrics", "total", "offset", "next_offset"],
   "properties": {
     "metrics": {"type": "array", "items": {"type": "object", "required": ["name", "label", "unit", "definition"]}},
     "total": {"type": "integer"}, "offset": {"type": "integer"},
     "next_offset": {"type": ["integer", "null"], "description": "The offset of the next page; null: none"}}})json"},
    {"explain", "Explain a finding or a metric",
     "A finding of a report (or a metric): its definition in the catalog, its value (and baseline), the rule "
     "with its thresholds, the evidence rows of the tables it points at, and the recommendation.",
     R"json({"type": "object", "additionalProperties": false, "required": ["report"],
   "properties": {
     "report": {"type": "string", "description": "A report id from analyze or compare"},
     "finding": {"type": "string", "description": "A finding's id, e.g. dataloader.bottleneck"},
     "metric": {"type": "string", "description": "A metric's name, e.g. gpu.utilization_pct"},
     "rows": {"type": "integer", "minimum": 0, "maximum": 50, "default": 10, "description": "Evidence rows per table"}}})json",
     R"json({"type": "object", "required": ["report_id", "evidence"],
   "properties": {
     "report_id": {"type": "string"},
     "finding": {"type": "object"}, "rule": {"type": "object"}, "metric": {"type": "object"},
     "rules": {"type": "array", "items": {"type": "object"}},
     "findings": {"type": "array", "items": {"type": "object"}},
     "evidence": {"type": "array", "items": {"type": "object", "required": ["table", "total_rows", "rows"]}},
     "evidence_rows_not_shown": {"type": "integer", "description": "Rows left out to keep the result small: the table tool has them"},
     "evidence_note": {"type": "string", "description": "Why evidence is empty: the rule names no table, or this run has none of those it names, or they have no rows"}}})json"},
    {"trend", "A metric's trend in a run history",
     "Each metric's value per run in a run history (SQLite), its band and the change points where it moved, "
     "as `perfgate history trend` computes them.",
     R"json({"type": "object", "additionalProperties": false, "required": ["history"],
   "properties": {
     "history": {"type": "string", "description": "The run history: a SQLite file under the roots"},
     "metric": {"type": "array", "items": {"type": "string"}, "maxItems": 32,
                "description": "Catalog metric names (default: the metrics the baseline rules read)"},
     "branch": {"type": "string", "description": "Only this branch's runs"},
     "last": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100, "description": "The most recent runs"},
     "rules": {"type": "array", "items": {"type": "string"}, "maxItems": 16, "description": "Rule files choosing the default metrics and bands"}}})json",
     R"json({"type": "object", "required": ["runs", "points_not_shown"],
   "properties": {
     "runs": {"type": "integer"}, "points_not_shown": {"type": "integer"},
     "series": {"type": "object", "description": "Each metric's points, oldest first"},
     "change_points": {"type": "array", "items": {"type": "object"}}}})json"},
    {"list_profiles", "List the profiles under the roots",
     "The files under the server's roots (or one folder of them) that a perfgate reader claims, with their "
     "format and size in bytes: what analyze can be given. Links are not followed and hidden folders are not "
     "entered; the walk stops after 20,000 entries (walk_cut says so). Paged: next_offset continues.",
     R"json({"type": "object", "additionalProperties": false,
   "properties": {
     "folder": {"type": "string", "description": "A folder under the roots (default: every root)"},
     @PAGE@}})json",
     R"json({"type": "object", "required": ["profiles", "total", "offset", "next_offset", "walk_cut"],
   "properties": {
     "profiles": {"type": "array", "items": {"type": "object", "required": ["path", "format", "bytes"], "properties": {
       "path": {"type": "string"}, "format": {"type": "string"}, "bytes": {"type": "integer"}}}},
     "total": {"type": "integer"}, "offset": {"type": "integer"},
     "next_offset": {"type": ["integer", "null"], "description": "The offset of the next page; null: none"},
     "walk_cut": {"type": "boolean"}, "note": {"type": "string"}}})json"},
    {"events", "Instances of a kernel, op or collective",
     "The instances of one kernel, op or collective (allreduce, ...) of a report's run, in a time window of "
     "the trace's clock (microseconds, as the report's step starts), sorted by start: each with its worker, "
     "start_us, duration_us and its device and stream (a kernel) or thread (an op). The tables are "
     "aggregates; this reads the run's profiles again. Paged: next_offset continues.",
     R"json({"type": "object", "additionalProperties": false, "required": ["report", "name"],
   "properties": {
     "report": {"type": "string", "description": "A report id from analyze or compare"},
     "name": {"type": "string", "description": "The kernel's, op's or collective's name"},
     "match": {"type": "string", "enum": ["exact", "contains"], "default": "exact"},
     "kind": {"type": "string", "enum": ["kernel", "op", "collective"], "description": "Default: any"},
     "start_us": {"type": "integer", "description": "Instances that end at or after this time"},
     "end_us": {"type": "integer", "description": "Instances that start at or before this time"},
     "worker": {"type": "string", "description": "Only this worker's instances"},
     @PAGE@}})json",
     R"json({"type": "object", "required": ["report_id", "events", "total", "offset", "next_offset"],
   "properties": {
     "report_id": {"type": "string"},
     "events": {"type": "array", "items": {"type": "object", "required": ["kind", "name", "worker", "start_us", "duration_us"]}},
     "total": {"type": "integer", "description": "Instances kept (at most 100,000)"},
     "not_kept": {"type": "integer", "description": "Instances past the 100,000 kept"},
     "offset": {"type": "integer"},
     "next_offset": {"type": ["integer", "null"], "description": "The offset of the next page; null: none"}}})json"},
};

// The JSON Schema of a run option (engine/request_options.def), as the command line checks it.
json::object option_property(const OptionInfo& option) {
  json::object p;
  const OptionCheck& check = option.check;
  bool ranged = check.kind == OptionCheck::Kind::Range;
  switch (option.value) {
    case OptionValue::Flag:
      p["type"] = "boolean";
      break;
    case OptionValue::Integer:
      p["type"] = "integer";
      if (ranged) {
        p["minimum"] = check.min;
        if (check.max != kUnbounded) p["maximum"] = check.max;
      }
      if (!option.default_text.empty()) p["default"] = std::stoll(option.default_text);
      break;
    case OptionValue::Number:
      p["type"] = "number";
      break;
    case OptionValue::Text:
      p["type"] = "string";
      if (check.kind == OptionCheck::Kind::OneOf) {
        json::array choices;
        for (std::string_view choice : option_choices(option)) choices.emplace_back(choice);
        p["enum"] = std::move(choices);
      }
      if (!option.default_text.empty()) p["default"] = option.default_text;
      break;
    case OptionValue::Texts:
      p["type"] = "array";
      p["items"] = {{"type", "string"}};
      if (ranged) p["maxItems"] = check.max;
      break;
  }
  p["description"] = option_help(option, [](const OptionInfo& named) { return argument_of(named.field); });
  return p;
}

// The run options analyze and compare take: rules, set, disable and workload, and `options`.
json::object run_option_properties() {
  json::object top, inner;
  for (const OptionInfo& option : request_options()) {
    if (option.shown & kShownByMcpTools) top[option.argument] = option_property(option);
    if (option.shown & kShownByMcpOptions) inner[option.argument] = option_property(option);
  }
  top["options"] = {{"type", "object"},
                    {"additionalProperties", false},
                    {"description", "analyze's window, analysis and gate options"},
                    {"properties", std::move(inner)}};
  return top;
}

// A tool's input schema: a property "@RULES@" stands for the run options, @PAGE@ for offset and limit.
json::value input_schema(std::string schema) {
  if (std::size_t at = schema.find("@PAGE@"); at != std::string::npos) schema.replace(at, 6, kPageProperties);
  json::value parsed = json::parse(schema);
  json::object& properties = parsed.at("properties").as_object();
  if (properties.erase("@RULES@") != 0)
    for (auto& [key, value] : run_option_properties()) properties[key] = value;
  return parsed;
}

// A tool's output schema with the alternative a failed call returns (isError: true): {error,
// exit_code}, the CLI's message and exit code. A client that validates structuredContent (the SDK
// does, errors included) then accepts both.
json::object or_tool_error(json::object schema) {
  json::object& properties = schema["properties"].as_object();
  properties["error"] = {{"type", "string"}, {"description", "A failed call: the CLI's message"}};
  properties["exit_code"] = {{"type", "integer"}, {"description", "A failed call: the CLI's exit code"}};
  json::array success = schema.contains("required") ? schema["required"].as_array() : json::array{};
  schema.erase("required");
  schema["anyOf"] = json::array{json::object{{"required", std::move(success)}},
                                json::object{{"required", json::array{"error", "exit_code"}}}};
  return schema;
}

}  // namespace

json::array tool_definitions() {
  json::array out;
  for (const ToolSchema& t : kTools)
    out.push_back(
        {{"name", t.name},
         {"title", t.title},
         {"description", t.description},
         {"inputSchema", input_schema(t.input_schema)},
         {"outputSchema", or_tool_error(json::parse(t.output_schema).as_object())},
         {"annotations",
          {{"readOnlyHint", std::string_view(t.name) != "analyze" && std::string_view(t.name) != "compare"},
           {"openWorldHint", false}}}});
  return out;
}

}  // namespace perfgate::mcp
