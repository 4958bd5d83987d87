// A worker's critical paths (analyse/critical_path/critical_path.h) as report tables: one row per window step
// with its length split by what bounds it, and the ops, calls and GPU activities on the paths.
#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "analyse/analysis.h"
#include "analyse/run/worker_hold.h"
#include "common/fixed_text.h"
#include "report/report_cells.h"
#include "report/run_tables.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

// "aten::mm (1234 us), cudaLaunchKernel (56 us)": a step's top ops on its path.
// Appended with write_fixed, as fmt's "{:.0f}" writes the time: fmt parsed its format string for
// each op, three quarters of the text's cost and most of the per-step table's in a run folder of
// tiny ranks (issue 78). Made in a buffer kept for the next, then copied at its size: a text grown
// in place held up to twice its length, and was grown twice or three times.
ReportCell top_ops_text(const std::vector<std::pair<std::string, TimeNs>>& ops) {
  thread_local std::string text;
  text.clear();
  for (const auto& [name, time] : ops) {
    if (!text.empty()) text += ", ";
    text += name;
    char number[kFixedTextMax];
    text.append(" (")
        .append(number, write_fixed(number, static_cast<double>(time) / 1000.0, 0))
        .append(" us)");
  }
  return ReportCell{std::in_place_type<std::string>, text};
}

ReportCell bound_us(const CriticalPathStep& s, PathBound b) {
  return us(s.by[static_cast<std::size_t>(b)]);
}

constexpr auto kStepColumns = declared<Table::CriticalPath>(std::array<Column<CriticalPathStep>, 13>{{
    {"step", [](const CriticalPathStep& s) { return ReportCell{s.step}; }},
    {"span_us", [](const CriticalPathStep& s) { return us(s.span); }},
    {"length_us", [](const CriticalPathStep& s) { return us(s.length); }},
    {"cpu_bound_us", [](const CriticalPathStep& s) { return bound_us(s, PathBound::Cpu); }},
    {"data_loading_us", [](const CriticalPathStep& s) { return bound_us(s, PathBound::DataLoading); }},
    {"launch_overhead_us", [](const CriticalPathStep& s) { return bound_us(s, PathBound::LaunchOverhead); }},
    {"kernel_gap_us", [](const CriticalPathStep& s) { return bound_us(s, PathBound::KernelGap); }},
    {"gpu_compute_us", [](const CriticalPathStep& s) { return bound_us(s, PathBound::GpuCompute); }},
    {"communication_us", [](const CriticalPathStep& s) { return bound_us(s, PathBound::Communication); }},
    {"length_pct", [](const CriticalPathStep& s) { return pct(s.length, s.span); }},
    {"events", [](const CriticalPathStep& s) { return count(s.events); }},
    {"short_launches", [](const CriticalPathStep& s) { return count(s.short_launches); }},
    {"top_ops", [](const CriticalPathStep& s) { return top_ops_text(s.top_ops); }},
}});

bool is(const CriticalPathOpRow& r, PathBound a, PathBound b) {
  return r.bound == a || r.bound == b;
}

constexpr auto kOpColumns = declared<Table::CriticalPathOps>(std::array<Column<CriticalPathOpRow>, 9>{{
    {"name", [](const CriticalPathOpRow& r) { return ReportCell{r.name}; }},
    {"bound_by",
     [](const CriticalPathOpRow& r) { return ReportCell{std::string(path_bound_name(r.bound))}; }},
    {"time_us", [](const CriticalPathOpRow& r) { return us(r.time); }},
    {"time_per_step_us", [](const CriticalPathOpRow& r) { return us(r.time_per_step); }},
    {"calls", [](const CriticalPathOpRow& r) { return count(r.calls); }},
    {"steps", [](const CriticalPathOpRow& r) { return count(r.steps); }},
    {"host",
     [](const CriticalPathOpRow& r) { return ReportCell{is(r, PathBound::Cpu, PathBound::DataLoading)}; }},
    {"launch", [](const CriticalPathOpRow&
                      r) { return ReportCell{is(r, PathBound::LaunchOverhead, PathBound::KernelGap)}; }},
    {"communication",
     [](const CriticalPathOpRow& r) { return ReportCell{r.bound == PathBound::Communication}; }},
}});

// An inferred unit's path (CriticalPathSums::units) under its identity.
struct UnitPathRow {
  std::string unit;
  const CriticalPathStep* path;
};

ReportCell unit_bound_us(const UnitPathRow& r, PathBound b) {
  return bound_us(*r.path, b);
}

constexpr auto kUnitColumns = declared<Table::CriticalPathUnits>(std::array<Column<UnitPathRow>, 9>{{
    {"unit", [](const UnitPathRow& r) { return ReportCell{r.unit}; }},
    {"span_us", [](const UnitPathRow& r) { return us(r.path->span); }},
    {"length_us", [](const UnitPathRow& r) { return us(r.path->length); }},
    {"cpu_bound_us", [](const UnitPathRow& r) { return unit_bound_us(r, PathBound::Cpu); }},
    {"data_loading_us", [](const UnitPathRow& r) { return unit_bound_us(r, PathBound::DataLoading); }},
    {"launch_overhead_us", [](const UnitPathRow& r) { return unit_bound_us(r, PathBound::LaunchOverhead); }},
    {"kernel_gap_us", [](const UnitPathRow& r) { return unit_bound_us(r, PathBound::KernelGap); }},
    {"gpu_compute_us", [](const UnitPathRow& r) { return unit_bound_us(r, PathBound::GpuCompute); }},
    {"communication_us", [](const UnitPathRow& r) { return unit_bound_us(r, PathBound::Communication); }},
}});

struct UnitOpRow {
  const std::string* unit;
  const CriticalPathOpRow* op;
};

constexpr auto kUnitOpColumns = declared<Table::CriticalPathUnitOps>(std::array<Column<UnitOpRow>, 5>{{
    {"unit", [](const UnitOpRow& r) { return ReportCell{*r.unit}; }},
    {"name", [](const UnitOpRow& r) { return ReportCell{r.op->name}; }},
    {"bound_by", [](const UnitOpRow& r) { return ReportCell{std::string(path_bound_name(r.op->bound))}; }},
    {"time_us", [](const UnitOpRow& r) { return us(r.op->time); }},
    {"calls", [](const UnitOpRow& r) { return count(r.op->calls); }},
}});

// The paths per inferred unit, each under its identity (as the report's unit_names).
void add_unit_tables(const CriticalPathSums& sums, std::vector<ReportTable>& out) {
  std::vector<UnitPathRow> units;
  std::unordered_map<std::string_view, std::size_t> seen;
  for (const CriticalPathStep& u : sums.units)
    units.push_back({inferred_unit_name(u.step, ++seen[u.step]), &u});
  std::vector<UnitOpRow> ops;
  for (std::size_t i = 0; i < units.size() && i < sums.unit_ops.size(); ++i)
    for (const CriticalPathOpRow& op : sums.unit_ops[i]) ops.push_back({&units[i].unit, &op});
  out.push_back(make_table(kUnitColumns, units));
  out.push_back(make_table(kUnitOpColumns, ops));
}

constexpr auto kTimelineColumns = declared<Table::CriticalPathTimeline>(std::array<Column<TimelineBox>, 7>{{
    {"device", [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.device)}; }},
    {"stream", [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.stream)}; }},
    {"start_us", [](const TimelineBox& b) { return us(b.start); }},
    {"duration_us", [](const TimelineBox& b) { return us(b.duration); }},
    {"name", [](const TimelineBox& b) { return ReportCell{b.name}; }},
    {"bound_by", [](const TimelineBox& b) { return ReportCell{b.kind}; }},
    {"lane", [](const TimelineBox& b) { return timeline_lane(b.device, b.stream); }},
}});

// A step of the job's path, with the worker that decides most of it (the first on a tie).
struct JobStepRow {
  const JobPathStep* step;
  std::string worker;
  std::int64_t rank = -1;
  TimeNs decided = 0;
  const CriticalPathStep* own = nullptr;  // the bounding worker's own path of the step
};

constexpr auto kJobStepColumns = declared<Table::JobCriticalPath>(std::array<Column<JobStepRow>, 9>{{
    {"step", [](const JobStepRow& r) { return ReportCell{r.step->step}; }},
    {"length_us", [](const JobStepRow& r) { return us(r.step->length); }},
    {"communication_us", [](const JobStepRow& r) { return us(r.step->communication); }},
    {"collectives", [](const JobStepRow& r) { return count(r.step->collectives); }},
    {"bounding_worker", [](const JobStepRow& r) { return ReportCell{r.worker}; }},
    {"bounding_rank", [](const JobStepRow& r) { return ReportCell{r.rank}; }},
    {"bounding_us", [](const JobStepRow& r) { return us(r.decided); }},
    {"bounding_pct", [](const JobStepRow& r) { return pct(r.decided, r.step->length); }},
    {"bounding_ops", [](const JobStepRow& r) { return r.own ? top_ops_text(r.own->top_ops) : ReportCell{}; }},
}});

struct JobRankRow {
  std::string worker;
  std::int64_t rank = -1;
  TimeNs decided = 0;
  TimeNs length = 0;  // of every step's job path
  std::uint64_t steps_bounded = 0;
};

constexpr auto kJobRankColumns = declared<Table::JobCriticalPathRanks>(std::array<Column<JobRankRow>, 5>{{
    {"worker", [](const JobRankRow& r) { return ReportCell{r.worker}; }},
    {"rank", [](const JobRankRow& r) { return ReportCell{r.rank}; }},
    {"decided_us", [](const JobRankRow& r) { return us(r.decided); }},
    {"decided_pct", [](const JobRankRow& r) { return pct(r.decided, r.length); }},
    {"steps_bounded", [](const JobRankRow& r) { return count(r.steps_bounded); }},
}});

}  // namespace

std::vector<ReportTable> job_critical_path_tables(const RunAnalysis& analysis,
                                                  const std::vector<std::int64_t>& ranks) {
  std::vector<JobStepRow> steps;
  std::vector<JobRankRow> per_rank;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i) {
    look_after_worker(i);
    per_rank.push_back({analysis.workers[i].worker, i < ranks.size() ? ranks[i] : -1, 0, 0, 0});
  }
  for (const JobPathStep& s : analysis.job_path) {
    auto most = std::max_element(s.decided.begin(), s.decided.end());
    auto w = static_cast<std::size_t>(most - s.decided.begin());
    JobStepRow row{&s, "", -1, 0, nullptr};
    if (most != s.decided.end() && w < per_rank.size()) {
      row = {&s, per_rank[w].worker, per_rank[w].rank, *most, nullptr};
      for (const CriticalPathStep& own : analysis.workers[w].critical_path.steps)
        if (own.number == s.step) row.own = &own;
      ++per_rank[w].steps_bounded;
    }
    steps.push_back(std::move(row));
    for (std::size_t i = 0; i < s.decided.size() && i < per_rank.size(); ++i) {
      per_rank[i].decided += s.decided[i];
    }
    for (JobRankRow& r : per_rank) r.length += s.length;
  }
  if (analysis.job_path.empty()) per_rank.clear();
  std::vector<ReportTable> out;
  out.push_back(make_table(kJobStepColumns, steps));
  out.push_back(make_table(kJobRankColumns, per_rank));
  return out;
}

// Each table moved into the list: a braced list of tables is copied, and the per-step table of
// 200,000 steps was 104 MB.
ReportTable critical_path_steps_table(const CriticalPathSums& sums) {
  return make_table(kStepColumns, sums.steps);
}

std::vector<ReportTable> critical_path_tables(const CriticalPathSums& sums) {
  std::vector<ReportTable> out;
  out.push_back(critical_path_steps_table(sums));
  out.push_back(make_table(kOpColumns, sums.ops));
  if (!sums.units.empty()) add_unit_tables(sums, out);
  out.push_back(make_table(kTimelineColumns, sums.timeline));
  return out;
}

}  // namespace perfgate
