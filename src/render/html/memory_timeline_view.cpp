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
#include "render/html/memory_view.h"

namespace perfgate {
namespace {

constexpr double kWidth = 760, kHeight = 300, kLeft = 64, kRight = 12, kTop = 22, kBottom = 28;
constexpr std::size_t kSideRows = 12;  // rows of the live-at-peak table beside the chart

struct Scale {
  double states = 1, top = 1;
  double x(double state) const { return kLeft + (kWidth - kLeft - kRight) * state / states; }
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
  std::string svg = fmt::format(
      "<svg class=\"memory-timeline\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"Active memory "
      "timeline\" font-size=\"11\">",
      kWidth, kHeight);
  for (double tick : axis_ticks(s.top))
    svg += fmt::format(
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/><text x=\"{:.1f}\" "
        "y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
        kLeft, kWidth - kRight, s.y(tick), s.y(tick), kLeft - 4, s.y(tick) + 4,
        format_bytes(static_cast<std::uint64_t>(tick)));
  for (std::size_t first = 0; first < bands.rows.size();) {
    std::size_t end = first + 1;
    while (end < bands.rows.size() &&
           number_at(bands, end, table_column(Table::MemoryTimeline, "band")) ==
               number_at(bands, first, table_column(Table::MemoryTimeline, "band")))
      ++end;
    append_band(svg, bands, first, end, s);
    first = end;
  }
  double px = s.x(peak_state + 0.5), py = s.y(peak);
  svg += fmt::format(
      "<g class=\"peak\"><line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#d62728\" "
      "stroke-dasharray=\"3 2\"/><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#d62728\"/><text "
      "x=\"{:.1f}\" "
      "y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#d62728\">peak {} after action {:.0f}</text></g>",
      px, px, py, kHeight - kBottom, px, py, px, kTop - 8, format_bytes(static_cast<std::uint64_t>(peak)),
      peak_state);
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\">0</text><text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">action "
      "{:.0f}</text></svg>",
      kLeft, kHeight - 8, kWidth - kRight, kHeight - 8, s.states - 1);
  return svg;
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
