// The XLSX workbook for reviews: Verdict (the gate's verdict, the rules that failed or warned, links
// to the other sheets), Summary (each metric's id and label), Findings, Iterations (with a
// native chart), then a sheet for every other table of the JSON report that has rows (the roofline,
// step breakdown and critical path with native charts: xlsx_charts.h), the baseline's changes, one
// "No rows" sheet listing the tables without rows and why, and Rules. Every row of every table;
// tables of several workers one after the other, with a worker column.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/io.h"
#include "io/output_target.h"
#include "io/temp_files.h"
#include "render/colors.h"
#include "render/format.h"
#include "render/render.h"
#include "render/see_also.h"
#include "render/xlsx/workbook.h"
#include "render/xlsx/xlsx_charts.h"
#include "render/xlsx/xlsx_library.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

// Beyond this many rows in all, the workbook streams rows to disk (libxlsxwriter's constant_memory).
constexpr std::size_t kConstantMemoryRows = 100'000;
// What libxlsxwriter holds on the C heap for a cell until the workbook is closed, where it does not
// stream: 174 B measured for 100,000 rows of 20 cells, half of them distinct strings (118 B where
// the strings repeat). The memory budget cannot spill it (issue 78).
constexpr std::uint64_t kHeapPerCell = 176;
// The share of the budget the cells may take before they are streamed: the run's report and
// the other outputs, written at the same time, hold the rest.
constexpr std::uint64_t kBudgetShare = 8;
// 2020-01-01 00:00:00 UTC: the creation time of every workbook written without --timestamp.
constexpr time_t kFixedCreationTime = 1577836800;
// The sheet that lists the tables without rows, each with why.
constexpr std::string_view kNoRowsSheet = "No rows";

struct TableSizes {
  std::size_t rows = 0;
  std::uint64_t cells = 0;
};

TableSizes table_sizes(const ReportModel& r) {
  TableSizes all;
  auto add = [&all](const ReportTable& t) {
    all.rows += t.rows.size();
    all.cells += std::uint64_t{t.rows.size()} * t.columns.size();
  };
  for (const auto& t : r.tables) add(t);
  for (const auto& w : r.workers)
    for (const auto& t : w.tables) add(t);
  return all;
}

// Whether the workbook streams its rows to disk (constant_memory): past kConstantMemoryRows rows,
// or where its cells would take more than a share of the memory budget on the heap.
bool streams_rows(const ReportModel& r, std::uint64_t memory_budget) {
  TableSizes all = table_sizes(r);
  if (all.rows > kConstantMemoryRows) return true;
  return memory_budget > 0 && all.cells * kHeapPerCell > memory_budget / kBudgetShare;
}

// A table's sheet: its title, shorter where the title is long (sheet names have 31 characters).
std::string sheet_name(const ReportModel& r, std::string_view table) {
  static const std::map<std::string_view, std::string_view> kShort = {
      {table_name(Table::System), "System"},
      {table_name(Table::TopGpuOps), "Top GPU ops"},
      {table_name(Table::Regions), "Regions"},
      {table_name(Table::TcShapes), "TC shapes"},
      {table_name(Table::Changes), "Baseline changes"},
      {table_name(Table::StepTimeDeltas), "Baseline step time"},
      {table_name(Table::CriticalPathChanges), "Baseline path waterfall"},
      {table_name(Table::OpDeltas), "Baseline diff"},
      {table_name(Table::RegionDeltas), "Baseline regions"},
      {table_name(Table::KernelDeltas), "Baseline kernels"},
      {table_name(Table::KernelsByIteration), "Kernels by step"},
      {table_name(Table::MemoryPeakCategories), "Memory peak by category"},
      {table_name(Table::CriticalPathTimeline), "Critical path timeline"}};
  if (auto it = kShort.find(table); it != kShort.end()) return words(it->second);
  return table_title(r, table);
}

// Why a table has no rows, for the note under its header in an empty sheet.
std::string empty_note(std::string_view table) {
  static const std::map<std::string_view, std::string_view> kWhy = {
      {table_name(Table::Iterations),
       "the profile has no steps (ProfilerStep#N ranges, or matches of --step-pattern or --key-op)"},
      {table_name(Table::Regions),
       "the trace has no record_function or user annotation range in the window other than the step "
       "markers"},
      {table_name(Table::TcShapes),
       "no Tensor-Core-eligible op with recorded input shapes ran in FP16 or BF16 without Tensor Cores "
       "(shapes are recorded with record_shapes=True)"},
      {table_name(Table::Roofline),
       "no op with a performance model (rules: op_models) or GPU work of its own was called during the "
       "window's steps"},
      {table_name(Table::Collectives),
       "no communication op (an NCCL, RCCL or gloo collective) was called during the window's steps"},
      {table_name(Table::GpuGaps), "no GPU was idle for 500 us or more in the window"},
      {table_name(Table::MemoryOps), "the trace has no GPU memory events (profile_memory=True records them)"},
      {table_name(Table::MemoryCurve),
       "the trace has no GPU memory events (profile_memory=True records them)"},
      {table_name(Table::MemorySnapshot), "the input is not a PyTorch memory snapshot"},
      {table_name(Table::MemoryLiveAtPeak), "the input is not a PyTorch memory snapshot"},
      {table_name(Table::MemoryPeakCategories), "the input is not a PyTorch memory snapshot"},
      {table_name(Table::MemoryTimeline), "the input is not a PyTorch memory snapshot"},
      {table_name(Table::MemoryOoms),
       "the input is not a PyTorch memory snapshot, or its trace records no out-of-memory error"},
      {table_name(Table::TopGpuOps), "no op launched GPU work in the window"},
      {table_name(Table::Kernels), "no kernel ran in the window"},
      {table_name(Table::KernelsByOp), "no kernel ran in the window"},
      {table_name(Table::KernelsByIteration), "no kernel ran in a window step"},
      {table_name(Table::KernelsByOpTop), "no kernel ran in the window"},
      {table_name(Table::Ops), "no op was called during the window's steps"},
      {table_name(Table::OpsByShape), "no op was called during the window's steps"},
      {table_name(Table::OpTypes), "no op was called during the window's steps"},
      {table_name(Table::Gpus), "no GPU activity in the window"}};
  auto it = kWhy.find(table);
  return fmt::format("No rows: {}.", words(it != kWhy.end() ? it->second : "the profile has none"));
}

// The workers' tables that no worker has a row of: listed on one "No rows" sheet with why, rather
// than a sheet each that holds only its header.
std::set<std::string> empty_tables(const ReportModel& r) {
  std::set<std::string> empty;
  if (r.workers.empty()) return empty;
  for (const ReportTable& t : r.workers.front().tables) {
    bool rows = false;
    for (const ReportWorker& w : r.workers)
      if (const ReportTable* mine = find_table(w.tables, t.name); mine && !mine->rows.empty()) rows = true;
    if (!rows) empty.insert(t.name);
  }
  return empty;
}

// Where a finding's `see` finds a table: its sheet, or the "No rows" sheet that says why it has none.
std::string sheet_of(const ReportModel& r, const std::set<std::string>& empty, std::string_view table) {
  return empty.count(std::string(table)) ? fmt::format("{} ({})", kNoRowsSheet, sheet_name(r, table))
                                         : sheet_name(r, table);
}

void no_rows_sheet(Workbook& wb, const ReportModel& r, const std::set<std::string>& empty) {
  if (empty.empty()) return;
  lxw_worksheet* ws = wb.sheet(std::string(kNoRowsSheet));
  wb.header(ws, 0, {"table", "why it has no rows"});
  std::size_t row = 1;
  // In the order of the report's tables, as their sheets would have been.
  for (const ReportTable& t : r.workers.front().tables) {
    if (!empty.count(t.name)) continue;
    wb.text(ws, row, 0, sheet_name(r, t.name));
    wb.text(ws, row++, 1, empty_note(t.name));
  }
  wb.fit_columns(ws);
}

// One table of every worker as one sheet (a worker column when there are several), with its chart
// where it has one (the first worker's rows).
void worker_sheet(Workbook& wb, const ReportModel& r, std::string_view table) {
  std::vector<Workbook::Part> parts;  // each worker's rows written where they are, not copied
  for (const ReportWorker& w : r.workers)
    if (const ReportTable* t = find_table(w.tables, table)) parts.push_back({t, w.name});
  if (parts.empty()) return;
  bool several = r.workers.size() > 1;
  lxw_worksheet* ws = wb.sheet(sheet_name(r, table));
  wb.write_parts(ws, parts, several ? "worker" : "");
  wb.fit_columns(ws);
  const ReportTable& first = *parts.front().table;
  add_table_chart(wb, {&first, ws, first.rows.size(), several ? 1u : 0u});
}

// A finding's value, baseline and gain are one number each to read: rounded as their unit shows them.
std::optional<double> rounded(std::optional<double> v, std::string_view unit) {
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return rounded_for_unit(*v, unit);
}

// The first sheet a reviewer sees (issue 93): the verdict and its exit code, the rules that failed,
// were inconclusive or warned (with the change and its confidence where the gate tested the steps),
// the capture and inputs, and where the rest is; `kSheetsRow` is where verdict_sheet_links
// lists the other sheets once they are written.
struct VerdictSheet {
  lxw_worksheet* ws = nullptr;
  std::size_t next_row = 0;
};

VerdictSheet verdict_sheet(Workbook& wb, const ReportModel& r) {
  lxw_worksheet* ws = wb.sheet("Verdict");
  std::size_t row = 0;
  auto field = [&](std::string_view name, std::string_view value) {
    wb.text(ws, row, 0, name, wb.bold());
    wb.text(ws, row++, 1, value);
  };
  std::string status = r.verdict ? r.verdict->status : "pass";
  wb.text(ws, row, 0, "Verdict", wb.bold());
  wb.status_text(ws, row++, 1, verdict_word(status), status == "warn" ? "warn" : status);
  if (r.verdict) {
    const ReportVerdict& v = *r.verdict;
    wb.text(ws, row, 0, "Exit code", wb.bold());
    wb.number(ws, row++, 1, v.exit_code, "count");
    field("Fails on", v.fail_on);
    field("Rules",
          fmt::format("{} failed · {} warnings · {} inconclusive · {} passed · {} n/a · {} skipped",
                      v.failures, v.warnings, v.inconclusive, v.passed, v.not_applicable, v.skipped));
  }
  if (!r.capture_line.empty()) field("Capture", r.capture_line);
  field(r.inputs.size() == 1 ? "Input" : "Inputs", inputs_text(r, 8));
  if (r.baseline) field("Baseline", r.baseline->path);
  // Linked before the list of sheets at the end, so that the link's format takes the same place in
  // a streamed workbook as in one written at the end (the same cells, the same styles).
  wb.text(ws, row, 0, "Details", wb.bold());
  wb.sheet_link(ws, row++, 1, "Findings", "Findings: every rule with its evidence and remedy");
  ++row;
  std::vector<const ReportFinding*> fired;
  for (const ReportFinding& f : r.findings)
    if (f.status == FindingStatus::Fail || f.status == FindingStatus::Inconclusive ||
        f.status == FindingStatus::Warn)
      fired.push_back(&f);
  std::stable_sort(fired.begin(), fired.end(), [](const ReportFinding* a, const ReportFinding* b) {
    return finding_rank(a->status) < finding_rank(b->status);
  });
  if (fired.empty()) {
    wb.text(ws, row++, 0, "No rule failed or warned.");
  } else {
    wb.header(ws, row++,
              {"Status", "Rule", "Title", "Value", "Baseline", "Limit",
               "Step time ratio (this run / baseline)", "Confidence", "Estimated gain (%)"});
    std::size_t first = row;
    for (const ReportFinding* f : fired) {
      std::size_t col = 0;
      wb.text(ws, row, col++, finding_status_name(f->status));
      wb.sheet_link(ws, row, col++, "Findings", f->id);
      wb.text(ws, row, col++, f->title);
      wb.number(ws, row, col++, rounded(f->value, f->unit), f->unit);
      wb.number(ws, row, col++, rounded(f->baseline, f->unit), f->unit);
      wb.text(ws, row, col++, f->threshold_text);
      if (f->step_test) {
        wb.number(ws, row, col++, f->step_test->ratio, "ratio");
        wb.number(ws, row, col++, f->step_test->confidence * 100, "%");
      } else {
        col += 2;
      }
      wb.number(ws, row, col++, rounded(f->gain_pct, "%"), "%");
      ++row;
    }
    wb.status_colors(ws, first, row - 1, 0);
  }
  return {ws, row + 1};
}

// The other sheets, each a link, below the verdict (written last: the sheets exist by then).
void verdict_sheet_links(Workbook& wb, VerdictSheet& v, const std::vector<std::string>& sheets) {
  wb.text(v.ws, v.next_row++, 0, "Sheets", wb.bold());
  for (const std::string& name : sheets)
    if (name != "Verdict") wb.sheet_link(v.ws, v.next_row++, 0, name, name);
  wb.fit_columns(v.ws);
}

void summary_sheet(Workbook& wb, const ReportModel& r) {
  lxw_worksheet* ws = wb.sheet("Summary");
  std::map<std::string, std::string> status;  // a metric's worst finding
  for (const ReportFinding& f : r.findings) {
    std::string s = finding_status_name(f.status);
    auto& current = status[f.metric];
    if (current.empty() || s == "fail" || (s == "warn" && current != "fail")) current = s;
  }
  const ReportMetricChange* changes = r.baseline ? r.baseline->metrics.data() : nullptr;
  std::vector<std::string> names = {"metric", "label", "unit", "value"};
  if (changes) names.insert(names.end(), {"baseline", "delta", "ratio"});
  names.push_back("status");
  wb.header(ws, 0, names);
  std::size_t row = 1;
  for (std::size_t i = 0; i < r.metrics.size(); ++i, ++row) {
    const MetricInfo& m = metric_catalog()[i];
    wb.text(ws, row, 0, m.name);
    wb.text(ws, row, 1, m.label);
    wb.text(ws, row, 2, m.unit);
    wb.number(ws, row, 3, r.metrics.at(i), m.unit);
    std::size_t col = 4;
    if (changes && i < r.baseline->metrics.size()) {
      wb.number(ws, row, 4, changes[i].baseline, m.unit);
      wb.number(ws, row, 5, changes[i].delta, m.unit == "%" ? "%" : m.unit);
      wb.number(ws, row, 6, changes[i].ratio, "ratio");
      col = 7;
    }
    if (auto it = status.find(std::string(m.name)); it != status.end()) wb.text(ws, row, col, it->second);
  }
  xlsx_library().worksheet_freeze_panes(ws, 1, 0);
  xlsx_library().worksheet_autofilter(ws, 0, 0, static_cast<lxw_row_t>(row - 1),
                                      static_cast<lxw_col_t>(names.size() - 1));
  wb.status_colors(ws, 1, row - 1, names.size() - 1);
  wb.fit_columns(ws);
}

// The capture profile, a row a field (the one line first), each with what decided it.
void capture_sheet(Workbook& wb, const ReportModel& r) {
  if (r.capture_line.empty()) return;
  const CaptureProfile& c = r.capture;
  lxw_worksheet* ws = wb.sheet("Capture");
  wb.header(ws, 0, {"field", "value", "evidence"});
  std::size_t row = 1;
  auto add = [&](std::string_view field, std::string_view value, std::string_view evidence) {
    wb.text(ws, row, 0, field);
    wb.text(ws, row, 1, value);
    wb.text(ws, row, 2, evidence);
    ++row;
  };
  add("capture", r.capture_line, "");
  for (const CaptureDevices& d : c.devices)
    add("devices",
        fmt::format("{} {} {} ×{}", device_kind_name(d.kind), device_vendor_name(d.vendor), d.model, d.count),
        d.evidence);
  for (const CaptureFramework& f : c.frameworks) add("framework", f.name, f.evidence);
  add("workload", capture_workload_name(c.workload), c.workload_evidence);
  auto phase = [&](std::string_view field, const std::optional<double>& us) {
    wb.text(ws, row, 0, field);
    wb.number(ws, row, 1, us, "us");
    wb.text(ws, row, 2, c.phases.evidence);
    ++row;
  };
  phase("window_us", c.phases.window_us);
  phase("setup_us", c.phases.setup_us);
  phase("teardown_us", c.phases.teardown_us);
  phase("profiler_us", c.phases.profiler_us);
  phase("steady_us", c.phases.steady_us);
  for (const std::string& field : c.overridden) add("overridden", field, "rule file capture: or --workload");
  wb.fit_columns(ws);
}

// What makes the run's inputs other than one whole capture, right after the summary it qualifies.
void warnings_sheet(Workbook& wb, const ReportModel& r) {
  if (r.run_warnings.empty()) return;
  lxw_worksheet* ws = wb.sheet("Warnings");
  wb.header(ws, 0, {"warning"});
  for (std::size_t i = 0; i < r.run_warnings.size(); ++i)
    wb.text(ws, i + 1, 0, note_words(r.run_warnings[i]));
  wb.fit_columns(ws);
}

// The report's own checks that withheld a number: a line each, after the findings.
void data_quality_sheet(Workbook& wb, const ReportModel& r) {
  std::vector<std::string> lines = data_quality_lines(r);
  if (lines.empty()) return;
  lxw_worksheet* ws = wb.sheet("Data quality");
  wb.header(ws, 0, {"check"});
  for (std::size_t i = 0; i < lines.size(); ++i) wb.text(ws, i + 1, 0, lines[i]);
  wb.fit_columns(ws);
}

void findings_sheet(Workbook& wb, const ReportModel& r, const std::set<std::string>& empty) {
  lxw_worksheet* ws = wb.sheet("Findings");
  wb.header(ws, 0,
            {"id", "title", "headline", "status", "severity", "value", "unit", "limit", "baseline", "problem",
             "recommendation", "see", "reason", fmt::format("estimated gain (of {})", gain_share_of(r)),
             "offenders", "source", "docs"});
  // Fired findings first (failures, inconclusive, warnings), then the rest in rule order.
  std::vector<const ReportFinding*> ordered;
  for (const ReportFinding& f : r.findings) ordered.push_back(&f);
  std::stable_sort(ordered.begin(), ordered.end(), [](const ReportFinding* a, const ReportFinding* b) {
    return finding_rank(a->status) < finding_rank(b->status);
  });
  std::size_t row = 1;
  for (const ReportFinding* finding : ordered) {
    const ReportFinding& f = *finding;
    std::string offenders;
    for (const auto& o : f.offenders)
      offenders +=
          (offenders.empty() ? "" : "; ") + o.label + (o.value_text.empty() ? "" : " (" + o.value_text + ")");
    std::size_t col = 0;
    for (const std::string* s : {&f.id, &f.title, &f.headline}) wb.text(ws, row, col++, *s);
    wb.text(ws, row, col++, finding_status_name(f.status));
    wb.text(ws, row, col++, f.severity);
    wb.number(ws, row, col++, rounded(f.value, f.unit), f.unit);
    wb.text(ws, row, col++, f.unit);
    wb.text(ws, row, col++, f.threshold_text);
    wb.number(ws, row, col++, rounded(f.baseline, f.unit), f.unit);
    std::string see;
    for (const SeeAlso& s : see_also(r, f)) see += (see.empty() ? "" : ", ") + sheet_of(r, empty, s.table);
    for (const std::string* s :
         {&f.problem, &f.recommendation, static_cast<const std::string*>(&see), &f.reason})
      wb.text(ws, row, col++, *s);
    wb.number(ws, row, col++, rounded(f.gain_pct, "%"), "%");
    for (const std::string* s : {static_cast<const std::string*>(&offenders), &f.source})
      wb.text(ws, row, col++, *s);
    if (!f.docs.empty()) wb.link(ws, row, col, f.docs);
    ++row;
  }
  xlsx_library().worksheet_freeze_panes(ws, 1, 0);
  xlsx_library().worksheet_autofilter(ws, 0, 0, static_cast<lxw_row_t>(std::max<std::size_t>(row - 1, 1)),
                                      16);
  wb.status_colors(ws, 1, row - 1, 3);
  wb.fit_columns(ws);
}

// The index of the column `name`, or the number of columns.
std::size_t column_index(const ReportTable& t, std::string_view name) {
  std::size_t c = 0;
  while (c < t.columns.size() && t.columns[c].name != name) ++c;
  return c;
}

// The first worker's iterations, and a stacked column chart of their breakdown.
void iterations_sheet(Workbook& wb, const ReportModel& r) {
  const ReportTable* t =
      r.workers.empty() ? nullptr : find_table(r.workers.front().tables, Table::Iterations);
  if (!t || t->rows.empty()) return;  // on the "No rows" sheet
  lxw_worksheet* ws = wb.sheet("Iterations");
  std::size_t end = wb.write_table(ws, *t);
  wb.fit_columns(ws);
  lxw_chart* chart = xlsx_library().workbook_add_chart(wb.raw(), LXW_CHART_COLUMN_STACKED);
  xlsx_library().chart_title_set_name(chart, "Step time breakdown");
  xlsx_library().chart_axis_set_name(chart->y_axis, "µs");
  std::size_t name_col = 0;
  for (std::size_t c = 0; c < t->columns.size(); ++c)
    if (t->columns[c].name == table_column(Table::Iterations, "name")) name_col = c;
  // A series per part of the step breakdown: its column "kernel_us", under the label of its share
  // breakdown.kernel_pct.
  for (Metric share : kBreakdownShares) {
    std::string_view name = metric_name(share);
    std::string_view part = name.substr(name.find('.') + 1);  // "kernel_pct"
    part.remove_suffix(std::string_view("_pct").size());
    std::size_t c = column_index(*t, std::string(part) + "_us");
    if (c == t->columns.size()) continue;
    // A run of more steps than --max-rows ends the table with its "(N more)" row: no step of the chart.
    const auto* last_name = std::get_if<std::string>(&t->rows.back()[name_col]);
    bool more = last_name && is_more_rows_label(*last_name) && t->rows.size() > 1;
    auto last = static_cast<lxw_row_t>(end - (more ? 2 : 1));
    lxw_chart_series* s = xlsx_library().chart_add_series(chart, nullptr, nullptr);
    xlsx_library().chart_series_set_categories(s, "Iterations", 1, static_cast<lxw_col_t>(name_col), last,
                                               static_cast<lxw_col_t>(name_col));
    xlsx_library().chart_series_set_values(s, "Iterations", 1, static_cast<lxw_col_t>(c), last,
                                           static_cast<lxw_col_t>(c));
    std::string label = metric_label(share);
    xlsx_library().chart_series_set_name(s, label.c_str());
    // The part's colour in the HTML page.
    if (std::optional<unsigned> color = breakdown_color(part)) {
      lxw_chart_fill fill{};
      fill.color = *color;
      xlsx_library().chart_series_set_fill(s, &fill);
    }
  }
  lxw_chart_options placement{};
  placement.x_offset = 10;
  placement.x_scale = 1.6;
  placement.y_scale = 1.3;
  xlsx_library().worksheet_insert_chart_opt(ws, static_cast<lxw_row_t>(end + 2), 0, chart, &placement);
}

// How comparable the baseline is and the work of each window, before the changes.
void comparability_sheet(Workbook& wb, const ReportModel& r) {
  lxw_worksheet* ws = wb.sheet("Baseline comparability");
  wb.header(ws, 0, {"factor", "holds", "overlap_pct", "text"});
  std::size_t row = 1;
  for (const ReportComparability& c : r.baseline->comparability) {
    wb.text(ws, row, 0, c.factor);
    wb.text(ws, row, 1, c.holds ? "yes" : "no");
    wb.number(ws, row, 2, c.overlap_pct, "%");
    wb.text(ws, row++, 3, c.text);
  }
  wb.text(ws, row, 0, "work");
  wb.text(ws, row, 1, r.baseline->different_work ? "no" : "yes");
  wb.text(ws, row, 3,
          window_work_text(r) + (r.baseline->different_work ? ". " + different_work_text(r) : ""));
  wb.fit_columns(ws);
}

void baseline_sheets(Workbook& wb, const ReportModel& r) {
  if (!r.baseline) return;
  comparability_sheet(wb, r);
  for (Table table : {Table::Changes, Table::CriticalPathChanges, Table::StepTimeDeltas, Table::OpDeltas,
                      Table::RegionDeltas, Table::KernelDeltas})
    if (const ReportTable* t = find_table(r.tables, table)) {
      lxw_worksheet* ws = wb.sheet(sheet_name(r, t->name));
      wb.write_table(ws, *t);
      wb.fit_columns(ws);
      add_table_chart(wb, {t, ws, t->rows.size(), 0});
    }
}

void rules_sheet(Workbook& wb, const ReportModel& r) {
  lxw_worksheet* ws = wb.sheet("Rules");
  wb.header(ws, 0, {"id", "title", "enabled", "reads", "fires", "applies if", "source"});
  std::size_t row = 1;
  for (const ReportRule& rule : r.rules) {
    std::size_t col = 0;
    wb.text(ws, row, col++, rule.id);
    wb.text(ws, row, col++, rule.title);
    wb.text(ws, row, col++, rule.enabled ? "yes" : "no");
    for (const std::string* s : {&rule.reads, &rule.fires, &rule.applies_if, &rule.source})
      wb.text(ws, row, col++, *s);
    ++row;
  }
  xlsx_library().worksheet_freeze_panes(ws, 1, 0);
  xlsx_library().worksheet_autofilter(ws, 0, 0, static_cast<lxw_row_t>(std::max<std::size_t>(row - 1, 1)), 6);
  wb.fit_columns(ws);
}

}  // namespace

void write_xlsx(const ReportModel& r, const std::string& path, const XlsxOptions& options) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  // libxlsxwriter opens the file by name when the workbook closes, so its name is made in a private
  // folder (mkdtemp, mode 0700) beside the target, where no one can plant a symlink; its own
  // temporary files (constant_memory) go there too. Then the file is renamed over the target, or,
  // for a target written in place (a device, a FIFO, /dev/stdout), made in the temporary folder
  // and copied into it.
  OutputTarget target = resolve_output_target(path);
  if (!target.refusal.empty()) throw OutputError(fmt::format("{}: cannot write: {}", path, target.refusal));
  PrivateTempFolder folder(
      target.in_place ? (std::filesystem::temp_directory_path() / "perfgate.xlsx").string() : target.path);
  std::string temporary = folder.file("workbook.xlsx");
  try {
    Workbook wb(temporary, folder.path(), streams_rows(r, options.memory_budget),
                options.created ? *options.created : kFixedCreationTime);
    std::set<std::string> empty = empty_tables(r);
    VerdictSheet verdict = verdict_sheet(wb, r);
    summary_sheet(wb, r);
    warnings_sheet(wb, r);
    findings_sheet(wb, r, empty);
    data_quality_sheet(wb, r);
    capture_sheet(wb, r);  // after the verdict and its findings, which the tests and users find by place
    iterations_sheet(wb, r);
    // Every other table of the JSON report, in its order; the run's ranks after the workers'.
    if (!r.workers.empty())
      for (const ReportTable& t : r.workers.front().tables)
        if (t.name != table_name(Table::Iterations) && !empty.count(t.name)) worker_sheet(wb, r, t.name);
    for (std::string_view run_table : kRunTables)
      if (const ReportTable* t = find_table(r.tables, run_table); t && !t->rows.empty()) {
        lxw_worksheet* ws = wb.sheet(sheet_name(r, run_table));
        wb.write_table(ws, *t);
        wb.fit_columns(ws);
        add_table_chart(wb, {t, ws, t->rows.size(), 0});
      }
    baseline_sheets(wb, r);
    no_rows_sheet(wb, r, empty);
    rules_sheet(wb, r);
    verdict_sheet_links(wb, verdict, wb.sheet_names());
    wb.close();
  } catch (const OutputError& e) {
    throw OutputError(fmt::format("{}: {}", path, e.what()));
  }
  if (target.in_place) {
    std::ifstream made(temporary, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(made)), std::istreambuf_iterator<char>());
    if (!made) throw OutputError(fmt::format("{}: cannot write: the workbook could not be read back", path));
    write_file_atomically(path, bytes);
    return;
  }
  if (::chmod(temporary.c_str(), static_cast<mode_t>(output_mode(target.path))) != 0)
    throw OutputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  finish_output_from(temporary, target.path, path);  // renamed now, or with the run's other outputs
}

}  // namespace perfgate
