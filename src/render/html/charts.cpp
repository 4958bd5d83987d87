#include "render/html/charts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "perfgate/units.h"
#include "render/escape.h"

namespace perfgate {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::string open_svg(double width, double height, const std::string& title) {
  return fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0:.0f} {1:.0f}" width="{0:.0f}" height="{1:.0f}" role="img" aria-label="{2}"><title>{2}</title>)",
      width, height, html_escape(title));
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start", double size = 11) {
  return fmt::format(
      R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.0f}" text-anchor="{}" fill="currentColor">{}</text>)", x,
      y, size, anchor, html_escape(s));
}

std::string rect(double x, double y, double w, double h, const std::string& fill,
                 const std::string& tooltip = "", const char* extra = "") {
  std::string r = fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"{})", x,
                              y, std::max(w, 0.0), std::max(h, 0.0), fill, extra);
  if (tooltip.empty()) return r + "/>";
  return r + "><title>" + html_escape(tooltip) + "</title></rect>";
}

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

std::string step_bars_svg(const std::vector<StepColumn>& steps, const std::vector<ChartPart>& legend,
                          const std::string& title) {
  constexpr double width = 600, height = 230, left = 52, right = 8, top = 14, bottom = 30;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  double max = 0;
  for (const auto& s : steps) max = std::max(max, s.total_us);
  std::vector<double> ticks = axis_ticks(max);
  double scale_max = ticks.empty() ? 1 : std::max(max, ticks.back());
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
    svg += text((x0 + x1) / 2, top - 3, "window", "middle", 10);
  }
  for (double t : ticks) {
    double y = top + plot_h * (1 - t / scale_max);
    svg += fmt::format(
        R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="currentColor" stroke-opacity="0.15"/>)",
        left, y, width - right, y);
    svg += text(left - 6, y + 4, axis_label(t), "end", 10);
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
    if (s.parts_us.empty() || !s.in_window) {
      double h = plot_h * s.total_us / scale_max;
      svg += rect(x, y - h, bar, h, "#9aa3b2", tooltip + (s.in_window ? "" : "\noutside the window"),
                  R"( fill-opacity="0.55")");
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
      svg += text(x + bar / 2, height - bottom + 14, name, "middle", 10);
    }
  }
  return svg + "</svg>";
}

std::string timeline_svg(const std::vector<std::string>& lanes, const std::vector<SvgBox>& boxes,
                         double step_us, const std::string& title) {
  constexpr double width = 1200, left = 130, right = 10, lane_h = 22, top = 8, axis = 24;
  double height = top + lane_h * static_cast<double>(std::max<std::size_t>(lanes.size(), 1)) + axis;
  double plot_w = width - left - right;
  std::string svg = open_svg(width, height, title);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    double y = top + lane_h * static_cast<double>(i);
    svg += rect(left, y + 2, plot_w, lane_h - 4, "currentColor", "", R"( fill-opacity="0.05")");
    svg += text(left - 8, y + lane_h / 2 + 4, lanes[i], "end", 11);
  }
  double scale = step_us > 0 ? plot_w / step_us : 0;
  for (const SvgBox& b : boxes) {
    double y = top + lane_h * static_cast<double>(b.lane) + 3;
    svg += rect(left + b.start_us * scale, y, std::max(b.duration_us * scale, 0.6), lane_h - 6, b.color,
                b.tooltip);
  }
  double axis_y = top + lane_h * static_cast<double>(lanes.size()) + 4;
  for (double t : axis_ticks(step_us)) {
    double x = left + t * scale;
    svg += fmt::format(
        R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="currentColor" stroke-opacity="0.3"/>)",
        x, top, axis_y);
    svg += text(x, axis_y + 13, axis_label(t), "middle", 10);
  }
  return svg + "</svg>";
}

}  // namespace perfgate
