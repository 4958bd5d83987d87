#include "render/html/charts.h"
#include "render/format.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/escape.h"
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
  double track = width - label_w - value_w;
  double height = top * 2 + row_h * static_cast<double>(std::max<std::size_t>(parts.size(), 1));
  std::string svg = open_svg(width, height, title);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const ChartPart& p = parts[i];
    double y = top + row_h * static_cast<double>(i), pct = std::clamp(p.value, 0.0, 100.0);
    svg += text(label_w - 8, y + row_h / 2 + 4, p.label, "end", 12);
    svg += rect(label_w, y + 4, track, row_h - 8, "currentColor", "", R"( fill-opacity="0.08" rx="3")");
    svg += rect(label_w, y + 4, track * pct / 100, row_h - 8, p.color,
                fmt::format("{}: {:.1f}%", p.label, p.value));
    svg += text(label_w + track + 6, y + row_h / 2 + 4, fmt::format("{:.1f}%", p.value), "start", 12);
  }
  return svg + "</svg>";
}

std::string step_bars_svg(const std::vector<StepColumn>& steps, const std::vector<ChartPart>& legend,
                          const std::string& title) {
  bool notes = std::any_of(steps.begin(), steps.end(), [](const StepColumn& s) { return !s.note.empty(); });
  constexpr double width = 600, left = 52, right = 8, top = 14;
  double bottom = notes ? 44 : 30, height = 186 + top + bottom;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  double max = 0;
  for (const auto& s : steps) max = std::max(max, s.total_us);
  std::vector<double> ticks = axis_ticks(max);
  // Headroom over the tallest bar, so that it never touches the top of the plot.
  double scale_max = ticks.empty() ? 1 : std::max(max * 1.08, ticks.back());
  std::string svg = open_svg(width, height, title);
  double slot = steps.empty() ? plot_w : plot_w / static_cast<double>(steps.size());
  double bar = std::max(1.0, std::min(slot * 0.72, 40.0));
  // The window: shaded behind its steps.
  auto first = std::find_if(steps.begin(), steps.end(), [](const StepColumn& s) { return s.in_window; });
  auto last = std::find_if(steps.rbegin(), steps.rend(), [](const StepColumn& s) { return s.in_window; });
  if (first != steps.end() && (first != steps.begin() || last != steps.rbegin())) {
    double x0 = left + slot * static_cast<double>(first - steps.begin());
    double x1 = left + slot * static_cast<double>(steps.rend() - last);
    svg += rect(x0, top, x1 - x0, plot_h, "currentColor", "aggregation window", R"( fill-opacity="0.06")");
    svg += text((x0 + x1) / 2, top - 3, "window", "middle", 12);
  }
  for (double t : ticks) {
    double y = top + plot_h * (1 - t / scale_max);
    svg += fmt::format(
        R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="currentColor" stroke-opacity="0.15"/>)",
        left, y, width - right, y);
    svg += text(left - 6, y + 4, axis_label(t), "end", 12);
  }
  svg += fmt::format(
      R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="currentColor" stroke-opacity="0.4"/>)",
      left, top + plot_h, width - right);
  std::size_t label_every = std::max<std::size_t>(1, steps.size() / 12 + (steps.size() % 12 ? 1 : 0));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StepColumn& s = steps[i];
    double x = left + slot * static_cast<double>(i) + (slot - bar) / 2;
    double y = top + plot_h;
    std::string tooltip = fmt::format("{}: {}", s.name, format_duration_us(s.total_us));
    for (std::size_t p = 0; p < s.parts_us.size() && p < legend.size(); ++p)
      if (s.parts_us[p] > 0)
        tooltip += fmt::format("\n{}: {}", legend[p].label, format_duration_us(s.parts_us[p]));
    svg += "<g>";
    if (!s.in_window) {  // a dashed outline: not to be taken for time without kernels
      double h = plot_h * s.total_us / scale_max;
      svg += rect(x, y - h, bar, h, "none", tooltip + "\noutside the window",
                  R"( stroke="currentColor" stroke-opacity="0.55" stroke-dasharray="3 2")");
    } else if (s.parts_us.empty()) {
      double h = plot_h * s.total_us / scale_max;
      svg += rect(x, y - h, bar, h, "#9aa3b2", tooltip, R"( fill-opacity="0.55")");
    } else {
      for (std::size_t p = 0; p < s.parts_us.size() && p < legend.size(); ++p) {
        double h = plot_h * s.parts_us[p] / scale_max;
        if (h <= 0) continue;
        y -= h;
        svg += rect(x, y, bar, h, legend[p].color, tooltip);
      }
    }
    svg += "</g>";
    if (i % label_every == 0) {
      std::string name = s.name;
      if (auto hash = name.rfind('#'); hash != std::string::npos) name = name.substr(hash + 1);
      svg += text(x + bar / 2, height - bottom + 14, name, "middle", 12);
      if (!s.note.empty()) svg += text(x + bar / 2, height - bottom + 28, s.note, "middle", 12);
    }
  }
  return svg + "</svg>";
}

std::string change_bars_svg(const std::vector<ChangeBar>& bars, const std::string& title) {
  constexpr double width = 600, label_w = 230, row_h = 24, top = 6, value_w = 80;
  double height = top * 2 + row_h * static_cast<double>(std::max<std::size_t>(bars.size(), 1));
  double largest = 0;
  for (const ChangeBar& b : bars) largest = std::max(largest, std::fabs(b.delta_us));
  // Room for the value text on both sides of the bars.
  double half = (width - label_w - 2 * value_w) / 2, zero = label_w + value_w + half;
  double scale = largest > 0 ? half / largest : 0;
  std::string svg = open_svg(width, height, title);
  svg += fmt::format(
      R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="currentColor" stroke-opacity="0.4"/>)",
      zero, top, height - top);
  std::vector<std::string> names;
  for (const ChangeBar& b : bars) names.push_back(b.label);
  std::vector<std::string> labels = distinct_short_labels(names, 34);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const ChangeBar& b = bars[i];
    double y = top + row_h * static_cast<double>(i);
    double w = std::fabs(b.delta_us) * scale;
    bool slower = b.delta_us > 0;
    std::string value = (slower ? "+" : "-") + format_duration_us(std::fabs(b.delta_us));
    svg += text(label_w - 6, y + row_h / 2 + 4, labels[i], "end", 12);
    svg += rect(slower ? zero : zero - w, y + 4, std::max(w, 1.0), row_h - 8, slower ? "#d9534f" : "#1f8a4c",
                fmt::format("{}: {} per step", b.label, value));
    svg += text(slower ? zero + w + 4 : zero - w - 4, y + row_h / 2 + 4, value, slower ? "start" : "end", 12);
  }
  return svg + "</svg>";
}

std::string window_strip_svg(const std::vector<StripSpan>& steps, const std::vector<StripSpan>& gaps,
                             double window_us, std::size_t marked, std::size_t least_busy,
                             const std::string& title) {
  constexpr double width = 1200, left = 180, right = 10, lane_h = 22, top = 4, axis = 24;
  double plot_w = width - left - right, height = top + 2 * lane_h + axis;
  double scale = window_us > 0 ? plot_w / window_us : 0;
  std::string svg = open_svg(width, height, title);
  svg += text(left - 8, top + lane_h / 2 + 4, "steps", "end", 12);
  svg += text(left - 8, top + lane_h * 1.5 + 4, words("GPU gaps"), "end", 12);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StripSpan& s = steps[i];
    double x = left + s.start_us * scale, w = std::max(s.duration_us * scale, 1.0);
    svg += rect(x, top + 2, w, lane_h - 4,
                i == marked ? "#5b6b86"
                : i % 2     ? "#b8c2d3"
                            : "#d3dae6",
                s.tooltip);
    // White on the dark marked step, dark on the light ones in either scheme: the boxes keep their
    // colours in the dark scheme, where the page's text colour is light.
    if (w >= 9.0 * static_cast<double>(s.label.size()))
      svg +=
          text(x + w / 2, top + lane_h / 2 + 4, s.label, "middle", 12, i == marked ? "#ffffff" : "#1d2330");
  }
  if (least_busy < steps.size()) {
    const StripSpan& s = steps[least_busy];
    svg += rect(left + s.start_us * scale + 1, top + 3, std::max(s.duration_us * scale - 2, 1.0), lane_h - 6,
                "none", "", R"( stroke="#f08c3a" stroke-width="3")");
  }
  for (const StripSpan& g : gaps)
    svg += rect(left + g.start_us * scale, top + lane_h + 2, std::max(g.duration_us * scale, 1.0), lane_h - 4,
                "#d9534f", g.tooltip);
  double axis_y = top + 2 * lane_h + 4;
  for (double t : axis_ticks(window_us))
    svg += text(left + t * scale, axis_y + 13, axis_label(t), "middle", 12);
  return svg + "</svg>";
}

std::string timeline_svg(const std::vector<std::string>& lanes, const std::vector<SvgBox>& boxes,
                         double step_us, const std::string& title) {
  // Drawn at 1200 units and shown a little narrower on a desktop page: 12-unit text stays over 11 px
  // (as in the other charts, drawn at 600 and shown at about 560 in their cards).
  constexpr double width = 1200, left = 180, right = 10, lane_h = 22, top = 8, axis = 24, font = 12;
  double height = top + lane_h * static_cast<double>(std::max<std::size_t>(lanes.size(), 1)) + axis;
  double plot_w = width - left - right;
  std::string svg = open_svg(width, height, title);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    double y = top + lane_h * static_cast<double>(i);
    svg += rect(left, y + 2, plot_w, lane_h - 4, "currentColor", "", R"( fill-opacity="0.05")");
    svg += text(left - 8, y + lane_h / 2 + 4, lanes[i], "end", font);
  }
  double scale = step_us > 0 ? plot_w / step_us : 0;
  for (const SvgBox& b : boxes) {
    double y = top + lane_h * static_cast<double>(b.lane) + 3;
    if (b.on_path) continue;
    append_rect(svg, left + b.start_us * scale, y, std::max(b.duration_us * scale, 0.6), lane_h - 6, b.color,
                b.tooltip);
  }
  for (const SvgBox& b : boxes) {  // the critical path over them
    if (!b.on_path) continue;
    double y = top + lane_h * static_cast<double>(b.lane) + lane_h - 6;
    append_rect(svg, left + b.start_us * scale, y, std::max(b.duration_us * scale, 0.6), 4, b.color,
                b.tooltip, R"( class="path")");
  }
  double axis_y = top + lane_h * static_cast<double>(lanes.size()) + 4;
  for (double t : axis_ticks(step_us)) {
    double x = left + t * scale;
    svg += fmt::format(
        R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="currentColor" stroke-opacity="0.3"/>)",
        x, top, axis_y);
    svg += text(x, axis_y + 13, axis_label(t), "middle", font);
  }
  return svg + "</svg>";
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
std::string value_grid(const ValueAxis& axis, double left, double right, YOf y_of, std::string_view unit) {
  std::string svg;
  for (double t : axis.ticks) {
    svg += line(left, y_of(t), right, y_of(t), R"( stroke-opacity="0.15")");
    svg += text(left - 6, y_of(t) + 4, value_axis_label(t, axis, unit), "end", 12);
  }
  return svg;
}

constexpr const char* kTrendLineColor = "#2f6fde";
constexpr const char* kOutlierColor = "#d97706";  // amber: a run set aside, not a change

}  // namespace

std::string trend_chart_svg(const TrendChart& c) {
  constexpr double width = 900, height = 300, left = 78, right = 16, top = 24, bottom = 78;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  double lo = 0, hi = 1;
  if (!c.points.empty()) lo = hi = c.points.front().value;
  for (const auto& p : c.points) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  if (c.band_low && c.band_high) lo = std::min(lo, *c.band_low), hi = std::max(hi, *c.band_high);
  ValueAxis axis = value_axis(lo, hi);
  double slot = plot_w / static_cast<double>(std::max<std::size_t>(c.points.size(), 1));
  auto x_of = [&](std::size_t i) { return left + slot * (static_cast<double>(i) + 0.5); };
  auto y_of = [&](double v) { return top + plot_h * (axis.hi - v) / (axis.hi - axis.lo); };
  std::string svg = open_svg(width, height, c.title);
  svg += value_grid(axis, left, width - right, y_of, c.unit);
  if (c.band_low && c.band_high && c.band_from < c.points.size()) {
    double x0 = left + slot * static_cast<double>(c.band_from);
    svg += rect(x0, y_of(*c.band_high), width - right - x0, y_of(*c.band_low) - y_of(*c.band_high),
                kTrendLineColor, "band", R"( fill-opacity="0.12")");
    if (c.band_center)
      svg += line(x0, y_of(*c.band_center), width - right, y_of(*c.band_center),
                  R"( stroke-opacity="0.5" stroke-dasharray="2 3")");
  }
  for (const auto& s : c.segments)
    if (s.begin < s.end && s.end <= c.points.size())
      svg += line(left + slot * static_cast<double>(s.begin), y_of(s.mean),
                  left + slot * static_cast<double>(s.end), y_of(s.mean),
                  R"( stroke-opacity="0.55" stroke-width="2")");
  for (const auto& m : c.markers) {
    double x = left + slot * static_cast<double>(m.index);
    svg += fmt::format(R"(<g><title>{}</title>)", html_escape(m.tooltip));
    svg += fmt::format(
        R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="{3}" stroke-width="2" stroke-dasharray="5 3"/>)",
        x, top, top + plot_h, m.color);
    svg += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="middle" fill="{}">{}</text></g>)", x,
        top - 8, m.color, html_escape(m.label));
  }
  svg += line(left, top + plot_h, width - right, top + plot_h, R"( stroke-opacity="0.4")");
  std::string path;
  for (std::size_t i = 0; i < c.points.size(); ++i)
    path += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x_of(i), y_of(c.points[i].value));
  svg += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5"/>)", path,
                     kTrendLineColor);
  std::size_t label_every = std::max<std::size_t>(1, (c.points.size() + 29) / 30);
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const auto& p = c.points[i];
    if (p.outlier)
      svg += fmt::format(
          R"(<circle cx="{:.1f}" cy="{:.1f}" r="5" fill="#fff" stroke="{}" stroke-width="2.5" class="outlier"><title>{}</title></circle>)",
          x_of(i), y_of(p.value), kOutlierColor, html_escape(p.tooltip));
    else
      svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"><title>{}</title></circle>)",
                         x_of(i), y_of(p.value), kTrendLineColor, html_escape(p.tooltip));
    if (i % label_every != 0) continue;
    double y = top + plot_h + 12;
    svg += fmt::format(
        R"SVG(<text x="{0:.1f}" y="{1:.1f}" font-size="12" text-anchor="end" fill="currentColor" class="mono" transform="rotate(-45 {0:.1f} {1:.1f})">{2}</text>)SVG",
        x_of(i), y, html_escape(p.label));
  }
  return svg + "</svg>";
}

std::string step_lines_svg(const StepLineChart& c) {
  // Drawn at 1200 units, as the timeline, so that 12-unit text stays over 11 px.
  constexpr double width = 1200, height = 300, left = 90, right = 16, top = 24, bottom = 34;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  double hi = 0;
  for (const StepLine& l : c.lines)
    for (const auto& [t, v] : l.points) hi = std::max(hi, v);
  ValueAxis axis = value_axis(0, hi > 0 ? hi : 1);
  axis.lo = 0;  // values start at zero: no padding, and no tick, below it
  std::erase_if(axis.ticks, [](double t) { return t < 0; });
  double x_scale = c.x_max_us > 0 ? plot_w / c.x_max_us : 0;
  auto x_of = [&](double us) { return left + us * x_scale; };
  auto y_of = [&](double v) { return top + plot_h * (axis.hi - v) / (axis.hi - axis.lo); };
  std::string svg = open_svg(width, height, c.title);
  svg += value_grid(axis, left, width - right, y_of, c.unit);
  svg += line(left, y_of(0), width - right, y_of(0), R"( stroke-opacity="0.5")");
  for (double t : axis_ticks(c.x_max_us))
    svg += text(x_of(t), top + plot_h + 18, axis_label(t), "middle", 12);
  for (const StepLine& l : c.lines) {
    std::string path;
    for (std::size_t i = 0; i < l.points.size(); ++i) {
      auto [t, v] = l.points[i];
      if (i > 0) path += fmt::format(" {:.1f},{:.1f}", x_of(t), y_of(l.points[i - 1].second));
      path += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x_of(t), y_of(v));
    }
    svg += fmt::format(
        R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5"{}><title>{}</title></polyline>)",
        path, l.color, l.dashed ? R"( stroke-dasharray="6 4")" : "", html_escape(l.label));
  }
  if (c.mark) {
    auto [t, v] = *c.mark;
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="#d9534f"><title>{}</title></circle>)",
                       x_of(t), y_of(v), html_escape(c.mark_label));
    bool right_half = x_of(t) > left + plot_w / 2;
    svg += text(x_of(t) + (right_half ? -8 : 8), std::max(y_of(v) - 8, top - 8), c.mark_label,
                right_half ? "end" : "start", 12);
  }
  return svg + "</svg>";
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
