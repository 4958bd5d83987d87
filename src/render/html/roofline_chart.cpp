// The roofline chart (charts.h: roofline_svg), its log-log axes and its ceilings' labels.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/escape.h"
#include "render/html/charts.h"
#include "render/html/fluid_svg.h"

namespace perfgate {

namespace {

// Log-scale axes over whole decades that hold every value.
struct LogAxis {
  double low = 0, high = 0;  // log10 of the ends
  LogAxis(double min_value, double max_value)
      : low(std::floor(std::log10(min_value))), high(std::ceil(std::log10(max_value))) {
    if (high <= low) high = low + 1;
  }
  double at(double value, double from, double length) const {
    return from + (std::log10(value) - low) / (high - low) * length;
  }
};

// A ceiling's label at the right of the plot: ceilings of the same value share one ("fp32/vector
// 19.5", where they were drawn on each other).
struct CeilingLabel {
  std::string text;
  double tflops = 0;
  double y = 0;  // the text's baseline
};
std::vector<CeilingLabel> ceiling_labels(const std::vector<RooflineCeiling>& ceilings) {
  std::vector<CeilingLabel> labels;
  std::vector<std::string> names;
  for (const RooflineCeiling& c : ceilings) {
    auto same = std::find_if(labels.begin(), labels.end(),
                             [&](const CeilingLabel& l) { return l.tflops == c.tflops; });
    if (same == labels.end()) {
      labels.push_back({"", c.tflops, 0});
      names.push_back(c.label);
    } else {
      names[static_cast<std::size_t>(same - labels.begin())] += "/" + c.label;
    }
  }
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i].text = fmt::format("{} {:g}", names[i], labels[i].tflops);
  return labels;
}

// Moves labels of one column apart (13 px between baselines, 11 px text) keeping their order by
// height, within [min_y, max_y] where they fit: ceilings close in value no longer overlap.
void spread_labels(std::vector<CeilingLabel>& labels, double min_y, double max_y) {
  constexpr double gap = 13;
  std::sort(labels.begin(), labels.end(),
            [](const CeilingLabel& a, const CeilingLabel& b) { return a.y < b.y; });
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i].y = std::max(labels[i].y, i == 0 ? min_y : labels[i - 1].y + gap);
  // Pushed past the bottom: back up from it, each at least `gap` above the one below.
  for (std::size_t i = labels.size(); i-- > 0;)
    labels[i].y = std::min(labels[i].y, i + 1 == labels.size() ? max_y : labels[i + 1].y - gap);
}

std::string decade_label(double exponent) {
  return fmt::format("{:g}", std::pow(10.0, exponent));
}

}  // namespace

std::string roofline_svg(const std::vector<RooflinePoint>& points,
                         const std::vector<RooflineCeiling>& ceilings, double memory_tb_per_s,
                         const std::string& title) {
  constexpr double width = 640, height = 400, left = 56, top = 12, bottom = 44;
  std::vector<CeilingLabel> labels = ceiling_labels(ceilings);
  // The right margin holds the longest ceiling label (11 px text: about 6.4 px a character).
  double right = 70;
  for (const CeilingLabel& l : labels) right = std::max(right, 8 + 6.4 * static_cast<double>(l.text.size()));
  double plot_h = height - top - bottom;
  const Fx plot = FluidSvg::full() - left - right;
  double x_min = 1e300, x_max = 0, y_min = 1e300, y_max = 0;
  for (const RooflinePoint& p : points) {
    x_min = std::min(x_min, p.intensity), x_max = std::max(x_max, p.intensity);
    y_min = std::min(y_min, p.tflops), y_max = std::max(y_max, p.tflops);
  }
  for (const RooflineCeiling& c : ceilings) y_max = std::max(y_max, c.tflops);
  // The ridge points, where the slope meets each ceiling, are on the chart.
  for (const RooflineCeiling& c : ceilings) x_max = std::max(x_max, c.tflops / memory_tb_per_s);
  LogAxis x(std::max(x_min, 1e-3), std::max(x_max, 1.0)), y(std::max(y_min, 1e-4), y_max);
  auto px = [&](double v) { return left + plot * x.at(v, 0, 1); };
  auto py = [&](double v) { return top + plot_h - (std::log10(v) - y.low) / (y.high - y.low) * plot_h; };
  FluidSvg svg(width, height, title);
  svg.rect(left, top, plot, plot_h, "none", "", R"( stroke="currentColor" stroke-opacity="0.4")");
  for (double e = x.low; e <= x.high; ++e) {
    Fx at = px(std::pow(10.0, e));
    svg.line(at, top, at, top + plot_h, R"( stroke="currentColor" stroke-opacity="0.12")");
    svg.text(at, top + plot_h + 16, decade_label(e), "middle", 11, {{}, false, true});
  }
  for (double e = y.low; e <= y.high; ++e) {
    double at = py(std::pow(10.0, e));
    svg.line(left, at, left + plot, at, R"( stroke="currentColor" stroke-opacity="0.12")");
    svg.text(left - 6, at + 4, decade_label(e), "end", 11);
  }
  svg.text(left + plot / 2, height - 8, "arithmetic intensity (FLOP/byte)", "middle", 12);
  svg.raw(fmt::format(
      R"svg(<text x="14" y="{:.1f}" font-size="12" text-anchor="middle" fill="currentColor" transform="rotate(-90 14 {:.1f})">achieved TFLOP/s</text>)svg",
      top + plot_h / 2, top + plot_h / 2));
  // The memory slope (TFLOP/s = TB/s x FLOP/byte) up to the highest ceiling, then each ceiling
  // from its ridge point.
  double top_ceiling = 0;
  for (const RooflineCeiling& c : ceilings) top_ceiling = std::max(top_ceiling, c.tflops);
  double slope_from = std::pow(10.0, x.low), slope_to = top_ceiling / memory_tb_per_s;
  double y_floor = std::pow(10.0, y.low);
  if (slope_from * memory_tb_per_s < y_floor) slope_from = y_floor / memory_tb_per_s;
  svg.raw("<g>");
  svg.line(px(slope_from), py(slope_from * memory_tb_per_s), px(slope_to), py(top_ceiling),
           R"( stroke="#2f6fb5" stroke-width="2")");
  svg.raw(
      fmt::format("<title>{}</title></g>", html_escape(fmt::format("memory: {:g} TB/s", memory_tb_per_s))));
  for (const RooflineCeiling& c : ceilings) {
    double ridge = c.tflops / memory_tb_per_s;
    svg.line(px(ridge), py(c.tflops), left + plot, py(c.tflops),
             R"( stroke="#c0392b" stroke-width="2" stroke-dasharray="6 3")");
  }
  for (CeilingLabel& l : labels) l.y = py(l.tflops) + 4;
  spread_labels(labels, top + 10, top + plot_h + 4);
  for (const CeilingLabel& l : labels) svg.text(left + plot + 4, l.y, l.text, "start", 11);
  for (const RooflinePoint& p : points) {
    if (p.intensity <= 0 || p.tflops <= 0) continue;
    double r = std::clamp(3.0 + 14.0 * std::sqrt(p.time_share), 3.0, 17.0);
    svg.circle(px(std::max(p.intensity, std::pow(10.0, x.low))), py(std::max(p.tflops, y_floor)), r,
               p.memory_bound ? "#2f6fb5" : "#c0392b", p.tooltip,
               fmt::format(R"( fill-opacity="0.55" stroke="{}")", p.memory_bound ? "#1d4f86" : "#8e2a20"));
  }
  return svg.done();
}

}  // namespace perfgate
