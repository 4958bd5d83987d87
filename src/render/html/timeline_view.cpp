#include "render/html/timeline_view.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "render/cell_format.h"
#include "render/format.h"
#include "render/html/charts.h"

namespace perfgate {
namespace {

// The critical path's bars: a colour no op or host kind has, legible on light and dark pages.
constexpr const char* kPathColor = "#c2185b";
constexpr std::array<const char*, 10> kOpColors = {"#2f6fde", "#e0a100", "#1f8a4c", "#d9534f", "#8d5bd6",
                                                   "#16a2a2", "#f08c3a", "#c2185b", "#5d8c1f", "#795548"};

// Colours by launching op: the ten ops with the most time in the step get their own.
// Host boxes are coloured by what they are, in colours no GPU op gets (kOpColors).
const char* host_color(std::string_view kind) {
  if (kind == "cpu_op") return "#ffb74d";
  if (kind == "dataloader") return "#b71c1c";
  if (kind == "runtime") return "#fdd835";
  if (kind == "sync") return "#4a148c";
  return nullptr;
}

std::string_view host_kind_label(std::string_view kind) {
  return kind == "cpu_op"       ? "host op"
         : kind == "dataloader" ? "data loading"
         : kind == "runtime"    ? "runtime call"
                                : "synchronising call";
}

// Colours by launching op for GPU boxes.
std::map<std::string, std::string, std::less<>> op_colors(const ReportTable& t) {
  std::size_t kind = column_index(t, table_column(Table::Timeline, "kind")),
              device = column_index(t, table_column(Table::Timeline, "device")),
              op = column_index(t, table_column(Table::Timeline, "op")),
              duration = column_index(t, table_column(Table::Timeline, "duration_us"));
  std::map<std::string, double, std::less<>> time;
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (text_in(t, i, kind) != "merged" && number_in(t, i, device) >= 0) {
      std::string_view name = text_in(t, i, op);
      auto it = time.find(name);
      if (it == time.end()) it = time.emplace(std::string(name), 0.0).first;
      it->second += number_in(t, i, duration);
    }
  std::vector<std::pair<std::string, double>> ranked(time.begin(), time.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<std::string, std::string, std::less<>> colors;
  for (std::size_t i = 0; i < ranked.size() && i < kOpColors.size(); ++i)
    colors[ranked[i].first] = kOpColors[i];
  return colors;
}

// The worker's whole window: its window steps (the timeline's step marked) and its GPU gaps.
std::string window_strip(const ReportWorker& w) {
  double origin = w.window.start_us, length = w.window.wall_us;
  std::vector<StripSpan> steps, gaps;
  std::size_t marked = SIZE_MAX, least_busy = SIZE_MAX;
  std::map<std::string, double> busy_pct;
  if (const ReportTable* t = find_table(w.tables, Table::Iterations))
    for (std::size_t i = 0; i < t->rows.size(); ++i)
      busy_pct[text_at(*t, i, table_column(Table::Iterations, "name"))] =
          number_at(*t, i, table_column(Table::Iterations, "gpu_pct"));
  double lowest = 0, highest = 0;
  std::size_t window_steps = 0;
  for (const ReportStep& s : w.steps) {
    if (!s.in_window || !s.start_us) continue;
    // The first steps a page charts, and the timeline's (window_strip_note says so).
    if (++window_steps > kChartedSteps && s.name != w.timeline.step) continue;
    if (s.name == w.timeline.step) marked = steps.size();
    std::string label = s.number ? std::to_string(*s.number) : s.name;
    std::string tooltip = fmt::format("{}: {}", s.name, format_duration_us(s.duration_us));
    if (auto busy = busy_pct.find(s.name); busy != busy_pct.end()) {
      tooltip += fmt::format(fmt::runtime(words(", GPU busy {}")), format_pct(busy->second));
      if (least_busy == SIZE_MAX || busy->second < lowest) least_busy = steps.size(), lowest = busy->second;
      highest = std::max(highest, busy->second);
    }
    steps.push_back({*s.start_us - origin, s.duration_us, label, tooltip});
  }
  // Steps alike in GPU time have no least busy one worth pointing at.
  if (highest - lowest < 1.0)
    least_busy = SIZE_MAX;
  else
    steps[least_busy].tooltip += " (the least busy step)";
  if (const ReportTable* t = find_table(w.tables, Table::GpuGaps))
    for (std::size_t i = 0; i < t->rows.size(); ++i) {
      double start = number_at(*t, i, table_column(Table::GpuGaps, "start_us")) - origin,
             duration = number_at(*t, i, table_column(Table::GpuGaps, "duration_us"));
      gaps.push_back(
          {start, duration, "",
           fmt::format(fmt::runtime(words("GPU {:.0f} idle for {} at {} ({})")),
                       number_at(*t, i, table_column(Table::GpuGaps, "device")), format_duration_us(duration),
                       format_duration_us(start), text_at(*t, i, table_column(Table::GpuGaps, "cause")))});
    }
  if (steps.size() < 2 || length <= 0) return "";
  return window_strip_svg(steps, gaps, length, marked, least_busy,
                          words("The whole window: steps and GPU gaps"));
}

// Under the strip of a run of more window steps than a page charts.
std::string window_strip_note(const ReportWorker& w) {
  std::size_t window_steps = 0;
  for (const ReportStep& s : w.steps) window_steps += s.in_window && s.start_us ? 1 : 0;
  if (window_steps <= kChartedSteps) return "";
  return fmt::format(
      " It draws the first {} of the {} window steps and the timeline's (the JSON report has every one).",
      kChartedSteps, window_steps);
}

// What the timeline is of, with its length. Of an odd count of steps the median one; of an even
// count the median is the mean of the two middle steps, which no step is, and the timeline shows
// the shorter of the two (src/analyse/timeline/timeline.cpp).
std::string timeline_span(const ReportWorker& w) {
  std::string length = format_duration_us(w.timeline.step_duration_us);
  if (w.steps.empty()) return fmt::format("The whole capture (the profile has no steps), {}", length);
  std::optional<double> median = w.metric(Metric::StepsMedianUs);
  if (!median || std::fabs(*median - w.timeline.step_duration_us) <= 1e-9 * *median)
    return fmt::format("The median step, {}, {}", w.timeline.step, length);
  return fmt::format("{}, {}, the shorter of the two middle steps (the median, {}, is their mean)",
                     w.timeline.step, length, format_duration_us(median));
}

// A timeline table (the step's boxes, or its critical path's) with the columns a box is drawn from
// found once: the timeline has hundreds of rows, and a lookup by name compares column names.
class BoxColumns {
 public:
  explicit BoxColumns(const ReportTable& t)
      : t_(t),
        device_(column_index(t, shared_column(Table::Timeline, Table::CriticalPathTimeline, "device"))),
        stream_(column_index(t, shared_column(Table::Timeline, Table::CriticalPathTimeline, "stream"))),
        start_(column_index(t, shared_column(Table::Timeline, Table::CriticalPathTimeline, "start_us"))),
        duration_(
            column_index(t, shared_column(Table::Timeline, Table::CriticalPathTimeline, "duration_us"))),
        name_(column_index(t, shared_column(Table::Timeline, Table::CriticalPathTimeline, "name"))),
        lane_(column_index(t, shared_column(Table::Timeline, Table::CriticalPathTimeline, "lane"))) {}

  // The lane's name as the report's table says it ("ops · thread 12", "GPU 0 · stream 7").
  std::string_view lane_name(std::size_t i) const { return text_in(t_, i, lane_); }

  // The lane of row `i`: each launching thread's ops, then its runtime calls, then the GPU streams.
  std::tuple<double, double, double> lane_key(std::size_t i) const {
    double device = number_in(t_, i, device_);
    double order = device == kHostOpsDevice ? 0 : device == kRuntimeDevice ? 1 : 2;
    return std::tuple{order, order < 2 ? 0 : device, number_in(t_, i, stream_)};
  }

  SvgBox box(std::size_t i, std::map<std::tuple<double, double, double>, std::size_t>& lane_of) const {
    SvgBox b;
    b.lane = lane_of[lane_key(i)];
    b.start_us = number_in(t_, i, start_);
    b.duration_us = number_in(t_, i, duration_);
    return b;
  }

  // "<lead><name>\n<middle><start> · <duration>".
  std::string tooltip(std::size_t i, std::string_view lead, std::string_view middle, const SvgBox& b) const {
    std::string text(lead);
    text.append(text_in(t_, i, name_)).append("\n").append(middle).append(format_duration_us(b.start_us));
    return text.append(" · ").append(format_duration_us(b.duration_us));
  }

 private:
  const ReportTable& t_;
  std::size_t device_, stream_, start_, duration_, name_, lane_;
};

}  // namespace

// Launch calls of the timeline's step too short for HTA's graph (under 1 us once rounded): the path
// cannot reach the GPU work they launched, which the caption says.
std::string short_launches_note(const ReportWorker& w) {
  const ReportTable* steps = find_table(w.tables, Table::CriticalPath);
  if (!steps) return "";
  for (std::size_t i = 0; i < steps->rows.size(); ++i) {
    std::string step = text_at(*steps, i, table_column(Table::CriticalPath, "step"));
    if (step != w.timeline.step && step != "window") continue;  // "window": no steps, one path
    double n = number_at(*steps, i, table_column(Table::CriticalPath, "short_launches"));
    if (n > 0)
      return fmt::format(
          fmt::runtime(
              words(" {:.0f} launch calls of this step last under 1 µs once rounded to whole µs: HTA's "
                    "definition leaves them off the path, with the GPU work they launched.")),
          n);
  }
  return "";
}

void add_timeline(const ReportModel& r, TemplateData& view) {
  if (r.workers.empty()) return;
  // A run shows its slowest worker's, which holds the others up; the first without steps.
  const ReportWorker* slowest = slowest_worker(r);
  const ReportWorker& w = slowest ? *slowest : r.workers.front();
  const ReportTable* t = find_table(w.tables, Table::Timeline);
  if (!t || t->rows.empty() || w.timeline.step_duration_us <= 0) return;
  // Lanes: each launching thread's ops, then its runtime calls, then the GPU streams (and a lane the
  // critical path takes that no box is on: a thread that launches nothing).
  const ReportTable* path = find_table(w.tables, Table::CriticalPathTimeline);
  if (path && path->rows.empty()) path = nullptr;
  std::map<std::tuple<double, double, double>, std::size_t> lane_of;
  std::map<std::tuple<double, double, double>, std::string_view> names;
  BoxColumns boxes_of(*t), path_of(path ? *path : *t);
  for (std::size_t i = 0; i < t->rows.size(); ++i)
    names.try_emplace(boxes_of.lane_key(i), boxes_of.lane_name(i));
  for (std::size_t i = 0; path && i < path->rows.size(); ++i)
    names.try_emplace(path_of.lane_key(i), path_of.lane_name(i));
  std::vector<std::string> lanes;
  for (const auto& [key, name] : names) {
    lane_of[key] = lanes.size();
    // A report of a perfgate before the lane column (perfgate-report/2.6) names no lane.
    auto [order, device, stream] = key;
    lanes.push_back(!name.empty() ? std::string(name)
                    : order == 2  ? fmt::format("{:.0f} · stream {:.0f}", device, stream)
                                  : fmt::format("thread {:.0f}", stream));
  }
  auto colors = op_colors(*t);
  std::vector<SvgBox> boxes;
  boxes.reserve(t->rows.size() + (path ? path->rows.size() : 0));
  std::size_t op_column = column_index(*t, table_column(Table::Timeline, "op")),
              kind_column = column_index(*t, table_column(Table::Timeline, "kind"));
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    std::string_view op = text_in(*t, i, op_column), kind = text_in(*t, i, kind_column);
    auto color = colors.find(op);
    SvgBox b = boxes_of.box(i, lane_of);
    if (const char* host = host_color(kind))
      b.color = host;
    else
      b.color = kind == "merged" ? "#9aa3b2" : color != colors.end() ? color->second : "#b8bec9";
    std::string middle(op.empty() ? kNoOpName : op);
    b.tooltip = boxes_of.tooltip(i, "", middle.append(" · ").append(kind).append("\nstart "), b);
    boxes.push_back(std::move(b));
  }
  std::size_t bound_by =
      path ? column_index(*path, table_column(Table::CriticalPathTimeline, "bound_by")) : 0;
  for (std::size_t i = 0; path && i < path->rows.size(); ++i) {
    SvgBox b = path_of.box(i, lane_of);
    b.color = kPathColor;
    b.on_path = true;
    std::string middle(text_in(*path, i, bound_by));
    b.tooltip = path_of.tooltip(i, "On the critical path: ", middle.append(" · start "), b);
    boxes.push_back(std::move(b));
  }
  TemplateData legend = template_list();
  for (const auto& [op, color] : colors) {
    TemplateData d;
    d.set("label", op.empty() ? std::string(kNoOpName) : op);
    d.set("color", color);
    legend.push_back(d);
  }
  for (const char* kind : {"cpu_op", "dataloader", "runtime", "sync"}) {
    TemplateData d;
    d.set("label", std::string(host_kind_label(kind)));
    d.set("color", std::string(host_color(kind)));
    legend.push_back(d);
  }
  if (path) {
    TemplateData d;
    d.set("label", std::string("critical path (bar along the lane's foot)"));
    d.set("color", std::string(kPathColor));
    legend.push_back(d);
  }
  TemplateData d;
  std::string of = w.timeline.step;
  if (r.workers.size() > 1)
    of +=
        fmt::format(" on {}, the {} of {} workers", w.name, slowest ? "slowest" : "first", r.workers.size());
  d.set("step", of);
  d.set("svg", timeline_svg(lanes, boxes, w.timeline.step_duration_us, "Timeline of " + of));
  d.set("legend", legend);
  if (std::string strip = window_strip(w); !strip.empty()) {
    d.set("strip", strip);
    d.set("strip_note", window_strip_note(w));
  }
  if (w.timeline.gpu_clock)
    d.set("caption",
          fmt::format(
              fmt::runtime(words(
                  "{}, on the GPUs' clock: its {} GPU activities, a lane per stream, coloured by launching "
                  "op. The host's and the GPU's clocks disagree in this trace (see the run's notes), so "
                  "what the host's threads did is not drawn beside them. Activities shorter than a "
                  "thousandth of the span are merged (grey).")),
              timeline_span(w), w.timeline.activities));
  else
    d.set("caption",
          fmt::format(
              fmt::runtime(words(
                  "{}: above, what the threads that launch GPU work did (their outermost ops, "
                  "data-loading ops, runtime and synchronising calls); below, its {} GPU activities, a lane "
                  "per stream, coloured by launching op. Activities shorter than a thousandth of the span "
                  "are merged (grey).{}")),
              timeline_span(w), w.timeline.activities,
              path ? " The step's critical path is the magenta bar along the foot of the lanes it runs "
                     "through (HTA's definition: docs/metrics.md, Critical path)."
                   : "") +
              short_launches_note(w));
  view.set("timeline", d);
}

}  // namespace perfgate
