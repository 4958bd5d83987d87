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

std::vector<TimeNs> exclusive_split(Interval span, const std::vector<Layer>& layers) {
  ExclusiveSplitter splitter(layers);
  std::span<const TimeNs> parts = splitter.split(span);
  return {parts.begin(), parts.end()};
}

ExclusiveSplitter::ExclusiveSplitter(std::span<const Layer> layers)
    : parts_(layers.size() + 1, 0), quiet_until_(1, 0) {
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (const IntervalList* list : layers[l]) {
      const Interval* begin = list->data();
      lists_.push_back({begin, begin, begin + list->size(), l});
    }
  quiet_until_.resize(lists_.size() + 1);
}

// At each instant the first list covering it gives the time to its layer, up to that interval's
// end or an earlier list's next start. quiet_until_[k] (non-increasing in k) holds while time has
// not reached it, since a list's cursor only moves forward: a scan starts at the deepest such k.
std::span<const TimeNs> ExclusiveSplitter::split(Interval span) {
  std::fill(parts_.begin(), parts_.end(), 0);
  for (Cursor& c : lists_) {
    const Interval* from = span.start < last_end_ ? c.begin : c.at;
    c.at = std::lower_bound(from, c.end, span.start, [](Interval r, TimeNs t) { return r.end <= t; });
  }
  last_end_ = span.end;
  std::size_t none = parts_.size() - 1;
  quiet_until_[0] = span.end;
  std::size_t known = 0;  // quiet_until_[0, known] are valid
  for (TimeNs t = span.start; t < span.end;) {
    std::size_t k = known;
    while (quiet_until_[k] <= t) --k;  // quiet_until_[0] is the span's end, past t
    std::size_t winner = none;
    TimeNs next = quiet_until_[k];
    for (; k < lists_.size(); ++k) {
      Cursor& c = lists_[k];
      while (c.at != c.end && c.at->end <= t) ++c.at;
      if (c.at != c.end) {
        if (c.at->start <= t) {
          winner = c.layer;
          next = std::min(next, c.at->end);
          break;
        }
        next = std::min(next, c.at->start);
      }
      quiet_until_[k + 1] = next;
    }
    known = k;
    parts_[winner] += next - t;
    t = next;
  }
  return parts_;
}

TimeNs union_length_within(const Layer& lists, Interval span) {
  ExclusiveSplitter splitter({&lists, 1});
  return splitter.split(span)[0];
}

}  // namespace perfgate
