// Charts laid out for the width they get (issue 93): a chart is drawn for one width, and each
// horizontal position or length that depends on the width is written with its rule (`f` times the
// chart's width plus `o` px), which the page's script (report.js) applies at the width the chart is
// shown at, so that text keeps its size (12 px) at every width from a phone's to a wide screen's.
// Labels too long for their room are shortened there (the whole label in a tooltip), and axis
// labels that would overlap are left out. Without the script the chart is drawn for its width and
// scaled to its card. The rules are layout only: every number shown is the caller's.
#pragma once

#include <string>
#include <string_view>

namespace perfgate {

// A position or length along a chart's width: f × width + o.
struct Fx {
  double f = 0, o = 0;
  Fx() = default;
  Fx(double px) : o(px) {}  // NOLINT(google-explicit-constructor): a fixed position is one
  Fx(double f_, double o_) : f(f_), o(o_) {}
  double at(double width) const { return f * width + o; }
};
inline Fx operator+(Fx a, Fx b) {
  return {a.f + b.f, a.o + b.o};
}
inline Fx operator-(Fx a, Fx b) {
  return {a.f - b.f, a.o - b.o};
}
inline Fx operator*(Fx a, double k) {
  return {a.f * k, a.o * k};
}
inline Fx operator*(double k, Fx a) {
  return a * k;
}
inline Fx operator/(Fx a, double k) {
  return {a.f / k, a.o / k};
}

// How a text may be cut at the width it gets: to `room` (f × width + o px; none where both are 0),
// or left out where it does not fit (`hide`); `thin`: an axis label, left out where it would
// overlap another text.
struct TextFit {
  Fx room;
  bool hide = false;
  bool thin = false;
};

class FluidSvg {
 public:
  // Opens the <svg>, drawn `width` wide.
  FluidSvg(double width, double height, const std::string& title);
  // The chart's whole width, as a rule.
  static Fx full() { return {1, 0}; }
  double drawn_width() const { return width_; }
  double at(Fx x) const { return x.at(width_); }

  void text(Fx x, double y, std::string_view s, const char* anchor = "start", double size = 12,
            const TextFit& fit = {}, std::string_view fill = "currentColor");
  void rect(Fx x, double y, Fx w, double h, std::string_view fill, std::string_view tooltip = "",
            std::string_view extra = "");
  // `extra`: its stroke and the rest.
  void line(Fx x1, double y1, Fx x2, double y2, std::string_view extra);
  void circle(Fx cx, double cy, double r, std::string_view fill, std::string_view tooltip = "",
              std::string_view extra = "");
  // A plot area from `x`, `w` wide (rules), whose contents are drawn in its own units, 0 to `units`
  // wide, and stretched to it: hundreds of boxes need no rule each. Strokes inside should not scale
  // (vector-effect="non-scaling-stroke").
  void open_plot(Fx x, double y, Fx w, double h, double units);
  void close_plot() { svg_ += "</svg>"; }
  // Appends raw SVG (fixed positions, or a plot area's contents).
  void raw(std::string_view s) { svg_ += s; }
  std::string& out() { return svg_; }
  std::string done() { return std::move(svg_) + "</svg>"; }

 private:
  // ` name="value"` at the drawn width, and the rule for the script when it depends on the width.
  void attribute(std::string& rules, const char* name, Fx v);
  void close_rules(std::string& rules);

  double width_;
  std::string svg_;
};

}  // namespace perfgate
