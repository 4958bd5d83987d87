#include "render/html/charts.h"
#include "render/format.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/escape.h"
#include "render/html/fluid_svg.h"
#include "render/short_labels.h"

namespace perfgate {
std::string open_svg(double width, double height, const std::string& title) {
  return fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0:.0f} {1:.0f}" width="{0:.0f}" height="{1:.0f}" role="img" aria-label="{2}"><title>{2}</title>)",
      width, height, html_escape(title));
}

std::string svg_text(double x, double y, const std::string& s, const char* anchor, double size,
                     const char* fill) {
  return fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.0f}" text-anchor="{}" fill="{}">{}</text>)",
                     x, y, size, anchor, fill, html_escape(s));
}

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string text(double x, double y, const std::string& s, const char* anchor = "start", double size = 11,
                 const char* fill = "currentColor") {
  return svg_text(x, y, s, anchor, size, fill);
}

// `name="v"` with `v` as "{:.2f}" writes it, appended.
void append_attribute(std::string& out, std::string_view name, double v) {
  out.append(name).append("=\"");
  append_number(out, v, std::chars_format::fixed, 2);
  out += '"';
}

// A rect appended to `out`: a timeline has hundreds, each formatted once into the page.
void append_rect(std::string& out, double x, double y, double w, double h, std::string_view fill,
                 std::string_view tooltip = "", std::string_view extra = "") {
  out += "<rect";
  append_attribute(out, " x", x);
  append_attribute(out, " y", y);
  append_attribute(out, " width", std::max(w, 0.0));
  append_attribute(out, " height", std::max(h, 0.0));
  out.append(" fill=\"").append(fill).append("\"").append(extra);
  if (tooltip.empty()) {
    out += "/>";
    return;
  }
  out += "><title>";
  append_html_escaped(out, tooltip);
  out += "</title></rect>";
}

std::string rect(double x, double y, double w, double h, const std::string& fill,
                 const std::string& tooltip = "", const char* extra = "") {
  return svg_rect(x, y, w, h, fill, tooltip, extra);
}

}  // namespace

std::string svg_rect(double x, double y, double w, double h, const std::string& fill,
                     const std::string& tooltip, const char* extra) {
  std::string r;
  append_rect(r, x, y, w, h, fill, tooltip, extra);
  return r;
}

namespace {

// "12 ms" for an axis label.
std::string axis_label(double us) {
  if (us >= 1e6) return fmt::format("{:g} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:g} ms", us / 1e3);
  return fmt::format("{:g} us", us);
}

// The width of a plot from `left` to `right` of the chart's edges, at the drawn width.
double svg_plot_width(double width, Fx left, double right) {
  return width - left.at(width) - right;
}

}  // namespace

std::vector<double> axis_ticks(double max) {
  std::vector<double> ticks;
  if (!(max > 0)) return ticks;
  double raw = max / 4;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  for (double t = step; t <= max * 1.0001; t += step) ticks.push_back(t);
  return ticks;
}

std::string donut_svg(std::optional<double> pct, const std::string& color, const std::string& title) {
  constexpr double r = 46, c = 2 * kPi * r;
  std::string svg = open_svg(120, 120, title);
  svg +=
      R"(<circle cx="60" cy="60" r="46" fill="none" stroke="currentColor" stroke-opacity="0.15" stroke-width="14"/>)";
  if (pct) {
    double filled = std::clamp(*pct, 0.0, 100.0) / 100 * c;
    svg += fmt::format(
        R"SVG(<circle cx="60" cy="60" r="46" fill="none" stroke="{}" stroke-width="14" stroke-dasharray="{:.2f} {:.2f}" transform="rotate(-90 60 60)"/>)SVG",
        color, filled, c - filled);
  }
  svg += text(60, 66, pct ? fmt::format("{:.1f}%", *pct) : "n/a", "middle", 19);
  return svg + "</svg>";
}

std::string stacked_bar_svg(const std::vector<ChartPart>& parts, const std::string& title) {
  constexpr double width = 600, height = 34;
  double total = 0;
  for (const auto& p : parts) total += std::max(p.value, 0.0);
  std::string svg = open_svg(width, height, title);
  svg += rect(0, 4, width, 26, "currentColor", "", R"( fill-opacity="0.08" rx="4")");
  double x = 0;
  for (const auto& p : parts) {
    if (total <= 0 || p.value <= 0) continue;
    double w = width * p.value / total;
    svg += rect(x, 4, w, 26, p.color, fmt::format("{}: {:.1f}%", p.label, 100 * p.value / total));
    x += w;
  }
  return svg + "</svg>";
}

std::string share_bars_svg(const std::vector<ChartPart>& parts, const std::string& title) {
  constexpr double width = 600, label_w = 110, value_w = 60, row_h = 24, top = 4;
  const Fx track = FluidSvg::full() - label_w - value_w;
  double height = top * 2 + row_h * static_cast<double>(std::max<std::size_t>(parts.size(), 1));
  FluidSvg svg(width, height, title);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const ChartPart& p = parts[i];
    double y = top + row_h * static_cast<double>(i), pct = std::clamp(p.value, 0.0, 100.0);
    svg.text(label_w - 8, y + row_h / 2 + 4, p.label, "end", 12, {label_w - 8});
    svg.rect(label_w, y + 4, track, row_h - 8, "currentColor", "", R"( fill-opacity="0.08" rx="3")");
    svg.rect(label_w, y + 4, track * (pct / 100), row_h - 8, p.color,
             fmt::format("{}: {:.1f}%", p.label, p.value));
    svg.text(label_w + track + 6, y + row_h / 2 + 4, fmt::format("{:.1f}%", p.value), "start", 12);
  }
  return svg.done();
}

std::string step_bars_svg(const std::vector<StepColumn>& steps, const std::vector<ChartPart>& legend,
                          const std::string& title) {
  bool notes = std::any_of(steps.begin(), steps.end(), [](const StepColumn& s) { return !s.note.empty(); });
  constexpr double width = 600, left = 52, right = 8, top = 14;
  double bottom = notes ? 44 : 30, height = 186 + top + bottom;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  // The plot at any width: the bars drawn in its units (plot_w at the drawn width) and stretched.
  const Fx plot = FluidSvg::full() - left - right;
  auto x_at = [&](double units) { return left + plot * (units / plot_w); };
  double max = 0;
  for (const auto& s : steps) max = std::max(max, s.total_us);
  std::vector<double> ticks = axis_ticks(max);
  // Headroom over the tallest bar, so that it never touches the top of the plot.
  double scale_max = ticks.empty() ? 1 : std::max(max * 1.08, ticks.back());
  FluidSvg svg(width, height, title);
  double slot = steps.empty() ? plot_w : plot_w / static_cast<double>(steps.size());
  double bar = std::max(1.0, std::min(slot * 0.72, 40.0));
  for (double t : ticks) {
    double y = top + plot_h * (1 - t / scale_max);
    svg.line(left, y, FluidSvg::full() - right, y, R"( stroke="currentColor" stroke-opacity="0.15")");
    svg.text(left - 6, y + 4, axis_label(t), "end", 12);
  }
  svg.line(left, top + plot_h, FluidSvg::full() - right, top + plot_h,
           R"( stroke="currentColor" stroke-opacity="0.4")");
  // The window: shaded behind its steps.
  auto first = std::find_if(steps.begin(), steps.end(), [](const StepColumn& s) { return s.in_window; });
  auto last = std::find_if(steps.rbegin(), steps.rend(), [](const StepColumn& s) { return s.in_window; });
  bool window = first != steps.end() && (first != steps.begin() || last != steps.rbegin());
  double x0 = slot * static_cast<double>(first - steps.begin()),
         x1 = slot * static_cast<double>(steps.rend() - last);
  if (window) svg.text(x_at((x0 + x1) / 2), top - 3, "window", "middle", 12, {{}, true});
  svg.open_plot(left, 0, plot, height, plot_w);
  if (window)
    svg.raw(rect(x0, top, x1 - x0, plot_h, "currentColor", "aggregation window", R"( fill-opacity="0.06")"));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StepColumn& s = steps[i];
    double x = slot * static_cast<double>(i) + (slot - bar) / 2;
    double y = top + plot_h;
    std::string tooltip = fmt::format("{}: {}", s.name, format_duration_us(s.total_us));
    for (std::size_t p = 0; p < s.parts_us.size() && p < legend.size(); ++p)
      if (s.parts_us[p] > 0)
        tooltip += fmt::format("\n{}: {}", legend[p].label, format_duration_us(s.parts_us[p]));
    svg.raw("<g>");
    if (!s.in_window) {  // a dashed outline: not to be taken for time without kernels
      double h = plot_h * s.total_us / scale_max;
      svg.raw(rect(
          x, y - h, bar, h, "none", tooltip + "\noutside the window",
          R"( stroke="currentColor" stroke-opacity="0.55" stroke-dasharray="3 2" vector-effect="non-scaling-stroke")"));
    } else if (s.parts_us.empty()) {
      double h = plot_h * s.total_us / scale_max;
      svg.raw(rect(x, y - h, bar, h, "#9aa3b2", tooltip, R"( fill-opacity="0.55")"));
    } else {
      for (std::size_t p = 0; p < s.parts_us.size() && p < legend.size(); ++p) {
        double h = plot_h * s.parts_us[p] / scale_max;
        if (h <= 0) continue;
        y -= h;
        svg.raw(rect(x, y, bar, h, legend[p].color, tooltip));
      }
    }
    svg.raw("</g>");
  }
  svg.close_plot();
  // Each step's name under its bar, cut to its slot (whole in the tooltip where the page cuts it
  // further); step numbers, where the slots are narrow, every few steps only.
  std::size_t label_every = std::max<std::size_t>(1, steps.size() / 12 + (steps.size() % 12 ? 1 : 0));
  std::vector<std::string> names;
  for (const StepColumn& s : steps) {
    std::string name = s.name;
    if (auto hash = name.rfind('#'); hash != std::string::npos) name = name.substr(hash + 1);
    names.push_back(std::move(name));
  }
  std::size_t chars =
      std::max<std::size_t>(8, static_cast<std::size_t>(slot * static_cast<double>(label_every) / 7));
  std::vector<std::string> labels = distinct_short_labels(names, chars);
  Fx room =
      plot * (static_cast<double>(label_every) / std::max<double>(static_cast<double>(steps.size()), 1)) - 4;
  for (std::size_t i = 0; i < steps.size(); i += label_every) {
    Fx x = x_at(slot * (static_cast<double>(i) + 0.5));
    svg.text(x, height - bottom + 14, labels[i], "middle", 12, {room, false, true});
    if (!steps[i].note.empty())
      svg.text(x, height - bottom + 28, steps[i].note, "middle", 12, {room, false, true});
  }
  return svg.done();
}

std::string change_bars_svg(const std::vector<ChangeBar>& bars, const std::string& title) {
  constexpr double width = 600, row_h = 24, top = 6, value_w = 80;
  // The names' column a share of the width (230 of 600 px), as the ranked bars' (bar_charts.cpp).
  const Fx label_w = 0.3 * FluidSvg::full() + 50;
  double height = top * 2 + row_h * static_cast<double>(std::max<std::size_t>(bars.size(), 1));
  double largest = 0;
  for (const ChangeBar& b : bars) largest = std::max(largest, std::fabs(b.delta_us));
  // Room for the value text on both sides of the bars.
  Fx half = (FluidSvg::full() - label_w - 2 * value_w) / 2, zero = label_w + value_w + half;
  FluidSvg svg(width, height, title);
  svg.line(zero, top, zero, height - top, R"( stroke="currentColor" stroke-opacity="0.4")");
  std::vector<std::string> names;
  for (const ChangeBar& b : bars) names.push_back(b.label);
  std::vector<std::string> labels = distinct_short_labels(names, 34);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const ChangeBar& b = bars[i];
    double y = top + row_h * static_cast<double>(i);
    Fx w = half * (largest > 0 ? std::fabs(b.delta_us) / largest : 0) + 1;
    bool slower = b.delta_us > 0;
    std::string value = (slower ? "+" : "-") + format_duration_us(std::fabs(b.delta_us));
    svg.text(label_w - 6, y + row_h / 2 + 4, labels[i], "end", 12, {label_w - 6});
    svg.rect(slower ? zero : zero - w, y + 4, w, row_h - 8, slower ? "#d9534f" : "#1f8a4c",
             fmt::format("{}: {} per step", b.label, value));
    svg.text(slower ? zero + w + 4 : zero - w - 4, y + row_h / 2 + 4, value, slower ? "start" : "end", 12);
  }
  return svg.done();
}

// The window strip's and the timeline's lanes: their names in a column a share of the width (180 of
// 1200 px, 87 of a phone's 266), the lanes across the rest.
const Fx kLaneLabels = 0.1 * FluidSvg::full() + 60;

std::string window_strip_svg(const std::vector<StripSpan>& steps, const std::vector<StripSpan>& gaps,
                             double window_us, std::size_t marked, std::size_t least_busy,
                             const std::string& title) {
  constexpr double width = 1200, right = 10, lane_h = 22, top = 4, axis = 24;
  const Fx left = kLaneLabels, plot = FluidSvg::full() - left - right;
  double plot_w = svg_plot_width(width, left, right), height = top + 2 * lane_h + axis;
  double scale = window_us > 0 ? plot_w / window_us : 0;
  auto x_at = [&](double us) { return left + plot * (us * scale / plot_w); };
  FluidSvg svg(width, height, title);
  svg.text(left - 8, top + lane_h / 2 + 4, "steps", "end", 12, {left - 8});
  svg.text(left - 8, top + lane_h * 1.5 + 4, words("GPU gaps"), "end", 12, {left - 8});
  svg.open_plot(left, 0, plot, height, plot_w);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StripSpan& s = steps[i];
    svg.raw(rect(s.start_us * scale, top + 2, std::max(s.duration_us * scale, 1.0), lane_h - 4,
                 i == marked ? "#5b6b86"
                 : i % 2     ? "#b8c2d3"
                             : "#d3dae6",
                 s.tooltip));
  }
  if (least_busy < steps.size()) {
    const StripSpan& s = steps[least_busy];
    svg.raw(rect(s.start_us * scale + 1, top + 3, std::max(s.duration_us * scale - 2, 1.0), lane_h - 6,
                 "none", "", R"( stroke="#f08c3a" stroke-width="3" vector-effect="non-scaling-stroke")"));
  }
  for (const StripSpan& g : gaps)
    svg.raw(rect(g.start_us * scale, top + lane_h + 2, std::max(g.duration_us * scale, 1.0), lane_h - 4,
                 "#d9534f", g.tooltip));
  svg.close_plot();
  // Each step's number on its box where it fits. White on the dark marked step, dark on the light
  // ones in either scheme: the boxes keep their colours in the dark scheme, where the page's text
  // colour is light.
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StripSpan& s = steps[i];
    Fx box = plot * (s.duration_us * scale / plot_w);
    svg.text(x_at(s.start_us + s.duration_us / 2), top + lane_h / 2 + 4, s.label, "middle", 12,
             {box - 4, true}, i == marked ? "#ffffff" : "#1d2330");
  }
  double axis_y = top + 2 * lane_h + 4;
  for (double t : axis_ticks(window_us))
    svg.text(x_at(t), axis_y + 13, axis_label(t), "middle", 12, {{}, false, true});
  return svg.done();
}

std::string timeline_svg(const std::vector<std::string>& lanes, const std::vector<SvgBox>& boxes,
                         double step_us, const std::string& title) {
  constexpr double width = 1200, right = 10, lane_h = 22, top = 8, axis = 24, font = 12;
  const Fx left = kLaneLabels, plot = FluidSvg::full() - left - right;
  double height = top + lane_h * static_cast<double>(std::max<std::size_t>(lanes.size(), 1)) + axis;
  double plot_w = svg_plot_width(width, left, right);
  double scale = step_us > 0 ? plot_w / step_us : 0;
  FluidSvg svg(width, height, title);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    double y = top + lane_h * static_cast<double>(i);
    svg.rect(left, y + 2, plot, lane_h - 4, "currentColor", "", R"( fill-opacity="0.05")");
    svg.text(left - 8, y + lane_h / 2 + 4, lanes[i], "end", font, {left - 8});
  }
  double axis_y = top + lane_h * static_cast<double>(lanes.size()) + 4;
  for (double t : axis_ticks(step_us)) {
    Fx x = left + plot * (t * scale / plot_w);
    svg.line(x, top, x, axis_y, R"( stroke="currentColor" stroke-opacity="0.3")");
    svg.text(x, axis_y + 13, axis_label(t), "middle", font, {{}, false, true});
  }
  svg.open_plot(left, 0, plot, height, plot_w);
  std::string& out = svg.out();
  for (const SvgBox& b : boxes) {
    double y = top + lane_h * static_cast<double>(b.lane) + 3;
    if (b.on_path) continue;
    append_rect(out, b.start_us * scale, y, std::max(b.duration_us * scale, 0.6), lane_h - 6, b.color,
                b.tooltip);
  }
  for (const SvgBox& b : boxes) {  // the critical path over them
    if (!b.on_path) continue;
    double y = top + lane_h * static_cast<double>(b.lane) + lane_h - 6;
    append_rect(out, b.start_us * scale, y, std::max(b.duration_us * scale, 0.6), 4, b.color, b.tooltip,
                R"( class="path")");
  }
  svg.close_plot();
  return svg.done();
}

namespace {

// A value axis over [lo, hi], a little wider, with ticks at round values.
struct ValueAxis {
  double lo = 0, hi = 1, step = 1;
  std::vector<double> ticks;
};

ValueAxis value_axis(double lo, double hi) {
  ValueAxis a;
  if (lo == 0 && hi == 0) hi = 1;  // all zero: an axis of one unit, not a billionth around 0
  double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::fabs(hi) * 0.02, 1e-9);
  a.lo = lo - pad;
  a.hi = hi + pad;
  // Four to eight ticks: the first step of 1, 2 or 5 times a power of ten that passes 3/4 of a
  // quarter of the range.
  double raw = (a.hi - a.lo) / 4, power = std::pow(10.0, std::floor(std::log10(raw)));
  a.step = 10 * power;
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= 0.75 * raw) {
      a.step = m * power;
      break;
    }
  // + 0.0: a tick at zero reached from below is -0, which would print as "-0".
  for (double t = std::ceil(a.lo / a.step) * a.step; t <= a.hi; t += a.step) a.ticks.push_back(t + 0.0);
  return a;
}

// A tick label in one scale for the whole axis, with the decimals that tell ticks apart.
std::string value_axis_label(double v, const ValueAxis& a, std::string_view unit) {
  double magnitude = std::max(std::fabs(a.lo), std::fabs(a.hi)), scale = 1;
  std::string suffix;
  if (unit == "us") {
    std::tie(scale, suffix) = magnitude >= 1e6   ? std::pair(1e6, " s")
                              : magnitude >= 1e3 ? std::pair(1e3, " ms")
                                                 : std::pair(1.0, " us");
  } else if (unit == "bytes") {
    std::tie(scale, suffix) = magnitude >= 1e9   ? std::pair(1e9, " GB")
                              : magnitude >= 1e6 ? std::pair(1e6, " MB")
                              : magnitude >= 1e3 ? std::pair(1e3, " kB")
                                                 : std::pair(1.0, " B");
  } else if (unit == "%") {
    suffix = "%";
  }
  int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(a.step / scale) - 1e-9)), 0, 6);
  return fmt::format("{:.{}f}{}", v / scale, decimals, suffix);
}

std::string line(double x1, double y1, double x2, double y2, const char* extra) {
  return fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="currentColor"{}/>)", x1,
                     y1, x2, y2, extra);
}

// The value axis's tick lines across the plot, from x `left` to `right`, labelled on the left.
template <typename YOf>
void value_grid(FluidSvg& svg, const ValueAxis& axis, double left, Fx right, YOf y_of,
                std::string_view unit) {
  for (double t : axis.ticks) {
    svg.line(left, y_of(t), right, y_of(t), R"( stroke="currentColor" stroke-opacity="0.15")");
    svg.text(left - 6, y_of(t) + 4, value_axis_label(t, axis, unit), "end", 12);
  }
}

constexpr const char* kTrendLineColor = "#2f6fde";
constexpr const char* kOutlierColor = "#d97706";  // amber: a run set aside, not a change

}  // namespace

std::string trend_chart_svg(const TrendChart& c) {
  constexpr double width = 900, height = 256, left = 78, right = 16, top = 24, bottom = 34;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  const Fx plot = FluidSvg::full() - left - right;
  double lo = 0, hi = 1;
  if (!c.points.empty()) lo = hi = c.points.front().value;
  for (const auto& p : c.points) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  if (c.band_low && c.band_high) lo = std::min(lo, *c.band_low), hi = std::max(hi, *c.band_high);
  ValueAxis axis = value_axis(lo, hi);
  double slot = plot_w / static_cast<double>(std::max<std::size_t>(c.points.size(), 1));
  auto at = [&](double units) { return left + plot * (units / plot_w); };  // plot units to the chart
  auto x_of = [&](std::size_t i) { return slot * (static_cast<double>(i) + 0.5); };
  auto y_of = [&](double v) { return top + plot_h * (axis.hi - v) / (axis.hi - axis.lo); };
  FluidSvg svg(width, height, c.title);
  value_grid(svg, axis, left, FluidSvg::full() - right, y_of, c.unit);
  svg.open_plot(left, 0, plot, height, plot_w);
  if (c.band_low && c.band_high && c.band_from < c.points.size()) {
    double x0 = slot * static_cast<double>(c.band_from);
    svg.raw(rect(x0, y_of(*c.band_high), plot_w - x0, y_of(*c.band_low) - y_of(*c.band_high), kTrendLineColor,
                 "band", R"( fill-opacity="0.12")"));
    if (c.band_center)
      svg.raw(line(x0, y_of(*c.band_center), plot_w, y_of(*c.band_center),
                   R"( stroke-opacity="0.5" stroke-dasharray="2 3" vector-effect="non-scaling-stroke")"));
  }
  for (const auto& s : c.segments)
    if (s.begin < s.end && s.end <= c.points.size())
      svg.raw(line(slot * static_cast<double>(s.begin), y_of(s.mean), slot * static_cast<double>(s.end),
                   y_of(s.mean),
                   R"( stroke-opacity="0.55" stroke-width="2" vector-effect="non-scaling-stroke")"));
  std::string path;
  for (std::size_t i = 0; i < c.points.size(); ++i)
    path += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x_of(i), y_of(c.points[i].value));
  svg.raw(fmt::format(
      R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5" vector-effect="non-scaling-stroke"/>)",
      path, kTrendLineColor));
  svg.close_plot();
  svg.line(left, top + plot_h, FluidSvg::full() - right, top + plot_h,
           R"( stroke="currentColor" stroke-opacity="0.4")");
  for (const auto& m : c.markers) {
    Fx x = at(slot * static_cast<double>(m.index));
    svg.raw(fmt::format(R"(<g><title>{}</title>)", html_escape(m.tooltip)));
    svg.line(x, top, x, top + plot_h,
             fmt::format(R"( stroke="{}" stroke-width="2" stroke-dasharray="5 3")", m.color));
    svg.text(x, top - 8, m.label, "middle", 12, {{}, false, true}, m.color);
    svg.raw("</g>");
  }
  // A label per run where there is room (every few runs in a long trend, fewer on a phone).
  std::size_t label_every = std::max<std::size_t>(1, (c.points.size() + 29) / 30);
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const auto& p = c.points[i];
    if (p.outlier)
      svg.circle(at(x_of(i)), y_of(p.value), 5, "#fff", p.tooltip,
                 fmt::format(R"( stroke="{}" stroke-width="2.5" class="outlier")", kOutlierColor));
    else
      svg.circle(at(x_of(i)), y_of(p.value), 3, kTrendLineColor, p.tooltip);
    if (i % label_every == 0)
      svg.text(at(x_of(i)), top + plot_h + 16, p.label, "middle", 12, {{}, false, true});
  }
  return svg.done();
}

std::string step_lines_svg(const StepLineChart& c) {
  constexpr double width = 1200, height = 300, left = 90, right = 16, top = 24, bottom = 34;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  const Fx plot = FluidSvg::full() - left - right;
  double hi = 0;
  for (const StepLine& l : c.lines)
    for (const auto& [t, v] : l.points) hi = std::max(hi, v);
  ValueAxis axis = value_axis(0, hi > 0 ? hi : 1);
  axis.lo = 0;  // values start at zero: no padding, and no tick, below it
  std::erase_if(axis.ticks, [](double t) { return t < 0; });
  double x_scale = c.x_max_us > 0 ? plot_w / c.x_max_us : 0;
  auto x_of = [&](double us) { return us * x_scale; };  // in the plot's units
  auto at = [&](double us) { return left + plot * (x_of(us) / plot_w); };
  auto y_of = [&](double v) { return top + plot_h * (axis.hi - v) / (axis.hi - axis.lo); };
  FluidSvg svg(width, height, c.title);
  value_grid(svg, axis, left, FluidSvg::full() - right, y_of, c.unit);
  svg.line(left, y_of(0), FluidSvg::full() - right, y_of(0),
           R"( stroke="currentColor" stroke-opacity="0.5")");
  for (double t : axis_ticks(c.x_max_us))
    svg.text(at(t), top + plot_h + 18, axis_label(t), "middle", 12, {{}, false, true});
  svg.open_plot(left, 0, plot, height, plot_w);
  for (const StepLine& l : c.lines) {
    std::string path;
    for (std::size_t i = 0; i < l.points.size(); ++i) {
      auto [t, v] = l.points[i];
      if (i > 0) path += fmt::format(" {:.1f},{:.1f}", x_of(t), y_of(l.points[i - 1].second));
      path += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x_of(t), y_of(v));
    }
    svg.raw(fmt::format(
        R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5" vector-effect="non-scaling-stroke"{}><title>{}</title></polyline>)",
        path, l.color, l.dashed ? R"( stroke-dasharray="6 4")" : "", html_escape(l.label)));
  }
  svg.close_plot();
  if (c.mark) {
    auto [t, v] = *c.mark;
    svg.circle(at(t), y_of(v), 4, "#d9534f", c.mark_label);
    // The label on the side of the mark with room: toward the middle of the plot.
    bool right_half = x_of(t) > plot_w / 2;
    Fx room = right_half ? at(t) - left - 8 : FluidSvg::full() - right - at(t) - 8;
    svg.text(at(t) + (right_half ? -8.0 : 8.0), std::max(y_of(v) - 8, top - 8), c.mark_label,
             right_half ? "end" : "start", 12, {room});
  }
  return svg.done();
}

std::string sparkline_svg(const std::vector<double>& values, const std::string& mark_color,
                          const std::string& title) {
  constexpr double width = 120, height = 28, pad = 4;
  std::string svg = open_svg(width, height, title);
  if (values.empty()) return svg + "</svg>";
  auto [lo_at, hi_at] = std::minmax_element(values.begin(), values.end());
  double lo = *lo_at, hi = *hi_at;  // plain variables: clang 14 cannot capture structured bindings
  double range = hi > lo ? hi - lo : 1;
  double step = values.size() > 1 ? (width - 2 * pad) / static_cast<double>(values.size() - 1) : 0;
  auto x_of = [&](std::size_t i) { return pad + step * static_cast<double>(i); };
  auto y_of = [&](double v) {
    return hi > lo ? height - pad - (height - 2 * pad) * (v - lo) / range : height / 2;
  };
  std::string path;
  for (std::size_t i = 0; i < values.size(); ++i)
    path += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x_of(i), y_of(values[i]));
  svg += fmt::format(
      R"(<polyline points="{}" fill="none" stroke="currentColor" stroke-opacity="0.6" stroke-width="1.5"/>)",
      path);
  svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"/>)", x_of(values.size() - 1),
                     y_of(values.back()), mark_color);
  return svg + "</svg>";
}

}  // namespace perfgate
