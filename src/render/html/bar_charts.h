// Ranked horizontal bars for the page's plots (issue 76): a row per item, its name on the left, a
// bar (split into parts where it has them) and its value written at the right. Bounded for any
// size: the caller passes at most a dozen rows, names are cut so that no two read the same, and
// every text has a column of its own, so that none is drawn on another.
#pragma once

#include <string>
#include <vector>

#include "render/html/charts.h"

namespace perfgate {

struct RankedBar {
  std::string label;
  std::string value_text;     // the table's cell as the page shows it ("12.3 ms")
  std::vector<double> parts;  // the bar's length in parts, in the legend's order (one: a plain bar)
  std::string tooltip;
};

// `legend`: the parts' names and colours (one entry for plain bars).
std::string ranked_bars_svg(const std::vector<RankedBar>& bars, const std::vector<ChartPart>& legend,
                            const std::string& title);

// A waterfall laid out as the ranked bars: a row per part, its bar from `from_us` to `to_us` on one
// scale from 0, a thin line from each bar's end to the next bar's start. A total (a step) is drawn
// from 0 in slate, a part that grew in red, one that shrank in green.
struct WaterfallBar {
  std::string label;
  double from_us = 0;
  double to_us = 0;
  bool total = false;
  std::string value_text;  // "12.30 ms" for a total, "+1.20 ms" for a part
  std::string tooltip;
};
std::string waterfall_svg(const std::vector<WaterfallBar>& bars, const std::string& title);

}  // namespace perfgate
