// metrics (the catalog, by name or prefix, with a report's values) and explain (a finding or a
// metric: its definition, the rule and its limits, the rows behind it, the recommendation).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "common/metrics.h"
#include "common/suggest.h"
#include "mcp/report_summary.h"
#include "mcp/session.h"
#include "mcp/tool_args.h"

namespace perfgate::mcp {
namespace {

constexpr std::int64_t kMaxMetrics = 200;
constexpr std::int64_t kMaxEvidenceRows = 50;

json::object catalog_entry(const MetricInfo& m) {
  return {{"name", m.name},
          {"label", m.label},
          {"unit", m.unit},
          {"definition", m.definition},
          {"source", m.source}};
}

// The metric's value in the report (null: not applicable) and, against a baseline, its change.
void add_values(const StoredReport* report, std::string_view name, json::object& entry) {
  if (!report) return;
  const json::value* metrics = report->doc.if_contains("metrics");
  const json::value* v = metrics && metrics->is_object() ? metrics->get_object().if_contains(name) : nullptr;
  entry["value"] = v ? *v : json::value(nullptr);
  if (const json::value* b = report->doc.if_contains("baseline"); b && b->is_object())
    if (const json::value* m = b->get_object().if_contains("metrics"); m && m->is_object())
      if (const json::value* d = m->get_object().if_contains(name)) entry["baseline"] = *d;
}

const MetricInfo& known_metric(const std::string& name) {
  std::optional<Metric> id = metric_id(name);
  if (!id) {
    std::vector<std::string_view> names;
    for (const MetricInfo& m : metric_catalog()) names.push_back(m.name);
    throw ConfigError(fmt::format("no metric \"{}\" in the catalog{}", name, did_you_mean(name, names)));
  }
  return metric_info(*id);
}

json::object rule_entry(const Rule& rule) {
  json::object r{{"id", rule.id}, {"title", rule.title}, {"limits", rule_limits_text(rule)}};
  if (!rule.metric.empty()) r["metric"] = rule.metric;
  if (!rule.value.empty()) r["value"] = rule.value;
  if (!rule.condition.empty()) r["condition"] = rule.condition;
  if (!rule.applies_if.empty()) r["applies_if"] = rule.applies_if;
  if (!rule.warn_text.empty()) r["warn"] = rule.warn_text;
  if (!rule.fail_text.empty()) r["fail"] = rule.fail_text;
  if (!rule.gain.empty()) r["gain"] = rule.gain;
  r["compares_with_baseline"] = rule.compare_baseline;
  r["source"] = rule.source;
  return r;
}

// The first rows of each table the rule points at (`see`), as objects.
json::array evidence(const json::object& doc, const json::value* see, std::size_t rows) {
  json::array out;
  if (!see || !see->is_array()) return out;
  for (const json::value& name : see->get_array()) {
    if (!name.is_string()) continue;
    FoundTable found;
    try {
      found = find_table(doc, std::string(name.get_string()), std::nullopt);
    } catch (const ConfigError&) {
      continue;  // a table this run does not have (a family it lacks)
    }
    const json::array& columns = found.table->at("columns").as_array();
    const json::array& all = found.table->at("rows").as_array();
    json::array picked;
    for (std::size_t i = 0; i < all.size() && i < rows; ++i) {
      json::object row = row_object(columns, all[i].as_array());
      for (auto& [key, cell] : row)
        if (cell.is_string()) cell = json::string(cut_text(cell.get_string(), 200));
      picked.push_back(std::move(row));
    }
    json::object table{{"table", name}, {"total_rows", all.size()}, {"rows", std::move(picked)}};
    if (!found.worker.empty()) table["worker"] = found.worker;
    out.push_back(std::move(table));
  }
  return out;
}

// Why a finding's evidence is empty (issue 93: `explain dataloader.bottleneck` gave `evidence: []`
// and no word); empty where it is not.
std::string no_evidence_note(const json::object& finding, const json::array& evidence) {
  for (const json::value& t : evidence)
    if (!t.at("rows").as_array().empty()) return "";
  const json::value* see = finding.if_contains("see");
  std::vector<std::string> named;
  if (see && see->is_array())
    for (const json::value& name : see->get_array())
      if (name.is_string()) named.emplace_back(name.get_string());
  if (named.empty())
    return "the rule names no table: its evidence is its metric (in `metric`: the value, against the "
           "threshold in `finding`) and the finding's offenders, where it has any";
  if (evidence.empty())
    return fmt::format(
        "this report has none of the tables the rule names ({}): its inputs record nothing "
        "they would hold",
        fmt::join(named, ", "));
  return fmt::format("the tables the rule names ({}) have no rows in this report", fmt::join(named, ", "));
}

// Within kMaxResultBytes: the last row of the longest evidence table goes first, and
// evidence_rows_not_shown counts them (the table tool pages through them all).
void fit_evidence(json::object& out) {
  std::size_t dropped = 0;
  json::array& tables = out["evidence"].as_array();
  while (json::serialize(out).size() > kMaxResultBytes) {
    json::array* longest = nullptr;
    for (json::value& t : tables)
      if (json::array& rows = t.as_object()["rows"].as_array(); !longest || rows.size() > longest->size())
        longest = &rows;
    if (!longest || longest->empty()) break;
    longest->pop_back();
    ++dropped;
  }
  out["evidence_rows_not_shown"] = dropped;
}

ToolOutput explain_finding(const StoredReport& report, const std::string& id, std::size_t rows) {
  const json::object* finding = nullptr;
  std::vector<std::string_view> ids;
  for (const json::value& f : report.doc.at("findings").as_array()) {
    ids.push_back(f.at("id").as_string().subview());
    if (ids.back() == id) finding = &f.get_object();
  }
  if (!finding)
    throw ConfigError(fmt::format("report {} has no finding \"{}\"{}", report.id, id, did_you_mean(id, ids)));
  json::object out{{"report_id", report.id}, {"finding", *finding}};
  for (const Rule& rule : report.book->rules.rules)
    if (rule.id == id) out["rule"] = rule_entry(rule);
  std::string metric = finding->contains("metric") ? json::value_to<std::string>(finding->at("metric")) : "";
  if (std::optional<Metric> m = metric_id(metric)) {
    json::object entry = catalog_entry(metric_info(*m));
    add_values(&report, metric, entry);
    out["metric"] = std::move(entry);
  }
  out["evidence"] = evidence(report.doc, finding->if_contains("see"), rows);
  if (std::string note = no_evidence_note(*finding, out["evidence"].as_array()); !note.empty())
    out["evidence_note"] = note;
  fit_evidence(out);
  return out;
}

ToolOutput explain_metric(const StoredReport& report, const std::string& name, std::size_t rows) {
  const MetricInfo& info = known_metric(name);
  json::object entry = catalog_entry(info);
  add_values(&report, name, entry);
  json::array rules, findings, tables;
  json::array see;
  for (const Rule& rule : report.book->rules.rules) {
    bool reads = rule.metric == name || rule.value.find(name) != std::string::npos ||
                 rule.condition.find(name) != std::string::npos;
    if (!reads) continue;
    rules.push_back(rule_entry(rule));
    for (const std::string& t : rule.see)
      if (std::find(see.begin(), see.end(), json::value(t)) == see.end()) see.push_back(json::string(t));
  }
  for (const json::value& f : report.doc.at("findings").as_array())
    if (f.at("metric") == json::value(name)) findings.push_back(f);
  json::value see_value = std::move(see);
  json::object out{{"report_id", report.id},
                   {"metric", entry},
                   {"rules", std::move(rules)},
                   {"findings", std::move(findings)},
                   {"evidence", evidence(report.doc, &see_value, rows)}};
  fit_evidence(out);
  return out;
}

}  // namespace

ToolOutput metrics_tool(Session& session, const json::object& raw) {
  ToolArgs args("metrics", raw, {"name", "prefix", "report", "offset", "limit"});
  std::optional<std::string> name = args.text("name");
  std::string prefix = args.text("prefix").value_or("");
  const StoredReport* report = nullptr;
  if (std::optional<std::string> id = args.text("report")) report = &session.report(*id);
  json::array out;
  std::size_t offset = static_cast<std::size_t>(args.integer("offset", 0, 1 << 20).value_or(0));
  std::size_t limit = static_cast<std::size_t>(args.integer("limit", 1, kMaxMetrics).value_or(50));
  std::size_t total = 0, bytes = 0, next = 0;
  if (name) known_metric(*name);  // a name the catalog lacks says so, with the nearest
  for (const MetricInfo& m : metric_catalog()) {
    if (name ? m.name != *name : !m.name.starts_with(prefix)) continue;
    if (total++ < offset || out.size() >= limit || (bytes > kMaxResultBytes && !out.empty())) continue;
    json::object entry = catalog_entry(m);
    add_values(report, m.name, entry);
    bytes += json::serialize(entry).size();
    out.push_back(std::move(entry));
    next = total;
  }
  json::object result{{"metrics", std::move(out)}, {"total", total}, {"offset", offset}};
  result["next_offset"] = next < total ? json::value(next) : json::value(nullptr);
  return result;
}

ToolOutput explain_tool(Session& session, const json::object& raw) {
  ToolArgs args("explain", raw, {"report", "finding", "metric", "rows"});
  const StoredReport& report = session.report(args.required_text("report"));
  std::size_t rows = static_cast<std::size_t>(args.integer("rows", 0, kMaxEvidenceRows).value_or(10));
  std::optional<std::string> finding = args.text("finding");
  std::optional<std::string> metric = args.text("metric");
  if (finding.has_value() == metric.has_value()) throw ConfigError("explain: give either finding or metric");
  return finding ? explain_finding(report, *finding, rows) : explain_metric(report, *metric, rows);
}

}  // namespace perfgate::mcp
