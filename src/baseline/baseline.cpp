// A baseline from a report model, and the op and kernel sums both kinds of baseline share.
#include <algorithm>
#include <map>

#include "baseline/baseline.h"
#include "baseline/row_sums.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

std::optional<double> number(const ReportCell* cell) {
  return cell ? cell_number(*cell) : std::nullopt;
}

// The columns a table's rows are summed by: a worker's table's, which the run's sums of it share.
struct SummedColumns {
  std::string_view name, gpu, cpu, calls;  // cpu: "" for none
};
consteval SummedColumns summed_columns(Table table, Table run, std::string_view gpu, std::string_view cpu) {
  return {shared_column(table, run, "name"), shared_column(table, run, gpu),
          cpu.empty() ? cpu : shared_column(table, run, cpu), shared_column(table, run, "calls")};
}

// Sums rows by name over the tables: gpu and cpu columns (cpu may be empty) and calls.
std::vector<BaselineRow> sum_rows(const std::vector<const ReportTable*>& tables, SummedColumns columns) {
  std::map<std::string, BaselineRow> by_name;
  for (const ReportTable* t : tables) {
    for (std::size_t r = 0; r < t->rows.size(); ++r) {
      const auto* name = find_cell(*t, r, columns.name);
      const auto* text = name ? std::get_if<std::string>(name) : nullptr;
      if (!text || is_more_rows_label(*text)) continue;  // a capped table's "(N more)" row
      BaselineRow& row = by_name[*text];
      row.name = *text;
      row.gpu_us += number(find_cell(*t, r, columns.gpu)).value_or(0);
      if (!columns.cpu.empty()) row.cpu_us += number(find_cell(*t, r, columns.cpu)).value_or(0);
      row.calls += number(find_cell(*t, r, columns.calls)).value_or(0);
    }
  }
  std::vector<BaselineRow> rows;
  for (auto& [name, row] : by_name) rows.push_back(std::move(row));
  return rows;
}

// The run's sums of a table over every worker (`run`: run_ops) where the report has them (a run of
// several workers, only some of which keep their tables), else each worker's table.
std::vector<const ReportTable*> tables_of(const ReportModel& report, Table table, std::optional<Table> run) {
  if (const ReportTable* sums = run ? find_table(report.tables, *run) : nullptr) return {sums};
  std::vector<const ReportTable*> tables;
  for (const ReportWorker& w : report.workers)
    if (const ReportTable* t = find_table(w.tables, table)) tables.push_back(t);
  return tables;
}

// A memory snapshot's live-at-peak bytes by site, summed over devices and workers, by site.
std::vector<BaselineSite> site_rows(const std::vector<const ReportTable*>& tables) {
  std::map<std::string, double> by_site;
  for (const ReportTable* t : tables)
    for (std::size_t r = 0; r < t->rows.size(); ++r) {
      const auto* site = find_cell(*t, r, table_column(Table::MemoryLiveAtPeak, "site"));
      const auto* text = site ? std::get_if<std::string>(site) : nullptr;
      if (text && !is_more_rows_label(*text))
        by_site[*text] +=
            number(find_cell(*t, r, table_column(Table::MemoryLiveAtPeak, "bytes"))).value_or(0);
    }
  std::vector<BaselineSite> out;
  for (const auto& [site, bytes] : by_site) out.push_back({site, bytes});
  return out;
}

}  // namespace

std::vector<std::string> sorted_distinct(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::pair<std::string, int>> name_counts(const std::vector<std::string>& names) {
  std::map<std::string, int> counts;
  for (const std::string& n : names) ++counts[n];
  return {counts.begin(), counts.end()};
}

std::vector<std::string> gpu_names(const ReportModel& report) {
  std::vector<std::string> names;
  for (const ReportGpu& g : report.gpus) names.push_back(g.name);
  return sorted_distinct(std::move(names));
}

std::vector<BaselineRow> op_rows(const std::vector<const ReportTable*>& op_tables) {
  return sum_rows(op_tables, summed_columns(Table::Ops, Table::RunOps, "device_self_us", "host_self_us"));
}

std::vector<BaselineRow> region_rows(const std::vector<const ReportTable*>& region_tables) {
  return sum_rows(region_tables, summed_columns(Table::Regions, Table::RunRegions, "gpu_us", "cpu_total_us"));
}

std::vector<BaselineRow> kernel_rows(const std::vector<const ReportTable*>& kernel_tables) {
  return sum_rows(kernel_tables, summed_columns(Table::Kernels, Table::RunKernels, "total_us", ""));
}

std::vector<ReportMetricChange> metric_changes(const ReportModel& current, const Baseline& baseline) {
  std::vector<ReportMetricChange> changes;
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    auto id = static_cast<Metric>(i);
    ReportMetricChange c{id, current.metric(id), baseline.metric(id), std::nullopt, std::nullopt};
    if (c.value && c.baseline) {
      c.delta = *c.value - *c.baseline;
      if (*c.baseline != 0) c.ratio = *c.value / *c.baseline;
    }
    changes.push_back(std::move(c));
  }
  return changes;
}

Baseline baseline_from_report(const ReportModel& report, std::string path, std::string kind) {
  Baseline b;
  b.info.path = std::move(path);
  b.info.kind = std::move(kind);
  b.info.tool_version = report.tool_version;
  b.info.inputs = report.inputs;
  b.families = report.families;
  b.info.gpu_names = gpu_names(report);
  std::vector<std::string> every_gpu;
  for (const ReportGpu& g : report.gpus) every_gpu.push_back(g.name);
  b.gpu_counts = name_counts(every_gpu);
  b.metrics = report.metrics;
  for (const ReportStep& s : report.steps)
    if (s.in_window) b.step_durations_us.push_back(s.duration_us);
  b.info.steps = b.step_durations_us.size();
  b.inferred_iterations = report.inferred_iterations;
  b.ops = op_rows(tables_of(report, Table::Ops, Table::RunOps));
  b.regions = region_rows(tables_of(report, Table::Regions, Table::RunRegions));
  b.kernels = kernel_rows(tables_of(report, Table::Kernels, Table::RunKernels));
  b.memory_sites = site_rows(tables_of(report, Table::MemoryLiveAtPeak, std::nullopt));
  b.path_profile = path_profile(report);
  b.unit_paths = unit_paths(report);
  return b;
}

Baseline combine_baselines(std::vector<Baseline> runs) {
  if (runs.size() == 1) return std::move(runs.front());
  Baseline b;
  b.info.kind = "pooled";
  b.info.runs = runs.size();
  std::vector<std::string> paths, gpus;
  std::vector<std::vector<double>> values(kMetricCount);  // each metric's values in the runs
  RowSums ops, regions, kernels;
  // Inferred iterations pool only where every run inferred the same family.
  bool same_inferred = std::all_of(runs.begin(), runs.end(), [&](const Baseline& run) {
    const auto& first = runs.front().inferred_iterations;
    return run.inferred_iterations && first && run.inferred_iterations->family == first->family &&
           run.inferred_iterations->kind == first->kind;
  });
  if (same_inferred) {
    b.inferred_iterations = runs.front().inferred_iterations;
    ReportInferredIterations& all = *b.inferred_iterations;
    all.units_us.clear();
    all.unit_names.clear();
    all.unit_work.clear();
    bool with_work = true;
    for (const Baseline& run : runs) {
      const ReportInferredIterations& i = *run.inferred_iterations;
      all.units_us.insert(all.units_us.end(), i.units_us.begin(), i.units_us.end());
      all.unit_names.insert(all.unit_names.end(), i.unit_names.begin(), i.unit_names.end());
      with_work = with_work && i.unit_work.size() == i.units_us.size();
      if (with_work) all.unit_work.insert(all.unit_work.end(), i.unit_work.begin(), i.unit_work.end());
      b.inferred_runs.push_back(i);
    }
    if (!with_work) all.unit_work.clear();
  }
  std::vector<const PathProfile*> profiles;
  for (const Baseline& run : runs) profiles.push_back(run.path_profile ? &*run.path_profile : nullptr);
  b.path_profile = pooled_path_profile(profiles);
  for (const Baseline& run : runs)
    b.rows_past_limit.insert(b.rows_past_limit.end(), run.rows_past_limit.begin(), run.rows_past_limit.end());
  std::vector<const std::vector<UnitPath>*> unit_paths;
  for (const Baseline& run : runs) unit_paths.push_back(&run.unit_paths);
  b.unit_paths = pooled_unit_paths(unit_paths);
  std::map<std::string, double> sites;  // the mean of the runs' bytes (a run without the site: 0)
  for (Baseline& run : runs) {
    paths.push_back(run.info.path);
    b.families.add(run.families);
    gpus.insert(gpus.end(), run.info.gpu_names.begin(), run.info.gpu_names.end());
    for (std::size_t i = 0; i < kMetricCount; ++i)
      if (std::optional<double> value = run.metrics.at(i)) values[i].push_back(*value);
    b.step_durations_us.insert(b.step_durations_us.end(), run.step_durations_us.begin(),
                               run.step_durations_us.end());
    b.run_steps_us.push_back(std::move(run.step_durations_us));
    add_rows(ops, run.ops);
    add_rows(regions, run.regions);
    add_rows(kernels, run.kernels);
    for (const BaselineSite& s : run.memory_sites)
      sites[s.site] += s.bytes / static_cast<double>(runs.size());
    if (b.info.tool_version.empty()) b.info.tool_version = run.info.tool_version;
    b.run_tool_versions.emplace_back(run.info.path, run.info.tool_version);
    b.info.inputs.insert(b.info.inputs.end(), run.info.inputs.begin(), run.info.inputs.end());
  }
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    std::vector<double>& list = values[i];
    if (list.empty()) continue;
    std::sort(list.begin(), list.end());
    std::size_t mid = list.size() / 2;
    b.metrics.set_at(i, list.size() % 2 == 1 ? list[mid] : (list[mid - 1] + list[mid]) / 2);
  }
  for (auto& [name, row] : ops) b.ops.push_back(std::move(row));
  for (auto& [name, row] : regions) b.regions.push_back(std::move(row));
  for (auto& [name, row] : kernels) b.kernels.push_back(std::move(row));
  for (const auto& [site, bytes] : sites) b.memory_sites.push_back({site, bytes});
  b.info.steps = b.step_durations_us.size();
  b.info.gpu_names = sorted_distinct(std::move(gpus));
  for (std::size_t i = 0; i < paths.size(); ++i) b.info.path += (i ? ", " : "") + paths[i];
  return b;
}

}  // namespace perfgate
