#include "render/html/neuron_view.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/colors.h"
#include "render/html/charts.h"

namespace perfgate {
namespace {

// The Device Viewer's own colours are per op; ours are a fixed palette picked by a hash of the
// op's name (FNV-1a), so that an op keeps its colour from page to page.
constexpr std::array<const char*, 12> kOpColors = {"#2f6fde", "#16a2a2", "#e0a100", "#8d5bd6",
                                                   "#d9534f", "#1f8a4c", "#f08c3a", "#5b6b86",
                                                   "#b5487d", "#7bc6c6", "#a0782c", "#4c9be8"};

std::string op_color(std::string_view op) {
  std::uint32_t h = 2166136261u;
  for (char c : op) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return kOpColors[h % kOpColors.size()];
}

// Each card under its metric's catalog label, as every output names it.
constexpr std::array<Metric, 12> kCards = {Metric::NeuronTotalTimeUs,
                                           Metric::NeuronActiveTimePct,
                                           Metric::NeuronMfuPct,
                                           Metric::NeuronHfuPct,
                                           Metric::NeuronMbuPct,
                                           Metric::NeuronDmaActivePct,
                                           Metric::NeuronDmaBytes,
                                           Metric::NeuronHbmReadBytes,
                                           Metric::NeuronThrottleActivePct,
                                           Metric::NeuronThrottleUtilLimitPct,
                                           Metric::NeuronSpillSaveBytes,
                                           Metric::NeuronSpillReloadBytes};

// The profile's own numbers (its worker's metrics), never the run's sums.
TemplateData summary_cards(const MetricValues& metrics) {
  TemplateData list = template_list();
  for (Metric metric : kCards)
    if (std::optional<double> value = metrics.get(metric)) {
      TemplateData item;
      item.set("label", std::string(metric_info(metric).label));
      item.set("value", metric == Metric::NeuronThrottleActivePct
                            ? format_pct_nonzero(value)
                            : format_value(value, metric_info(metric).unit));
      list.push_back(item);
    }
  return list;
}

// "vector 99.8%, sync 99.9%": each engine's semaphore waits as a share of the capture.
std::string wait_shares(const ReportTable& engines) {
  std::string out;
  for (std::size_t i = 0; i < engines.rows.size(); ++i) {
    const ReportCell* cell = find_cell(engines, i, table_column(Table::NeuronEngines, "semaphore_wait_pct"));
    std::optional<double> pct = cell ? cell_number(*cell) : std::nullopt;
    if (pct)
      out += (out.empty() ? "" : ", ") + text_at(engines, i, table_column(Table::NeuronEngines, "engine")) +
             " " + format_pct(pct);
  }
  return out;
}

std::string engine_bars(const ReportTable& engines) {
  std::vector<ChartPart> parts;
  for (std::size_t i = 0; i < engines.rows.size(); ++i) {
    const ReportCell* summary =
        find_cell(engines, i, table_column(Table::NeuronEngines, "summary_active_pct"));
    std::optional<double> pct = summary ? cell_number(*summary) : std::nullopt;
    if (!pct) {
      const ReportCell* rows = find_cell(engines, i, table_column(Table::NeuronEngines, "active_pct"));
      pct = rows ? cell_number(*rows) : std::nullopt;
    }
    if (pct)
      parts.push_back(
          {text_at(engines, i, table_column(Table::NeuronEngines, "engine")), *pct, kUtilizationColor});
  }
  return share_bars_svg(parts, "Engines: active share of the capture");
}

// The legend: the timeline's ops in the order of the ops table (most time first), 12 at most.
void add_legend(const ReportTable* ops, const std::map<std::string, std::string>& colors,
                TemplateData& legend) {
  std::size_t shown = 0;
  for (std::size_t i = 0; ops && i < ops->rows.size() && shown < 12; ++i) {
    auto it = colors.find(text_at(*ops, i, table_column(Table::NeuronOps, "name")));
    if (it == colors.end()) continue;
    TemplateData item;
    item.set("label", it->first.empty() ? std::string("(no HLO op)") : it->first);
    item.set("color", it->second);
    legend.push_back(item);
    ++shown;
  }
}

// The occupancy lanes' shades, from empty to full (a fifth of the range each).
constexpr std::array<const char*, 5> kOccupancyShades = {"#dce8f8", "#a9c8f4", "#6fa3ea", "#2f6fde",
                                                         "#173f8a"};

// "partition 0: 0.13%, partition 32: 0.13%": the row's parts that have a value.
std::string buffer_parts(const ReportTable& buffers, std::size_t row) {
  std::string out;
  for (std::size_t c = 0; c < buffers.columns.size(); ++c) {
    const std::string& name = buffers.columns[c].name;
    if (!name.starts_with("partition_") && !name.starts_with("bank_")) continue;
    const ReportCell* cell = find_cell(buffers, row, name);
    std::optional<double> pct = cell ? cell_number(*cell) : std::nullopt;
    if (!pct) continue;
    std::string part = name.substr(0, name.size() - 4);  // less "_pct"
    std::replace(part.begin(), part.end(), '_', ' ');
    out += (out.empty() ? "" : ", ") + part + ": " + format_pct_nonzero(pct);
  }
  return out;
}

// An SBUF and a PSUM lane below the engines: a box per instruction_usage row, shaded by its
// occupancy (the Device Viewer's memory lanes).
void add_buffer_lanes(const ReportTable& buffers, std::vector<std::string>& lanes,
                      std::vector<SvgBox>& boxes) {
  std::map<std::string, std::size_t> lane_of;
  for (std::size_t i = 0; i < buffers.rows.size(); ++i) {
    std::string buffer = text_at(buffers, i, table_column(Table::NeuronBuffers, "buffer"));
    const ReportCell* usage = find_cell(buffers, i, table_column(Table::NeuronBuffers, "usage_pct"));
    std::optional<double> pct = usage ? cell_number(*usage) : std::nullopt;
    double start = number_at(buffers, i, table_column(Table::NeuronBuffers, "start_us")),
           duration = number_at(buffers, i, table_column(Table::NeuronBuffers, "duration_us"));
    if (!pct || duration <= 0 || start + duration <= 0) continue;
    if (start < 0) duration += start, start = 0;  // before the first instruction: drawn from it
    auto [it, added] = lane_of.try_emplace(buffer, lanes.size());
    if (added) lanes.push_back(buffer);
    auto shade = static_cast<std::size_t>(std::clamp(*pct / 20.0, 0.0, 4.0));
    std::string parts = buffer_parts(buffers, i);
    boxes.push_back({it->second, start, duration, kOccupancyShades[shade],
                     fmt::format("{} {} occupied{} · {} from {}", buffer, format_pct_nonzero(pct),
                                 parts.empty() ? "" : " (" + parts + ")",
                                 cell_text(ReportCell{duration}, "us"), cell_text(ReportCell{start}, "us"))});
  }
}

// The first core's uses as shares of its Total (the table is by core, most bytes first).
std::string memory_bars(const ReportTable& memory) {
  std::vector<ChartPart> parts;
  for (std::size_t i = 0; i < memory.rows.size(); ++i) {
    if (number_at(memory, i, table_column(Table::NeuronMemory, "device")) !=
            number_at(memory, 0, table_column(Table::NeuronMemory, "device")) ||
        number_at(memory, i, table_column(Table::NeuronMemory, "core")) !=
            number_at(memory, 0, table_column(Table::NeuronMemory, "core")))
      break;
    double pct = number_at(memory, i,
                           table_column(Table::NeuronMemory, "share_pct"));  // 0 where the core has no Total
    std::string use = text_at(memory, i, table_column(Table::NeuronMemory, "use"));
    if (pct <= 0 || use == "Total") continue;
    parts.push_back(
        {use + " " + cell_text(*find_cell(memory, i, table_column(Table::NeuronMemory, "bytes")), "bytes"),
         pct, kUtilizationColor});
  }
  if (parts.empty()) return "";
  return share_bars_svg(parts, "Device memory by use: share of the core's total");
}

std::string device_timeline(const ReportTable& t, const ReportTable* buffers, const ReportTable* ops,
                            TemplateData& legend) {
  std::vector<std::string> lanes;
  std::map<std::string, std::size_t> lane_of;
  std::map<std::string, std::string> colors;
  std::vector<SvgBox> boxes;
  double end = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    std::string lane = text_at(t, i, table_column(Table::NeuronTimeline, "lane")),
                op = text_at(t, i, table_column(Table::NeuronTimeline, "op"));
    auto [it, added] = lane_of.try_emplace(lane, lanes.size());
    if (added) lanes.push_back(lane);
    double start = number_at(t, i, table_column(Table::NeuronTimeline, "start_us")),
           duration = number_at(t, i, table_column(Table::NeuronTimeline, "duration_us"));
    end = std::max(end, start + duration);
    std::string color = colors.try_emplace(op, op_color(op)).first->second;
    boxes.push_back({it->second, start, duration, color,
                     fmt::format("{} · {} · {} from {}", lane, op.empty() ? "(no HLO op)" : op,
                                 cell_text(ReportCell{duration}, "us"), cell_text(ReportCell{start}, "us"))});
  }
  add_legend(ops, colors, legend);
  if (buffers) add_buffer_lanes(*buffers, lanes, boxes);
  return timeline_svg(lanes, boxes, end,
                      "Device timeline: a lane per engine row and DMA queue, boxes by HLO op; SBUF and PSUM "
                      "occupancy below");
}

// A section per profile, with that profile's numbers; kMaxSections at most (the tables have all).
constexpr std::size_t kMaxSections = 8;

TemplateData section_of(const ReportWorker& w, const ReportTable* engines, const ReportTable* timeline,
                        std::size_t index, bool several) {
  TemplateData neuron;
  neuron.set("anchor", index == 0 ? std::string("neuron") : fmt::format("neuron-{}", index + 1));
  neuron.set("cards", summary_cards(w.metrics));
  if (engines && !engines->rows.empty()) {
    neuron.set("engines_svg", engine_bars(*engines));
    if (std::string waits = wait_shares(*engines); !waits.empty()) neuron.set("waits", waits);
  }
  if (timeline && !timeline->rows.empty()) {
    TemplateData legend = template_list();
    const ReportTable* buffers = find_table(w.tables, Table::NeuronBuffers);
    neuron.set("timeline_svg",
               device_timeline(*timeline, buffers, find_table(w.tables, Table::NeuronOps), legend));
    neuron.set("legend", legend);
    if (buffers && !buffers->rows.empty()) neuron.set("buffers", true);
  } else {
    neuron.set("no_timeline",
               std::string("The profile has no instruction rows (a summary-json): the timeline "
                           "and the per-op tables need neuron-profile's full JSON."));
  }
  if (const ReportTable* memory = find_table(w.tables, Table::NeuronMemory); memory && !memory->rows.empty())
    if (std::string bars = memory_bars(*memory); !bars.empty()) neuron.set("memory_svg", bars);
  if (several) neuron.set("worker", w.name);
  return neuron;
}

}  // namespace

void add_neuron(const ReportModel& r, TemplateData& view) {
  TemplateData sections = template_list();
  std::size_t shown = 0, more = 0;
  for (const ReportWorker& w : r.workers) {
    const ReportTable* engines = find_table(w.tables, Table::NeuronEngines);
    const ReportTable* timeline = find_table(w.tables, Table::NeuronTimeline);
    if (!engines && !timeline) continue;
    if (shown == kMaxSections) {
      ++more;
      continue;
    }
    sections.push_back(section_of(w, engines, timeline, shown++, r.workers.size() > 1));
  }
  if (shown == 0) return;
  TemplateData data;
  data.set("sections", sections);
  if (more > 0)
    data.set("more",
             fmt::format("{} more Neuron profile{}: their numbers are in the Ranks table and their tables "
                         "below, in the JSON report and the workbook.",
                         more, more == 1 ? "" : "s"));
  view.set("neuron_html", render_template("neuron.html.mustache", data));
  // A run of Neuron profiles alone opens with them: it has no GPU card, bar or step to show.
  if (shows(r, FamilySection::NeuronFirst)) view.set("neuron_first", true);
}

}  // namespace perfgate
