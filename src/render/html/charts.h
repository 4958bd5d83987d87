// Inline SVG charts of the HTML report, drawn by perfgate: no chart library, no request. Colours
// are presentation attributes, not CSS, so that a Content-Security-Policy that blocks inline
// styles still shows them; text uses currentColor to follow the light or dark page.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perfgate {

struct ChartPart {
  std::string label;
  double value = 0;
  std::string color;
};

// A ring filled to `pct` (0-100), the value in its middle; "n/a" when empty.
std::string donut_svg(std::optional<double> pct, const std::string& color, const std::string& title);

// One horizontal bar split into parts proportional to their values.
std::string stacked_bar_svg(const std::vector<ChartPart>& parts, const std::string& title);

// Vertical bars, one per step, stacked by parts (µs); steps outside the window are drawn plain,
// and the window is shaded.
struct StepColumn {
  std::string name;
  bool in_window = true;
  double total_us = 0;
  std::vector<double> parts_us;  // same order as the legend; empty: one plain bar
};
std::string step_bars_svg(const std::vector<StepColumn>& steps, const std::vector<ChartPart>& legend,
                          const std::string& title);

// GPU activity of one step, a lane per stream, a box per activity.
struct SvgBox {
  std::size_t lane = 0;
  double start_us = 0;
  double duration_us = 0;
  std::string color;
  std::string tooltip;
};
std::string timeline_svg(const std::vector<std::string>& lanes, const std::vector<SvgBox>& boxes,
                         double step_us, const std::string& title);

// Tick values for an axis from 0 to `max`: 1, 2 or 5 times a power of ten, about four of them.
std::vector<double> axis_ticks(double max);

}  // namespace perfgate
