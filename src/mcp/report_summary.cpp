#include "mcp/report_summary.h"

#include <array>

#include <fmt/format.h>

#include "common/metrics.h"

namespace perfgate::mcp {
namespace {

// The terminal summary's headline numbers, by id (their names come from the catalog).
constexpr std::array<Metric, 27> kHeadline = {Metric::WindowWallUs,
                                              Metric::StepsCount,
                                              Metric::StepsMeanUs,
                                              Metric::StepsMedianUs,
                                              Metric::StepsCvPct,
                                              Metric::GpuCount,
                                              Metric::GpuUtilizationPct,
                                              Metric::GpuIdlePct,
                                              Metric::BreakdownKernelPct,
                                              Metric::BreakdownMemcpyPct,
                                              Metric::BreakdownCommunicationPct,
                                              Metric::BreakdownRuntimePct,
                                              Metric::BreakdownDataloaderPct,
                                              Metric::BreakdownCpuExecPct,
                                              Metric::BreakdownOtherPct,
                                              Metric::TensorCoreKernelTimePct,
                                              Metric::KernelsCount,
                                              Metric::HostRuntimePct,
                                              Metric::CommunicationOverlapPct,
                                              Metric::CriticalPathLengthUs,
                                              Metric::ComputeMfuPct,
                                              Metric::ComputeTflopsAchieved,
                                              Metric::MemoryPeakAllocatedBytes,
                                              Metric::MemoryPeakPct,
                                              Metric::RanksCount,
                                              Metric::NeuronActiveTimePct,
                                              Metric::NeuronMfuPct};

constexpr std::size_t kTextField = 320;  // bytes of a finding's problem or recommendation
constexpr std::size_t kLabel = 100;      // bytes of an offender's or a change's name
constexpr std::size_t kOffenders = 3;
constexpr std::size_t kChangesEachWay = 5;

const json::value* member(const json::object& o, std::string_view key) {
  return o.if_contains(key);
}

std::string text_of(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

json::object compact_finding(const json::object& f) {
  json::object out;
  for (std::string_view key :
       {"id", "title", "headline", "severity", "status", "metric", "unit", "value", "threshold_text"})
    if (const json::value* v = member(f, key)) out[key] = *v;
  if (const json::value* b = member(f, "baseline"); b && !b->is_null()) out["baseline"] = *b;
  for (std::string_view key : {"problem", "recommendation", "reason"})
    if (std::string t = text_of(f, key); !t.empty()) out[key] = cut_text(t, kTextField);
  if (const json::value* g = member(f, "gain_pct"); g && !g->is_null()) out["gain_pct"] = *g;
  if (const json::value* see = member(f, "see"); see && see->is_array() && !see->get_array().empty())
    out["see"] = *see;
  if (const json::value* o = member(f, "offenders"); o && o->is_array() && !o->get_array().empty()) {
    json::array offenders;
    for (const json::value& row : o->get_array()) {
      if (offenders.size() == kOffenders || !row.is_object()) break;
      json::object r = row.get_object();
      if (std::string label = text_of(r, "label"); !label.empty()) r["label"] = cut_text(label, kLabel);
      offenders.push_back(std::move(r));
    }
    out["offenders"] = std::move(offenders);
    out["offenders_total"] = o->get_array().size();
  }
  return out;
}

// Failures first, then warnings, then inconclusive ones, each in the report's order.
json::array findings_not_passed(const json::object& doc, json::object& others) {
  json::array out;
  const json::value* findings = member(doc, "findings");
  if (!findings || !findings->is_array()) return out;
  for (std::string_view status : {"fail", "warn", "inconclusive"})
    for (const json::value& f : findings->get_array())
      if (f.is_object() && text_of(f.get_object(), "status") == status)
        out.push_back(compact_finding(f.get_object()));
  for (const json::value& f : findings->get_array()) {
    if (!f.is_object()) continue;
    std::string status = text_of(f.get_object(), "status");
    if (status != "fail" && status != "warn" && status != "inconclusive")
      others[status] = (others.contains(status) ? others[status].as_int64() : 0) + 1;
  }
  return out;
}

// The report invariants the run's numbers broke (the JSON report's "invariants"): which, and what
// was withheld, one short line each; the whole statement is in the report.
json::array data_quality(const json::object& doc) {
  json::array out;
  const json::value* invariants = member(doc, "invariants");
  if (!invariants || !invariants->is_array()) return out;
  for (const json::value& v : invariants->get_array()) {
    if (!v.is_object()) continue;
    std::string line = text_of(v.get_object(), "invariant") + " does not hold: ";
    std::string withheld;
    if (const json::value* w = member(v.get_object(), "withheld"); w && w->is_array())
      for (const json::value& name : w->get_array())
        if (name.is_string()) withheld += (withheld.empty() ? "" : ", ") + std::string(name.get_string());
    out.push_back(json::string(cut_text(line + withheld + " withheld (n/a)", 240)));
  }
  return out;
}

json::array table_names(const json::object& doc) {
  json::array names;
  if (const json::value* t = member(doc, "tables"); t && t->is_object())
    for (const auto& [name, table] : t->get_object()) names.push_back(json::string(name));
  if (const json::value* w = member(doc, "workers"); w && w->is_array() && !w->get_array().empty()) {
    const json::value& first = w->get_array().front();
    if (const json::value* t = first.is_object() ? member(first.get_object(), "tables") : nullptr;
        t && t->is_object())
      for (const auto& [name, table] : t->get_object()) names.push_back(json::string(name));
  }
  return names;
}

// The baseline's comparability and the `changes` table's largest rows each way.
void add_comparison(const json::object& doc, json::object& out) {
  if (const json::value* b = member(doc, "baseline"); b && b->is_object()) {
    json::object baseline;
    for (std::string_view key :
         {"path", "kind", "runs", "gpus", "steps", "hardware_differs", "different_work", "comparability"})
      if (const json::value* v = member(b->get_object(), key)) baseline[key] = *v;
    json::object deltas;
    if (const json::value* m = member(b->get_object(), "metrics"); m && m->is_object())
      for (Metric id : kHeadline)
        if (const json::value* d = member(m->get_object(), metric_info(id).name))
          deltas[metric_info(id).name] = *d;
    baseline["headline_deltas"] = std::move(deltas);
    out["baseline"] = std::move(baseline);
  }
  const json::value* tables = member(doc, "tables");
  const json::value* changes =
      tables && tables->is_object() ? member(tables->get_object(), "changes") : nullptr;
  if (!changes || !changes->is_object()) return;
  const json::value* columns = member(changes->get_object(), "columns");
  const json::value* rows = member(changes->get_object(), "rows");
  if (!columns || !rows || !columns->is_array() || !rows->is_array()) return;
  json::object summary{{"total_rows", rows->get_array().size()}};
  for (std::string_view direction : {"slower", "faster"}) {
    json::array picked;
    std::size_t total = 0;
    for (const json::value& row : rows->get_array()) {
      if (!row.is_array() || row.get_array().empty() || row.get_array()[0] != json::value(direction))
        continue;
      if (picked.size() < kChangesEachWay) {
        json::object r = row_object(columns->get_array(), row.get_array());
        if (std::string name = text_of(r, "name"); !name.empty()) r["name"] = cut_text(name, kLabel);
        picked.push_back(std::move(r));
      }
      ++total;
    }
    summary[direction] = std::move(picked);
    summary[std::string(direction) + "_total"] = total;
  }
  out["changes"] = std::move(summary);
}

}  // namespace

std::span<const Metric> headline_metrics() {
  return kHeadline;
}

std::string cut_text(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
  return std::string(text.substr(0, end)) + "…";
}

json::object row_object(const json::array& columns, const json::array& row) {
  json::object out;
  for (std::size_t i = 0; i < columns.size() && i < row.size(); ++i)
    if (columns[i].is_object())
      if (const json::value* name = columns[i].get_object().if_contains("name"); name && name->is_string())
        out[name->get_string()] = row[i];
  return out;
}

ToolOutput report_summary(const StoredReport& report, bool comparison) {
  const json::object& doc = report.doc;
  json::object out;
  out["report_id"] = report.id;
  out["report_id_lasts"] = report.lasts;
  if (!report.not_stored.empty()) out["report_id_note"] = report.not_stored;
  std::string uri = "perfgate://report/" + report.id;
  out["resources"] = {{"json", uri}, {"html", uri + "/html"}, {"markdown", uri + "/markdown"}};
  if (const json::value* v = member(doc, "verdict")) out["verdict"] = *v;
  if (const json::value* c = member(doc, "capture")) out["capture"] = *c;
  json::array inputs;
  const json::value* given = member(doc, "inputs");
  std::size_t input_count = given && given->is_array() ? given->get_array().size() : 0;
  for (std::size_t i = 0; i < input_count && i < 4; ++i) inputs.push_back(given->get_array()[i]);
  out["inputs"] = std::move(inputs);
  out["inputs_total"] = input_count;
  json::object metrics;
  if (const json::value* m = member(doc, "metrics"); m && m->is_object())
    for (Metric id : kHeadline)
      if (const json::value* v = member(m->get_object(), metric_info(id).name); v && !v->is_null())
        metrics[metric_info(id).name] = *v;
  out["metrics"] = std::move(metrics);
  json::object others;
  out["findings"] = findings_not_passed(doc, others);
  out["other_findings"] = std::move(others);
  json::array warnings;
  std::size_t warning_count = 0;
  for (std::string_view key : {"run_warnings", "warnings"})
    if (const json::value* w = member(doc, key); w && w->is_array())
      for (const json::value& text : w->get_array())
        if (++warning_count <= 3 && text.is_string())
          warnings.push_back(json::string(cut_text(text.get_string(), 240)));
  out["warnings"] = std::move(warnings);
  out["warnings_total"] = warning_count;
  out["data_quality"] = data_quality(doc);
  if (comparison) add_comparison(doc, out);
  out["tables"] = table_names(doc);
  // Within the budget the findings come first: the notices' texts go (their totals stay), then the
  // table names, and only then the last findings (the least severe).
  auto over = [&] { return json::serialize(out).size() > kSummaryBudgetBytes; };
  for (std::string_view notices : {"warnings", "data_quality"})
    while (over() && !out[notices].as_array().empty()) out[notices].as_array().pop_back();
  if (over()) out.erase("tables");
  std::size_t shown = out["findings"].as_array().size();
  while (over() && !out["findings"].as_array().empty()) out["findings"].as_array().pop_back();
  out["findings_not_shown"] = shown - out["findings"].as_array().size();
  return out;
}

}  // namespace perfgate::mcp
