#include "render/html/baseline_view.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/format.h"
#include "render/html/charts.h"
#include "render/html/plots.h"
#include "render/html/table_view.h"

namespace perfgate {
namespace {

// Each metric a baseline rule reads: its value now, the baseline's, the change and the rule's status.
ReportTable gated_metrics_table(const ReportModel& r) {
  ReportTable t{"gated_metrics",
                "Gated metrics against the baseline",
                "Each metric a baseline rule reads, now and in the baseline",
                {},
                {}};
  for (const char* name : {"metric", "rule", "value", "baseline", "change", "status"})
    t.columns.push_back({name, "", ""});
  if (!r.baseline) return t;
  for (const ReportFinding& f : r.findings) {
    if (f.status == FindingStatus::Skipped) continue;
    // The finding's metric is the rule's text: a catalog name, or an expression (no change of its own).
    std::optional<Metric> id = metric_id(f.metric);
    const ReportMetricChange* change = id ? r.baseline->change(*id) : nullptr;
    if (!change || !f.baseline) continue;
    std::string_view unit = metric_info(*id).unit;
    t.rows.push_back({f.metric, f.id, format_value(change->value, unit), format_value(change->baseline, unit),
                      signed_change(*change), std::string(finding_status_name(f.status))});
  }
  return t;
}

// The ops that changed most per step, or over each run's whole window where a run has no steps
// (GPU plus host self time), as the plugin's diff view: the five largest regressions and the five
// largest improvements.
std::optional<TemplateData> op_change_chart(const ReportModel& r) {
  const ReportTable* deltas = find_table(r.tables, Table::OpDeltas);
  if (!deltas) return std::nullopt;
  std::vector<ChangeBar> bars;
  for (std::size_t i = 0; i < deltas->rows.size(); ++i) {
    double delta = number_at(*deltas, i, table_column(Table::OpDeltas, "delta_gpu_us_per_step")) +
                   number_at(*deltas, i, table_column(Table::OpDeltas, "delta_cpu_us_per_step"));
    if (std::fabs(delta) >= 1)
      bars.push_back({text_at(*deltas, i, table_column(Table::OpDeltas, "name")), delta});
  }
  std::stable_sort(bars.begin(), bars.end(),
                   [](const ChangeBar& a, const ChangeBar& b) { return a.delta_us > b.delta_us; });
  std::vector<ChangeBar> shown;
  for (std::size_t i = 0; i < bars.size() && i < 5 && bars[i].delta_us > 0; ++i) shown.push_back(bars[i]);
  std::size_t improvements = 0;
  for (std::size_t i = bars.size(); i-- > 0 && improvements < 5 && bars[i].delta_us < 0; ++improvements)
    shown.push_back(bars[i]);
  if (shown.empty()) return std::nullopt;
  TemplateData d;
  d.set("svg", change_bars_svg(shown, fmt::format("Op changes {} against the baseline", changes_basis(r))));
  d.set("basis", std::string(changes_basis(r)));
  return d;
}

}  // namespace

void add_baseline(const ReportModel& r, const HtmlOptions& o, TemplateData& view, AsideTexts& aside) {
  if (!r.baseline) return;
  const ReportBaseline& b = *r.baseline;
  TemplateData d;
  d.set("path", b.path);
  d.set("kind", b.kind);
  d.set("steps", std::to_string(b.steps));
  std::string gpus;
  for (const auto& g : b.gpu_names) gpus += (gpus.empty() ? "" : ", ") + g;
  if (!gpus.empty()) d.set("gpus", gpus);
  d.set("hardware_differs", b.hardware_differs);
  d.set("work", window_work_text(r));
  if (std::string note = different_work_text(r); !note.empty()) d.set("different_work", note);
  TemplateData factors = template_list();
  for (const ReportComparability& c : b.comparability) {
    TemplateData f;
    f.set("holds", c.holds);
    f.set("text", comparability_line(c));
    factors.push_back(f);
  }
  d.set("has_comparability", !b.comparability.empty());
  d.set("comparability", factors);
  TemplateData tables = template_list();
  tables.push_back(table_view(gated_metrics_table(r), SIZE_MAX, "gated_metrics", aside));
  if (auto chart = op_change_chart(r)) d.set("change_chart", *chart);
  add_step_growth_chart(r, d);
  for (std::string_view name : kDeltaTables)
    if (const ReportTable* t = find_table(r.tables, name))
      tables.push_back(table_view(*t, o.max_rows, std::string(name), aside,
                                  name == "changes" ? SIZE_MAX : kCollapsedTableRows));
  d.set("tables", tables);
  view.set("baseline", d);
}

}  // namespace perfgate
