#include "render/html/dashboard.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>

#include <fmt/format.h>

#include "render/cell_format.h"
#include "render/colors.h"
#include "render/format.h"
#include "render/html/bar_charts.h"
#include "render/html/charts.h"
#include "render/short_labels.h"

namespace perfgate {
namespace {

// `value` with a no-break space after each number: "94.60 ms" never wraps into "94.60" and "ms" in a
// narrow card (the text "n/a (FLOPs known for ...)" still wraps between its words).
std::string number_with_unit(const std::string& value) {
  std::string out;
  out.reserve(value.size() + 4);
  for (std::size_t i = 0; i < value.size(); ++i) {
    bool after_number = i > 0 && value[i - 1] >= '0' && value[i - 1] <= '9';
    if (value[i] == ' ' && after_number)
      out += "\u00a0";
    else
      out += value[i];
  }
  return out;
}

// A label and its value; with a baseline, the change beside it.
TemplateData entry(const std::string& label, const std::string& value, const std::string& change = "") {
  TemplateData d;
  d.set("label", label);
  d.set("value", number_with_unit(value));
  if (!change.empty()) d.set("change", change);
  return d;
}

TemplateData legend_of(const std::vector<ChartPart>& parts, bool with_values) {
  TemplateData list = template_list();
  for (const auto& p : parts) {
    TemplateData d;
    d.set("label", p.label);
    d.set("color", p.color);
    if (with_values) d.set("value", format_pct(p.value));
    list.push_back(d);
  }
  return list;
}

// The change of a metric against the baseline, for a badge beside its value ("" without one).
std::string change_badge(const ReportModel& r, Metric metric) {
  if (!r.baseline) return "";
  const ReportMetricChange* c = r.baseline->change(metric);
  return c && c->delta ? signed_change(*c) : "";
}

// A metric of a card: its label, with `share_of` after it (", of the window": what a percentage is a
// share of, where the label does not say), its value by its unit and its change.
// A withheld number says why where it would be.
TemplateData metric_entry(const ReportModel& r, Metric metric, std::string_view share_of = "") {
  std::string withheld = withheld_text(r, metric);
  return entry(metric_label(metric) + std::string(share_of),
               withheld.empty() ? format_value(r.metric(metric), metric_info(metric).unit) : withheld,
               change_badge(r, metric));
}

TemplateData summary(const ReportModel& r) {
  TemplateData list = template_list();
  list.push_back(metric_entry(r, Metric::WindowWallUs));
  // Without a change badge: the number of GPUs is the machine the run had, not a result of the code.
  list.push_back(entry(metric_label(Metric::GpuCount), format_value(r.metric(Metric::GpuCount), "count")));
  list.push_back(metric_entry(r, Metric::GpuBusyPct, ", of the window"));
  // Without steps the window is the whole trace: its two spans and the GPUs' busy share of each.
  if (r.workers.size() == 1 && r.workers[0].window.step_source == "none" &&
      r.metric(Metric::WindowGpuSpanUs)) {
    list.push_back(metric_entry(r, Metric::WindowCaptureSpanUs));
    list.push_back(metric_entry(r, Metric::WindowGpuSpanUs));
    list.push_back(metric_entry(r, Metric::GpuBusyOfCapturePct));
    list.push_back(metric_entry(r, Metric::GpuBusyOfGpuSpanPct));
  }
  if (counter_shown(r, Metric::GpuSmEfficiencyPct))
    list.push_back(metric_entry(r, Metric::GpuSmEfficiencyPct, ", of the window"));
  list.push_back(metric_entry(r, Metric::TensorCoreKernelTimePct));
  if (r.metric(Metric::MatrixUnitOpTimePct)) list.push_back(metric_entry(r, Metric::MatrixUnitOpTimePct));
  if (r.metric(Metric::KernelsCompiledPct).value_or(0) > 0)
    list.push_back(metric_entry(r, Metric::KernelsCompiledPct));
  list.push_back(metric_entry(r, Metric::ComputeTflopsAchieved));
  std::string mfu = withheld_text(r, Metric::ComputeMfuPct);
  list.push_back(entry(metric_label(Metric::ComputeMfuPct) + words(", of the GPUs' peak"),
                       mfu.empty() ? mfu_text(r.metrics) : mfu, change_badge(r, Metric::ComputeMfuPct)));
  list.push_back(metric_entry(r, Metric::BreakdownDataloaderPct, ", of the step"));
  list.push_back(metric_entry(r, Metric::BreakdownCommunicationPct, ", of the step"));
  list.push_back(metric_entry(r, Metric::HostSyncCalls));
  // How far the critical path explains the step: below rules' critical_path.min_coverage_pct it
  // bounds no gain (docs/rules.md).
  if (r.metric(Metric::CriticalPathCoveragePct))
    list.push_back(metric_entry(r, Metric::CriticalPathCoveragePct, ", of the step"));
  return list;
}

TemplateData step_summary(const ReportModel& r) {
  TemplateData list = template_list();
  list.push_back(entry(metric_label(Metric::WindowStepsInWindow),
                       format_value(r.metric(Metric::WindowStepsInWindow), "count")));
  for (Metric metric : {Metric::StepsMeanUs, Metric::StepsMedianUs, Metric::StepsP90Us, Metric::StepsMinUs,
                        Metric::StepsMaxUs, Metric::StepsCvPct})
    list.push_back(metric_entry(r, metric));
  return list;
}

void add_verdict(const ReportModel& r, TemplateData& view) {
  if (!r.verdict) return;
  const ReportVerdict& v = *r.verdict;
  TemplateData d;
  d.set("status", v.status);
  d.set("word", v.status == "fail" ? "FAIL" : v.status == "warn" ? "PASS with warnings" : "PASS");
  d.set("counts",
        fmt::format("{} failed · {} warnings · {} inconclusive · {} passed · {} not applicable · {} skipped "
                    "· exit code {}",
                    v.failures, v.warnings, v.inconclusive, v.passed, v.not_applicable, v.skipped,
                    v.exit_code));
  view.set("verdict", d);
}

void add_donuts(const ReportModel& r, TemplateData& view) {
  view.set("gpu_title", metric_label(Metric::GpuUtilizationPct));
  view.set("gpu_svg", donut_svg(r.metric(Metric::GpuUtilizationPct), kUtilizationColor,
                                metric_label(Metric::GpuUtilizationPct)));
  std::string per_gpu;
  if (r.gpus.size() <= kListedGpus) {
    for (const ReportGpu& g : r.gpus)
      per_gpu += fmt::format(fmt::runtime(words("{}GPU {}{} {}")), per_gpu.empty() ? "" : "; ", g.device,
                             gpu_architecture_text(g), format_pct(g.utilization_pct));
  } else {  // a large run: the spread, and the slowest and fastest ranks (the GPUs table has each)
    per_gpu =
        fmt::format("lowest {}, median {}, highest {}", format_pct(r.metric(Metric::GpuMinUtilizationPct)),
                    format_pct(r.metric(Metric::GpuMedianUtilizationPct)),
                    format_pct(r.metric(Metric::GpuMaxUtilizationPct)));
    if (auto slow = r.metric(Metric::RanksSlowest), fast = r.metric(Metric::RanksFastest); slow && fast)
      per_gpu += fmt::format("; slowest rank {:.0f}, fastest rank {:.0f} by mean step", *slow, *fast);
  }
  view.set("gpu_caption",
           r.gpus.empty()
               ? std::string(words("No GPU activity in the profile."))
               : fmt::format(fmt::runtime(words("Kernel time over the window, mean of {} GPU(s): {}.")),
                             r.gpus.size(), per_gpu));
  view.set("tc_title", metric_label(Metric::TensorCoreEfficiencyPct));
  view.set("tc_svg", donut_svg(r.metric(Metric::TensorCoreEfficiencyPct), kTensorCoreColor,
                               metric_label(Metric::TensorCoreEfficiencyPct)));
  std::string caption = fmt::format(
      fmt::runtime(words("Tensor Core share of the kernel time of TC-eligible ops (DLProf). Tensor "
                         "Core kernels are {} of all kernel time; eligible ops launched {} of it.")),
      format_pct(r.metric(Metric::TensorCoreKernelTimePct)),
      format_pct(r.metric(Metric::TensorCoreEligibleKernelTimePct)));
  // Where ops are known for too little of the kernel time, the donut is n/a and says why.
  auto judged = r.metric(Metric::TensorCoreJudgedKernelTimePct);
  if (judged && !r.metric(Metric::TensorCoreEfficiencyPct))
    caption += fmt::format(
        " Ops are known for only {} of the kernel time (graph replays without their capture "
        "trace, kernels with no launching op): whether the rest was eligible cannot be judged.",
        format_pct(judged));
  view.set("tc_caption", caption);
}

TemplateData bar(const std::string& title, const std::vector<ChartPart>& parts, const std::string& caption) {
  TemplateData d;
  d.set("title", title);
  d.set("svg", stacked_bar_svg(parts, title));
  d.set("legend", legend_of(parts, true));
  d.set("caption", caption);
  return d;
}

static_assert(kBreakdownShares.size() == kBreakdownColors.size() &&
              kResourceShares.size() == kResourceColors.size());

// The parts of a split, each under its metric's label, in its colour.
std::vector<ChartPart> split_parts(const ReportModel& r, std::span<const Metric> shares,
                                   std::span<const char* const> colors) {
  std::vector<ChartPart> parts;
  for (std::size_t i = 0; i < shares.size(); ++i)
    parts.push_back({metric_label(shares[i]), r.metric(shares[i]).value_or(0), colors[i]});
  return parts;
}

void add_bars(const ReportModel& r, TemplateData& view) {
  std::vector<ChartPart> resources = split_parts(r, kResourceShares, kResourceColors);
  std::vector<ChartPart> breakdown = split_parts(r, kBreakdownShares, kBreakdownColors);
  TemplateData bars = template_list();
  bars.push_back(
      bar("Resources", resources,
          words("DLProf's split of the window: Tensor Core kernels, other kernels, memory operations, "
                "CPU only, nothing recorded.")));
  bars.push_back(bar("Step breakdown", breakdown,
                     "The mean step split as the TensorBoard plugin does: each instant goes to the first "
                     "part active then."));
  view.set("bars", bars);
}

// Row index by step name.
std::map<std::string, std::size_t> rows_by_name(const ReportTable* t) {
  std::map<std::string, std::size_t> by_name;
  if (!t) return by_name;
  for (std::size_t i = 0; i < t->rows.size(); ++i)
    if (const auto* name = find_cell(*t, i, table_column(Table::Iterations, "name")))
      if (const auto* s = std::get_if<std::string>(name)) by_name[*s] = i;
  return by_name;
}

// Said under a chart of a run of more steps than a page charts.
std::string first_steps_note(std::size_t steps, std::string_view of) {
  if (steps <= kChartedSteps) return "";
  return fmt::format(" The first {} of {} {} (the JSON report has every one).", kChartedSteps, steps, of);
}

TemplateData step_chart(const std::string& title, const std::vector<StepColumn>& steps,
                        const std::vector<ChartPart>& legend, const std::string& caption) {
  TemplateData d;
  d.set("title", title);
  d.set("svg", step_bars_svg(steps, legend, title));
  d.set("legend", legend_of(legend, false));
  d.set("caption", caption);
  return d;
}

// A run's ranks side by side (the plugin's distributed view): each rank's mean step split into
// compute kernels, communication, data loading and the rest, from the ranks table; the caption names
// the slowest. Nothing for a single worker.
// The ranks a chart shows (row indices of the ranks table, and a note): every one up to
// kRanksInFull; beyond, the kRanksInFull / 2 slowest, the median and the fastest. Ties keep rank
// order, so the slowest is the one ranks.slowest names.
constexpr std::size_t kRanksInFull = 16;
std::vector<std::pair<std::size_t, std::string>> charted_ranks(const ReportTable& ranks) {
  std::vector<std::size_t> order(ranks.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::pair<std::size_t, std::string>> shown;
  if (order.size() <= kRanksInFull) {
    for (std::size_t i : order) shown.emplace_back(i, "");
    return shown;
  }
  auto mean = [&](std::size_t i) { return number_at(ranks, i, table_column(Table::Ranks, "mean_step_us")); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return mean(a) > mean(b); });
  auto add = [&](std::size_t i, std::string note) {
    for (auto& s : shown)
      if (s.first == i) {  // ranks all alike: the fastest is the slowest too
        if (!note.empty()) s.second += " · " + note;
        return;
      }
    shown.emplace_back(i, note);
  };
  add(*std::min_element(
          order.begin(), order.end(),
          [&](std::size_t a, std::size_t b) { return mean(a) < mean(b) || (mean(a) == mean(b) && a < b); }),
      "fastest");
  add(order[order.size() / 2], "median");
  for (std::size_t k = kRanksInFull / 2; k-- > 0;) add(order[k], k == 0 ? "slowest" : "");
  return shown;
}

// HTA's and the plugin's per-rank view: each rank's mean step split into computation alone,
// communication hidden under computation, exposed communication, data loading and the rest.
std::optional<TemplateData> rank_chart(const ReportModel& r) {
  const ReportTable* ranks = find_table(r.tables, Table::Ranks);
  if (!ranks || ranks->rows.size() < 2) return std::nullopt;
  // Ranks without steps (the processes of an nsys export, often) have no mean step to split.
  bool some_steps = false;
  for (std::size_t i = 0; i < ranks->rows.size(); ++i)
    if (const ReportCell* mean = find_cell(*ranks, i, table_column(Table::Ranks, "mean_step_us")))
      some_steps |= cell_number(*mean).has_value();
  if (!some_steps) return std::nullopt;
  auto color = [](BreakdownPart p) { return kBreakdownColors[static_cast<std::size_t>(p)]; };
  std::vector<ChartPart> parts = {{"computation alone", 0, color(BreakdownPart::Kernel)},
                                  {"overlapped communication", 0, "#7bc6c6"},
                                  {"exposed communication", 0, color(BreakdownPart::Communication)},
                                  {"data loader", 0, color(BreakdownPart::DataLoader)},
                                  {"rest of the step", 0, kPlainColor}};
  std::vector<StepColumn> columns;
  for (const auto& shown : charted_ranks(*ranks)) {
    std::size_t i = shown.first;  // a plain variable: clang 14 cannot capture structured bindings
    const std::string& note = shown.second;
    // A worker without steps (a mixed run's Neuron profile, an nsys process) has no bar, not an empty one.
    const ReportCell* mean_cell = find_cell(*ranks, i, table_column(Table::Ranks, "mean_step_us"));
    if (!mean_cell || !cell_number(*mean_cell)) continue;
    double mean = number_at(*ranks, i, table_column(Table::Ranks, "mean_step_us"));
    auto share = [&](std::string_view column) { return mean * number_at(*ranks, i, column) / 100; };
    double kernel = share(table_column(Table::Ranks, "kernel_pct"));
    double overlapped = std::min(share(table_column(Table::Ranks, "overlapped_communication_pct")), kernel);
    std::vector<double> split = {kernel - overlapped, overlapped,
                                 share(table_column(Table::Ranks, "communication_pct")),
                                 share(table_column(Table::Ranks, "dataloader_pct"))};
    split.push_back(std::max(0.0, mean - split[0] - split[1] - split[2] - split[3]));
    columns.push_back({text_at(*ranks, i, table_column(Table::Ranks, "worker")), true, mean, split, note});
  }
  std::optional<double> slowest = r.metric(Metric::RanksSlowest),
                        spread = r.metric(Metric::RanksStepSpreadPct);
  std::string caption =
      "Each rank's mean step: computation alone, communication that computation hides, "
      "communication that it does not, data loading and the rest.";
  if (ranks->rows.size() > kRanksInFull)
    caption += fmt::format(
        " Of {} ranks: the fastest, the median and the {} slowest (the ranks table has "
        "every one).",
        ranks->rows.size(), kRanksInFull / 2);
  if (slowest && spread)
    caption += fmt::format(" The slowest is rank {:.0f}; the spread of the mean steps is {} of the median.",
                           *slowest, format_pct(spread));
  TemplateData chart = step_chart("Ranks", columns, parts, caption);
  // On a phone (report.css: 480 px and narrower) a row per rank, its name beside its bar: the
  // columns' names would be cut to a few characters there.
  // Names cut to a phone's room (about 14 characters) where each still reads apart from the others.
  std::vector<std::string> names;
  for (const StepColumn& c : columns) names.push_back(c.name);
  std::vector<std::string> short_names = distinct_short_labels(names, 14);
  std::vector<RankedBar> rows;
  for (std::size_t k = 0; k < columns.size(); ++k) {
    const StepColumn& c = columns[k];
    rows.push_back({c.note.empty() ? short_names[k] : short_names[k] + " (" + c.note + ")",
                    format_duration_us(c.total_us), c.parts_us,
                    fmt::format("{}: {}", c.name, format_duration_us(c.total_us))});
  }
  chart.set("svg", "<div class=\"chart-columns\">" + step_bars_svg(columns, parts, "Ranks") +
                       "</div><div class=\"chart-rows\">" + ranked_bars_svg(rows, parts, "Ranks") + "</div>");
  return chart;
}

// The plugin's overview (the window's steps by breakdown part) and DLProf's iterations view (every
// step, Tensor Core and other kernel time, the window marked), for the first worker; and the ranks
// of a run.
void add_step_charts(const ReportModel& r, TemplateData& view) {
  TemplateData charts = template_list();
  if (auto ranks = rank_chart(r)) charts.push_back(*ranks);
  if (r.workers.empty() || r.workers.front().steps.empty()) {
    view.set("step_charts", charts);
    return;
  }
  const ReportWorker& w = r.workers.front();
  std::vector<ChartPart> parts = split_parts(r, kBreakdownShares, kBreakdownColors);  // its legend: no values
  std::vector<StepColumn> by_part;
  std::size_t split_steps = 0;
  for (const ReportStep& s : w.steps) {
    if (!s.in_window || !s.breakdown_us) continue;
    if (++split_steps > kChartedSteps) continue;
    by_part.push_back({s.name, true, s.duration_us,
                       std::vector<double>(s.breakdown_us->begin(), s.breakdown_us->end()), ""});
  }
  charts.push_back(step_chart("Step time breakdown", by_part, parts,
                              "Each step of the window, split as the plugin's overview." +
                                  first_steps_note(split_steps, "window steps")));
  std::vector<ChartPart> kinds = {{words("Tensor Core kernels"), 0, kTensorCoreColor},
                                  {"other kernels", 0, kUtilizationColor},
                                  {"no kernel running", 0, kPlainColor}};
  const ReportTable* iterations = find_table(w.tables, Table::Iterations);
  auto rows = rows_by_name(iterations);
  std::vector<StepColumn> by_kind;
  for (const ReportStep& s : w.steps) {
    if (by_kind.size() == kChartedSteps) break;
    StepColumn c{s.name, s.in_window, s.duration_us, {}, ""};
    if (auto it = rows.find(s.name); it != rows.end()) {
      double gpu = number_at(*iterations, it->second, table_column(Table::Iterations, "gpu_us")),
             tc = number_at(*iterations, it->second, table_column(Table::Iterations, "tc_gpu_us"));
      c.parts_us = {tc, gpu - tc, std::max(0.0, s.duration_us - gpu)};
    }
    by_kind.push_back(std::move(c));
  }
  charts.push_back(step_chart("Iterations", by_kind, kinds,
                              "Every step detected: kernel time by kind; steps outside the aggregation "
                              "window as dashed outlines." +
                                  first_steps_note(w.steps.size(), "steps")));
  view.set("step_charts", charts);
}

}  // namespace

void add_dashboard(const ReportModel& r, TemplateData& view) {
  add_verdict(r, view);
  add_donuts(r, view);
  view.set("summary", summary(r));
  view.set("step_summary", step_summary(r));
  add_bars(r, view);
  add_step_charts(r, view);
}

}  // namespace perfgate
