#include "render/html/bar_charts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/html/fluid_svg.h"
#include "render/short_labels.h"

namespace perfgate {
namespace {

// The columns of a chart of a row per item, at any width: the names at the left (a share of the
// width: 210 of 600 px, 110 of a phone's 266), the values at the right, the bars between. A name
// longer than its column is shortened there, whole in its tooltip.
constexpr double kDrawnWidth = 600, kValueWidth = 78, kRowHeight = 22, kTop = 4;
constexpr std::size_t kLabelChars = 30;
const Fx kLabelWidth = 0.3 * FluidSvg::full() + 30;
const Fx kTrack = FluidSvg::full() - kLabelWidth - kValueWidth - 8;

double rows_height(std::size_t rows) {
  return kTop * 2 + kRowHeight * static_cast<double>(std::max<std::size_t>(rows, 1));
}

void row_texts(FluidSvg& svg, double y, const std::string& label, const std::string& value) {
  svg.text(kLabelWidth - 8, y + kRowHeight / 2 + 4, label, "end", 12, {kLabelWidth - 8});
  svg.text(FluidSvg::full() - 4, y + kRowHeight / 2 + 4, value, "end", 12);
}

}  // namespace

std::string ranked_bars_svg(const std::vector<RankedBar>& bars, const std::vector<ChartPart>& legend,
                            const std::string& title) {
  double max = 0;
  for (const RankedBar& b : bars) {
    double sum = 0;
    for (double p : b.parts) sum += std::max(p, 0.0);
    max = std::max(max, sum);
  }
  std::vector<std::string> names;
  for (const RankedBar& b : bars) names.push_back(b.label);
  std::vector<std::string> labels = distinct_short_labels(names, kLabelChars);
  FluidSvg svg(kDrawnWidth, rows_height(bars.size()), title);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const RankedBar& b = bars[i];
    double y = kTop + kRowHeight * static_cast<double>(i), done = 0;
    row_texts(svg, y, labels[i], b.value_text);
    svg.rect(kLabelWidth, y + 4, kTrack, kRowHeight - 8, "currentColor", "",
             R"( fill-opacity="0.06" rx="3")");
    for (std::size_t p = 0; p < b.parts.size() && p < legend.size(); ++p) {
      double part = max > 0 ? std::max(b.parts[p], 0.0) / max : 0;
      if (part <= 0) continue;
      svg.rect(kLabelWidth + kTrack * done, y + 4, kTrack * part, kRowHeight - 8, legend[p].color, b.tooltip);
      done += part;
    }
  }
  return svg.done();
}

std::string waterfall_svg(const std::vector<WaterfallBar>& bars, const std::string& title) {
  double max = 0;
  for (const WaterfallBar& b : bars) max = std::max({max, b.from_us, b.to_us});
  auto x_of = [&](double us) { return kLabelWidth + kTrack * (max > 0 ? us / max : 0); };
  std::vector<std::string> names;
  for (const WaterfallBar& b : bars) names.push_back(b.label);
  std::vector<std::string> labels = distinct_short_labels(names, kLabelChars);
  FluidSvg svg(kDrawnWidth, rows_height(bars.size()), title);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const WaterfallBar& b = bars[i];
    double y = kTop + kRowHeight * static_cast<double>(i);
    const char* color = b.total ? "#5b6b86" : b.to_us >= b.from_us ? "#d9534f" : "#1f8a4c";
    row_texts(svg, y, labels[i], b.value_text);
    // At least a pixel wide at the drawn width, so that a part that did not change still shows.
    Fx w = kTrack * (max > 0 ? std::fabs(b.to_us - b.from_us) / max : 0) + 1;
    svg.rect(x_of(std::min(b.from_us, b.to_us)), y + 4, w, kRowHeight - 8, color, b.tooltip);
    if (i + 1 < bars.size())
      svg.line(x_of(b.to_us), y + kRowHeight - 4, x_of(b.to_us), y + kRowHeight + 4,
               R"( stroke="currentColor" stroke-opacity="0.5" stroke-dasharray="2 2")");
  }
  return svg.done();
}

}  // namespace perfgate
