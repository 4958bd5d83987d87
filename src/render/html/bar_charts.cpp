#include "render/html/bar_charts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/short_labels.h"

namespace perfgate {

std::string ranked_bars_svg(const std::vector<RankedBar>& bars, const std::vector<ChartPart>& legend,
                            const std::string& title) {
  // Names in a column of their own (12 px text, about 6.6 px a character: 30 of them), the values
  // in one at the right, the bars between: no text reaches another.
  constexpr double width = 600, label_w = 210, value_w = 78, row_h = 22, top = 4;
  constexpr std::size_t label_chars = 30;
  double track = width - label_w - value_w - 8;
  double height = top * 2 + row_h * static_cast<double>(std::max<std::size_t>(bars.size(), 1));
  double max = 0;
  for (const RankedBar& b : bars) {
    double sum = 0;
    for (double p : b.parts) sum += std::max(p, 0.0);
    max = std::max(max, sum);
  }
  std::vector<std::string> names;
  for (const RankedBar& b : bars) names.push_back(b.label);
  std::vector<std::string> labels = distinct_short_labels(names, label_chars);
  std::string svg = open_svg(width, height, title);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const RankedBar& b = bars[i];
    double y = top + row_h * static_cast<double>(i), x = label_w;
    svg += svg_text(label_w - 8, y + row_h / 2 + 4, labels[i], "end", 12);
    svg += svg_rect(label_w, y + 4, track, row_h - 8, "currentColor", "", R"( fill-opacity="0.06" rx="3")");
    for (std::size_t p = 0; p < b.parts.size() && p < legend.size(); ++p) {
      double w = max > 0 ? track * std::max(b.parts[p], 0.0) / max : 0;
      if (w <= 0) continue;
      svg += svg_rect(x, y + 4, w, row_h - 8, legend[p].color, b.tooltip);
      x += w;
    }
    svg += svg_text(width - 4, y + row_h / 2 + 4, b.value_text, "end", 12);
  }
  return svg + "</svg>";
}

std::string waterfall_svg(const std::vector<WaterfallBar>& bars, const std::string& title) {
  // The ranked bars' columns: names at the left, values at the right, the bars between.
  constexpr double width = 600, label_w = 210, value_w = 78, row_h = 22, top = 4;
  constexpr std::size_t label_chars = 30;
  double track = width - label_w - value_w - 8;
  double height = top * 2 + row_h * static_cast<double>(std::max<std::size_t>(bars.size(), 1));
  double max = 0;
  for (const WaterfallBar& b : bars) max = std::max({max, b.from_us, b.to_us});
  double scale = max > 0 ? track / max : 0;
  std::vector<std::string> names;
  for (const WaterfallBar& b : bars) names.push_back(b.label);
  std::vector<std::string> labels = distinct_short_labels(names, label_chars);
  std::string svg = open_svg(width, height, title);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const WaterfallBar& b = bars[i];
    double y = top + row_h * static_cast<double>(i);
    double x = label_w + std::min(b.from_us, b.to_us) * scale, w = std::fabs(b.to_us - b.from_us) * scale;
    const char* color = b.total ? "#5b6b86" : b.to_us >= b.from_us ? "#d9534f" : "#1f8a4c";
    svg += svg_text(label_w - 8, y + row_h / 2 + 4, labels[i], "end", 12);
    svg += svg_rect(x, y + 4, std::max(w, 1.0), row_h - 8, color, b.tooltip);
    if (i + 1 < bars.size())
      svg += fmt::format(
          R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="currentColor" stroke-opacity="0.5" stroke-dasharray="2 2"/>)",
          label_w + b.to_us * scale, y + row_h - 4, y + row_h + 4);
    svg += svg_text(width - 4, y + row_h / 2 + 4, b.value_text, "end", 12);
  }
  return svg + "</svg>";
}

}  // namespace perfgate
