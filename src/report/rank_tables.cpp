// The run's tables of every worker: a row per rank, and each worker's ops, kernels, user regions and
// roofline summed by name.
#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "analyse/analysis.h"
#include "analyse/run/worker_hold.h"
#include "report/build_report.h"
#include "report/report_cells.h"
#include "report/roofline_table.h"
#include "report/run_tables.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

struct RankRow {
  const WorkerAnalysis* worker;
  std::int64_t rank;
  const RankCommunicationRow* collectives;  // its row of matched collectives; null where it has none
};
ReportCell optional_us(const std::optional<TimeNs>& t) {
  return t ? ReportCell{static_cast<double>(*t) / 1000.0} : ReportCell{};
}
ReportCell metric_cell(const RankRow& r, Metric metric) {
  return number(r.worker->metrics.get(metric));
}
// Empty where every worker keeps its tables (the column is then left out).
ReportCell detail_cell(const RankRow& r) {
  if (!r.worker->detailed) return ReportCell{std::string("summary")};
  if (r.worker->detailed_as.empty()) return ReportCell{};
  return ReportCell{fmt::format("whole ({})", r.worker->detailed_as)};
}
constexpr auto kRankColumns = declared<Table::Ranks>(std::array<Column<RankRow>, 13>{{
    {"worker", [](const RankRow& r) { return ReportCell{r.worker->worker}; }},
    {"rank", [](const RankRow& r) { return ReportCell{r.rank}; }},
    {"steps", [](const RankRow& r) { return metric_cell(r, Metric::StepsCount); }},
    {"mean_step_us", [](const RankRow& r) { return metric_cell(r, Metric::StepsMeanUs); }},
    {"median_step_us", [](const RankRow& r) { return metric_cell(r, Metric::StepsMedianUs); }},
    {"entered_after_us",
     [](const RankRow& r) { return r.collectives ? optional_us(r.collectives->entered_after) : ReportCell{}; }},
    {"own_work_us",
     [](const RankRow& r) { return r.collectives ? optional_us(r.collectives->own_work) : ReportCell{}; }},
    {"gpu_utilization_pct", [](const RankRow& r) { return metric_cell(r, Metric::GpuUtilizationPct); }},
    {"kernel_pct", [](const RankRow& r) { return metric_cell(r, Metric::BreakdownKernelPct); }},
    {"communication_pct", [](const RankRow& r) { return metric_cell(r, Metric::BreakdownCommunicationPct); }},
    {"dataloader_pct", [](const RankRow& r) { return metric_cell(r, Metric::BreakdownDataloaderPct); }},
    {"overlapped_communication_pct", [](const RankRow& r) {
       std::optional<double> comm = r.worker->metrics.get(Metric::CommunicationPct);
       std::optional<double> overlap = r.worker->metrics.get(Metric::CommunicationOverlapPct);
       return comm && overlap ? ReportCell{*comm * *overlap / 100} : ReportCell{};
     }},
    {"tables", detail_cell},
}});

// The run's sums by name over every worker (RunRow).
ReportCell workers_cell(const RunRow& r) {
  return count(r.workers);
}
ReportCell calls_cell(const RunRow& r) {
  return count(r.calls);
}
ReportCell name_cell(const RunRow& r) {
  return ReportCell{r.name};
}
constexpr auto kRunOpColumns = declared<Table::RunOps>(std::array<Column<RunRow>, 5>{{
    {"name", name_cell},
    {"workers", workers_cell},
    {"calls", calls_cell},
    {"host_self_us", [](const RunRow& r) { return us(r.cpu); }},
    {"device_self_us", [](const RunRow& r) { return us(r.gpu); }},
}});
constexpr auto kRunKernelColumns = declared<Table::RunKernels>(std::array<Column<RunRow>, 4>{{
    {"name", name_cell},
    {"workers", workers_cell},
    {"calls", calls_cell},
    {"total_us", [](const RunRow& r) { return us(r.gpu); }},
}});
constexpr auto kRunRegionColumns = declared<Table::RunRegions>(std::array<Column<RunRow>, 5>{{
    {"name", name_cell},
    {"workers", workers_cell},
    {"calls", calls_cell},
    {"cpu_total_us", [](const RunRow& r) { return us(r.cpu); }},
    {"gpu_us", [](const RunRow& r) { return us(r.gpu); }},
}});

}  // namespace

ReportTable ranks_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks) {
  std::vector<const RankCommunicationRow*> matched(analysis.workers.size(), nullptr);
  for (const RankCommunicationRow& c : analysis.collectives.ranks)
    if (c.worker < matched.size()) matched[c.worker] = &c;
  std::vector<RankRow> rows;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i)
    rows.push_back({&analysis.workers[i], ranks[i], matched[i]});
  // The "tables" column (optional, the last) only where some workers keep a summary: elsewhere it
  // is empty.
  bool trimmed = false;
  for (const WorkerAnalysis& w : looked(analysis.workers)) trimmed = trimmed || !w.detailed;
  std::size_t all = kRankColumns.columns.size();
  std::size_t shown = trimmed || rows.empty() ? all : all - 1;
  // Made 64 rows at a time, with a look between (analyse/run/worker_hold.h): the cells read each
  // rank's held analysis back. The table has no row limit, so its rows are those of one make_table.
  constexpr std::size_t kSlice = 64;
  ReportTable table = make_table(kRankColumns, {}, shown);
  table.rows.reserve(rows.size());
  for (std::size_t first = 0; first < rows.size(); first += kSlice) {
    auto slice = std::span(rows).subspan(first, std::min(kSlice, rows.size() - first));
    for (std::vector<ReportCell>& row : make_table(kRankColumns, slice, shown).rows)
      table.rows.push_back(std::move(row));
    call_worker_look();
  }
  return table;
}

std::vector<ReportTable> run_sum_tables(const RunTables& t) {
  return {make_table(kRunOpColumns, t.ops), make_table(kRunKernelColumns, t.kernels),
          make_table(kRunRegionColumns, t.regions), roofline_table(Table::RunRoofline, t.roofline)};
}

}  // namespace perfgate
