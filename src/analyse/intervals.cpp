#include "analyse/intervals.h"

#include <algorithm>

#include "model/stable_order.h"

namespace perfgate {

void merge_in_place(IntervalList& ranges) {
  // Mostly ascending runs: host events thread after thread, kernels in launch order.
  stable_sort_runs(ranges.begin(), ranges.end(), [](Interval a, Interval b) { return a.start < b.start; });
  std::size_t kept = 0;  // ranges[0, kept) is the merged prefix; writing never overtakes reading
  for (Interval r : ranges) {
    if (r.end <= r.start) continue;
    if (kept > 0 && r.start <= ranges[kept - 1].end) {
      ranges[kept - 1].end = std::max(ranges[kept - 1].end, r.end);
    } else {
      ranges[kept++] = r;
    }
  }
  ranges.resize(kept);
  ranges.shrink_to_fit();
}

IntervalList merge(IntervalList ranges) {
  merge_in_place(ranges);
  return ranges;
}

IntervalList intersect(const IntervalList& a, const IntervalList& b) {
  IntervalList out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    TimeNs s = std::max(a[i].start, b[j].start);
    TimeNs e = std::min(a[i].end, b[j].end);
    if (s < e) out.push_back({s, e});
    if (a[i].end < b[j].end)
      ++i;
    else
      ++j;
  }
  return out;
}

TimeNs total_length(const IntervalList& list) {
  TimeNs sum = 0;
  for (Interval r : list) sum += r.end - r.start;
  return sum;
}

IntervalList clip(const IntervalList& list, Interval window) {
  IntervalList out;
  auto it = std::lower_bound(list.begin(), list.end(), window.start,
                             [](Interval r, TimeNs t) { return r.end <= t; });
  for (; it != list.end() && it->start < window.end; ++it) {
    TimeNs s = std::max(it->start, window.start);
    TimeNs e = std::min(it->end, window.end);
    if (s < e) out.push_back({s, e});
  }
  return out;
}

TimeNs length_within(const IntervalList& list, Interval window) {
  TimeNs sum = 0;
  auto it = std::lower_bound(list.begin(), list.end(), window.start,
                             [](Interval r, TimeNs t) { return r.end <= t; });
  for (; it != list.end() && it->start < window.end; ++it) sum += overlap(*it, window);
  return sum;
}

// One sweep over the lists' boundaries inside the span, copying nothing: at each instant the
// first list covering it gives the time to its layer, up to that interval's end or an earlier
// list's next start.
std::vector<TimeNs> exclusive_split(Interval span, const std::vector<Layer>& layers) {
  std::vector<TimeNs> parts(layers.size() + 1, 0);
  struct Cursor {
    IntervalList::const_iterator at, end;
    std::size_t layer;
  };
  std::vector<Cursor> lists;
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (const IntervalList* list : layers[l])
      lists.push_back({std::lower_bound(list->begin(), list->end(), span.start,
                                        [](Interval r, TimeNs t) { return r.end <= t; }),
                       list->end(), l});
  for (TimeNs t = span.start; t < span.end;) {
    std::size_t winner = layers.size();  // none covers t: the last part
    TimeNs next = span.end;
    for (Cursor& c : lists) {
      while (c.at != c.end && c.at->end <= t) ++c.at;
      if (c.at == c.end) continue;
      if (c.at->start <= t) {
        winner = c.layer;
        next = std::min(next, c.at->end);
        break;
      }
      next = std::min(next, c.at->start);
    }
    parts[winner] += next - t;
    t = next;
  }
  return parts;
}

TimeNs union_length_within(const Layer& lists, Interval span) {
  return exclusive_split(span, {lists})[0];
}

}  // namespace perfgate
