// libxlsxwriter, loaded when a workbook is written rather than when perfgate starts: Debian's
// build pulls in libcrypto, which alone kept 1.4 MB resident in every run, with or without
// --xlsx. The functions perfgate calls are looked up once (dlopen/dlsym); the types and constants
// come from libxlsxwriter's headers.
#pragma once

#include <xlsxwriter.h>

namespace perfgate {

// clang-format off
#define PERFGATE_XLSX_FUNCTIONS(X)                                                                   \
  X(workbook_new_opt) X(workbook_set_properties) X(workbook_add_format) X(workbook_add_worksheet)  \
  X(workbook_add_chart) X(workbook_close)                                                          \
  X(format_set_bold) X(format_set_bottom) X(format_set_bg_color) X(format_set_font_color)          \
  X(format_set_num_format) X(format_set_text_wrap) X(format_set_underline)                         \
  X(worksheet_write_string) X(worksheet_write_number) X(worksheet_freeze_panes)                    \
  X(worksheet_autofilter) X(worksheet_set_column) X(worksheet_conditional_format_range)            \
  X(worksheet_insert_chart_opt) X(worksheet_write_url) X(worksheet_write_url_opt)                   \
  X(chart_add_series) X(chart_title_set_name) X(chart_axis_set_name) X(chart_series_set_categories) \
  X(chart_series_set_values) X(chart_series_set_name) X(chart_series_set_fill) X(chart_axis_set_log_base) \
  X(chart_legend_set_position) X(chart_series_set_line) X(chart_series_set_marker_type)            \
  X(chart_set_up_down_bars_format) X(lxw_strerror)
// clang-format on

struct XlsxLibrary {
#define PERFGATE_XLSX_MEMBER(name) decltype(&::name) name = nullptr;
  PERFGATE_XLSX_FUNCTIONS(PERFGATE_XLSX_MEMBER)
#undef PERFGATE_XLSX_MEMBER
};

// Loads the library on first use. Throws OutputError when it cannot be loaded.
const XlsxLibrary& xlsx_library();

}  // namespace perfgate
