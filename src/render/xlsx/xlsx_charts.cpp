#include "render/xlsx/xlsx_charts.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "render/xlsx/xlsx_library.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

// The sheet column of the table's column `name`; nullopt where the table lacks it.
std::optional<lxw_col_t> column_of(const SheetTable& t, std::string_view name) {
  for (std::size_t c = 0; c < t.table->columns.size(); ++c)
    if (t.table->columns[c].name == name) return static_cast<lxw_col_t>(c + t.first_column);
  return std::nullopt;
}

// The last sheet row to draw: a table cut at --max-rows ends with its "(N more)" row, no data.
lxw_row_t last_row(const SheetTable& t) {
  std::size_t rows = t.rows;
  if (rows > 0) {
    const std::vector<ReportCell>& last = t.table->rows[rows - 1];
    const auto* name = last.empty() ? nullptr : std::get_if<std::string>(&last.front());
    if (name && is_more_rows_label(*name)) --rows;
  }
  return static_cast<lxw_row_t>(rows);  // rows 1..rows
}

struct Series {
  std::string_view column;
  std::string_view label;
};

// A chart of `kind` over rows 1..last of the sheet: categories from `categories`, a series per
// column of `series` that the table has.
lxw_chart* chart_of(Workbook& wb, const SheetTable& t, uint8_t kind, std::string_view categories,
                    const std::vector<Series>& series) {
  lxw_row_t last = last_row(t);
  std::optional<lxw_col_t> category = column_of(t, categories);
  if (last < 1 || !category) return nullptr;
  const XlsxLibrary& x = xlsx_library();
  lxw_chart* chart = nullptr;
  for (const Series& s : series) {
    std::optional<lxw_col_t> values = column_of(t, s.column);
    if (!values) continue;
    if (!chart) chart = x.workbook_add_chart(wb.raw(), kind);
    lxw_chart_series* added = x.chart_add_series(chart, nullptr, nullptr);
    x.chart_series_set_categories(added, t.ws->name, 1, *category, last, *category);
    x.chart_series_set_values(added, t.ws->name, 1, *values, last, *values);
    std::string label(s.label);
    x.chart_series_set_name(added, label.c_str());
  }
  return chart;
}

void place(const SheetTable& t, lxw_chart* chart, const char* title, const char* x_name, const char* y_name) {
  const XlsxLibrary& x = xlsx_library();
  x.chart_title_set_name(chart, title);
  // A bar chart's x axis is its category axis, drawn upright (libxlsxwriter's convention).
  x.chart_axis_set_name(chart->x_axis, x_name);
  x.chart_axis_set_name(chart->y_axis, y_name);
  lxw_chart_options placement{};
  placement.x_offset = 10;
  placement.x_scale = 1.6;
  placement.y_scale = 1.4;
  auto column = static_cast<lxw_col_t>(t.first_column + t.table->columns.size() + 1);
  x.worksheet_insert_chart_opt(t.ws, 1, column, chart, &placement);
}

}  // namespace

void add_table_chart(Workbook& wb, const SheetTable& t) {
  if (!t.table || !t.ws) return;
  const XlsxLibrary& x = xlsx_library();
  std::string_view name = t.table->name;
  if (name == table_name(Table::Roofline) || name == table_name(Table::RunRoofline)) {
    // A point an op; the ceilings are the table's peak columns. Rows without a model have no
    // intensity and are left out by Excel (blank cells).
    lxw_chart* chart = chart_of(wb, t, LXW_CHART_SCATTER, "flop_per_byte", {{"tflops", "ops"}});
    if (!chart) return;
    x.chart_axis_set_log_base(chart->x_axis, 10);
    x.chart_axis_set_log_base(chart->y_axis, 10);
    x.chart_legend_set_position(chart, LXW_CHART_LEGEND_NONE);
    place(t, chart, "Roofline: achieved TFLOP/s by arithmetic intensity", "flop/byte (log)", "TFLOP/s (log)");
  } else if (name == table_name(Table::StepBreakdown)) {
    lxw_chart* chart = chart_of(wb, t, LXW_CHART_BAR, "category", {{"mean_us", "mean time a step"}});
    if (!chart) return;
    x.chart_legend_set_position(chart, LXW_CHART_LEGEND_NONE);
    place(t, chart, "Step breakdown: mean time a step by part", "part", "µs");
  } else if (name == table_name(Table::CriticalPath)) {
    lxw_chart* chart = chart_of(wb, t, LXW_CHART_COLUMN_STACKED, "step",
                                {{"cpu_bound_us", "host (cpu_bound)"},
                                 {"data_loading_us", "data loading"},
                                 {"launch_overhead_us", "launch overhead"},
                                 {"kernel_gap_us", "kernel gaps"},
                                 {"gpu_compute_us", "GPU compute"},
                                 {"communication_us", "communication"}});
    if (!chart) return;
    place(t, chart, "Critical path of each step by what bounds it", "step", "µs");
  } else if (name == table_name(Table::Ranks)) {
    // Each worker's median step beside its own work (before its first matched collective): the gap
    // is its wait for the other ranks.
    lxw_chart* chart = chart_of(wb, t, LXW_CHART_COLUMN, "worker",
                                {{"median_step_us", "median step"}, {"own_work_us", "own work a step"}});
    if (!chart) return;
    place(t, chart, "Ranks: median step and own work", "worker", "µs");
  } else if (name == table_name(Table::CriticalPathChanges)) {
    // A waterfall from the table's own from_us and to_us: a line chart of the two, drawn as nothing
    // but the up-down bars between them (a bar from where a part starts to where it ends; growth
    // red, savings green), so that no number is computed for the chart.
    lxw_chart* chart = chart_of(wb, t, LXW_CHART_LINE, "part", {{"from_us", "from"}, {"to_us", "to"}});
    if (!chart) return;
    lxw_chart_line none{};
    none.none = LXW_TRUE;
    for (lxw_chart_series* s = STAILQ_FIRST(chart->series_list); s; s = STAILQ_NEXT(s, list_pointers)) {
      x.chart_series_set_line(s, &none);
      x.chart_series_set_marker_type(s, LXW_CHART_MARKER_NONE);
    }
    lxw_chart_fill up{}, down{};
    up.color = 0xD9534F;
    down.color = 0x2E9E5B;
    x.chart_set_up_down_bars_format(chart, nullptr, &up, nullptr, &down);
    x.chart_legend_set_position(chart, LXW_CHART_LEGEND_NONE);
    place(t, chart, "What the step time grew by on the critical path", "part", "µs per step");
  }
}

}  // namespace perfgate
