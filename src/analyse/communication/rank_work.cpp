#include "analyse/communication/rank_work.h"

#include <algorithm>
#include <map>
#include <optional>

#include "analyse/run/worker_hold.h"
#include "analyse/steps/step_stats.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}

const Step* step_of(const WorkerAnalysis& w, std::int64_t number) {
  for (const Step& s : w.steps.steps)
    if (s.number == number) return &s;
  return nullptr;
}

// A rank's steps that have a matched collective: (step number, its step start, its first arrival).
struct StepArrival {
  std::int64_t step;
  TimeNs entry;
  TimeNs arrival;
};

std::vector<StepArrival> step_arrivals(const RankCommunicationRow& row, const WorkerAnalysis& w) {
  std::vector<StepArrival> out;
  for (const auto& [number, arrival] : row.first_arrivals)
    if (const Step* s = step_of(w, number)) out.push_back({number, s->host_start, arrival});
  return out;
}

}  // namespace

void set_rank_entries(RunCollectives& collectives, const WorkerList& workers) {
  std::vector<std::vector<StepArrival>> arrivals;
  std::map<std::int64_t, std::size_t> ranks_in_step;
  for (RankCommunicationRow& row : collectives.ranks) {
    arrivals.emplace_back();
    if (row.worker >= workers.size()) continue;
    look_after_worker(row.worker);
    arrivals.back() = step_arrivals(row, workers[row.worker]);
    for (const StepArrival& a : arrivals.back()) ++ranks_in_step[a.step];
  }
  // The first step that 2 ranks or more entered and met in a collective: the skew the window starts
  // with. Later steps' entries follow from the window's own earlier steps.
  std::optional<std::int64_t> first;
  for (const auto& [step, ranks] : ranks_in_step)
    if (ranks >= 2) {
      first = step;
      break;
    }
  std::optional<TimeNs> earliest;
  for (const std::vector<StepArrival>& rank : arrivals)
    for (const StepArrival& a : rank)
      if (first && a.step == *first) earliest = std::min(earliest.value_or(a.entry), a.entry);
  for (std::size_t i = 0; i < collectives.ranks.size(); ++i) {
    RankCommunicationRow& row = collectives.ranks[i];
    TimeNs own = 0;
    for (const StepArrival& a : arrivals[i]) {
      // A collective that starts before its step on the host is the GPU's clock ahead of it: 0.
      own += std::max<TimeNs>(0, a.arrival - a.entry);
      if (earliest && a.step == *first) row.entered_after = a.entry - *earliest;
    }
    if (!arrivals[i].empty()) row.own_work = own / static_cast<TimeNs>(arrivals[i].size());
  }
}

void set_rank_work_metrics(MetricValues& m, const RunCollectives& collectives, const WorkerList& workers,
                           const std::vector<std::int64_t>& rank_ids) {
  const RankCommunicationRow* most = nullptr;  // own work; the first worker on a tie
  const RankCommunicationRow* least = nullptr;
  const RankCommunicationRow* last_in = nullptr;
  const RankCommunicationRow* first_in = nullptr;
  std::size_t with_work = 0, with_entry = 0;
  for (const RankCommunicationRow& r : collectives.ranks) {
    if (r.worker >= rank_ids.size()) continue;
    if (r.own_work) {
      ++with_work;
      if (!most || *r.own_work > *most->own_work) most = &r;
      if (!least || *r.own_work < *least->own_work) least = &r;
    }
    if (r.entered_after) {
      ++with_entry;
      if (!last_in || *r.entered_after > *last_in->entered_after) last_in = &r;
      if (!first_in || *r.entered_after < *first_in->entered_after) first_in = &r;
    }
  }
  auto rank = [&](const RankCommunicationRow* r) { return static_cast<double>(rank_ids[r->worker]); };
  if (with_work < 2) {
    // No rank's own work is known: the ranks' mean steps are their work (no collective to wait in).
    m.set(Metric::RanksWorkSpreadPct, m.get(Metric::RanksStepSpreadPct));
    m.set(Metric::RanksMostWork, m.get(Metric::RanksSlowest));
    return;
  }
  TimeNs spread = *most->own_work - *least->own_work;
  m.set(Metric::RanksOwnWorkMinUs, us(*least->own_work));
  m.set(Metric::RanksOwnWorkMaxUs, us(*most->own_work));
  if (with_entry >= 2) {
    m.set(Metric::RanksEntrySkewUs, us(*last_in->entered_after - *first_in->entered_after));
    m.set(Metric::RanksFirstEntered, rank(first_in));
    m.set(Metric::RanksLastEntered, rank(last_in));
    if (last_in->own_work) m.set(Metric::RanksLastEnteredOwnWorkUs, us(*last_in->own_work));
    // The ranks came into the step further apart than their work differs: the wait is the skew's,
    // made before the window, and no rank's work is the slowest.
    if (*last_in->entered_after - *first_in->entered_after > spread) return;
  }
  std::vector<double> means;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    look_after_worker(i);
    if (std::optional<double> mean = workers[i].metrics.get(Metric::StepsMeanUs)) means.push_back(*mean);
  }
  std::optional<SummaryStats> s = summarize(means);
  if (!s || s->median <= 0) return;
  m.set(Metric::RanksWorkSpreadPct, 100.0 * us(spread) / s->median);
  m.set(Metric::RanksMostWork, rank(most));
}

}  // namespace perfgate
