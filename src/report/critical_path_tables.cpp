// A worker's critical paths (analyse/critical_path/critical_path.h) as report tables: one row per window step
// with its length split by what bounds it, and the ops, calls and GPU activities on the paths.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "perfgate/analysis.h"
#include "report/report_cells.h"
#include "report/run_tables.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

// "aten::mm (1234 us), cudaLaunchKernel (56 us)": a step's top ops on its path.
ReportCell top_ops_text(const std::vector<std::pair<std::string, TimeNs>>& ops) {
  std::string text;
  for (const auto& [name, time] : ops)
    text +=
        fmt::format("{}{} ({:.0f} us)", text.empty() ? "" : ", ", name, static_cast<double>(time) / 1000.0);
  return ReportCell{text};
}

ReportCell bound_us(const CriticalPathStep& s, PathBound b) {
  return us(s.by[static_cast<std::size_t>(b)]);
}

constexpr std::array<Column<CriticalPathStep>, 13> kStepColumns = {{
    {"step", "", "The window step (\"window\" without steps)",
     [](const CriticalPathStep& s) { return ReportCell{s.step}; }},
    {"span_us", "us",
     "The step as perfgate analyses it, its step time (to the end of its GPU work), at least the path's "
     "length; the path is built over its host range",
     [](const CriticalPathStep& s) { return us(s.span); }},
    {"length_us", "us", "The critical path's length: the longest chain of dependent work in the range",
     [](const CriticalPathStep& s) { return us(s.length); }},
    {"cpu_bound_us", "us", "Host ops and runtime calls on the path",
     [](const CriticalPathStep& s) { return bound_us(s, PathBound::Cpu); }},
    {"data_loading_us", "us", "Host ops under DataLoader ops on the path",
     [](const CriticalPathStep& s) { return bound_us(s, PathBound::DataLoading); }},
    {"launch_overhead_us", "us",
     "Launch delays on the path: launch call start to kernel start on an idle stream",
     [](const CriticalPathStep& s) { return bound_us(s, PathBound::LaunchOverhead); }},
    {"kernel_gap_us", "us", "Gaps between two activities of a stream on the path",
     [](const CriticalPathStep& s) { return bound_us(s, PathBound::KernelGap); }},
    {"gpu_compute_us", "us", "Kernels (other than communication), memcpy and memset on the path",
     [](const CriticalPathStep& s) { return bound_us(s, PathBound::GpuCompute); }},
    {"communication_us", "us", "Communication kernels on the path",
     [](const CriticalPathStep& s) { return bound_us(s, PathBound::Communication); }},
    {"length_pct", "%", "The path's length / the step's span: how much of the step the path covers",
     [](const CriticalPathStep& s) { return pct(s.length, s.span); }},
    {"events", "count", "Events with time on the path",
     [](const CriticalPathStep& s) { return count(s.events); }},
    {"short_launches", "count",
     "Launch calls under 1 us once rounded to whole us, which HTA leaves off the graph with the GPU work "
     "they launched",
     [](const CriticalPathStep& s) { return count(s.short_launches); }},
    {"top_ops", "",
     "The ops, calls and GPU activities with most time on the step's path (at most 3), with that time",
     [](const CriticalPathStep& s) { return top_ops_text(s.top_ops); }},
}};

bool is(const CriticalPathOpRow& r, PathBound a, PathBound b) {
  return r.bound == a || r.bound == b;
}

constexpr std::array<Column<CriticalPathOpRow>, 8> kOpColumns = {{
    {"name", "",
     "Op, runtime call or GPU activity (kernel, memcpy, memset); a kernel gap is its earlier activity's",
     [](const CriticalPathOpRow& r) { return ReportCell{r.name}; }},
    {"bound_by", "",
     "What its time on the path is bound by: cpu_bound, data_loading, gpu_kernel_launch_overhead, "
     "gpu_kernel_kernel_overhead, gpu_compute_bound, gpu_communication_bound (HTA's classes)",
     [](const CriticalPathOpRow& r) { return ReportCell{std::string(path_bound_name(r.bound))}; }},
    {"time_us", "us", "Its time on the critical paths of the window's steps, summed",
     [](const CriticalPathOpRow& r) { return us(r.time); }},
    {"calls", "count", "Its calls (or activities) with time on a path",
     [](const CriticalPathOpRow& r) { return count(r.calls); }},
    {"steps", "count", "Window steps whose path it is on",
     [](const CriticalPathOpRow& r) { return count(r.steps); }},
    {"host", "", "Host time: cpu_bound or data_loading",
     [](const CriticalPathOpRow& r) { return ReportCell{is(r, PathBound::Cpu, PathBound::DataLoading)}; }},
    {"launch", "", "Launch time: gpu_kernel_launch_overhead or gpu_kernel_kernel_overhead",
     [](const CriticalPathOpRow& r) {
       return ReportCell{is(r, PathBound::LaunchOverhead, PathBound::KernelGap)};
     }},
    {"communication", "", "Communication kernel time: gpu_communication_bound",
     [](const CriticalPathOpRow& r) { return ReportCell{r.bound == PathBound::Communication}; }},
}};

constexpr std::array<Column<TimelineBox>, 6> kTimelineColumns = {{
    {"device", "count", "GPU; -1: host ops, -2: runtime calls (the timeline's host lanes)",
     [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.device)}; }},
    {"stream", "count", "Stream; the thread id for host lanes",
     [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.stream)}; }},
    {"start_us", "us", "Start, relative to the timeline step's start",
     [](const TimelineBox& b) { return us(b.start); }},
    {"duration_us", "us", "Time on the path", [](const TimelineBox& b) { return us(b.duration); }},
    {"name", "", "Op, call or GPU activity (kernel short name), or N events for merged short ones",
     [](const TimelineBox& b) { return ReportCell{b.name}; }},
    {"bound_by", "", "What this time on the path is bound by (HTA's classes, as in the critical path ops)",
     [](const TimelineBox& b) { return ReportCell{b.kind}; }},
}};

// A step of the job's path, with the worker that decides most of it (the first on a tie).
struct JobStepRow {
  const JobPathStep* step;
  std::string worker;
  std::int64_t rank = -1;
  TimeNs decided = 0;
  const CriticalPathStep* own = nullptr;  // the bounding worker's own path of the step
};

constexpr std::array<Column<JobStepRow>, 9> kJobStepColumns = {{
    {"step", "count", "The step's number (ProfilerStep#N)",
     [](const JobStepRow& r) { return ReportCell{r.step->step}; }},
    {"length_us", "us",
     "The job's path through the step's collectives: the late ranks' work before each one's last arrival, "
     "the transfers, the last-ending rank's work after the last",
     [](const JobStepRow& r) { return us(r.step->length); }},
    {"communication_us", "us", "The collectives' transfers on it (each one's shortest timed duration)",
     [](const JobStepRow& r) { return us(r.step->communication); }},
    {"collectives", "count", "Collectives of the step matched across ranks",
     [](const JobStepRow& r) { return count(r.step->collectives); }},
    {"bounding_worker", "", "The worker whose work decides most of the step's job path",
     [](const JobStepRow& r) { return ReportCell{r.worker}; }},
    {"bounding_rank", "count", "Its rank", [](const JobStepRow& r) { return ReportCell{r.rank}; }},
    {"bounding_us", "us", "Its time on the path", [](const JobStepRow& r) { return us(r.decided); }},
    {"bounding_pct", "%", "Its time / the path's length",
     [](const JobStepRow& r) { return pct(r.decided, r.step->length); }},
    {"bounding_ops", "",
     "The ops with most time on that worker's own critical path of the step (its critical_path table)",
     [](const JobStepRow& r) { return r.own ? top_ops_text(r.own->top_ops) : ReportCell{}; }},
}};

struct JobRankRow {
  std::string worker;
  std::int64_t rank = -1;
  TimeNs decided = 0;
  TimeNs length = 0;  // of every step's job path
  std::uint64_t steps_bounded = 0;
};

constexpr std::array<Column<JobRankRow>, 5> kJobRankColumns = {{
    {"worker", "", "Worker (trace file)", [](const JobRankRow& r) { return ReportCell{r.worker}; }},
    {"rank", "count", "Rank (distributedInfo, else worker index)",
     [](const JobRankRow& r) { return ReportCell{r.rank}; }},
    {"decided_us", "us", "Its work on the job's paths, summed over steps: the time the job waited for it",
     [](const JobRankRow& r) { return us(r.decided); }},
    {"decided_pct", "%", "That time / the job paths' lengths summed",
     [](const JobRankRow& r) { return pct(r.decided, r.length); }},
    {"steps_bounded", "count", "Steps whose job path it decides most of",
     [](const JobRankRow& r) { return count(r.steps_bounded); }},
}};

}  // namespace

std::vector<ReportTable> job_critical_path_tables(const RunAnalysis& analysis,
                                                  const std::vector<std::int64_t>& ranks) {
  std::vector<JobStepRow> steps;
  std::vector<JobRankRow> per_rank;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i)
    per_rank.push_back({analysis.workers[i].worker, i < ranks.size() ? ranks[i] : -1, 0, 0, 0});
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
  out.push_back(
      make_table("job_critical_path", "Job critical path",
                 "Each step's critical path through the collectives it shares with the other ranks, "
                 "and the rank whose work decides most of it",
                 kJobStepColumns, steps));
  out.push_back(
      make_table("job_critical_path_ranks", "Job critical path by rank",
                 "How much of the job's critical paths each rank's work decides: the time the other "
                 "ranks waited for it",
                 kJobRankColumns, per_rank));
  return out;
}

// Each table moved into the list: a braced list of tables is copied, and the per-step table of
// 200,000 steps was 104 MB.
std::vector<ReportTable> critical_path_tables(const CriticalPathSums& sums) {
  std::vector<ReportTable> out;
  out.push_back(
      make_table("critical_path", "Critical path",
                 "What bounds each window step: its critical path (HTA's definition) and what it is made of",
                 kStepColumns, sums.steps));
  out.push_back(
      make_table("critical_path_ops", "Critical path ops",
                 "The ops, runtime calls and GPU activities on the window steps' critical paths, most "
                 "time first (at most 100)",
                 kOpColumns, sums.ops));
  out.push_back(make_table(
      "critical_path_timeline", "Critical path on the step timeline",
      "The critical path of the step the timeline shows, stretch by stretch on the timeline's lanes",
      kTimelineColumns, sums.timeline));
  return out;
}

}  // namespace perfgate
