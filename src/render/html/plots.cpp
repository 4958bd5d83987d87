#include "render/html/plots.h"
#include "render/format.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/colors.h"
#include "render/html/bar_charts.h"
#include "render/html/charts.h"

namespace perfgate {
namespace {

// The rows a ranked plot draws: the table's first ones (its own order, most time first).
constexpr std::size_t kPlottedRows = 10;
// Rows of a per-rank plot: a 16-rank run whole, a larger one's first 16 (most waiting first).
constexpr std::size_t kPlottedRanks = 16;

// Categories (gap causes, memory categories) in the order met, a colour each.
constexpr std::array<const char*, 8> kCategoryColors = {"#2f6fde", "#f08c3a", "#d9534f", "#8d5bd6",
                                                        "#16a2a2", "#e0a100", "#1f8a4c", "#9aa3b2"};

TemplateData legend_list(const std::vector<ChartPart>& parts) {
  TemplateData list = template_list();
  for (const ChartPart& p : parts) {
    TemplateData d;
    d.set("label", p.label);
    d.set("color", p.color);
    list.push_back(d);
  }
  return list;
}

TemplateData plot(const std::string& title, std::string svg, const std::vector<ChartPart>& legend,
                  const std::string& caption) {
  TemplateData d;
  d.set("title", title);
  d.set("svg", std::move(svg));
  if (legend.size() > 1) {
    d.set("has_legend", true);
    d.set("legend", legend_list(legend));
  }
  d.set("caption", caption);
  return d;
}

// The table of the first worker (the one the page details), or nullptr.
const ReportTable* first_worker_table(const ReportModel& r, Table table) {
  return r.workers.empty() ? nullptr : find_table(r.workers.front().tables, table);
}

// The table of the run, else of its first worker.
const ReportTable* run_or_first_worker(const ReportModel& r, Table table) {
  if (const ReportTable* t = find_table(r.tables, table)) return t;
  return first_worker_table(r, table);
}

// A plain bar per row: `name` and the `value` column (us, bytes), its cell as the page writes it.
std::vector<RankedBar> bars_of(const ReportTable& t, std::string_view name, std::string_view value,
                               std::string_view unit, std::size_t rows) {
  std::vector<RankedBar> bars;
  for (std::size_t i = 0; i < t.rows.size() && bars.size() < rows; ++i) {
    double v = number_at(t, i, value);
    std::string shown = format_value(v, unit);
    std::string label = text_at(t, i, name);
    bars.push_back({label, shown, {v}, fmt::format("{}: {}", label, shown)});
  }
  return bars;
}

std::string rows_note(const ReportTable& t, std::size_t shown) {
  return t.rows.size() > shown ? fmt::format(" The first {} of {} rows (the {} table has every one).", shown,
                                             t.rows.size(), t.name)
                               : "";
}

// A plot of the first worker's table's first rows: a name column and a time column.
struct TopPlot {
  Table table;
  std::string_view name, time;  // the columns
  ChartPart legend;
  const char* title;
  const char* chart_title;
  const char* caption;
};

void add_top(const ReportModel& r, const TopPlot& p, TemplateData& plots) {
  const ReportTable* t = first_worker_table(r, p.table);
  if (!t || t->rows.empty()) return;
  std::vector<RankedBar> bars = bars_of(*t, p.name, p.time, "us", kPlottedRows);
  ChartPart part = p.legend;
  part.label = words(part.label);
  std::vector<ChartPart> legend = {part};
  plots.push_back(plot(words(p.title), ranked_bars_svg(bars, legend, words(p.chart_title)), legend,
                       words(p.caption) + rows_note(*t, bars.size())));
}

void add_top_kernels_and_ops(const ReportModel& r, TemplateData& plots) {
  const TopPlot tops[] = {{Table::Kernels,
                           table_column(Table::Kernels, "short_name"),
                           table_column(Table::Kernels, "total_us"),
                           {"kernel time", 0, kUtilizationColor},
                           "Top kernels",
                           "Top kernels by GPU time",
                           "The kernels with the most GPU time in the window."},
                          {Table::TopGpuOps,
                           table_column(Table::TopGpuOps, "name"),
                           table_column(Table::TopGpuOps, "device_self_us"),
                           {"GPU self time", 0, kTensorCoreColor},
                           "Top GPU ops",
                           "Top ops by GPU self time",
                           "The ops whose own kernels, copies and memsets took the most GPU time."}};
  for (const TopPlot& p : tops) add_top(r, p, plots);
}

// The longest GPU gaps, each coloured by what the host did meanwhile.
void add_gpu_gaps(const ReportModel& r, TemplateData& plots) {
  const ReportTable* t = first_worker_table(r, Table::GpuGaps);
  if (!t || t->rows.empty()) return;
  std::vector<std::size_t> order(t->rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto duration = [&](std::size_t i) {
    return number_at(*t, i, table_column(Table::GpuGaps, "duration_us"));
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return duration(a) > duration(b); });
  order.resize(std::min(order.size(), kPlottedRows));
  std::vector<ChartPart> legend;
  std::map<std::string, std::size_t> part_of;
  std::vector<RankedBar> bars;
  for (std::size_t i : order) {
    std::string cause = text_at(*t, i, table_column(Table::GpuGaps, "cause"));
    if (cause.empty()) cause = "unknown";
    auto [it, added] = part_of.try_emplace(cause, legend.size());
    if (added) legend.push_back({cause, 0, kCategoryColors[legend.size() % kCategoryColors.size()]});
    std::vector<double> parts(it->second + 1, 0.0);
    parts.back() = duration(i);
    std::string shown = format_duration_us(duration(i));
    std::string label = fmt::format(
        fmt::runtime(words("GPU {:g} at {}")), number_at(*t, i, table_column(Table::GpuGaps, "device")),
        format_duration_us(number_at(*t, i, table_column(Table::GpuGaps, "start_us")) -
                           r.workers.front().window.start_us));
    bars.push_back({label, shown, std::move(parts), fmt::format("{}: {} ({})", label, shown, cause)});
  }
  TemplateData d = plot(words("GPU gaps by cause"),
                        ranked_bars_svg(bars, legend, words("The longest GPU gaps by cause")), legend,
                        words("The longest gaps in the GPU's work, from the window start, coloured by "
                              "what the launching host threads did meanwhile.") +
                            rows_note(*t, bars.size()));
  d.set("has_legend", true);  // even of one cause: the colour says which
  d.set("legend", legend_list(legend));
  plots.push_back(d);
}

// Each step's critical path split by what bounds it (HTA's classes).
void add_critical_path(const ReportModel& r, TemplateData& plots) {
  const ReportTable* t = first_worker_table(r, Table::CriticalPath);
  if (!t || t->rows.empty()) return;
  std::vector<std::pair<std::string_view, ChartPart>> parts = {
      {table_column(Table::CriticalPath, "gpu_compute_us"), {words("GPU compute"), 0, "#2f6fde"}},
      {table_column(Table::CriticalPath, "communication_us"), {"communication", 0, "#8d5bd6"}},
      {table_column(Table::CriticalPath, "kernel_gap_us"), {"between kernels", 0, "#9aa3b2"}},
      {table_column(Table::CriticalPath, "launch_overhead_us"), {"launch overhead", 0, "#e0a100"}},
      {table_column(Table::CriticalPath, "cpu_bound_us"), {"CPU bound", 0, "#f08c3a"}},
      {table_column(Table::CriticalPath, "data_loading_us"), {"data loading", 0, "#d9534f"}}};
  std::vector<ChartPart> legend;
  for (const auto& p : parts) legend.push_back(p.second);
  std::vector<StepColumn> steps;
  for (std::size_t i = 0; i < t->rows.size() && steps.size() < kChartedSteps; ++i) {
    StepColumn c{text_at(*t, i, table_column(Table::CriticalPath, "step")),
                 true,
                 number_at(*t, i, table_column(Table::CriticalPath, "length_us")),
                 {},
                 ""};
    for (const auto& p : parts) c.parts_us.push_back(number_at(*t, i, p.first));
    steps.push_back(std::move(c));
  }
  plots.push_back(
      plot("Critical path per step",
           step_bars_svg(steps, legend, "The critical path of each step by what bounds it"), legend,
           words("Each step's critical path (its length) split by what bounds it: GPU compute, "
                 "communication, time between kernels, launch overhead, the CPU and data loading.")));
}

// Each rank's communication: moving data and waiting for the other ranks.
void add_rank_communication(const ReportModel& r, TemplateData& plots) {
  const ReportTable* t = run_or_first_worker(r, Table::RankCommunication);
  if (!t || t->rows.size() < 2) return;
  std::vector<ChartPart> legend = {{"transfer", 0, "#16a2a2"}, {"waiting for other ranks", 0, "#d9534f"}};
  std::vector<RankedBar> bars;
  for (std::size_t i = 0; i < t->rows.size() && bars.size() < kPlottedRanks; ++i) {
    double transfer = number_at(*t, i, table_column(Table::RankCommunication, "transfer_us")),
           wait = number_at(*t, i, table_column(Table::RankCommunication, "wait_us"));
    std::string label =
        fmt::format("rank {:g}", number_at(*t, i, table_column(Table::RankCommunication, "rank")));
    std::string shown =
        format_duration_us(number_at(*t, i, table_column(Table::RankCommunication, "communication_us")));
    bars.push_back({label,
                    shown,
                    {transfer, wait},
                    fmt::format("{}: {} (transfer {}, waiting {})", label, shown,
                                format_duration_us(transfer), format_duration_us(wait))});
  }
  plots.push_back(plot("Communication by rank", ranked_bars_svg(bars, legend, "Communication by rank"),
                       legend,
                       "Each rank's communication time: moving data, and waiting for the other ranks." +
                           rows_note(*t, bars.size())));
}

void add_stragglers(const ReportModel& r, TemplateData& plots) {
  const ReportTable* t = run_or_first_worker(r, Table::Stragglers);
  if (!t || t->rows.empty()) return;
  std::vector<RankedBar> bars;
  for (std::size_t i = 0; i < t->rows.size() && bars.size() < kPlottedRanks; ++i) {
    double delay = number_at(*t, i, table_column(Table::Stragglers, "delay_us"));
    std::string label = fmt::format("rank {:g}", number_at(*t, i, table_column(Table::Stragglers, "rank")));
    std::string shown = format_duration_us(delay);
    bars.push_back({label,
                    shown,
                    {delay},
                    fmt::format("{}: last to arrive {:g} times, {} of delay", label,
                                number_at(*t, i, table_column(Table::Stragglers, "last_arrivals")), shown)});
  }
  std::vector<ChartPart> legend = {{"delay", 0, "#d9534f"}};
  plots.push_back(plot("Stragglers", ranked_bars_svg(bars, legend, "Stragglers: the delay each rank caused"),
                       legend,
                       "The ranks that arrived last at collectives, by the time the others waited for them." +
                           rows_note(*t, bars.size())));
}

void add_memory_categories(const ReportModel& r, TemplateData& plots) {
  const ReportTable* t = first_worker_table(r, Table::MemoryPeakCategories);
  if (!t || t->rows.empty()) return;
  std::vector<RankedBar> bars;
  for (std::size_t i = 0; i < t->rows.size() && bars.size() < kPlottedRows; ++i) {
    double bytes = number_at(*t, i, table_column(Table::MemoryPeakCategories, "bytes"));
    std::string label = fmt::format(fmt::runtime(words("GPU {:g} {}")),
                                    number_at(*t, i, table_column(Table::MemoryPeakCategories, "device")),
                                    text_at(*t, i, table_column(Table::MemoryPeakCategories, "category")));
    std::string shown = format_value(bytes, "bytes");
    bars.push_back({label, shown, {bytes}, fmt::format("{}: {}", label, shown)});
  }
  std::vector<ChartPart> legend = {{"live bytes", 0, "#8d5bd6"}};
  plots.push_back(plot("Memory live at the peak",
                       ranked_bars_svg(bars, legend, "Memory live at the peak by category"), legend,
                       "What the memory held at its peak, by category." + rows_note(*t, bars.size())));
}

}  // namespace

void add_plots(const ReportModel& r, TemplateData& view) {
  TemplateData plots = template_list();
  add_critical_path(r, plots);
  add_top_kernels_and_ops(r, plots);
  add_gpu_gaps(r, plots);
  add_rank_communication(r, plots);
  add_stragglers(r, plots);
  add_memory_categories(r, plots);
  view.set("plots", plots);
}

// The step against the baseline's along the critical path (the table critical_path_changes, which
// the gate worked out): a bar per row, where the table says it starts and ends.
void add_path_waterfall(const ReportModel& r, TemplateData& view) {
  const ReportTable* t = find_table(r.tables, Table::CriticalPathChanges);
  if (!t || t->rows.empty()) return;
  constexpr Table kTable = Table::CriticalPathChanges;
  std::vector<WaterfallBar> bars;
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    WaterfallBar b{text_at(*t, i, table_column(kTable, "part")),
                   number_at(*t, i, table_column(kTable, "from_us")),
                   number_at(*t, i, table_column(kTable, "to_us")),
                   text_at(*t, i, table_column(kTable, "kind")) == "total",
                   "",
                   ""};
    if (b.total) {
      b.value_text = format_value(b.to_us, "us");
    } else {
      double delta = number_at(*t, i, table_column(kTable, "delta_us"));
      b.value_text = (delta < 0 ? "-" : "+") + format_duration_us(std::fabs(delta));
    }
    b.tooltip = fmt::format("{}: {} per step", b.label, b.value_text);
    bars.push_back(std::move(b));
  }
  TemplateData d;
  d.set("svg", waterfall_svg(bars, "What the step time grew by on the critical path"));
  d.set("caption",
        "The step against the baseline's, per step, along the critical path: the baseline's step (its "
        "median where both runs have one, as the headline), the way to its mean step (the path's parts are "
        "means per step), each bound of the path whose time changed (grew in red, shrank in green), the "
        "other bounds together, the time off the path, the way back to this run's median step, and this "
        "run's step. Each bar starts where the one before it ends: the parts add up to the change of the "
        "step.");
  view.set("path_waterfall_chart", d);
}

void add_step_growth_chart(const ReportModel& r, TemplateData& view) {
  add_path_waterfall(r, view);
  const ReportTable* t = find_table(r.tables, Table::StepTimeDeltas);
  if (!t || t->rows.empty()) return;
  std::vector<ChangeBar> bars;
  for (std::size_t i = 0; i < t->rows.size() && bars.size() < kPlottedRows; ++i)
    bars.push_back({text_at(*t, i, table_column(Table::StepTimeDeltas, "label")),
                    number_at(*t, i, table_column(Table::StepTimeDeltas, "delta_us_per_step"))});
  TemplateData d;
  d.set("svg", change_bars_svg(bars, "What the step time grew by"));
  d.set(
      "caption",
      words("The parts of the step time that grew most against the baseline, largest growth first (slower in "
            "red, faster in green). They overlap (host time runs beside GPU time), so they are drawn side by "
            "side, not summed: the waterfall along the critical path sums parts that do not overlap.") +
          rows_note(*t, bars.size()));
  view.set("step_growth_chart", d);
}

}  // namespace perfgate
