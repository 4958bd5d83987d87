// Each tool's name, description and JSON Schema (docs/agents.md shows the same).
#include <string>
#include <string_view>

#include "mcp/session.h"

namespace perfgate::mcp {
namespace {

struct ToolSchema {
  const char* name;
  const char* title;
  const char* description;
  const char* input_schema;  // JSON
};

// The options analyze and compare share with `perfgate analyze`, put where a schema says @RULES@.
constexpr std::string_view kRuleProperties =
    R"json("rules": {"type": "array", "items": {"type": "string"}, "maxItems": 16,
       "description": "Rule files (YAML) applied on top of the shipped default set, or a shipped name: default, tb-plugin"},
     "set": {"type": "array", "items": {"type": "string"}, "description": "Rule settings, ID.KEY=VALUE (--set)"},
     "disable": {"type": "array", "items": {"type": "string"}, "description": "Rule ids to disable"},
     "options": {"type": "object", "additionalProperties": false, "description": "analyze's window and gate options",
       "properties": {
         "iter_start": {"type": "integer", "minimum": 0, "description": "First step of the window (N of ProfilerStep#N)"},
         "iter_stop": {"type": "integer", "minimum": 0, "description": "Last step of the window (inclusive)"},
         "skip_first": {"type": "integer", "minimum": 0, "description": "Drop the first N steps of the window"},
         "key_op": {"type": "string", "description": "Regex: every start of a matching op begins a step"},
         "step_pattern": {"type": "string", "description": "Regex for the names of step ranges"},
         "detailed_workers": {"type": "integer", "minimum": 0, "description": "Workers whose every table is kept (default 8; 0: all)"},
         "fail_on": {"type": "string", "enum": ["error", "warning", "inconclusive", "never"]}}})json";

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
     @RULES@}})json"},
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
     @RULES@}})json"},
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
     "offset": {"type": "integer", "minimum": 0, "default": 0},
     "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}}})json"},
    {"metrics", "The metric catalog",
     "Metric definitions from perfgate's catalog (name, label, unit, definition, whose definition it "
     "follows), by exact name or by prefix (gpu., steps., tensor_core., ...); with report, each metric's "
     "value in that report.",
     R"json({"type": "object", "additionalProperties": false,
   "properties": {
     "name": {"type": "string", "description": "An exact metric name, e.g. gpu.utilization_pct"},
     "prefix": {"type": "string", "description": "Metrics whose names begin so, e.g. breakdown."},
     "report": {"type": "string", "description": "A report id: add each metric's value (and baseline change)"},
     "offset": {"type": "integer", "minimum": 0, "default": 0},
     "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}}})json"},
    {"explain", "Explain a finding or a metric",
     "A finding of a report (or a metric): its definition in the catalog, its value (and baseline), the rule "
     "with its thresholds, the evidence rows of the tables it points at, and the recommendation.",
     R"json({"type": "object", "additionalProperties": false, "required": ["report"],
   "properties": {
     "report": {"type": "string", "description": "A report id from analyze or compare"},
     "finding": {"type": "string", "description": "A finding's id, e.g. dataloader.bottleneck"},
     "metric": {"type": "string", "description": "A metric's name, e.g. gpu.utilization_pct"},
     "rows": {"type": "integer", "minimum": 0, "maximum": 50, "default": 10, "description": "Evidence rows per table"}}})json"},
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
     "rules": {"type": "array", "items": {"type": "string"}, "maxItems": 16, "description": "Rule files choosing the default metrics and bands"}}})json"},
};

std::string with_rule_properties(std::string schema) {
  if (std::size_t at = schema.find("@RULES@"); at != std::string::npos)
    schema.replace(at, 7, kRuleProperties);
  return schema;
}

}  // namespace

json::array tool_definitions() {
  json::array out;
  for (const ToolSchema& t : kTools)
    out.push_back({{"name", t.name},
                   {"title", t.title},
                   {"description", t.description},
                   {"inputSchema", json::parse(with_rule_properties(t.input_schema))},
                   {"annotations",
                    {{"readOnlyHint", std::string_view(t.name) != "analyze"}, {"openWorldHint", false}}}});
  return out;
}

}  // namespace perfgate::mcp
