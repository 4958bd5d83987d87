#include "analyse/critical_path/job_critical_path.h"
#include "analyse/worker_analysis.h"

#include <algorithm>
#include <map>

namespace perfgate {
namespace {

// A worker's host range of step `number`, if it has that step.
const Step* step_of(const WorkerAnalysis& w, std::int64_t number) {
  for (const Step& s : w.steps.steps)
    if (s.number == number) return &s;
  return nullptr;
}

// One step's chain: from the late rank's step start to the first collective's last arrival, each
// collective's transfer (its shortest timed duration: what it takes once every rank is there), the
// late rank's work from one collective's end to the next one's last arrival, and the work after
// the last collective of the rank whose step ends last. A stretch that would run backwards
// (collectives of two groups at once) is 0.
JobPathStep step_path(std::int64_t number, std::vector<const MatchedCollective*> collectives,
                      const WorkerList& workers, const std::map<WorkerPosition, std::size_t>& worker_of) {
  std::stable_sort(collectives.begin(), collectives.end(),
                   [](const MatchedCollective* a, const MatchedCollective* b) {
                     return a->latest_start < b->latest_start;
                   });
  JobPathStep out;
  out.step = number;
  out.decided.assign(workers.size(), 0);
  out.collectives = static_cast<std::uint32_t>(collectives.size());
  std::optional<TimeNs> last_end;
  for (const MatchedCollective* c : collectives) {
    auto late = worker_of.find(c->latest);
    if (late == worker_of.end()) continue;
    TimeNs from = last_end.value_or(0);
    if (!last_end) {
      const Step* s = step_of(workers[late->second], number);
      from = s ? s->host_start : c->latest_start;
    }
    TimeNs work = std::max<TimeNs>(0, c->latest_start - from);
    out.decided[late->second] += work;
    out.communication += c->shortest;
    out.length += work + c->shortest;
    last_end = std::max(last_end.value_or(0), c->latest_start + c->shortest);
  }
  if (!last_end) return out;
  std::optional<std::size_t> last_rank;
  TimeNs latest = 0;
  for (std::size_t i = 0; i < workers.size(); ++i)
    if (const Step* s = step_of(workers[i], number); s && (!last_rank || s->host_end > latest)) {
      last_rank = i;
      latest = s->host_end;
    }
  if (last_rank && latest > *last_end) {
    out.decided[*last_rank] += latest - *last_end;
    out.length += latest - *last_end;
  }
  return out;
}

}  // namespace

std::vector<JobPathStep> job_critical_path(const std::vector<MatchedCollective>& matched,
                                           const WorkerList& workers,
                                           const std::vector<WorkerPosition>& positions) {
  std::vector<JobPathStep> out;
  if (workers.size() < 2) return out;
  std::map<WorkerPosition, std::size_t> worker_of;
  for (std::size_t i = 0; i < positions.size(); ++i) worker_of.emplace(positions[i], i);
  std::map<std::int64_t, std::vector<const MatchedCollective*>> by_step;
  for (const MatchedCollective& m : matched)
    if (m.step >= 0) by_step[m.step].push_back(&m);
  for (auto& [number, collectives] : by_step) {
    JobPathStep s = step_path(number, std::move(collectives), workers, worker_of);
    if (s.length > 0) out.push_back(std::move(s));
  }
  return out;
}

void set_job_path_metrics(MetricValues& metrics, const std::vector<JobPathStep>& steps,
                          const std::vector<std::int64_t>& rank_ids) {
  if (steps.empty()) return;
  TimeNs length = 0, communication = 0;
  std::vector<TimeNs> decided(rank_ids.size(), 0);
  for (const JobPathStep& s : steps) {
    length += s.length;
    communication += s.communication;
    for (std::size_t i = 0; i < s.decided.size() && i < decided.size(); ++i) decided[i] += s.decided[i];
  }
  if (length <= 0) return;
  auto us = [](TimeNs t) { return static_cast<double>(t) / 1000.0; };
  metrics.set(Metric::CriticalPathJobLengthUs, us(length) / static_cast<double>(steps.size()));
  metrics.set(Metric::CriticalPathJobCommunicationPct, 100.0 * us(communication) / us(length));
  auto most = std::max_element(decided.begin(), decided.end());  // the first worker on a tie
  if (most == decided.end()) return;
  metrics.set(Metric::CriticalPathJobBoundingRank,
              static_cast<double>(rank_ids[static_cast<std::size_t>(most - decided.begin())]));
  metrics.set(Metric::CriticalPathJobBoundingRankPct, 100.0 * us(*most) / us(length));
}

}  // namespace perfgate
