#include "analyse/run/capture_check.h"

#include "analyse/run/worker_hold.h"
#include "analyse/worker_analysis.h"

#include <time.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

namespace perfgate {
namespace {

// Ranks inferred up to the highest present: past this many, a stated rank is taken for a typo.
constexpr std::int64_t kMaxRanksInferred = std::int64_t{1} << 20;

// Workers named in a sentence: the first few, then how many more.
constexpr std::size_t kNamedWorkers = 3;

// Groups of workers by a key, in the order the keys first appear: "key (a, b and 2 more)".
class Groups {
 public:
  void add(const std::string& key, const std::string& worker) {
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups_.end()) it = groups_.insert(groups_.end(), {key, {}});
    it->second.push_back(worker);
  }
  std::size_t size() const { return groups_.size(); }
  std::string text() const {
    std::string out;
    for (const auto& [key, workers] : groups_) {
      std::string names;
      for (std::size_t i = 0; i < workers.size() && i < kNamedWorkers; ++i)
        names += (i ? ", " : "") + workers[i];
      if (workers.size() > kNamedWorkers)
        names += fmt::format(" and {} more", workers.size() - kNamedWorkers);
      out += fmt::format("{}{} ({})", out.empty() ? "" : "; ", key, names);
    }
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> groups_;
};

std::string gpu_models(const WorkerAnalysis& w) {
  std::set<std::string> names;
  for (const GpuMetrics& g : w.gpus)
    if (!g.name.empty()) names.insert(g.name);
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " + ") + n;
  return out;
}

// Timestamps from 2001-09-09 on (1e18 ns since 1970) are taken for wall-clock time: PyTorch
// before baseTimeNanoseconds wrote microseconds since the epoch.
constexpr TimeNs kEpochClockFrom = 1'000'000'000'000'000'000;

// What a worker's timestamps count from. Only workers on the same clock can be compared.
std::string trace_clock(const WorkerAnalysis& w) {
  if (w.info.format == "nsys-sqlite") return "nanoseconds from the capture's start (nsys)";
  if (w.info.base_time_ns) return "microseconds from baseTimeNanoseconds";
  if (w.window.start >= kEpochClockFrom) return "microseconds since 1970";
  return "microseconds from an unknown origin";
}

std::string utc_time(TimeNs ns) {
  time_t seconds = static_cast<time_t>(ns / 1'000'000'000);
  struct tm t {};
  gmtime_r(&seconds, &t);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &t);
  return text;
}

void check_gpu_models(const WorkerList& workers, std::vector<Note>& out) {
  Groups models;
  for (const WorkerAnalysis& w : looked(workers))
    if (std::string m = gpu_models(w); !m.empty()) models.add(m, w.worker);
  if (models.size() > 1) out.push_back(note<NoteId::run_gpu_models_differ>(arg<"groups">(models.text())));
}

void check_world_sizes(const WorkerList& workers, std::vector<Note>& out) {
  Groups sizes;
  for (const WorkerAnalysis& w : looked(workers))
    if (w.info.world_size) sizes.add(std::to_string(*w.info.world_size), w.worker);
  if (sizes.size() > 1) out.push_back(note<NoteId::run_world_sizes_differ>(arg<"groups">(sizes.text())));
}

// Workers of one run were profiled at the same time: on the wall clock their windows overlap.
void check_clocks(const WorkerList& workers, std::vector<Note>& out) {
  Groups clocks;
  for (const WorkerAnalysis& w : looked(workers)) clocks.add(trace_clock(w), w.worker);
  if (clocks.size() > 1) {
    out.push_back(note<NoteId::run_clocks_differ>(arg<"groups">(clocks.text())));
    return;
  }
  if (workers.front().window.start < kEpochClockFrom || workers.front().info.base_time_ns) return;
  auto ends_first = std::min_element(workers.begin(), workers.end(), [](const auto& a, const auto& b) {
    return a.window.end < b.window.end;
  });
  auto starts_last = std::max_element(workers.begin(), workers.end(), [](const auto& a, const auto& b) {
    return a.window.start < b.window.start;
  });
  if (ends_first != starts_last && starts_last->window.start >= ends_first->window.end)
    out.push_back(note<NoteId::run_windows_disjoint>(
        arg<"early">(ends_first->worker), arg<"early_start">(utc_time(ends_first->window.start)),
        arg<"early_seconds">(static_cast<double>(ends_first->window.length()) / 1e9),
        arg<"late">(starts_last->worker), arg<"late_start">(utc_time(starts_last->window.start)),
        arg<"late_seconds">(static_cast<double>(starts_last->window.length()) / 1e9)));
}

// How many programs a run_programs_differ note names, with their workers.
constexpr std::size_t kNamedPrograms = 2;

// A run's ranks run one compiled program: Neuron profiles of different NEFFs (different matmul
// shapes, different models) are profiles of different runs, as Kineto captures of different times
// are (issue 91, item 7). Pipeline stages do run different NEFFs: --one-run says so.
void check_programs(const WorkerList& workers, std::vector<Note>& out) {
  std::vector<std::pair<std::string, std::vector<std::string>>> programs;  // in the order first seen
  for (const WorkerAnalysis& w : looked(workers)) {
    if (w.program.empty()) continue;
    auto it =
        std::find_if(programs.begin(), programs.end(), [&](const auto& p) { return p.first == w.program; });
    if (it == programs.end()) it = programs.insert(programs.end(), {w.program, {}});
    it->second.push_back(w.worker);
  }
  if (programs.size() < 2) return;
  std::string named;
  for (std::size_t i = 0; i < programs.size() && i < kNamedPrograms; ++i) {
    const auto& [program, names] = programs[i];
    std::string who;
    for (std::size_t k = 0; k < names.size() && k < kNamedWorkers; ++k) who += (k ? ", " : "") + names[k];
    if (names.size() > kNamedWorkers) who += fmt::format(" and {} more", names.size() - kNamedWorkers);
    named += fmt::format("{}{} ({})", i ? "; " : "", program, who);
  }
  if (programs.size() > kNamedPrograms)
    named += fmt::format("; and {} more", programs.size() - kNamedPrograms);
  out.push_back(note<NoteId::run_programs_differ>(arg<"count">(programs.size()), arg<"groups">(named)));
}

// Ranks the workers state twice (a copied trace, `profile_rank_1` beside `profile_rank_01`, a
// Kineto trace and a Neuron profile of one rank): the rule of docs/formats.md, "Ranks", the same
// for analyze and merge, whatever the formats.
void check_ranks_twice(const WorkerList& workers, std::vector<Note>& out) {
  std::map<std::int64_t, std::vector<std::string>> by_rank;
  for (const WorkerAnalysis& w : looked(workers))
    if (w.info.rank) by_rank[*w.info.rank].push_back(w.worker);
  Groups twice;
  for (const auto& [rank, names] : by_rank)
    if (names.size() > 1)
      for (const std::string& name : names) twice.add(fmt::format("rank {}", rank), name);
  if (twice.size() > 0) out.push_back(note<NoteId::run_rank_twice>(arg<"groups">(twice.text())));
}

}  // namespace

std::optional<std::int64_t> expected_ranks(const WorkerList& workers,
                                           const std::vector<std::int64_t>& missing) {
  std::optional<std::int64_t> world;
  std::set<std::int64_t> present;
  for (const WorkerAnalysis& w : looked(workers)) {
    if (w.info.world_size) world = std::max(world.value_or(0), *w.info.world_size);
    if (w.info.rank && *w.info.rank >= 0) present.insert(*w.info.rank);
  }
  for (std::int64_t r : missing)
    if (r >= 0) present.insert(r);
  if (world) return world;
  if (present.size() < 2 || *present.rbegin() >= kMaxRanksInferred) return std::nullopt;
  return *present.rbegin() + 1;
}

namespace {

// Without a stated world size (Neuron profiles name their rank in their folder only), ranks 0 to
// the highest present are expected.
void check_ranks_up_to_highest(const WorkerList& workers, std::vector<Note>& out) {
  std::set<std::int64_t> present;
  for (const WorkerAnalysis& w : looked(workers))
    if (w.info.rank && *w.info.rank >= 0) present.insert(*w.info.rank);
  if (present.size() < 2 || *present.rbegin() >= kMaxRanksInferred) return;
  std::vector<std::int64_t> missing;
  for (std::int64_t r = 0; r < *present.rbegin(); ++r)
    if (!present.contains(r)) missing.push_back(r);
  if (missing.empty()) return;
  out.push_back(note<NoteId::run_ranks_missing_unstated>(
      arg<"present">(present.size()), arg<"expected">(*present.rbegin() + 1),
      arg<"missing_count">(missing.size()), arg<"missing">(rank_list(missing)),
      arg<"highest">(*present.rbegin())));
}

void check_ranks_present(const WorkerList& workers, const std::vector<std::int64_t>& rank_ids,
                         std::vector<Note>& out) {
  std::optional<std::int64_t> world_size;
  for (const WorkerAnalysis& w : looked(workers))
    if (w.info.world_size) world_size = std::max(world_size.value_or(0), *w.info.world_size);
  if (!world_size) return check_ranks_up_to_highest(workers, out);
  std::set<std::int64_t> present(rank_ids.begin(), rank_ids.end());
  if (static_cast<std::int64_t>(present.size()) >= *world_size) return;
  out.push_back(note<NoteId::run_ranks_missing>(
      arg<"present">(present.size()), arg<"world_size">(*world_size), arg<"ranks">(rank_list(rank_ids))));
}

}  // namespace

std::string rank_list(std::vector<std::int64_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j < i + 2) j = i;  // two neighbours read better as "0, 1" than as "0-1"
    out += (out.empty() ? "" : ", ") +
           (j > i ? fmt::format("{}-{}", ranks[i], ranks[j]) : std::to_string(ranks[i]));
    i = j + 1;
  }
  return out;
}

std::vector<Note> capture_warnings(const WorkerList& workers, const std::vector<std::int64_t>& rank_ids) {
  std::vector<Note> out;
  if (workers.size() < 2) return out;
  check_gpu_models(workers, out);
  std::size_t before = out.size();
  check_world_sizes(workers, out);
  bool one_world = out.size() == before;
  check_clocks(workers, out);
  check_programs(workers, out);
  if (one_world) {  // else the ranks are of several jobs
    check_ranks_twice(workers, out);
    check_ranks_present(workers, rank_ids, out);
  }
  return out;
}

}  // namespace perfgate
