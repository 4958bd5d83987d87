// A chart's SVG as a test reads it: charts laid out for their width (render/html/fluid_svg.h) hold a
// plot area as an <svg> inside the chart's, so the chart ends at the </svg> that closes its own.
#pragma once

#include <string>

namespace perfgate::testing {

// The text of `page` from `from` (inside a chart's <svg>, or at it) to the end of that <svg>.
inline std::string outer_svg(const std::string& page, std::size_t from) {
  std::size_t at = from, depth = page.compare(from, 4, "<svg") == 0 ? 0 : 1;
  while (at < page.size()) {
    std::size_t open = page.find("<svg", at), close = page.find("</svg>", at);
    if (close == std::string::npos) break;
    if (open < close) {
      ++depth;
      at = open + 4;
      continue;
    }
    if (--depth == 0) return page.substr(from, close - from);
    at = close + 6;
  }
  return page.substr(from);
}

}  // namespace perfgate::testing
