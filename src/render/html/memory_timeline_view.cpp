// The HTML page's active-memory timeline (memory_view.h): the memory_timeline table's rectangles
// drawn as static SVG, the peak from the memory_snapshot table marked, and beside it the
// memory_live_at_peak and memory_peak_categories tables' first rows. Every number is the report's;
// this file only places them on the page.
#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/colors.h"
#include "render/format.h"
#include "render/html/charts.h"
#include "render/html/fluid_svg.h"
#include "render/html/memory_view.h"

namespace perfgate {
namespace {

constexpr double kWidth = 760, kHeight = 300, kLeft = 64, kRight = 12, kTop = 22, kBottom = 28;
constexpr std::size_t kSideRows = 12;  // rows of the live-at-peak table beside the chart

struct Scale {
  double states = 1, top = 1;
  // In the plot's units (kWidth - kLeft - kRight wide), stretched to the width it gets.
  double x(double state) const { return (kWidth - kLeft - kRight) * state / states; }
  double y(double bytes) const { return kHeight - kBottom - (kHeight - kTop - kBottom) * bytes / top; }
};

// The memory_snapshot row of `device`.
std::size_t device_row(const ReportTable& devices, double device) {
  for (std::size_t i = 0; i < devices.rows.size(); ++i)
    if (number_at(devices, i, table_column(Table::MemorySnapshot, "device")) == device) return i;
  return 0;
}

void append_band(std::string& svg, const ReportTable& bands, std::size_t first, std::size_t end,
                 const Scale& s) {
  double band = number_at(bands, first, table_column(Table::MemoryTimeline, "band"));
  const char* color =
      band == 0 ? "#bab0ab" : kBreakdownColors[static_cast<std::size_t>(band) % kBreakdownColors.size()];
  std::string title =
      band == 0
          ? std::string("smaller allocations, summed")
          : fmt::format("{} · {} · {}", text_at(bands, first, table_column(Table::MemoryTimeline, "site")),
                        text_at(bands, first, table_column(Table::MemoryTimeline, "category")),
                        format_bytes(static_cast<std::uint64_t>(
                            number_at(bands, first, table_column(Table::MemoryTimeline, "size_bytes")))));
  svg += fmt::format("<g class=\"band\" fill=\"{}\"><title>", color);
  append_template_escaped(svg, title);
  svg += "</title>";
  for (std::size_t i = first; i < end; ++i) {
    double x0 = s.x(number_at(bands, i, table_column(Table::MemoryTimeline, "first_state"))),
           x1 = s.x(number_at(bands, i, table_column(Table::MemoryTimeline, "last_state")) + 1);
    double y1 = s.y(number_at(bands, i, table_column(Table::MemoryTimeline, "bottom_bytes"))),
           y0 = s.y(number_at(bands, i, table_column(Table::MemoryTimeline, "top_bytes")));
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>", x0, y0,
                       x1 - x0, y1 - y0);
  }
  svg += "</g>";
}

std::string timeline_svg(const ReportTable& bands, const ReportTable& devices, std::size_t device) {
  Scale s;
  s.states = number_at(devices, device, table_column(Table::MemorySnapshot, "actions")) + 1;
  double peak = number_at(devices, device, table_column(Table::MemorySnapshot, "peak_allocated_bytes"));
  double peak_state = number_at(devices, device, table_column(Table::MemorySnapshot, "peak_action"));
  s.top = peak > 0 ? peak : 1;
  const Fx plot = FluidSvg::full() - kLeft - kRight;
  auto at = [&](double state) { return kLeft + plot * (s.x(state) / (kWidth - kLeft - kRight)); };
  FluidSvg chart(kWidth, kHeight, "Active memory timeline");
  for (double tick : axis_ticks(s.top)) {
    chart.line(kLeft, s.y(tick), FluidSvg::full() - kRight, s.y(tick), R"( stroke="#ddd")");
    chart.text(kLeft - 4, s.y(tick) + 4, format_bytes(static_cast<std::uint64_t>(tick)), "end", 11);
  }
  chart.open_plot(kLeft, 0, plot, kHeight, kWidth - kLeft - kRight);
  std::string& svg = chart.out();
  for (std::size_t first = 0; first < bands.rows.size();) {
    std::size_t end = first + 1;
    while (end < bands.rows.size() &&
           number_at(bands, end, table_column(Table::MemoryTimeline, "band")) ==
               number_at(bands, first, table_column(Table::MemoryTimeline, "band")))
      ++end;
    append_band(svg, bands, first, end, s);
    first = end;
  }
  chart.close_plot();
  Fx px = at(peak_state + 0.5);
  double py = s.y(peak);
  // The peak's label on the side of it with room, so that it stays in the chart at any width.
  bool right_half = s.x(peak_state + 0.5) > (kWidth - kLeft - kRight) / 2;
  chart.raw(R"(<g class="peak">)");
  chart.line(px, py, px, kHeight - kBottom, R"( stroke="#d62728" stroke-dasharray="3 2")");
  chart.circle(px, py, 4, "#d62728");
  chart.text(
      px, kTop - 8,
      fmt::format("peak {} after action {:.0f}", format_bytes(static_cast<std::uint64_t>(peak)), peak_state),
      right_half ? "end" : "start", 11, {right_half ? px : FluidSvg::full() - px}, "#d62728");
  chart.raw("</g>");
  chart.text(kLeft, kHeight - 8, "0", "start", 11);
  chart.text(FluidSvg::full() - kRight, kHeight - 8, fmt::format("action {:.0f}", s.states - 1), "end", 11);
  std::string done = chart.done();
  // The page's style sheet sizes it by its class.
  return done.replace(done.find("<svg "), 5, R"(<svg class="memory-timeline" )");
}

// The first rows of a table of `device` (site or category, bytes, share) for the side panel.
TemplateData side_rows(const ReportTable& t, double device, bool with_site, std::size_t& more) {
  TemplateData rows = template_list();
  std::size_t shown = 0;
  more = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (number_at(t, i, shared_column(Table::MemoryLiveAtPeak, Table::MemoryPeakCategories, "device")) !=
        device)
      continue;
    if (shown == kSideRows) {
      ++more;
      continue;
    }
    ++shown;
    TemplateData row;
    if (with_site) row.set("site", text_at(t, i, table_column(Table::MemoryLiveAtPeak, "site")));
    row.set("category",
            text_at(t, i, shared_column(Table::MemoryLiveAtPeak, Table::MemoryPeakCategories, "category")));
    row.set("bytes",
            format_bytes(static_cast<std::uint64_t>(number_at(
                t, i, shared_column(Table::MemoryLiveAtPeak, Table::MemoryPeakCategories, "bytes")))));
    row.set("share",
            format_pct(optional_number_at(
                t, i, shared_column(Table::MemoryLiveAtPeak, Table::MemoryPeakCategories, "share_pct"))));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

void add_memory_timeline(const ReportWorker& w, TemplateData& d) {
  const ReportTable* bands = find_table(w.tables, Table::MemoryTimeline);
  const ReportTable* devices = find_table(w.tables, Table::MemorySnapshot);
  if (!bands || bands->rows.empty() || !devices || devices->rows.empty()) return;
  double device = number_at(*bands, 0, table_column(Table::MemoryTimeline, "device"));
  std::size_t row = device_row(*devices, device);
  d.set("timeline_svg", timeline_svg(*bands, *devices, row));
  d.set("timeline_device", fmt::format("{:.0f}", device));
  std::size_t more = 0;
  if (const ReportTable* sites = find_table(w.tables, Table::MemoryLiveAtPeak)) {
    d.set("live_sites", side_rows(*sites, device, true, more));
    if (more > 0) d.set("live_more", fmt::format("{} more rows in the Live at the memory peak table", more));
  }
  if (const ReportTable* categories = find_table(w.tables, Table::MemoryPeakCategories))
    d.set("live_categories", side_rows(*categories, device, false, more));
}

}  // namespace perfgate
