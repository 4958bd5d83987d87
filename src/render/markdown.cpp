// GitHub-flavoured Markdown for CI job summaries and pull-request comments, rendered from
// templates/report.md.mustache. Every value is escaped here (the template does not escape), and
// the text is fitted to a byte budget by showing fewer table rows, then fewer findings.
#include <algorithm>
#include <map>
#include <span>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/render.h"
#include "render/see_also.h"
#include "render/short_labels.h"
#include "render/templates.h"
#include "render/terminal_memory.h"
#include "render/trend_text.h"

namespace perfgate {
namespace {

constexpr std::size_t kMaxCellChars = 80;

// The key metrics of the summary, each shown under its catalog label.
constexpr Metric kKeyMetrics[] = {
    Metric::StepsMedianUs,
    Metric::StepsMeanUs,
    Metric::GpuUtilizationPct,
    Metric::TensorCoreKernelTimePct,
    Metric::MatrixUnitOpTimePct,  // a TPU's: listed only where it has a value
    Metric::TensorCoreEfficiencyPct,
    Metric::BreakdownDataloaderPct,
    Metric::BreakdownCommunicationPct,
    Metric::ComputeMfuPct,
    Metric::ComputeFlopsCoveragePct,
    Metric::MemoryPeakAllocatedBytes,
    Metric::HostSyncCalls,
};

// The key metrics of a run of Neuron device profiles (no GPU: the GPU metrics are all n/a).
constexpr Metric kNeuronKeyMetrics[] = {
    Metric::NeuronTotalTimeUs,     Metric::NeuronActiveTimePct, Metric::NeuronTensorActivePct,
    Metric::NeuronVectorActivePct, Metric::NeuronDmaActivePct,  Metric::NeuronMfuPct,
    Metric::NeuronSpillSaveBytes,
};

// The key metrics of a run of memory snapshots alone (no steps, no GPU activity).
constexpr Metric kSnapshotKeyMetrics[] = {
    Metric::MemorySnapshotPeakBytes,      Metric::MemorySnapshotReservedBytes,
    Metric::MemorySnapshotAllocatedBytes, Metric::MemoryFragmentationPct,
    Metric::MemoryLargestInactiveBytes,   Metric::MemoryOomCount,
};

// How much goes in: fewer rows and findings until the text fits the budget.
struct Detail {
  std::size_t table_rows;
  std::size_t findings;
  bool quiet;
};

std::string esc(std::string_view s) {
  return markdown_escape(s);
}

const char* icon_of(FindingStatus s) {
  return s == FindingStatus::Fail ? "❌" : s == FindingStatus::Warn ? "⚠️" : "❔";
}

void add_verdict(const ReportModel& r, TemplateData& view) {
  const std::string status = r.verdict ? r.verdict->status : "pass";
  view.set("icon", status == "fail" ? "❌" : status == "warn" ? "⚠️" : "✅");
  view.set("verdict", std::string(verdict_word(status)));
  if (r.verdict) {
    const ReportVerdict& v = *r.verdict;
    view.set("counts",
             fmt::format("{} failed · {} warnings · {} inconclusive · {} passed · {} n/a · {} skipped",
                         v.failures, v.warnings, v.inconclusive, v.passed, v.not_applicable, v.skipped));
  }
  // What failed, first (issue 93: a failed gate's comment opened with the counts and the metric table,
  // the failed rules far below): each failed or inconclusive rule's headline (its value against the
  // limit or the baseline's).
  std::string failed;
  for (FindingStatus kind : {FindingStatus::Fail, FindingStatus::Inconclusive})
    for (const ReportFinding& f : r.findings) {
      if (f.status != kind) continue;
      failed += fmt::format("{}{} `{}` {}", failed.empty() ? "" : "<br>", icon_of(kind), esc(f.id),
                            esc(f.headline.empty() ? f.title : f.headline));
    }
  if (!failed.empty()) view.set("what_failed", failed);
  std::string inputs;
  for (std::size_t i = 0; i < r.inputs.size() && i < 3; ++i)
    inputs += (i ? ", " : "") + esc(r.inputs[i].worker);
  if (r.inputs.size() > 3) inputs += fmt::format(" and {} more", r.inputs.size() - 3);
  view.set("inputs", inputs);
  if (!r.capture_line.empty()) view.set("capture", esc(r.capture_line));
  if (r.baseline) view.set("baseline", esc(shown_baseline(*r.baseline)));
  if (std::string m = baseline_mismatch_text(r); !m.empty()) view.set("mismatch", esc(m));
  TemplateData run_warnings = template_list();
  for (const Note& w : r.run_warnings) run_warnings.push_back(TemplateData(esc(note_words(w))));
  if (!r.run_warnings.empty()) view.set("run_warnings", run_warnings);
  view.set("has_baseline", r.baseline.has_value());
  if (!r.baseline) return;
  view.set("work", esc(window_work_text(r)));
  if (std::string note = different_work_text(r); !note.empty()) view.set("different_work", esc(note));
  std::string factors;
  for (const ReportComparability& c : r.baseline->comparability)
    factors += fmt::format("- {} {}\n", c.holds ? "✅" : "⚠️", esc(comparability_line(c)));
  if (!factors.empty()) view.set("comparability", factors);
}

void add_metrics(const ReportModel& r, bool compact, TemplateData& view) {
  TemplateData list = template_list();
  std::span<const Metric> key = shows(r, FamilySection::NeuronKeyMetrics)
                                    ? std::span<const Metric>(kNeuronKeyMetrics)
                                : snapshot_alone(r) ? std::span<const Metric>(kSnapshotKeyMetrics)
                                                    : std::span<const Metric>(kKeyMetrics);
  for (Metric metric : key) {
    std::optional<double> v = r.metric(metric);
    if ((compact || metric == Metric::MatrixUnitOpTimePct) && !v) continue;
    std::string_view unit = metric_info(metric).unit;
    TemplateData row;
    row.set("label", esc(metric_label(metric)));
    std::string value = format_value(v, unit);
    // A peak counted from the capture's start (no totals in the trace) is a lower bound.
    if (metric == Metric::MemoryPeakAllocatedBytes && v && r.metric(Metric::MemoryTotalsRecorded) == 0.0)
      value = "at least " + value;
    if (std::string withheld = withheld_text(r, metric); !withheld.empty()) value = esc(withheld);
    row.set("value", value);
    if (const ReportMetricChange* c = r.baseline ? r.baseline->change(metric) : nullptr) {
      row.set("baseline", format_value(c->baseline, unit));
      row.set("delta", signed_change(*c));
    }
    list.push_back(row);
  }
  view.set("metrics", list);
}

void add_findings(const ReportModel& r, const Detail& d, TemplateData& view) {
  std::vector<const ReportFinding*> fired;  // failures first, then inconclusive, then warnings
  for (const auto& f : r.findings)
    if (finding_rank(f.status) < finding_rank(FindingStatus::Pass)) fired.push_back(&f);
  // On a baseline run what the change did comes first: findings the baseline had too come after.
  std::stable_sort(fired.begin(), fired.end(), [](const ReportFinding* a, const ReportFinding* b) {
    if (a->in_baseline != b->in_baseline) return b->in_baseline;
    return finding_rank(a->status) < finding_rank(b->status);
  });
  TemplateData list = template_list();
  for (std::size_t i = 0; i < fired.size() && i < d.findings; ++i) {
    const ReportFinding& f = *fired[i];
    TemplateData item;
    item.set("icon", icon_of(f.status));
    // The headline shows; the evidence and the remedy fold under it (issue 93).
    item.set("headline", esc(f.headline.empty() ? f.title : f.headline));
    item.set("id", esc(f.id));
    item.set("in_baseline", f.in_baseline);
    if (f.threshold) item.set("limit", esc(f.threshold_text));
    if (!f.problem.empty()) item.set("problem", esc(f.problem));
    // A step test's reason is its confidence (the interval, the p-value, the change it could see):
    // a reviewer reads it with the failure, as the terminal and the HTML page show it (issue 74).
    if ((f.status == FindingStatus::Inconclusive || f.step_test) && !f.reason.empty())
      item.set("reason", esc(f.reason));
    if (!f.recommendation.empty()) item.set("recommendation", esc(f.recommendation));
    if (std::string see = see_elsewhere_text(r, f); !see.empty()) item.set("see", esc(see));
    // Formatted numbers and units only: nothing to escape, and the current run in bold.
    if (const ReportMetricTrend* t = find_trend(r, f.metric); t && !t->points.empty())
      item.set("recent", recent_values_text(*t, "**", "**"));
    list.push_back(item);
  }
  view.set("findings", list);
  if (fired.size() > d.findings)
    view.set("cut_findings",
             fmt::format("{} more findings are in the full report.", fired.size() - d.findings));
  if (d.quiet && r.verdict)
    view.set("quiet", fmt::format("Passed: {} · not applicable: {} · skipped (no baseline): {}",
                                  r.verdict->passed, r.verdict->not_applicable, r.verdict->skipped));
}

// `window_start_us`: the worker's window start, from which trace-clock columns are shown.
TemplateData table_data(const ReportTable& t, std::size_t rows, bool open,
                        std::optional<double> window_start_us = {}) {
  TemplateData d;
  d.set("title", esc(t.title));
  d.set("open", open);
  std::string header = "|", rule = "|";
  for (const auto& c : t.columns) {
    std::string_view unit = header_unit(c);
    if (window_start_us && on_trace_clock(t.name, c.name)) unit = kFromWindowStart;
    header += " " + esc(column_header(c, unit)) + " |";
    rule += c.unit.empty() ? "---|" : "---:|";
  }
  d.set("header", header);
  d.set("rule", rule);
  TemplateData list = template_list();
  std::size_t shown = std::min(rows, t.rows.size());
  std::vector<std::vector<std::string>> short_texts = short_text_cells(t, shown, kMaxCellChars);
  std::string text;  // a cell's text, its buffer reused cell after cell
  ReportCell shifted;
  for (std::size_t i = 0; i < shown; ++i) {
    std::string line = "|";
    for (std::size_t c = 0; c < t.columns.size() && c < t.rows[i].size(); ++c) {
      const ReportCell& cell = shown_cell(t, i, c, window_start_us, shifted);
      text.clear();
      append_cell_text(text, cell, t.columns[c].unit);
      if (text.size() > kMaxCellChars)
        text = i < short_texts[c].size() ? short_texts[c][i] : shorten(text, kMaxCellChars);
      // A number's text (digits, signs, units, "–") has nothing Markdown escapes.
      line.append(" ").append(std::holds_alternative<std::string>(cell) ? esc(text) : text).append(" |");
    }
    list.push_back(TemplateData(line));
  }
  d.set("rows", list);
  d.set("shown", std::to_string(shown));
  d.set("total", std::to_string(t.rows.size()));
  d.set("truncated", shown < t.rows.size());
  return d;
}

// The roofline table's columns a reader of a review comment needs; the rest are in the XLSX and JSON.
ReportTable roofline_summary(const ReportTable& t) {
  static constexpr std::string_view kColumns[] = {"name",         "input_dims", "model",    "calls",
                                                  "kernel_us",    "tflops",     "tb_per_s", "bound",
                                                  "roofline_pct", "saving_us",  "remedy"};
  ReportTable out{t.name, t.title, t.description, {}, {}};
  std::vector<std::size_t> kept;
  for (std::string_view name : kColumns)
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].name == name) {
        kept.push_back(i);
        out.columns.push_back(t.columns[i]);
      }
  for (const auto& row : t.rows) {
    std::vector<ReportCell> cells;
    for (std::size_t i : kept) cells.push_back(i < row.size() ? row[i] : ReportCell{});
    out.rows.push_back(std::move(cells));
  }
  return out;
}

// The table "changes" cut to `per_group` rows of each item (op, region, kernel) in each direction:
// its rows come slower first, so its head alone would show no improvement.
ReportTable changes_view(const ReportTable& t, std::size_t per_group) {
  ReportTable out{t.name, t.title, t.description, t.columns, {}};
  std::map<std::pair<std::string, std::string>, std::size_t> shown;
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    if (shown[{text_at(t, r, table_column(Table::Changes, "direction")),
               text_at(t, r, table_column(Table::Changes, "item"))}]++ < per_group)
      out.rows.push_back(t.rows[r]);
  return out;
}

// What changed against the baseline, both ways, before the findings: what a reviewer reads first.
void add_changes(const ReportModel& r, bool compact, const Detail& d, TemplateData& view) {
  const ReportTable* t = find_table(r.tables, Table::Changes);
  if (!t || t->rows.empty()) return;
  std::size_t per_group = std::min<std::size_t>(compact ? 2 : kChangesPerItem, d.table_rows);
  if (per_group == 0) return;
  ReportTable shown = changes_view(*t, per_group);
  TemplateData data = table_data(shown, shown.rows.size(), true);
  data.set("basis", std::string(changes_basis(r)));
  if (r.baseline && r.baseline->changes_by_call) data.set("order", std::string(changes_order(r)));
  view.set("changes", data);
}

void add_tables(const ReportModel& r, bool compact, const Detail& d, TemplateData& view) {
  TemplateData list = template_list();
  std::optional<double> window_start;
  if (!r.workers.empty()) window_start = r.workers.front().window.start_us;
  auto add = [&](const ReportTable* t, std::size_t rows, bool open) {
    if (t && !t->rows.empty() && rows > 0) list.push_back(table_data(*t, rows, open, window_start));
  };
  const std::vector<ReportTable>* worker = r.workers.empty() ? nullptr : &r.workers.front().tables;
  if (worker) add(find_table(*worker, Table::TopGpuOps), compact ? 5 : 10, true);
  // The waterfall along the critical path: ten rows at most, each a part of the step's change.
  add(find_table(r.tables, Table::CriticalPathChanges), SIZE_MAX, true);
  add(find_table(r.tables, Table::StepTimeDeltas), compact ? 5 : d.table_rows, compact);
  add(find_table(r.tables, Table::OpDeltas), compact ? 5 : d.table_rows, compact);
  add(find_table(r.tables, Table::RegionDeltas), compact ? 5 : d.table_rows, compact);
  add(find_table(r.tables, Table::KernelDeltas), compact ? 0 : d.table_rows, false);
  ReportTable roofline;
  if (const ReportTable* t = worker ? find_table(*worker, Table::Roofline) : nullptr)
    roofline = roofline_summary(*t);
  if (worker && !compact) {
    for (Table table : {Table::Ops, Table::OpTypes, Table::Kernels})
      add(find_table(*worker, table), d.table_rows, false);
    add(&roofline, d.table_rows, false);
    add(find_table(*worker, Table::Iterations), d.table_rows, false);
  }
  if (!compact) add(find_table(r.tables, Table::Ranks), d.table_rows, false);
  add(find_table(r.tables, Table::Stragglers), compact ? 3 : 5, false);
  add(find_table(r.tables, Table::CollectiveBandwidth), compact ? 0 : 5, false);
  view.set("tables", list);
}

std::string render_with(const ReportModel& r, const MarkdownOptions& o, const Detail& d) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  TemplateData view;
  add_verdict(r, view);
  add_metrics(r, o.compact, view);
  add_changes(r, o.compact, d, view);
  add_findings(r, d, view);
  // The report's own checks, after the advice: a line each.
  TemplateData checks = template_list();
  for (const std::string& line : data_quality_lines(r)) checks.push_back(TemplateData(esc(line)));
  view.set("has_data_quality", !data_quality_lines(r).empty());
  view.set("data_quality", checks);
  add_tables(r, o.compact, d, view);
  if (o.compact) view.set("note", "The full report (HTML, XLSX, JSON) is attached to the job.");
  return render_template("report.md.mustache", view, false);
}

}  // namespace

std::string render_markdown(const ReportModel& r, const MarkdownOptions& o) {
  static constexpr Detail kLevels[] = {{20, 1000, true}, {10, 1000, true}, {5, 100, true},
                                       {0, 50, true},    {0, 20, false},   {0, 5, false}};
  std::string text;
  for (const Detail& d : kLevels) {
    text = render_with(r, o, d);
    if (text.size() <= o.budget_bytes) return text;
  }
  // Still too long (a budget smaller than the verdict and the metrics): cut, keeping UTF-8 whole.
  constexpr std::string_view kCut = "\n\n<sub>Cut to fit the size limit.</sub>\n";
  std::size_t keep = o.budget_bytes > kCut.size() ? o.budget_bytes - kCut.size() : 0;
  return std::string(utf8_prefix(text, keep)) +
         std::string(kCut.substr(0, std::min(kCut.size(), o.budget_bytes)));
}

}  // namespace perfgate
