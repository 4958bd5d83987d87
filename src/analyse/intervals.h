// Interval arithmetic on time ranges: the basis of every "union of activity" metric.
// An IntervalList is sorted, disjoint and has no empty interval once normalised by merge().
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "model/profile.h"

namespace perfgate {

struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
};
using IntervalList = std::vector<Interval>;

IntervalList merge(IntervalList ranges);  // any ranges in; sorted disjoint union out
void merge_in_place(IntervalList& ranges);

// Builds a union without keeping the raw intervals: one added at or after the last one's start
// merges into it. Intervals out of order (another thread's, another stream's) are kept and
// merged by take(), so any order is correct and sorted runs stay small.
class SortedUnion {
 public:
  explicit SortedUnion(std::size_t most = 0) { list_.reserve(most); }  // untouched pages cost nothing
  void add(Interval r) {
    if (r.end <= r.start) return;
    if (!list_.empty() && r.start >= list_.back().start && r.start <= list_.back().end) {
      list_.back().end = std::max(list_.back().end, r.end);
      return;
    }
    if (!list_.empty() && r.start < list_.back().start) sorted_ = false;
    list_.push_back(r);
  }
  IntervalList take() {
    if (!sorted_) merge_in_place(list_);
    sorted_ = true;
    return std::move(list_);
  }

 private:
  IntervalList list_;
  bool sorted_ = true;
};
IntervalList intersect(const IntervalList& a, const IntervalList& b);
TimeNs total_length(const IntervalList& list);
IntervalList clip(const IntervalList& list, Interval window);
TimeNs length_within(const IntervalList& list, Interval window);
// A layer of exclusive_split: the union of one or more merged lists, never built as one list. Held
// inline (no layer has more than four lists): a tiny rank's analysis made some fifty of them.
using Layer = boost::container::small_vector<const IntervalList*, 4>;
// Splits `span` exclusively among `layers` in priority order: result[i] is the time of `span`
// covered by layer i and by no earlier layer; the last entry is the time covered by none.
std::vector<TimeNs> exclusive_split(Interval span, const std::vector<Layer>& layers);

// exclusive_split of many spans over the same layers (issue 77): one sweep over the boundaries,
// nothing allocated a span. Its cursors carry from one span to the next (a span that starts at
// or after the last one's end searches forward from where that one ended), and at each instant
// only the lists below those known to cover nothing until a later time are looked at, so a long
// run of one low-priority list's intervals costs one step each, not one step per list.
class ExclusiveSplitter {
 public:
  explicit ExclusiveSplitter(std::span<const Layer> layers);
  // The parts of `span`, as exclusive_split gives them; valid until the next call.
  std::span<const TimeNs> split(Interval span);

 private:
  struct Cursor {
    const Interval* begin;
    const Interval* at;
    const Interval* end;
    std::size_t layer;
  };
  // Inline up to the sizes the analysis uses (eight layers of at most sixteen lists): a splitter is
  // made per step and per device, and each of its vectors was an allocation.
  boost::container::small_vector<Cursor, 16> lists_;
  boost::container::small_vector<TimeNs, 9> parts_;
  boost::container::small_vector<TimeNs, 17>
      quiet_until_;      // [k]: lists [0, k) cover nothing before this time
  TimeNs last_end_ = 0;  // of the last span: no cursor has passed an interval that ends after it
};
// The length of `span` covered by the union of the lists.
TimeNs union_length_within(const Layer& lists, Interval span);

inline TimeNs overlap(Interval a, Interval b) {
  TimeNs s = a.start > b.start ? a.start : b.start;
  TimeNs e = a.end < b.end ? a.end : b.end;
  return e > s ? e - s : 0;
}

}  // namespace perfgate
