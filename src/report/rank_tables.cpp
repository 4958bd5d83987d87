// The run's tables of every worker: a row per rank, and each worker's ops, kernels, user regions and
// roofline summed by name.
#include <algorithm>

#include <fmt/format.h>

#include "perfgate/analysis.h"
#include "perfgate/build_report.h"
#include "report/report_cells.h"
#include "report/roofline_table.h"
#include "report/run_tables.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

struct RankRow {
  const WorkerAnalysis* worker;
  std::int64_t rank;
};
ReportCell metric_cell(const RankRow& r, Metric metric) {
  return number(r.worker->metrics.get(metric));
}
// Empty where every worker keeps its tables (the column is then left out).
ReportCell detail_cell(const RankRow& r) {
  if (!r.worker->detailed) return ReportCell{std::string("summary")};
  if (r.worker->detailed_as.empty()) return ReportCell{};
  return ReportCell{fmt::format("whole ({})", r.worker->detailed_as)};
}
constexpr std::array<Column<RankRow>, 11> kRankColumns = {{
    {"worker", "", "Worker (trace file)", [](const RankRow& r) { return ReportCell{r.worker->worker}; }},
    {"rank", "count", "Rank (distributedInfo, else worker index)",
     [](const RankRow& r) { return ReportCell{r.rank}; }},
    {"steps", "count", "Window steps", [](const RankRow& r) { return metric_cell(r, Metric::StepsCount); }},
    {"mean_step_us", "us", "Mean step", [](const RankRow& r) { return metric_cell(r, Metric::StepsMeanUs); }},
    {"median_step_us", "us", "Median step",
     [](const RankRow& r) { return metric_cell(r, Metric::StepsMedianUs); }},
    {"gpu_utilization_pct", "%", "GPU utilization",
     [](const RankRow& r) { return metric_cell(r, Metric::GpuUtilizationPct); }},
    {"kernel_pct", "%", "Breakdown: compute kernels",
     [](const RankRow& r) { return metric_cell(r, Metric::BreakdownKernelPct); }},
    {"communication_pct", "%", "Breakdown: communication",
     [](const RankRow& r) { return metric_cell(r, Metric::BreakdownCommunicationPct); }},
    {"dataloader_pct", "%", "Breakdown: data loader",
     [](const RankRow& r) { return metric_cell(r, Metric::BreakdownDataloaderPct); }},
    {"overlapped_communication_pct", "%",
     "Communication kernel time with compute kernels running beside it, as a share of the window "
     "(communication.pct x communication.overlap_pct / 100): hidden, unlike the breakdown's communication",
     [](const RankRow& r) {
       std::optional<double> comm = r.worker->metrics.get(Metric::CommunicationPct);
       std::optional<double> overlap = r.worker->metrics.get(Metric::CommunicationOverlapPct);
       return comm && overlap ? ReportCell{*comm * *overlap / 100} : ReportCell{};
     }},
    {"tables", "",
     "In a run of more workers than --detailed-workers: whole (first, slowest, fastest, 2nd slowest, ...): "
     "every table of the worker is in the report; summary: its metrics, steps, iterations and collectives "
     "only. Its ops, kernels and regions count in the run's tables of all workers either way",
     detail_cell},
}};

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
constexpr const char* kWorkersWithName = "Workers that have the name";
constexpr std::array<Column<RunRow>, 5> kRunOpColumns = {{
    {"name", "", "Op name", name_cell},
    {"workers", "count", kWorkersWithName, workers_cell},
    {"calls", "count", "Calls made during the windows' steps, all workers", calls_cell},
    {"host_self_us", "us", "Host self time, all workers (as the ops table)",
     [](const RunRow& r) { return us(r.cpu); }},
    {"device_self_us", "us", "GPU self time, all workers (as the ops table)",
     [](const RunRow& r) { return us(r.gpu); }},
}};
constexpr std::array<Column<RunRow>, 4> kRunKernelColumns = {{
    {"name", "", "Kernel name as recorded", name_cell},
    {"workers", "count", kWorkersWithName, workers_cell},
    {"calls", "count", "Kernels that started in the windows, all workers", calls_cell},
    {"total_us", "us", "Total duration, all workers", [](const RunRow& r) { return us(r.gpu); }},
}};
constexpr std::array<Column<RunRow>, 5> kRunRegionColumns = {{
    {"name", "", "record_function / user annotation name", name_cell},
    {"workers", "count", kWorkersWithName, workers_cell},
    {"calls", "count", "Ranges opened during the windows' steps, all workers", calls_cell},
    {"cpu_total_us", "us", "Host time of the ranges, all workers", [](const RunRow& r) { return us(r.cpu); }},
    {"gpu_us", "us", "GPU time of the work launched inside the ranges, all workers",
     [](const RunRow& r) { return us(r.gpu); }},
}};

}  // namespace

ReportTable ranks_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks) {
  std::vector<RankRow> rows;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i) rows.push_back({&analysis.workers[i], ranks[i]});
  ReportTable t = make_table("ranks", "Ranks", "Each worker of the run", kRankColumns, rows);
  // The "tables" column only where some workers keep a summary: elsewhere it is empty.
  bool trimmed = std::any_of(analysis.workers.begin(), analysis.workers.end(),
                             [](const WorkerAnalysis& w) { return !w.detailed; });
  if (!trimmed && !rows.empty()) {
    t.columns.pop_back();
    for (auto& row : t.rows) row.pop_back();
  }
  return t;
}

std::vector<ReportTable> run_sum_tables(const RunTables& t) {
  return {
      make_table("run_ops", "Ops, all workers", "Every worker's ops table summed by name", kRunOpColumns,
                 t.ops),
      make_table("run_kernels", "Kernels, all workers", "Every worker's kernels table summed by name",
                 kRunKernelColumns, t.kernels),
      make_table("run_regions", "User regions, all workers", "Every worker's user regions summed by name",
                 kRunRegionColumns, t.regions),
      roofline_table("run_roofline", "Roofline, all workers",
                     "Every worker's roofline table summed by op, input dims and input types", t.roofline)};
}

}  // namespace perfgate
