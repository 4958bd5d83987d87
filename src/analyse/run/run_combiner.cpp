// A run folded together worker by worker: run sums by name, and whole tables for a few workers.
#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "analyse/analysis.h"
#include "analyse/capture/capture_decision.h"
#include "analyse/communication/collective_matching.h"
#include "analyse/communication/rank_work.h"
#include "analyse/critical_path/job_critical_path.h"
#include "analyse/gpu/roofline.h"
#include "analyse/invariants.h"
#include "analyse/metric_values.h"
#include "analyse/run/capture_check.h"
#include "analyse/run/worker_hold.h"

namespace perfgate {
namespace {

// How long a worker took: its mean window step (steps.mean_us, as the ranks table and the
// ranks.slowest metric read it), or its window where it has no steps. Slower workers sort first;
// equal ones by position, so every choice below is one total order.
struct Pace {
  double step_us = 0;
  WorkerPosition position;
  bool slower_than(const Pace& o) const {
    return step_us != o.step_us ? step_us > o.step_us : position < o.position;
  }
};

Pace pace_of(const WorkerAnalysis& w, WorkerPosition position) {
  std::optional<double> mean = w.metrics.get(Metric::StepsMeanUs);
  return {mean ? *mean : static_cast<double>(w.window.length()) / 1000.0, position};
}

// Sums by name. Times and counts are integers, so the sums do not depend on the workers' order.
// A worker's tables have a row per name, so each row added is one more worker with the name.
class RowSums {
 public:
  void add(std::string_view name, std::uint64_t calls, TimeNs gpu, TimeNs cpu) {
    auto [it, added] = rows_.try_emplace(std::string(name));
    RunRow& r = it->second;
    if (added) r.name = name;
    ++r.workers;
    r.calls += calls;
    add_time(r.gpu, gpu);
    add_time(r.cpu, cpu);
  }
  // Rows already summed over some workers (a part of the run).
  void add(const RunRow& sum) {
    auto [it, added] = rows_.try_emplace(sum.name);
    RunRow& r = it->second;
    if (added) r.name = sum.name;
    r.workers += sum.workers;
    r.calls += sum.calls;
    add_time(r.gpu, sum.gpu);
    add_time(r.cpu, sum.cpu);
  }
  void add(const std::vector<RunRow>& sums) {
    for (const RunRow& r : sums) add(r);
  }
  // In name order: a part's sums as a partial report keeps them.
  std::vector<RunRow> by_name() const {
    std::vector<RunRow> out = rows();
    std::sort(out.begin(), out.end(), [](const RunRow& a, const RunRow& b) { return a.name < b.name; });
    return out;
  }
  // Most GPU time first, then most CPU time, then by name.
  std::vector<RunRow> rows() const {
    std::vector<RunRow> out;
    out.reserve(rows_.size());
    for (const auto& [name, row] : rows_) out.push_back(row);
    std::sort(out.begin(), out.end(), [](const RunRow& a, const RunRow& b) {
      if (a.gpu != b.gpu) return a.gpu > b.gpu;
      if (a.cpu != b.cpu) return a.cpu > b.cpu;
      return a.name < b.name;
    });
    return out;
  }

 private:
  std::unordered_map<std::string, RunRow> rows_;
};

// Roofline rows summed by key (name, input dims, input types, modelled or not).
class RooflineSumsByKey {
 public:
  void add(const RooflineRow& row) {
    auto [it, added] = rows_.try_emplace(key(row), row);
    if (!added) it->second += row;
  }
  void add(const std::vector<RooflineRow>& rows) {
    for (const RooflineRow& r : rows) add(r);
  }
  std::vector<RooflineRow> by_key() const {
    std::vector<RooflineRow> out;
    out.reserve(rows_.size());
    for (const auto& [k, row] : rows_) out.push_back(row);
    return out;
  }
  std::vector<RooflineRow> rows() const {
    std::vector<RooflineRow> out = by_key();
    order_roofline_rows(out);
    return out;
  }

 private:
  using Key = std::tuple<std::string, std::string, std::string, bool>;
  static Key key(const RooflineRow& r) { return {r.name, r.input_dims, r.input_types, !r.family.empty()}; }
  std::map<Key, RooflineRow> rows_;
};

std::string ordinal(std::size_t n) {
  const char* suffix = n % 100 / 10 == 1 ? "th"
                       : n % 10 == 1     ? "st"
                       : n % 10 == 2     ? "nd"
                       : n % 10 == 3     ? "rd"
                                         : "th";
  return fmt::format("{}{}", n, suffix);
}

// What a worker keeps once it is not detailed: what the run's tables and the report's summary
// of every worker read (steps, iterations, collectives, the timeline's step, the critical path's
// steps), not its name-keyed tables nor its timelines' boxes. Buffers are let go by assigning new
// vectors: `= {}` is the initializer-list assignment, which keeps them (issue 78: the step
// timeline's and the critical path's boxes, about 55 kB a rank of a run folder of many ranks).
void let_tables_go(WorkerAnalysis& w) {
  WorkerTables kept;
  kept.iterations = std::move(w.tables.iterations);
  kept.collectives = std::move(w.tables.collectives);
  kept.timeline = std::move(w.tables.timeline);
  kept.timeline.boxes = std::vector<TimelineBox>();  // its step and activity count stay in the report
  w.tables = std::move(kept);
  w.critical_path.ops = std::vector<CriticalPathOpRow>();
  w.critical_path.timeline = std::vector<TimelineBox>();
  w.detailed = false;
  w.detailed_as.clear();
}

}  // namespace

struct RunCombiner::State {
  std::size_t detailed = 0;  // 0: all
  HoldScope hold;
  std::mutex mutex;
  std::map<WorkerPosition, WorkerAnalysis> workers;
  RowSums ops, kernels, regions;
  RooflineSumsByKey roofline;
  CollectiveMatcher collectives;
  // The detailed workers besides the first: the slowest (slowest first) and the fastest.
  std::vector<Pace> slowest;
  std::optional<Pace> fastest;
  std::optional<Pace> first;  // for the others' places among all workers
  // Workers analysed without their tables while they are chosen (WorkerDetail::Later): each one's
  // whole analysis, made if it is still chosen at the end.
  std::map<WorkerPosition, std::function<WorkerAnalysis()>> later;

  std::size_t slowest_slots() const { return detailed >= 3 ? detailed - 2 : detailed - 1; }
  bool keeps_fastest() const { return detailed >= 3; }
  bool is_first(WorkerPosition p) const { return p == WorkerPosition{}; }

  bool chosen(WorkerPosition p) const {
    if (detailed == 0 || is_first(p)) return true;
    if (fastest && fastest->position == p) return true;
    return std::any_of(slowest.begin(), slowest.end(), [&](const Pace& s) { return s.position == p; });
  }

  // Lets the worker's tables go unless it is still chosen (it may be both slow and fastest so far),
  // and holds what is left as the HoldScope does: copied into its pack, so without its making's
  // spare capacity, where it packs; kept as it is on the heap where it does not.
  void release(WorkerPosition p) {
    if (chosen(p)) return;
    later.erase(p);
    auto it = workers.find(p);
    if (it == workers.end()) return;
    let_tables_go(it->second);
    if (!hold) return;
    hold([&](bool packing) {
      if (!packing) return;
      auto node = workers.extract(it);
      workers.emplace(p, node.mapped());
    });
  }

  // Where a worker of this pace would go among the slowest: a slot, or slowest_slots() for none.
  std::size_t slowest_place(const Pace& pace) const {
    auto at =
        std::find_if(slowest.begin(), slowest.end(), [&](const Pace& s) { return pace.slower_than(s); });
    return std::min(static_cast<std::size_t>(at - slowest.begin()), slowest_slots());
  }
  bool would_be_fastest(const Pace& pace) const {
    return keeps_fastest() && (!fastest || fastest->slower_than(pace));
  }

  // Whether a worker of this pace would be chosen now, and how. The slowest slots only fill with
  // slower workers and the fastest only gets faster, in one total order, so one not among the
  // slowest now never is, and one not chosen now never is.
  WorkerDetail detail_of(const Pace& pace) const {
    if (detailed == 0 || is_first(pace.position) || slowest_place(pace) < slowest_slots())
      return WorkerDetail::Whole;
    return would_be_fastest(pace) ? WorkerDetail::Later : WorkerDetail::None;
  }

  // Places a newcome worker among the slowest and the fastest; returns the workers it displaced.
  std::vector<WorkerPosition> choose(const Pace& pace) {
    std::vector<WorkerPosition> displaced;
    if (detailed == 0 || is_first(pace.position)) return displaced;
    if (std::size_t place = slowest_place(pace); place < slowest_slots()) {
      slowest.insert(slowest.begin() + static_cast<std::ptrdiff_t>(place), pace);
      if (slowest.size() > slowest_slots()) {
        displaced.push_back(slowest.back().position);
        slowest.pop_back();
      }
    }
    if (would_be_fastest(pace)) {
      if (fastest) displaced.push_back(fastest->position);
      fastest = pace;
    }
    return displaced;
  }

  // A worker among the others: kept whole while it may be detailed, else its tables let go.
  void place(WorkerPosition position, WorkerAnalysis&& worker) {
    Pace pace = pace_of(worker, position);
    if (is_first(position)) first = pace;
    workers.insert_or_assign(position, std::move(worker));
    std::vector<WorkerPosition> displaced = choose(pace);
    // A worker both among the slowest and the fastest may be displaced from both at once.
    std::sort(displaced.begin(), displaced.end());
    displaced.erase(std::unique(displaced.begin(), displaced.end()), displaced.end());
    release(position);
    for (WorkerPosition p : displaced) release(p);
  }

  // A worker as it is analysed: its tables and collectives added, then placed.
  void add(WorkerPosition position, WorkerAnalysis&& worker) {
    fold(worker.tables);
    collectives.add(position, worker.collective_calls);
    if (hold)
      hold([&](bool packing) {
        if (packing) collectives.copy_rank(position);
      });
    worker.collective_calls = {};
    place(position, std::move(worker));
  }

  void fold(const WorkerTables& t) {
    for (const OpRow& r : t.ops) ops.add(r.name, r.calls, r.device_self, r.host_self);
    for (const KernelRow& r : t.kernels) kernels.add(r.name, r.calls, r.total, 0);
    for (const RegionRow& r : t.regions) regions.add(r.name, r.calls, r.gpu, r.cpu_total);
    roofline.add(t.roofline);
  }

  // The chosen workers analysed without their tables, analysed again whole. Their tables and
  // collectives were added as they came.
  void make_whole() {
    for (auto& [p, whole] : later) {
      WorkerAnalysis w = whole();
      w.collective_calls = {};
      workers.at(p) = std::move(w);
    }
    later.clear();
  }

  // The worker's place among all workers, the first included: "first and slowest", "2nd slowest".
  std::string reason(WorkerPosition p) const {
    bool first_slower = first && !slowest.empty() && first->slower_than(slowest.front());
    bool first_faster = first && fastest && fastest->slower_than(*first);
    if (is_first(p)) return first_slower ? "first and slowest" : first_faster ? "first and fastest" : "first";
    if (fastest && fastest->position == p) return first_faster ? "2nd fastest" : "fastest";
    for (std::size_t i = 0; i < slowest.size(); ++i)
      if (slowest[i].position == p) {
        std::size_t place = i + 1 + (first && first->slower_than(slowest[i]) ? 1 : 0);
        return place == 1 ? "slowest" : ordinal(place) + " slowest";
      }
    return "";
  }
};

namespace {
constinit std::atomic<HoldScopeMaker> g_hold_maker{nullptr};
constinit std::atomic<WorkerLook> g_worker_look{nullptr};
}  // namespace

void set_worker_look(WorkerLook look) {
  g_worker_look.store(look, std::memory_order_release);
}

void call_worker_look() {
  if (WorkerLook look = g_worker_look.load(std::memory_order_acquire)) look();
}

void set_worker_hold(HoldScopeMaker maker) {
  g_hold_maker.store(maker, std::memory_order_release);
}

HoldScope worker_hold() {
  HoldScopeMaker maker = g_hold_maker.load(std::memory_order_acquire);
  return maker ? maker() : HoldScope{};
}

RunCombiner::RunCombiner(std::size_t detailed_workers) : state_(std::make_unique<State>()) {
  state_->detailed = detailed_workers;
  state_->hold = worker_hold();
}

RunCombiner::~RunCombiner() = default;

void RunCombiner::add(WorkerPosition position, WorkerAnalysis&& worker) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.add(position, std::move(worker));
}

void RunCombiner::add(WorkerPosition position, WorkerAnalysis&& worker,
                      std::function<WorkerAnalysis()> whole) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  // Placed as any other: release() drops `whole` with the tables once the worker is not chosen.
  s.later.insert_or_assign(position, std::move(whole));
  s.add(position, std::move(worker));
}

WorkerDetail RunCombiner::detail_of(WorkerPosition position, double pace_us) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  return s.detail_of({pace_us, position});
}

void RunCombiner::add(PartialRun part) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.ops.add(part.sums.ops);
  s.kernels.add(part.sums.kernels);
  s.regions.add(part.sums.regions);
  s.roofline.add(part.sums.roofline);
  s.collectives.add(part.collectives);
  for (PositionedWorker& w : part.workers) s.place(w.position, std::move(w.worker));
}

RunAnalysis RunCombiner::finish(const std::vector<std::int64_t>& missing_ranks) {
  State& s = *state_;
  s.make_whole();
  WorkerList workers;
  std::vector<WorkerPosition> positions;
  positions.reserve(s.workers.size());
  bool trimmed = s.detailed != 0 && s.workers.size() > s.detailed;
  // Each node let go as it is moved: a pass of its own over the moved-from workers would map them
  // all again (look_after_worker). Each worker's block is made as its node was, under the hold (the
  // spill file past a quarter of --max-memory), and on the heap takes the place of the node freed
  // before it.
  CaptureCombiner capture;
  for (auto at = s.workers.begin(); at != s.workers.end(); at = s.workers.erase(at)) {
    WorkerAnalysis& w = at->second;
    capture.add(w.capture);
    if (trimmed && w.detailed) w.detailed_as = s.reason(at->first);
    if (s.hold)
      s.hold([&](bool) { workers.push_back(std::move(w)); });
    else
      workers.push_back(std::move(w));
    positions.push_back(at->first);
    look_after_worker(positions.size() - 1);
  }
  RunAnalysis run;
  run.workers = std::move(workers);
  run.capture = capture.finish();
  std::vector<std::int64_t> ranks = rank_ids(run);
  if (run.workers.size() > 1)
    run.tables = {s.ops.rows(), s.kernels.rows(), s.regions.rows(), s.roofline.rows()};
  run.warnings = capture_warnings(run.workers, ranks);
  set_run_metrics(run, ranks, missing_ranks);
  run.collectives = s.collectives.finish(positions);
  set_rank_entries(run.collectives, run.workers);
  set_collective_metrics(run.metrics, run.collectives, ranks);
  set_rank_work_metrics(run.metrics, run.collectives, run.workers, ranks);
  run.job_path = job_critical_path(s.collectives.matched(), run.workers, positions);
  set_job_path_metrics(run.metrics, run.job_path, ranks);
  if (std::uint64_t unmatched = run.collectives.disjoint + run.collectives.sizes_differ; unmatched > 0)
    run.warnings.push_back(note<NoteId::collectives_unmatched>(
        arg<"unmatched">(unmatched), arg<"issued">(unmatched + run.collectives.matched),
        arg<"disjoint">(run.collectives.disjoint),
        arg<"skew_ms">(static_cast<double>(kCollectiveClockSkewNs) / 1e6),
        arg<"sizes_differ">(run.collectives.sizes_differ)));
  s.workers.clear();
  return run;
}

PartialRun RunCombiner::finish_partial() {
  State& s = *state_;
  s.make_whole();
  PartialRun part;
  part.workers.reserve(s.workers.size());
  for (auto& [position, w] : s.workers) part.workers.push_back({position, std::move(w)});
  part.sums = {s.ops.by_name(), s.kernels.by_name(), s.regions.by_name(), s.roofline.by_key()};
  part.collectives = s.collectives.sums();
  s.workers.clear();
  return part;
}

}  // namespace perfgate
