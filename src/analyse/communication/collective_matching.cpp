#include "analyse/communication/collective_matching.h"
#include "analyse/worker_analysis.h"

#include <algorithm>

namespace perfgate {

const char* collective_type_name(CollectiveType type) {
  switch (type) {
    case CollectiveType::AllReduce:
      return "all_reduce";
    case CollectiveType::AllGather:
      return "all_gather";
    case CollectiveType::ReduceScatter:
      return "reduce_scatter";
    case CollectiveType::AllToAll:
      return "all_to_all";
    case CollectiveType::Broadcast:
      return "broadcast";
    case CollectiveType::Reduce:
      return "reduce";
    case CollectiveType::SendRecv:
      return "send_recv";
    case CollectiveType::Barrier:
      return "barrier";
    case CollectiveType::Other:
      break;
  }
  return "other";
}

std::optional<double> bus_bandwidth_factor(CollectiveType type, std::int64_t n) {
  if (n < 2) return std::nullopt;
  double ranks = static_cast<double>(n);
  switch (type) {
    case CollectiveType::AllReduce:
      return 2.0 * (ranks - 1) / ranks;
    case CollectiveType::AllGather:
    case CollectiveType::ReduceScatter:
    case CollectiveType::AllToAll:
      return (ranks - 1) / ranks;
    case CollectiveType::Broadcast:
    case CollectiveType::Reduce:
    case CollectiveType::SendRecv:  // point to point: algbw is the bus bandwidth
      return 1.0;
    default:
      return std::nullopt;
  }
}

// Folds another part's ranks into this one (the same group, type, step and index): the size and
// group size the largest any rank recorded, the shortest duration, and the two latest starts (the
// latest with its worker, the first position on a tie), so that any order of folding gives the
// same result.
void MatchedCollective::add(const MatchedCollective& from) {
  group_size = std::max(group_size, from.group_size);
  bytes = std::max(bytes, from.bytes);
  if (from.smallest_bytes != 0)
    smallest_bytes =
        smallest_bytes == 0 ? from.smallest_bytes : std::min(smallest_bytes, from.smallest_bytes);
  ranks += from.ranks;
  if (from.timed == 0) return;
  if (timed == 0) {
    shortest = from.shortest;
    latest_start = from.latest_start;
    latest = from.latest;
    second_start = from.second_start;
    earliest_start = from.earliest_start;
    earliest_end = from.earliest_end;
  } else {
    shortest = std::min(shortest, from.shortest);
    earliest_start = std::min(earliest_start, from.earliest_start);
    earliest_end = std::min(earliest_end, from.earliest_end);
    bool from_later =
        from.latest_start != latest_start ? from.latest_start > latest_start : from.latest < latest;
    TimeNs second = from_later ? latest_start : from.latest_start;
    if (timed >= 2) second = std::max(second, second_start);
    if (from.timed >= 2) second = std::max(second, from.second_start);
    if (from_later) {
      latest_start = from.latest_start;
      latest = from.latest;
    }
    second_start = second;
  }
  timed += from.timed;
  duration_sum += from.duration_sum;
}

void CollectiveMatcher::fold(MatchedCollective m) {
  Key key{m.group, m.type, m.step, m.index};
  auto [it, added] = collectives_.try_emplace(std::move(key));
  if (added)
    it->second = std::move(m);
  else
    it->second.add(m);
}

namespace {

// Extends the rank's last run of calls, or starts one.
void add_span(RankCollectiveSums& r, const std::string& group, const CollectiveCall& c) {
  if (!r.spans.empty()) {
    CollectiveSpan& last = r.spans.back();
    if (last.group == group && last.type == c.type && last.step == c.step &&
        last.first + last.count == c.index) {
      ++last.count;
      return;
    }
  }
  r.spans.push_back({group, c.type, c.step, c.index, 1});
}

}  // namespace

void CollectiveMatcher::add(WorkerPosition position, const CollectiveCalls& calls) {
  RankCollectiveSums r;
  r.position = position;
  r.calls = calls.calls.size();
  bool any_timed = false;
  for (const CollectiveCall& c : calls.calls) {
    const std::string& group = calls.groups[c.group];
    MatchedCollective m;
    m.group = group;
    m.step = c.step;
    m.index = c.index;
    m.type = c.type;
    m.group_size = c.group_size;
    m.bytes = m.smallest_bytes = c.bytes;
    m.ranks = 1;
    if (c.duration >= 0) {
      m.timed = 1;
      m.shortest = m.duration_sum = c.duration;
      m.latest_start = m.earliest_start = c.start;
      m.earliest_end = c.start + c.duration;
      m.latest = position;
      if (!any_timed) r.first_start = c.start;
      any_timed = true;
      r.duration += c.duration;
      r.start_offsets += c.start - r.first_start;
      r.starts.push_back(c.start);
      r.durations.push_back(c.duration);
      add_span(r, group, c);
    }
    fold(std::move(m));
  }
  ranks_.insert_or_assign(position, std::move(r));
}

void CollectiveMatcher::copy_rank(WorkerPosition position) {
  auto node = ranks_.extract(position);
  if (node) ranks_.emplace(position, node.mapped());
}

void CollectiveMatcher::add(const CollectiveSums& part) {
  for (const MatchedCollective& m : part.collectives) fold(m);
  for (const RankCollectiveSums& r : part.ranks) ranks_.insert_or_assign(r.position, r);
}

CollectiveSums CollectiveMatcher::sums() const {
  CollectiveSums out;
  out.collectives.reserve(collectives_.size());
  for (const auto& [key, m] : collectives_) out.collectives.push_back(m);
  out.ranks.reserve(ranks_.size());
  for (const auto& [position, r] : ranks_) out.ranks.push_back(r);
  return out;
}

}  // namespace perfgate

namespace perfgate {
namespace {

using SizeKey = std::tuple<std::string, CollectiveType, std::uint64_t, std::int32_t>;

void add_to_size_row(CollectiveSizeRow& row, const MatchedCollective& m) {
  ++row.collectives;
  row.ranks = std::max(row.ranks, m.timed);
  row.transfer += m.shortest;
  row.wait += m.duration_sum - static_cast<TimeNs>(m.timed) * m.shortest;
  row.late += m.latest_start - m.earliest_start;
}

std::vector<CollectiveSizeRow> size_rows(const std::map<SizeKey, CollectiveSizeRow>& rows) {
  std::vector<CollectiveSizeRow> out;
  for (const auto& [key, row] : rows) out.push_back(row);
  std::stable_sort(out.begin(), out.end(), [](const CollectiveSizeRow& a, const CollectiveSizeRow& b) {
    return a.transfer > b.transfer;
  });
  return out;
}

// Calls that pair up by (group, type, step, index) on several ranks are one collective only when
// they run at one time and move one size: an NCCL collective cannot end on one rank before every
// other rank has started it, so their spans overlap (within the clocks' skew), and an all-reduce,
// all-gather, reduce-scatter, broadcast or reduce has one message size on every rank (an
// all-to-all's or a send's may differ). Otherwise they are traces of different captures, or a
// sampled trace's calls that do not correspond.
enum class Pairing { Alone, Matched, Disjoint, SizesDiffer };

bool one_size_on_every_rank(CollectiveType type) {
  return type == CollectiveType::AllReduce || type == CollectiveType::AllGather ||
         type == CollectiveType::ReduceScatter || type == CollectiveType::Broadcast ||
         type == CollectiveType::Reduce;
}

Pairing pairing(const MatchedCollective& m) {
  if (m.timed < 2) return Pairing::Alone;
  if (one_size_on_every_rank(m.type) && m.smallest_bytes != 0 && m.smallest_bytes != m.bytes)
    return Pairing::SizesDiffer;
  if (m.latest_start > m.earliest_end + kCollectiveClockSkewNs) return Pairing::Disjoint;
  return Pairing::Matched;
}

// A collective timed on one rank: the bytes it would move on the bus and its duration, where its
// size and group are known.
void add_alone(RunCollectives& out, const MatchedCollective& m) {
  if (m.timed != 1 || m.bytes == 0) return;
  std::optional<double> f = bus_bandwidth_factor(m.type, m.group_size);
  if (!f) return;
  out.alone_bus_bytes += static_cast<double>(m.bytes) * *f;
  out.alone_duration += m.duration_sum;
}

}  // namespace

RunCollectives CollectiveMatcher::finish(const std::vector<WorkerPosition>& positions) const {
  RunCollectives out;
  std::map<WorkerPosition, std::size_t> worker_of;
  for (std::size_t i = 0; i < positions.size(); ++i) worker_of.emplace(positions[i], i);
  std::map<SizeKey, CollectiveSizeRow> sizes;
  std::map<WorkerPosition, std::pair<std::uint64_t, TimeNs>> last;  // arrivals and delay
  for (const auto& [key, m] : collectives_) {
    Pairing how = pairing(m);
    out.most_ranks = std::max(out.most_ranks, how == Pairing::Matched ? m.timed : std::min(m.timed, 1u));
    out.disjoint += how == Pairing::Disjoint;
    out.sizes_differ += how == Pairing::SizesDiffer;
    if (how == Pairing::Alone) add_alone(out, m);
    if (how != Pairing::Matched) continue;
    ++out.matched;
    auto [it, added] = sizes.try_emplace(SizeKey{m.group, m.type, m.bytes, m.group_size});
    if (added) {
      it->second.group = m.group;
      it->second.type = m.type;
      it->second.group_size = m.group_size;
      it->second.bytes = m.bytes;
    }
    add_to_size_row(it->second, m);
    if (m.latest_start == m.second_start) continue;  // a tie: no rank came last
    auto& [arrivals, delay] = last[m.latest];
    ++arrivals;
    delay += m.latest_start - m.second_start;
  }
  out.by_size = size_rows(sizes);
  if (out.most_ranks < 2) return out;
  for (const auto& [position, r] : ranks_) {
    auto w = worker_of.find(position);
    if (w == worker_of.end()) continue;
    out.ranks.push_back(rank_row(r, w->second));
    if (auto l = last.find(position); l != last.end())
      std::tie(out.ranks.back().last_arrivals, out.ranks.back().delay) = l->second;
  }
  std::sort(out.ranks.begin(), out.ranks.end(),
            [](const RankCommunicationRow& a, const RankCommunicationRow& b) { return a.worker < b.worker; });
  return out;
}

std::vector<MatchedCollective> CollectiveMatcher::matched() const {
  std::vector<MatchedCollective> out;
  for (const auto& [key, m] : collectives_)
    if (pairing(m) == Pairing::Matched) out.push_back(m);
  return out;
}

// A rank's row over its calls of matched collectives: their durations, transfers (each one's
// shortest duration) and how much later than the rank the last one arrived.
RankCommunicationRow CollectiveMatcher::rank_row(const RankCollectiveSums& r, std::size_t worker) const {
  RankCommunicationRow row;
  row.worker = worker;
  row.collectives = r.calls;
  std::map<std::int64_t, TimeNs> first;  // by step: its earliest start of a matched collective
  std::size_t k = 0;                     // the call's place in r.starts and r.durations
  for (const CollectiveSpan& s : r.spans)
    for (std::uint32_t i = s.first; i < s.first + s.count; ++i, ++k) {
      auto c = collectives_.find(Key{s.group, s.type, s.step, i});
      if (c == collectives_.end() || k >= r.durations.size() || pairing(c->second) != Pairing::Matched)
        continue;
      row.duration += r.durations[k];
      row.transfer += c->second.shortest;
      row.late += c->second.latest_start - r.starts[k];
      ++row.matched;
      auto [at, added] = first.try_emplace(s.step, r.starts[k]);
      if (!added) at->second = std::min(at->second, r.starts[k]);
    }
  row.wait = row.duration - row.transfer;
  row.first_arrivals.assign(first.begin(), first.end());
  return row;
}

namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}

// Bus bandwidth over every matched collective of a known size and type: the bytes each would move
// at the bus bandwidth (S x factor), over their transfer latencies.
std::optional<double> bus_bandwidth(const std::vector<CollectiveSizeRow>& rows, std::uint32_t most_ranks) {
  double bus_bytes = 0;
  TimeNs time = 0;
  for (const CollectiveSizeRow& r : rows) {
    std::optional<double> f = bus_bandwidth_factor(r.type, r.group_size > 0 ? r.group_size : most_ranks);
    if (!f || r.bytes == 0) continue;
    bus_bytes += static_cast<double>(r.bytes) * static_cast<double>(r.collectives) * *f;
    time += r.transfer;
  }
  if (time <= 0) return std::nullopt;
  return bus_bytes / static_cast<double>(time);  // bytes per ns = GB/s
}

// A lower bound of the bus bandwidth from collectives timed on one rank: their durations include
// the waiting for the other ranks that one trace cannot tell from the transfer (TraceLens's NCCL
// analyser reports the same per rank, labelled as including waiting).
std::optional<double> bus_bandwidth_lower_bound(const RunCollectives& c) {
  if (c.matched > 0 || c.alone_duration <= 0 || c.alone_bus_bytes <= 0) return std::nullopt;
  return c.alone_bus_bytes / static_cast<double>(c.alone_duration);
}

}  // namespace

void set_collective_metrics(MetricValues& m, const RunCollectives& c,
                            const std::vector<std::int64_t>& rank_ids) {
  m.set(Metric::CollectivesRanksTimed, static_cast<double>(c.most_ranks));
  m.set(Metric::CollectivesMatched, static_cast<double>(c.matched));
  m.set(Metric::CollectivesBusBandwidthLowerBoundGbps, bus_bandwidth_lower_bound(c));
  if (c.most_ranks < 2 || c.ranks.empty()) return;
  TimeNs duration = 0, wait = 0, transfer = 0, all_reduce = 0;
  for (const RankCommunicationRow& r : c.ranks) {
    duration += r.duration;
    wait += r.wait;
  }
  for (const CollectiveSizeRow& r : c.by_size) {
    transfer += r.transfer;
    if (r.type == CollectiveType::AllReduce) all_reduce += r.transfer;
  }
  if (duration > 0)
    m.set(Metric::CollectivesWaitPct, 100.0 * static_cast<double>(wait) / static_cast<double>(duration));
  m.set(Metric::CollectivesBusBandwidthGbps, bus_bandwidth(c.by_size, c.most_ranks));
  if (transfer > 0)
    m.set(Metric::CollectivesAllReduceTransferPct,
          100.0 * static_cast<double>(all_reduce) / static_cast<double>(transfer));
  // The straggler: the most last arrivals, the first worker on a tie.
  auto most = std::max_element(c.ranks.begin(), c.ranks.end(), [](const auto& a, const auto& b) {
    return a.last_arrivals != b.last_arrivals ? a.last_arrivals < b.last_arrivals : a.worker > b.worker;
  });
  if (most->last_arrivals == 0 || c.matched == 0) return;
  if (most->worker < rank_ids.size())
    m.set(Metric::CollectivesStragglerRank, static_cast<double>(rank_ids[most->worker]));
  m.set(Metric::CollectivesStragglerLastPct,
        100.0 * static_cast<double>(most->last_arrivals) / static_cast<double>(c.matched));
  m.set(Metric::CollectivesStragglerDelayUs, us(most->delay) / static_cast<double>(most->last_arrivals));
}

}  // namespace perfgate
