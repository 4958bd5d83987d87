#include "analyse/steps/inferred.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace perfgate {
namespace {

// A family's search for its longest run stops after this many values examined (a hostile trace
// could otherwise make it quadratic); the family is then not chosen. Real families need a few
// passes over their units.
constexpr std::uint64_t kMaxExamined = std::uint64_t{1} << 26;

struct Qualifying {
  std::uint32_t thread = 0;
  std::string family;
  InferredKind kind = InferredKind::Annotation;
  std::string key_op;
  std::vector<InferredUnit> units;
  std::uint32_t set_aside = 0;
  double work = 0;
  TimeNs period = 0;  // the run's span over its units
};

struct TopRange {
  TimeNs start = 0;
  TimeNs end = 0;
  StringId name = kNoString;
  InferredKind kind = InferredKind::Annotation;
};

double median_of(std::vector<std::uint64_t> values) {
  std::size_t n = values.size(), mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double upper = static_cast<double>(values[mid]);
  if (n % 2 == 1) return upper;
  double lower = static_cast<double>(
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)));
  return (lower + upper) / 2;
}

// The values of a window of `work` [first, last), counted by rank among its distinct values (a
// Fenwick tree): any order statistic of the window in O(log n), as the window's ends move one value at a
// time. Written here: no Debian library has one, and __gnu_pbds's order-statistics tree allocates a node
// per value.
class WindowOrder {
 public:
  explicit WindowOrder(const std::vector<std::uint64_t>& work) : values_(work) {
    std::sort(values_.begin(), values_.end());
    values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
    rank_.reserve(work.size());
    for (std::uint64_t w : work)
      rank_.push_back(
          static_cast<std::uint32_t>(std::lower_bound(values_.begin(), values_.end(), w) - values_.begin()));
    counts_.assign(values_.size() + 1, 0);
    for (top_ = 1; top_ * 2 <= values_.size();) top_ *= 2;
  }
  void add(std::size_t k) { change(rank_[k], 1); }
  void remove(std::size_t k) { change(rank_[k], -1); }
  // The k-th smallest value in the window (k from 1).
  std::uint64_t kth(std::size_t k) const {
    std::size_t at = 0;
    for (std::size_t step = top_; step > 0; step /= 2)
      if (at + step < counts_.size() && static_cast<std::size_t>(counts_[at + step]) < k) {
        at += step;
        k -= static_cast<std::size_t>(counts_[at]);
      }
    return values_[at];  // tree position at + 1 holds rank at
  }

 private:
  void change(std::uint32_t rank, std::int32_t by) {
    for (std::size_t i = rank + 1; i < counts_.size(); i += i & (~i + 1)) counts_[i] += by;
  }
  std::vector<std::uint64_t> values_;  // the distinct values, ascending
  std::vector<std::uint32_t> rank_;    // per index of work: its value's rank
  std::vector<std::int32_t> counts_;   // Fenwick tree of the window's counts by rank
  std::size_t top_ = 1;
};

// Whether every value of the window (`window` holds exactly [first, last)) lies within 5% of its median
// (median_of's): the values farthest from the median are its smallest and largest.
bool uniform(const WindowOrder& window, std::size_t first, std::size_t last) {
  std::size_t n = last - first, mid = n / 2;
  double upper = static_cast<double>(window.kth(mid + 1));
  double median = n % 2 == 1 ? upper : (static_cast<double>(window.kth(mid)) + upper) / 2;
  if (median <= 0) return false;
  for (std::uint64_t w : {window.kth(1), window.kth(n)})
    if (std::abs(static_cast<double>(w) - median) > 0.05 * median) return false;
  return true;
}

// For each start, the end of the longest run whose largest value is within 1.05 / 0.95 of its smallest
// (and no value 0): a qualifying run must be such a run, and its sub-runs are too, so the ends only grow.
std::vector<std::size_t> bounded_ends(const std::vector<std::uint64_t>& work) {
  std::size_t n = work.size();
  std::vector<std::size_t> ends(n);
  std::deque<std::size_t> lows, highs;  // indices of increasing minima and decreasing maxima
  std::size_t j = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (j < i) j = i, lows.clear(), highs.clear();
    while (j < n && work[j] > 0) {
      std::uint64_t lo = lows.empty() ? work[j] : std::min(work[lows.front()], work[j]);
      std::uint64_t hi = highs.empty() ? work[j] : std::max(work[highs.front()], work[j]);
      if (static_cast<double>(hi) * 0.95 > static_cast<double>(lo) * 1.05 * (1 + 1e-9)) break;
      while (!lows.empty() && work[lows.back()] >= work[j]) lows.pop_back();
      while (!highs.empty() && work[highs.back()] <= work[j]) highs.pop_back();
      lows.push_back(j);
      highs.push_back(j);
      ++j;
    }
    ends[i] = j;
    if (!lows.empty() && lows.front() == i) lows.pop_front();
    if (!highs.empty() && highs.front() == i) highs.pop_front();
  }
  return ends;
}

// The --key-op regex of a family: the opening range's name, escaped, each run of digits as \d+.
std::string key_op_of(std::string_view name) {
  std::string out = "^";
  for (std::size_t i = 0; i < name.size();) {
    if (name[i] >= '0' && name[i] <= '9') {
      while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
      out += "\\d+";
      continue;
    }
    char c = name[i++];
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out + "$";
}

// The top-level ranges (ops and annotations; Python functions are looked through) of each thread.
std::vector<std::vector<TopRange>> top_ranges(const Profile& p) {
  std::vector<std::vector<TopRange>> top(p.threads.size());
  std::vector<TimeNs> open_until(p.threads.size(), std::numeric_limits<TimeNs>::min());
  for (const HostEvent& e : p.host_events) {
    if (e.kind == HostKind::PythonFunction || e.thread >= top.size() || e.start < open_until[e.thread])
      continue;
    open_until[e.thread] = e.end;
    top[e.thread].push_back({e.start, e.end, e.name,
                             e.kind == HostKind::Annotation ? InferredKind::Annotation : InferredKind::Op});
  }
  return top;
}

// The work of each thread's units: start times of the runtime calls that launched GPU work, or (a
// worker that launched none) of the thread's host ranges.
std::vector<std::vector<TimeNs>> work_starts(const Profile& p, const Attribution& a, bool& host_work) {
  std::vector<std::vector<TimeNs>> starts(p.threads.size());
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r)
    if (r + 1 < a.activity_offsets.size() && !a.launched_by(r).empty() &&
        p.runtime_calls[r].thread < starts.size())
      starts[p.runtime_calls[r].thread].push_back(p.runtime_calls[r].start);
  host_work = std::all_of(starts.begin(), starts.end(), [](const auto& s) { return s.empty(); });
  if (host_work)
    for (const HostEvent& e : p.host_events)
      if (e.kind != HostKind::PythonFunction && e.thread < starts.size()) starts[e.thread].push_back(e.start);
  for (auto& s : starts) std::sort(s.begin(), s.end());
  return starts;
}

void qualify_thread(const Profile& p, std::uint32_t thread, const std::vector<TopRange>& top,
                    const std::vector<TimeNs>& work_at, std::vector<Qualifying>& out) {
  if (top.size() < 4) return;
  TimeNs span = top.back().end - top.front().start;
  if (span <= 0) return;
  // Families in order of first occurrence: (family name, kind) → occurrences.
  // A name's family is found once per (name, kind): names repeat (each op's, each layer's range).
  std::unordered_map<std::string, std::uint32_t> family_index;
  std::unordered_map<std::uint64_t, std::uint32_t> family_of_name;  // name << 1 | is-op -> family
  std::vector<std::pair<std::string, InferredKind>> families;
  std::vector<std::vector<std::uint32_t>> occurrences;
  for (std::uint32_t k = 0; k < top.size(); ++k) {
    const TopRange& t = top[k];
    std::uint64_t name_key = std::uint64_t{t.name} << 1 | (t.kind == InferredKind::Op ? 1 : 0);
    auto [known, fresh_name] = family_of_name.try_emplace(name_key, 0);
    if (fresh_name) {
      std::string family = family_name(p.str(t.name));
      auto [f, fresh] = family_index.try_emplace(family + (t.kind == InferredKind::Op ? "\x01op" : "\x01ann"),
                                                 static_cast<std::uint32_t>(families.size()));
      if (fresh) {
        families.emplace_back(std::move(family), t.kind);
        occurrences.emplace_back();
      }
      known->second = f->second;
    }
    occurrences[known->second].push_back(k);
  }
  for (std::size_t f = 0; f < families.size(); ++f) {
    const auto& occ = occurrences[f];
    if (occ.size() < 4) continue;
    if (top[occ.back()].start - top[occ.front()].start < (span + 1) / 2) continue;  // cannot cover half
    std::vector<std::uint64_t> work(occ.size() - 1);
    for (std::size_t u = 0; u + 1 < occ.size(); ++u) {
      auto lo = std::lower_bound(work_at.begin(), work_at.end(), top[occ[u]].start);
      auto hi = std::lower_bound(work_at.begin(), work_at.end(), top[occ[u + 1]].start);
      work[u] = static_cast<std::uint64_t>(hi - lo);
    }
    auto [first, last] = longest_uniform_run(work);
    if (last - first < 3) continue;
    TimeNs covered = top[occ[last]].start - top[occ[first]].start;
    if (covered < (span + 1) / 2) continue;
    Qualifying q;
    q.thread = thread;
    q.family = families[f].first;
    q.kind = families[f].second;
    q.key_op = key_op_of(p.str(top[occ[first]].name));
    for (std::size_t u = first; u < last; ++u)
      q.units.push_back({std::string(p.str(top[occ[u]].name)), top[occ[u]].start, top[occ[u + 1]].start});
    q.set_aside = static_cast<std::uint32_t>(work.size() - (last - first));
    q.work = median_of({work.begin() + static_cast<std::ptrdiff_t>(first),
                        work.begin() + static_cast<std::ptrdiff_t>(last)});
    q.period = covered;
    out.push_back(std::move(q));
  }
}

}  // namespace

const char* inferred_kind_name(InferredKind kind) {
  return kind == InferredKind::Op ? "op" : "annotation";
}

std::string family_name(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    if (name[i] >= '0' && name[i] <= '9') {
      while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
      out += '#';
    } else {
      out += name[i++];
    }
  }
  return out;
}

std::pair<std::size_t, std::size_t> longest_uniform_run(const std::vector<std::uint64_t>& work) {
  std::pair<std::size_t, std::size_t> best{0, 0};
  std::vector<std::size_t> ends = bounded_ends(work);
  WindowOrder window(work);
  std::size_t end = 0;  // the window holds [i, end)
  // The values a check by definition reads (its run's length): the same cap as sorting each run.
  std::uint64_t examined = 0;
  for (std::size_t i = 0; i < work.size(); ++i) {
    std::size_t longest = best.second - best.first;
    if (ends[i] > i + longest)
      while (end < ends[i]) window.add(end++);  // ends never shrink: the window only grows here
    for (std::size_t j = ends[i]; j > i + longest; --j) {
      if (examined > kMaxExamined) return {0, 0};
      examined += j - i;
      while (end > j) window.remove(--end);
      if (uniform(window, i, j)) {
        best = {i, j};
        break;
      }
    }
    if (end > i)
      window.remove(i);
    else
      end = i + 1;
  }
  return best;
}

std::optional<InferredIterations> infer_iterations(const Profile& p, const Attribution& a) {
  bool host_work = false;
  std::vector<std::vector<TimeNs>> work_at = work_starts(p, a, host_work);
  std::vector<std::vector<TopRange>> top = top_ranges(p);
  std::vector<Qualifying> found;
  for (std::uint32_t t = 0; t < top.size(); ++t) qualify_thread(p, t, top[t], work_at[t], found);
  if (found.empty()) return std::nullopt;
  // The coarsest: the fewest units, the longest period among them; then, among the families within
  // one unit and 10% of its period, annotations before ops, the name in byte order, the thread.
  auto unit_period = [](const Qualifying& q) {
    return static_cast<double>(q.period) / static_cast<double>(q.units.size());
  };
  std::size_t fewest = found.front().units.size();
  for (const Qualifying& q : found) fewest = std::min(fewest, q.units.size());
  double coarsest = 0;
  for (const Qualifying& q : found)
    if (q.units.size() == fewest) coarsest = std::max(coarsest, unit_period(q));
  const Qualifying* chosen = nullptr;
  for (const Qualifying& q : found) {
    if (q.units.size() > fewest + 1 || std::abs(unit_period(q) - coarsest) > 0.1 * coarsest) continue;
    auto key = [](const Qualifying& x) { return std::tie(x.kind, x.family, x.thread); };
    if (!chosen || key(q) < key(*chosen)) chosen = &q;
  }
  InferredIterations out;
  out.family = chosen->family;
  out.kind = chosen->kind;
  out.key_op = chosen->key_op;
  out.thread = chosen->thread;
  out.units = chosen->units;
  out.set_aside = chosen->set_aside;
  out.work_per_unit = chosen->work;
  out.host_work = host_work;
  return out;
}

}  // namespace perfgate
