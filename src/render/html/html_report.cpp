// The HTML report: one self-contained page (or a page with report.css and report.js beside it),
// rendered from templates/report.html.mustache.
#include <algorithm>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/html/baseline_view.h"
#include "render/html/charts.h"
#include "render/html/dashboard.h"
#include "render/html/diagnosis.h"
#include "render/html/memory_view.h"
#include "render/html/neuron_view.h"
#include "render/html/plots.h"
#include "render/html/roofline_view.h"
#include "render/html/table_view.h"
#include "render/html/timeline_view.h"
#include "render/json_report.h"
#include "render/render.h"
#include "render/see_also.h"
#include "render/templates.h"
#include "render/trend_text.h"

namespace perfgate {
namespace {

// Worker tables shown in the dashboard rather than with the other tables.
constexpr std::array<std::string_view, 2> kDashboardTables = {table_name(Table::System),
                                                              table_name(Table::TopGpuOps)};
// Beyond this many workers only the slowest one's tables are in the page.
constexpr std::size_t kMaxWorkerSections = 8;

bool in_dashboard(std::string_view name) {
  return std::find(kDashboardTables.begin(), kDashboardTables.end(), name) != kDashboardTables.end();
}

// The element id of a table in the page ("table-0-ops"), or "" when the page does not show it.
std::string page_table_id(const ReportModel& r, std::string_view name) {
  if (std::find(kDeltaTables.begin(), kDeltaTables.end(), name) != kDeltaTables.end())
    return r.baseline && find_table(r.tables, name) ? fmt::format("table-{}", name) : "";
  if (const ReportTable* t = find_table(r.tables, name))
    return t->rows.empty() ? "" : fmt::format("table-{}", name);
  if (r.workers.empty()) return "";
  const ReportTable* t = find_table(r.workers.front().tables, name);
  if (!t || (t->rows.empty() && !in_dashboard(name))) return "";
  return in_dashboard(name) ? fmt::format("table-{}", name) : fmt::format("table-0-{}", name);
}

std::string title_of(const ReportModel& r) {
  if (r.inputs.size() == 1) return r.inputs.front().worker;
  return fmt::format("{} workers", r.inputs.size());
}

const char* status_label(FindingStatus s) {
  switch (s) {
    case FindingStatus::Fail:
      return "fail";
    case FindingStatus::Warn:
      return "warning";
    case FindingStatus::Inconclusive:
      return "inconclusive";
    default:
      return finding_status_name(s);
  }
}

// The metric's recent values in the history beside the finding: a sparkline, the current run marked.
TemplateData trend_view(const ReportMetricTrend& t, FindingStatus status) {
  std::vector<double> values;
  for (const ReportTrendPoint& p : t.points) values.push_back(p.value);
  std::string text = recent_values_text(t);
  const char* mark = !t.points.back().is_current     ? "#9aa3b2"
                     : status == FindingStatus::Fail ? "#c8322d"
                     : status == FindingStatus::Warn ? "#b26a00"
                                                     : "#6b5bd6";
  TemplateData d;
  d.set("svg", sparkline_svg(values, mark, fmt::format("{} in the recent runs: {}", t.metric, text)));
  d.set("text", text);
  d.set("current", t.points.back().is_current);
  return d;
}

TemplateData finding_view(const ReportModel& r, const ReportFinding& f) {
  TemplateData d;
  if (const ReportMetricTrend* t = find_trend(r, f.metric); t && !t->points.empty())
    d.set("trend", trend_view(*t, f.status));
  d.set("status", std::string(f.status == FindingStatus::Inconclusive ? "inconclusive"
                                                                      : finding_status_name(f.status)));
  d.set("status_label", status_label(f.status));
  d.set("id", f.id);
  d.set("title", f.title);
  // The headline shows; the evidence and the remedy fold under it (issue 93). A finding the gate
  // did not make (a test's model) has no headline: its title stands in.
  d.set("headline", f.headline.empty() ? f.title : f.headline);
  if (!f.headline_whole.empty()) d.set("headline_whole", f.headline_whole);
  if (f.value) d.set("value_text", format_value(f.value, f.unit));
  if (f.threshold) d.set("threshold_text", f.threshold_text);
  if (!f.problem.empty()) d.set("problem", f.problem);
  if (!f.reason.empty()) d.set("reason", f.reason);
  if (!f.recommendation.empty()) d.set("recommendation", f.recommendation);
  TemplateData see = template_list();
  std::vector<SeeAlso> tables = see_also(r, f);
  for (const SeeAlso& s : tables) {
    TemplateData link;
    link.set("title", s.title);
    if (std::string id = page_table_id(r, s.table); !id.empty()) link.set("href", "#" + id);
    see.push_back(link);
  }
  d.set("has_see", !tables.empty());
  d.set("see", see);
  if (f.gain_pct) d.set("gain_text", format_pct(f.gain_pct));
  if (!f.gain_withheld.empty()) d.set("gain_withheld", f.gain_withheld);
  if (std::string path = gain_path_note(f); !path.empty()) d.set("gain_path", path);
  if (!f.source.empty()) d.set("source", f.source);
  // Only web links become links: a rule file's docs value is not trusted to be a URL.
  if (f.docs.starts_with("https://") || f.docs.starts_with("http://")) d.set("docs", f.docs);
  return d;
}

void add_findings(const ReportModel& r, TemplateData& view) {
  std::vector<const ReportFinding*> fired = findings_by_importance(r);
  TemplateData list = template_list();
  for (const ReportFinding* f : fired) list.push_back(finding_view(r, *f));
  view.set("findings", list);
  view.set("fired", !fired.empty());
  TemplateData passed = template_list(), na = template_list(), skipped = template_list();
  std::size_t counts[3] = {0, 0, 0};
  for (const auto& f : r.findings) {
    if (f.status == FindingStatus::Pass) {
      passed.push_back(TemplateData(f.id));
      ++counts[0];
    } else if (f.status == FindingStatus::NotApplicable) {
      TemplateData d;
      d.set("id", f.id);
      d.set("reason", f.reason);
      na.push_back(d);
      ++counts[1];
    } else if (f.status == FindingStatus::Skipped) {
      skipped.push_back(TemplateData(f.id));
      ++counts[2];
    }
  }
  if (counts[0] + counts[1] + counts[2] == 0) return;
  TemplateData quiet;
  quiet.set("summary",
            fmt::format("{} passed, {} not applicable, {} skipped", counts[0], counts[1], counts[2]));
  quiet.set("passed", passed);
  quiet.set("has_passed", counts[0] > 0);
  quiet.set("not_applicable", na);
  quiet.set("has_not_applicable", counts[1] > 0);
  quiet.set("skipped", skipped);
  quiet.set("has_skipped", counts[2] > 0);
  view.set("quiet", quiet);
}

// The bytes of the string values of `data` at `keys` (a size hint for render_template).
std::size_t string_bytes(const TemplateData& data, std::initializer_list<const char*> keys) {
  std::size_t bytes = 0;
  for (const char* key : keys)
    if (const TemplateData* value = data.get(key); value && value->is_string())
      bytes += value->string_value().size();
  return bytes;
}

// A table of the Tables section as its HTML (its bytes added to `page_bytes`): a table's template data holds
// a map per cell, and kainjow copies every list it is given, so eight workers' tables held 54 MB as data for
// a 2.6 MB page (128 workers of the A100 trace).
TemplateData rendered_table(const TemplateData& table, std::size_t& page_bytes) {
  // The rows, and the caption and header (with each column's sort orders): some kB.
  std::size_t size_hint = string_bytes(table, {"rows_html", "rows_aside"}) + (16 << 10);
  std::string html = render_template("table.html.mustache", table, true, size_hint);
  page_bytes += html.size();
  TemplateData data;
  data.set("html", html);
  return data;
}

// The ranks table as a page of more ranks than it lists shows it: the slowest, the median and the
// fastest by mean step first (the page lists the first `max_rows` rows; sorting a column still
// orders every rank), the others after in rank order. Empty when every rank is listed.
ReportTable ranks_as_listed(const ReportTable& ranks, std::size_t max_rows) {
  std::size_t n = ranks.rows.size();
  if (n <= max_rows || max_rows < 3) return {};
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  auto mean = [&](std::size_t i) { return number_at(ranks, i, table_column(Table::Ranks, "mean_step_us")); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return mean(a) > mean(b); });
  std::size_t slowest = (max_rows - 1) / 2, fastest = max_rows - 1 - slowest;
  std::vector<std::size_t> listed(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(slowest));
  listed.push_back(order[n / 2]);
  listed.insert(listed.end(), order.end() - static_cast<std::ptrdiff_t>(fastest), order.end());
  std::vector<bool> taken(n, false);
  for (std::size_t i : listed) taken[i] = true;
  for (std::size_t i = 0; i < n; ++i)
    if (!taken[i]) listed.push_back(i);
  ReportTable out{ranks.name, ranks.title, ranks.description, ranks.columns, {}};
  if (!out.description.empty() && !out.description.ends_with('.')) out.description += '.';
  out.description += fmt::format(
      " The page lists {} of the {} ranks: the {} slowest, the median and the {} fastest by mean step, "
      "slowest first; sorting a column orders every rank, and the JSON report and the workbook hold "
      "them all.",
      max_rows, n, slowest, fastest);
  for (std::size_t i : listed) out.rows.push_back(ranks.rows[i]);
  return out;
}

// Whether a worker the report keeps whole is one a page of a large run shows: the first, the
// slowest or the fastest (not the next slowest, whose tables only the JSON and workbook hold).
bool shown_in_large_run(const ReportWorker& w) {
  const std::string& why = w.detailed_as;
  return why == "first" || why.starts_with("first and") || why == "slowest" || why == "fastest";
}

// A section for every worker up to kMaxWorkerSections; beyond, the page of a large run stays small
// whatever --detailed-workers keeps: the first, the slowest and the fastest of the workers the
// report keeps whole (else the slowest worker's only).
std::vector<const ReportWorker*> worker_sections(const ReportModel& r) {
  std::vector<const ReportWorker*> shown;
  if (r.workers.size() <= kMaxWorkerSections) {
    for (const ReportWorker& w : r.workers) shown.push_back(&w);
    return shown;
  }
  for (const ReportWorker& w : r.workers)
    if (w.detailed && shown_in_large_run(w)) shown.push_back(&w);
  if (!shown.empty()) return shown;
  const ReportWorker* slowest = slowest_worker(r);
  return {slowest ? slowest : &r.workers.front()};
}

std::string section_name(const ReportModel& r, const ReportWorker& w) {
  if (r.workers.size() <= kMaxWorkerSections) return w.name;
  std::string why = w.detailed_as;
  if (why.empty()) why = &w == slowest_worker(r) ? "slowest" : "first";
  return fmt::format("{} (the {} of {} workers)", w.name, why, r.workers.size());
}

std::string more_workers_note(const ReportModel& r, std::size_t shown) {
  auto whole = static_cast<std::size_t>(
      std::count_if(r.workers.begin(), r.workers.end(), [](const ReportWorker& w) { return w.detailed; }));
  std::string others = fmt::format(
      "The other {} workers are in the Ranks and Collectives by rank tables, and their ops, kernels and "
      "regions in the run's tables of all workers",
      r.workers.size() - std::max(whole, shown));
  if (whole <= shown)  // the hidden workers are those the report keeps no whole tables of
    return fmt::format("{}; the report keeps every table of {} workers (--detailed-workers).", others, shown);
  return fmt::format(
      "The tables of {} more workers the report keeps whole (--detailed-workers: the next "
      "slowest) are in the JSON report and the XLSX workbook. {}.",
      whole - shown, others);
}

// The dashboard's system card: the first worker's system table; of a run of several workers, with
// the run's GPUs first, so that it counts the GPUs the dashboard counts.
ReportTable system_card(const ReportModel& r, const ReportTable& first) {
  if (r.workers.size() < 2) return first;
  ReportTable t = first;
  t.description =
      fmt::format("What the trace of {} (the first of {} workers) says about the machine and the run",
                  r.workers.front().name, r.workers.size());
  std::vector<std::pair<std::string, int>> gpus;  // "unknown model (Hopper, ...)" and its count, in order
  for (const ReportGpu& g : r.gpus) {
    std::string name = (g.name.empty() ? "unknown model" : g.name) + gpu_architecture_text(g);
    auto it = std::find_if(gpus.begin(), gpus.end(), [&](const auto& p) { return p.first == name; });
    if (it == gpus.end())
      gpus.emplace_back(name, 1);
    else
      ++it->second;
  }
  std::string text;
  for (const auto& [name, n] : gpus) text += fmt::format("{}{} x {}", text.empty() ? "" : ", ", n, name);
  t.rows.insert(t.rows.begin(),
                {std::string(words("GPUs of the run")),
                 fmt::format("{} on {} workers", text.empty() ? "none" : text, r.workers.size())});
  return t;
}

// Returns the bytes the tables add to the page.
std::size_t add_tables(const ReportModel& r, const HtmlOptions& o, TemplateData& view, AsideTexts& aside) {
  std::size_t page_bytes = 0;
  if (!r.workers.empty()) {
    if (const ReportTable* t = find_table(r.workers.front().tables, Table::TopGpuOps))
      set_moved(view, "top_ops", rendered_table(table_view(*t, o.max_rows, t->name, aside), page_bytes));
    if (const ReportTable* t = find_table(r.workers.front().tables, Table::System))
      set_moved(view, "system",
                rendered_table(table_view(system_card(r, *t), o.max_rows, t->name, aside), page_bytes));
  }
  TemplateData run_tables = template_list();
  for (std::string_view name : kRunTables)
    if (const ReportTable* t = find_table(r.tables, name); t && !t->rows.empty()) {
      ReportTable listed = name == table_name(Table::Ranks) ? ranks_as_listed(*t, o.max_rows) : ReportTable{};
      const ReportTable& table = listed.rows.empty() ? *t : listed;
      run_tables.push_back(rendered_table(
          table_view(table, o.max_rows, std::string(name), aside, kCollapsedTableRows), page_bytes));
    }
  set_moved(view, "run_tables", std::move(run_tables));
  std::vector<const ReportWorker*> shown = worker_sections(r);
  TemplateData workers = template_list();
  for (std::size_t section = 0; section < shown.size(); ++section) {
    const ReportWorker& w = *shown[section];
    TemplateData worker;
    if (r.workers.size() > 1) worker.set("name", section_name(r, w));
    if (std::string figure = roofline_figure(w); !figure.empty()) worker.set("roofline", figure);
    TemplateData tables = template_list();
    for (const ReportTable& t : w.tables)
      if (!t.rows.empty() && !in_dashboard(t.name))
        tables.push_back(rendered_table(table_view(t, o.max_rows, fmt::format("{}-{}", section, t.name),
                                                   aside, kCollapsedTableRows, w.window.start_us),
                                        page_bytes));
    set_moved(worker, "tables", std::move(tables));
    workers.push_back(worker);
  }
  set_moved(view, "workers", std::move(workers));
  if (shown.size() < r.workers.size()) view.set("more_workers", more_workers_note(r, shown.size()));
  return page_bytes;
}

// The report's summary for scripts and tools that read the page: the run's verdict, findings,
// metrics, steps (those the page charts), tables and device families, and of each worker its name,
// window and device family; the tables and every list of the run's inputs, GPUs, workers and notes
// cut to the rows the page shows (--html-rows). The workers' own tables, metrics and steps are in
// the page's tables and the JSON report: embedding them made a 32-worker page 6 MB, for data the
// page itself never reads.
std::string page_data(const ReportModel& r, std::size_t max_rows) {
  ReportModel shown;
  shown.schema = r.schema;
  shown.tool_version = r.tool_version;
  shown.families = r.families;
  shown.capture = r.capture;
  shown.capture_line = r.capture_line;
  shown.settings = r.settings;
  shown.metrics = r.metrics;
  // The steps the page charts (charts.h), not a million of them.
  shown.steps.assign(r.steps.begin(),
                     r.steps.begin() + static_cast<std::ptrdiff_t>(std::min(r.steps.size(), kChartedSteps)));
  shown.run_warnings = r.run_warnings;
  shown.findings = r.findings;
  shown.rules = r.rules;
  shown.verdict = r.verdict;
  if (r.baseline) {
    shown.baseline = *r.baseline;
    shown.baseline->trends.clear();
  }
  for (const ReportTable& t : r.tables) {
    ReportTable cut{t.name, t.title, t.description, t.columns, {}};
    cut.rows.assign(t.rows.begin(),
                    t.rows.begin() + static_cast<std::ptrdiff_t>(std::min(max_rows, t.rows.size())));
    shown.tables.push_back(std::move(cut));
  }
  // Lists that grow with the workers are cut like the tables: a page of 1,024 ranks held 1.2 MB of
  // inputs, GPUs, workers and notes here.
  auto cut = [max_rows](auto list) {
    if (list.size() > max_rows) list.resize(max_rows);
    return list;
  };
  shown.inputs = cut(r.inputs);
  shown.gpus = cut(r.gpus);
  shown.warnings = cut(r.warnings);
  for (const ReportWorker& w : r.workers) {
    if (shown.workers.size() == max_rows) break;
    ReportWorker summary;
    summary.name = w.name;
    summary.input_path = w.input_path;
    summary.detailed = w.detailed;
    summary.detailed_as = w.detailed_as;
    summary.window = w.window;
    summary.system.family = w.system.family;
    shown.workers.push_back(std::move(summary));
  }
  return script_json_escape(render_json_without_worker_metrics(shown));
}

}  // namespace

HtmlOutput render_html(const ReportModel& r, const HtmlOptions& o) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  TemplateData view;
  view.set("version", r.tool_version);
  view.set("title", title_of(r));
  view.set("inputs_text", inputs_text(r, 4));
  if (!r.capture_line.empty()) view.set("capture", r.capture_line);
  if (!o.timestamp.empty()) view.set("timestamp", o.timestamp);
  if (!o.annotated_trace.empty()) {
    TemplateData perfetto;
    perfetto.set("href", o.annotated_trace);
    std::size_t slash = o.annotated_trace.rfind('/');
    perfetto.set("file",
                 slash == std::string::npos ? o.annotated_trace : o.annotated_trace.substr(slash + 1));
    view.set("perfetto", perfetto);
  }
  HtmlOutput out;
  out.css = std::string(template_text("report.css"));
  out.js = std::string(template_text("report.js"));
  view.set("inline_assets", !o.external_assets);
  if (o.external_assets) {
    view.set("css_href", std::string(kHtmlCssName));
    view.set("js_href", std::string(kHtmlJsName));
  } else {
    view.set("css", out.css);
    view.set("js", out.js);
  }
  view.set("table", template_partial("table.html.mustache"));
  view.set("gain_of", std::string(gain_share_of(r)));
  add_dashboard(r, view);
  add_plots(r, view);
  add_diagnosis(r, view);
  if (std::string mismatch = baseline_mismatch_text(r); !mismatch.empty()) view.set("mismatch", mismatch);
  TemplateData run_warnings = template_list();
  for (const Note& w : r.run_warnings) run_warnings.push_back(TemplateData(note_words(w)));
  if (!r.run_warnings.empty()) view.set("run_warnings", run_warnings);
  add_timeline(r, view);
  add_neuron(r, view);
  add_memory(r, view);
  add_findings(r, view);
  AsideTexts aside;
  add_baseline(r, o, view, aside);
  std::size_t page_bytes = add_tables(r, o, view, aside);
  if (!aside.empty()) view.set("aside_texts", aside.json());
  TemplateData warnings = template_list();
  for (const auto& w : grouped_notes(r)) warnings.push_back(TemplateData(w));
  view.set("warnings", warnings);
  view.set("has_warnings", !r.warnings.empty());
  // The report's own checks, after the findings (never a banner above the advice).
  TemplateData checks = template_list();
  for (const std::string& line : data_quality_lines(r)) checks.push_back(TemplateData(line));
  view.set("has_data_quality", !data_quality_lines(r).empty());
  view.set("data_quality", checks);
  view.set("data_json", page_data(r, o.max_rows));
  // The page's big pieces; the rest (dashboard, findings, notes) is a few tens of kB.
  page_bytes += string_bytes(view, {"css", "js", "data_json", "aside_texts", "neuron_html"}) + (64 << 10);
  if (const TemplateData* timeline = view.get("timeline"))
    page_bytes += string_bytes(*timeline, {"svg", "strip"});
  out.page = render_template("report.html.mustache", view, true, page_bytes);
  return out;
}

}  // namespace perfgate
