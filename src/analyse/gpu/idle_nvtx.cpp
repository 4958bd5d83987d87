#include "analyse/gpu/idle_nvtx.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include <fmt/format.h>
#include <boost/unordered/unordered_flat_map.hpp>

namespace perfgate {
namespace {

// `gap` less the intervals of the (merged, sorted) lists.
IntervalList subtract(Interval gap, std::span<const Layer> lists) {
  IntervalList cover;
  for (const Layer& layer : lists)
    for (const IntervalList* list : layer) {
      auto it = std::lower_bound(list->begin(), list->end(), gap.start,
                                 [](const Interval& i, TimeNs t) { return i.end <= t; });
      for (; it != list->end() && it->start < gap.end; ++it) cover.push_back(*it);
    }
  merge_in_place(cover);
  IntervalList out;
  TimeNs at = gap.start;
  for (const Interval& c : cover) {
    if (c.start > at) out.push_back({at, std::min(c.start, gap.end)});
    at = std::max(at, c.end);
    if (at >= gap.end) break;
  }
  if (at < gap.end) out.push_back({at, gap.end});
  return out;
}

// The length of sorted disjoint `list` within [start, end), by prefix sums: O(log n) a range.
class LengthWithin {
 public:
  explicit LengthWithin(const IntervalList& list) : list_(list), before_(list.size() + 1, 0) {
    for (std::size_t i = 0; i < list.size(); ++i) before_[i + 1] = before_[i] + (list[i].end - list[i].start);
  }
  TimeNs operator()(Interval r) const {
    auto first = std::lower_bound(list_.begin(), list_.end(), r.start,
                                  [](const Interval& i, TimeNs t) { return i.end <= t; });
    auto last =
        std::lower_bound(first, list_.end(), r.end, [](const Interval& i, TimeNs t) { return i.start < t; });
    if (first == last) return 0;
    std::size_t a = static_cast<std::size_t>(first - list_.begin());
    std::size_t b = static_cast<std::size_t>(last - list_.begin());
    TimeNs total = before_[b] - before_[a];
    total -= std::max<TimeNs>(0, r.start - first->start);   // the first one's part before the range
    total -= std::max<TimeNs>(0, (last - 1)->end - r.end);  // the last one's part after it
    return total;
  }

 private:
  const IntervalList& list_;
  std::vector<TimeNs> before_;
};

}  // namespace

std::vector<std::uint32_t> nvtx_ranges(const Profile& p, const std::vector<std::uint32_t>& step_markers) {
  std::vector<std::uint32_t> out;
  if (p.info.step_marking != StepMarking::NvtxRanges) return out;
  std::unordered_set<std::uint32_t> steps(step_markers.begin(), step_markers.end());
  for (std::uint32_t e = 0; e < p.host_events.size(); ++e)
    if (p.host_events[e].kind == HostKind::Annotation && !steps.count(e)) out.push_back(e);
  return out;
}

void NvtxIdle::add(Interval gap, std::span<const Layer> before) {
  for (const Interval& i : subtract(gap, before)) uncovered_.push_back(i);
}

void NvtxIdle::name_longest(IdleSums& sums) const {
  if (uncovered_.empty() || ranges_.empty()) return;
  IntervalList idle = merge(uncovered_);  // the GPUs' gaps may overlap one another
  LengthWithin within(idle);
  // Per range (by its place in ranges_): its idle time, less its child ranges'. Dense arrays, not a
  // hash map: a large export has hundreds of thousands of ranges.
  std::vector<std::uint32_t> place(p_.host_events.size(), kNone);
  for (std::size_t i = 0; i < ranges_.size(); ++i) place[ranges_[i]] = static_cast<std::uint32_t>(i);
  std::vector<TimeNs> own(ranges_.size());
  for (std::size_t i = 0; i < ranges_.size(); ++i)
    own[i] = within({p_.host_events[ranges_[i]].start, p_.host_events[ranges_[i]].end});
  const std::vector<TimeNs> whole = own;
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    std::uint32_t parent = p_.host_events[ranges_[i]].parent;
    if (parent != kNone && place[parent] != kNone) own[place[parent]] -= whole[i];
  }
  // Per name: its ranges' own idle time and its longest instance (the earliest of equals). A flat
  // table, not a tree: a look-up per range.
  struct NameIdle {
    TimeNs total = 0;
    TimeNs longest = 0;
    std::uint32_t instance = 0;
  };
  boost::unordered_flat_map<StringId, NameIdle> by_name;
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    std::uint32_t e = ranges_[i];
    TimeNs t = own[i];
    NameIdle& name = by_name[p_.host_events[e].name];
    name.total += t;
    if (t > name.longest || (t == name.longest && e < name.instance)) {
      name.longest = t;
      name.instance = e;
    }
  }
  // The name with the most; of equals, the one interned first.
  auto top = by_name.begin();
  for (auto it = by_name.begin(); it != by_name.end(); ++it)
    if (it->second.total > top->second.total ||
        (it->second.total == top->second.total && it->first < top->first))
      top = it;
  if (top->second.total <= 0) return;
  std::uint32_t outer = top->second.instance;
  for (std::uint32_t e = p_.host_events[outer].parent; e != kNone; e = p_.host_events[e].parent)
    if (place[e] != kNone) outer = e;
  sums.nvtx_range = std::string(p_.str(top->first));
  sums.nvtx_outermost = std::string(p_.str(p_.host_events[outer].name));
  sums.nvtx_range_idle = top->second.total;
}

std::optional<Note> nvtx_idle_note(const IdleSums& idle) {
  TimeNs total = 0;
  for (TimeNs t : idle.by_cause) total += t;
  TimeNs nvtx = idle.by_cause[static_cast<std::size_t>(IdleCause::Nvtx)];
  if (total <= 0 || idle.nvtx_range.empty() || static_cast<double>(nvtx) < 0.05 * static_cast<double>(total))
    return std::nullopt;
  auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
  // The outermost range is named where it is not the range itself.
  std::string_view outermost =
      idle.nvtx_outermost == idle.nvtx_range ? std::string_view() : std::string_view(idle.nvtx_outermost);
  return note<NoteId::gpu_idle_in_nvtx>(
      arg<"ms">(ms(nvtx)), arg<"pct">(100.0 * static_cast<double>(nvtx) / static_cast<double>(total)),
      arg<"range">(idle.nvtx_range), arg<"range_ms">(ms(idle.nvtx_range_idle)), arg<"outermost">(outermost));
}

}  // namespace perfgate
