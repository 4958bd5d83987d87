#include "render/html/fluid_svg.h"

#include <algorithm>

#include <fmt/format.h>

#include "render/escape.h"

namespace perfgate {

FluidSvg::FluidSvg(double width, double height, const std::string& title) : width_(width) {
  svg_ = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0:.0f} {1:.0f}" width="{0:.0f}" height="{1:.0f}" data-fluid="" role="img" aria-label="{2}"><title>{2}</title>)",
      width, height, html_escape(title));
}

void FluidSvg::attribute(std::string& rules, const char* name, Fx v) {
  svg_ += fmt::format(R"( {}="{:.1f}")", name, at(v));
  if (v.f == 0) return;
  if (!rules.empty()) rules += ';';
  rules += fmt::format("{} {:g} {:g}", name, v.f, v.o);
}

void FluidSvg::close_rules(std::string& rules) {
  if (!rules.empty()) svg_ += fmt::format(R"( data-x="{}")", rules);
}

void FluidSvg::text(Fx x, double y, std::string_view s, const char* anchor, double size, const TextFit& fit,
                    std::string_view fill) {
  std::string rules;
  svg_ += "<text";
  attribute(rules, "x", x);
  svg_ += fmt::format(R"( y="{:.1f}" font-size="{:.0f}" text-anchor="{}" fill="{}")", y, size, anchor, fill);
  close_rules(rules);
  if (fit.room.f != 0 || fit.room.o != 0)
    svg_ += fmt::format(R"( data-fit="{:g} {:g}")", fit.room.f, fit.room.o);
  if (fit.hide) svg_ += R"( data-hide="")";
  if (fit.thin) svg_ += R"( class="thin")";
  svg_ += '>';
  svg_ += html_escape(std::string(s));
  svg_ += "</text>";
}

void FluidSvg::rect(Fx x, double y, Fx w, double h, std::string_view fill, std::string_view tooltip,
                    std::string_view extra) {
  std::string rules;
  svg_ += "<rect";
  attribute(rules, "x", x);
  svg_ += fmt::format(R"( y="{:.1f}")", y);
  attribute(rules, "width", w);
  svg_ += fmt::format(R"( height="{:.1f}" fill="{}"{})", std::max(h, 0.0), fill, extra);
  close_rules(rules);
  if (tooltip.empty()) {
    svg_ += "/>";
    return;
  }
  svg_ += "><title>" + html_escape(std::string(tooltip)) + "</title></rect>";
}

void FluidSvg::line(Fx x1, double y1, Fx x2, double y2, std::string_view extra) {
  std::string rules;
  svg_ += "<line";
  attribute(rules, "x1", x1);
  attribute(rules, "x2", x2);
  close_rules(rules);
  svg_ += fmt::format(R"( y1="{:.1f}" y2="{:.1f}"{}/>)", y1, y2, extra);
}

void FluidSvg::circle(Fx cx, double cy, double r, std::string_view fill, std::string_view tooltip,
                      std::string_view extra) {
  std::string rules;
  svg_ += "<circle";
  attribute(rules, "cx", cx);
  close_rules(rules);
  svg_ += fmt::format(R"( cy="{:.1f}" r="{:.1f}" fill="{}"{})", cy, r, fill, extra);
  if (tooltip.empty()) {
    svg_ += "/>";
    return;
  }
  svg_ += "><title>" + html_escape(std::string(tooltip)) + "</title></circle>";
}

void FluidSvg::open_plot(Fx x, double y, Fx w, double h, double units) {
  std::string rules;
  svg_ += "<svg";
  attribute(rules, "x", x);
  attribute(rules, "width", w);
  close_rules(rules);
  svg_ += fmt::format(
      R"( y="{:.1f}" height="{:.1f}" viewBox="0 0 {:.1f} {:.1f}" preserveAspectRatio="none" overflow="visible">)",
      y, h, std::max(units, 1.0), h);
}

}  // namespace perfgate
