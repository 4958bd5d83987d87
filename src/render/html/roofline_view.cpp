#include "render/html/roofline_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "render/cell_format.h"
#include "render/escape.h"
#include "render/html/charts.h"

namespace perfgate {
namespace {

// A cell's number, empty when the cell is.
std::optional<double> value_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* c = find_cell(t, row, column);
  return c ? cell_number(*c) : std::nullopt;
}

struct Chart {
  std::vector<RooflinePoint> points;
  std::vector<RooflineCeiling> ceilings;
  double memory_tb_per_s = 0;
};

Chart chart_of(const ReportTable& t) {
  Chart chart;
  std::map<std::string, double> ceilings;
  double total_us = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (value_at(t, i, table_column(Table::Roofline, "roofline_us")))
      total_us += value_at(t, i, table_column(Table::Roofline, "kernel_us")).value_or(0);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    auto intensity = value_at(t, i, table_column(Table::Roofline, "flop_per_byte")),
         tflops = value_at(t, i, table_column(Table::Roofline, "tflops"));
    auto peak = value_at(t, i, table_column(Table::Roofline, "peak_tflops")),
         memory = value_at(t, i, table_column(Table::Roofline, "memory_tb_per_s"));
    // An elementwise op measured against the memory ceiling alone has no compute peak of its own.
    if (!intensity || !tflops || !memory || *intensity <= 0 || *tflops <= 0) continue;
    chart.memory_tb_per_s = *memory;
    // Matrix ops' ceilings are their precision's peak; the others' the vector rate, whatever their type.
    std::string model = text_at(t, i, table_column(Table::Roofline, "model"));
    bool matrix = model == "gemm" || model == "conv" || model == "attention" || model == "counted" ||
                  model == "moe" || model == "serving_attention";
    if (peak)
      ceilings.emplace(
          matrix ? text_at(t, i, table_column(Table::Roofline, "precision")) : std::string("vector"), *peak);
    double kernel = value_at(t, i, table_column(Table::Roofline, "kernel_us")).value_or(0);
    chart.points.push_back(
        {*intensity, *tflops, total_us > 0 ? kernel / total_us : 0,
         text_at(t, i, table_column(Table::Roofline, "bound")) == "memory",
         fmt::format("{} {}: {:.3g} FLOP/byte, {:.3g} TFLOP/s, {} us, {:.0f}% of roofline ({}-bound)",
                     text_at(t, i, table_column(Table::Roofline, "name")),
                     text_at(t, i, table_column(Table::Roofline, "input_dims")), *intensity, *tflops,
                     cell_text(ReportCell{kernel}, "us"),
                     value_at(t, i, table_column(Table::Roofline, "roofline_pct")).value_or(0),
                     text_at(t, i, table_column(Table::Roofline, "bound")))});
  }
  for (const auto& [label, tflops] : ceilings) chart.ceilings.push_back({label, tflops});
  return chart;
}

}  // namespace

std::string roofline_figure(const ReportWorker& w) {
  const ReportTable* t = find_table(w.tables, Table::Roofline);
  if (!t || t->rows.empty()) return "";
  Chart chart = chart_of(*t);
  std::string caption = fmt::format("<figcaption>{}</figcaption>", html_escape(w.roofline_note));
  if (chart.points.empty() || chart.memory_tb_per_s <= 0)
    return w.roofline_note.empty() ? "" : "<figure class=\"roofline\">" + caption + "</figure>";
  std::string title =
      fmt::format("Roofline of {} ops: achieved TFLOP/s against arithmetic intensity", chart.points.size());
  return "<figure class=\"roofline\"><div class=\"chart\">" +
         roofline_svg(chart.points, chart.ceilings, chart.memory_tb_per_s, title) + "</div>" + caption +
         "<p class=\"note\">Points: the roofline table's ops, sized by kernel time; blue memory-bound, red "
         "compute-bound. Blue line: the memory bandwidth; dashed: the compute peak at each "
         "precision.</p></figure>";
}

}  // namespace perfgate
