// Inline SVG charts of the HTML report, drawn by perfgate: no chart library, no request. Colours
// are presentation attributes, not CSS, so that a Content-Security-Policy that blocks inline
// styles still shows them; text uses currentColor to follow the light or dark page.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfgate {

// The parts every chart is drawn with (the other chart files'): the <svg> opened with its viewBox
// (and its size, which a page without its style sheet keeps), a text and a rectangle with an
// optional tooltip and `extra` attributes.
std::string open_svg(double width, double height, const std::string& title);
std::string svg_text(double x, double y, const std::string& s, const char* anchor = "start", double size = 11,
                     const char* fill = "currentColor");
std::string svg_rect(double x, double y, double w, double h, const std::string& fill,
                     const std::string& tooltip = "", const char* extra = "");

struct ChartPart {
  std::string label;
  double value = 0;
  std::string color;
};

// A ring filled to `pct` (0-100), the value in its middle; "n/a" when empty.
std::string donut_svg(std::optional<double> pct, const std::string& color, const std::string& title);

// One horizontal bar split into parts proportional to their values.
std::string stacked_bar_svg(const std::vector<ChartPart>& parts, const std::string& title);

// A horizontal bar per part, its value a percentage (0-100) of a full-width track, the value
// written after it (the Neuron engines' active shares).
std::string share_bars_svg(const std::vector<ChartPart>& parts, const std::string& title);

// The steps a page charts and embeds in its data: the first ones of a longer run (issue 55: a
// million steps made a 975 MB page, the step charts and the page's steps list nearly all of it).
// No trace of the shared set has more than 8; the JSON report has every step.
inline constexpr std::size_t kChartedSteps = 2000;

// Vertical bars, one per step, stacked by parts (µs); steps outside the window are drawn plain,
// and the window is shaded.
struct StepColumn {
  std::string name;
  bool in_window = true;
  double total_us = 0;
  std::vector<double> parts_us;  // same order as the legend; empty: one plain bar
  std::string note;              // a second label line ("slowest"), empty: none
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
  bool on_path = false;  // a stretch of the critical path: a bar along the lane's foot, over the boxes
};
std::string timeline_svg(const std::vector<std::string>& lanes, const std::vector<SvgBox>& boxes,
                         double step_us, const std::string& title);

// Changes against a baseline (the plugin's diff view): a row per item, a bar from a zero line,
// slower (positive) to the right in red, faster to the left in green, the change written beside it.
struct ChangeBar {
  std::string label;
  double delta_us = 0;
};
std::string change_bars_svg(const std::vector<ChangeBar>& bars, const std::string& title);

// The roofline (XProf's roofline tool): ops as points by arithmetic intensity (FLOP/byte) and
// achieved TFLOP/s on log-log axes, sized by their kernel time, under the memory slope and one
// compute ceiling per precision the ops used.
struct RooflinePoint {
  double intensity = 0;   // flop/byte
  double tflops = 0;      // achieved
  double time_share = 0;  // of the plotted ops' kernel time, 0-1
  bool memory_bound = false;
  std::string tooltip;
};
struct RooflineCeiling {
  std::string label;  // "bf16"
  double tflops = 0;
};
std::string roofline_svg(const std::vector<RooflinePoint>& points,
                         const std::vector<RooflineCeiling>& ceilings, double memory_tb_per_s,
                         const std::string& title);

// The whole window in one strip: its steps side by side (numbered where there is room, the one
// `marked` drawn darker) and below them the long GPU gaps in red, at the timeline's width.
struct StripSpan {
  double start_us = 0;  // from the window's start
  double duration_us = 0;
  std::string label;
  std::string tooltip;
};
// `least_busy` (SIZE_MAX: none) is outlined: the step with the least GPU time for its length.
std::string window_strip_svg(const std::vector<StripSpan>& steps, const std::vector<StripSpan>& gaps,
                             double window_us, std::size_t marked, std::size_t least_busy,
                             const std::string& title);

// Values over time drawn as steps (each holds until the next point), from 0 to `x_max_us` on the
// time axis and from zero on a value axis in `unit` (a catalog unit), with one point marked.
struct StepLine {
  std::string label;
  std::string color;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // (us from the axis start, value), in time order
};
struct StepLineChart {
  std::string title;
  std::string unit;
  double x_max_us = 0;
  std::vector<StepLine> lines;
  std::optional<std::pair<double, double>> mark;
  std::string mark_label;
};
std::string step_lines_svg(const StepLineChart& chart);

// Tick values for an axis from 0 to `max`: 1, 2 or 5 times a power of ten, about four of them.
std::vector<double> axis_ticks(double max);

// A metric's value per run (the trend page): a line through the runs with a label each on the axis
// (fewer when crowded), the band shaded behind the runs it is of, each segment's mean between
// change points, and the change points marked between the runs where they happened.
struct TrendChartPoint {
  std::string label;
  std::string tooltip;
  double value = 0;
  bool outlier = false;  // drawn as a ring, apart from the change points' lines
};
struct TrendChartSegment {
  std::size_t begin = 0, end = 0;  // points [begin, end)
  double mean = 0;
};
struct TrendChartMarker {
  std::size_t index = 0;  // the first point after the change
  std::string label;
  std::string color;
  std::string tooltip;
};
struct TrendChart {
  std::string title;
  std::string unit;  // catalog unit, for the axis labels
  std::vector<TrendChartPoint> points;
  std::optional<double> band_low, band_high, band_center;
  std::size_t band_from = 0;  // the first point the band is of
  std::vector<TrendChartSegment> segments;
  std::vector<TrendChartMarker> markers;
};
std::string trend_chart_svg(const TrendChart& chart);

// A small line of recent values with the last one marked (the current run), for a finding.
std::string sparkline_svg(const std::vector<double>& values, const std::string& mark_color,
                          const std::string& title);

}  // namespace perfgate
