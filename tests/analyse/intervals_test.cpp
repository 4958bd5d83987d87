#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "analyse/intervals.h"

namespace perfgate {
namespace {

bool same(const IntervalList& a, const IntervalList& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].start != b[i].start || a[i].end != b[i].end) return false;
  return true;
}

TEST(Intervals, MergeSortsJoinsTouchingAndDropsEmpty) {
  EXPECT_TRUE(same(merge({{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 20}}), {{0, 4}, {5, 12}}));
  EXPECT_TRUE(merge({}).empty());
}

// Lists of 1 to 100 ascending runs (as host events are, thread after thread), some beyond the number
// of runs that are merged rather than sorted: the union equals an instant-by-instant count.
TEST(Intervals, MergeOfAscendingRunsMatchesAnInstantByInstantUnion) {
  std::mt19937 random(11);
  for (int runs : {1, 2, 3, 5, 8, 63, 64, 65, 100}) {
    IntervalList list;
    for (int run = 0; run < runs; ++run) {
      TimeNs start = random() % 50;
      for (int i = 0; i < 1 + static_cast<int>(random() % 6); ++i) {
        start += static_cast<TimeNs>(random() % 30);
        list.push_back({start, start + static_cast<TimeNs>(random() % 12)});  // some empty
      }
    }
    std::vector<bool> covered(400, false);
    for (Interval r : list)
      for (TimeNs t = r.start; t < r.end; ++t) covered[static_cast<std::size_t>(t)] = true;
    IntervalList expected;
    for (std::size_t t = 0; t < covered.size(); ++t) {
      if (!covered[t]) continue;
      auto at = static_cast<TimeNs>(t);
      if (!expected.empty() && expected.back().end == at)
        expected.back().end = at + 1;
      else
        expected.push_back({at, at + 1});
    }
    EXPECT_TRUE(same(merge(list), expected)) << runs << " runs";
  }
}

TEST(Intervals, IntersectClip) {
  IntervalList a{{0, 10}, {20, 30}};
  IntervalList b{{5, 25}};
  EXPECT_TRUE(same(intersect(a, b), {{5, 10}, {20, 25}}));
  EXPECT_TRUE(same(clip(a, {8, 22}), {{8, 10}, {20, 22}}));
  EXPECT_EQ(length_within(a, {8, 22}), 4);
  EXPECT_EQ(total_length(a), 20);
  EXPECT_EQ(overlap({0, 10}, {5, 20}), 5);
  EXPECT_EQ(overlap({0, 10}, {10, 20}), 0);
}

TEST(Intervals, ExclusiveSplitGivesEachInstantToTheFirstLayer) {
  IntervalList first{{10, 30}}, second{{20, 50}}, third{{0, 100}};
  std::vector<TimeNs> parts = exclusive_split({0, 100}, {{&first}, {&second}, {&third}});
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], 20);  // [10,30]
  EXPECT_EQ(parts[1], 20);  // [30,50]
  EXPECT_EQ(parts[2], 60);  // the rest of [0,100]
  EXPECT_EQ(parts[3], 0);
  std::vector<TimeNs> partial = exclusive_split({25, 60}, {{&first}, {&second}});
  EXPECT_EQ(partial[0], 5);
  EXPECT_EQ(partial[1], 20);
  EXPECT_EQ(partial[2], 10);  // [50,60] covered by none
}

// The time of `span` each layer covers first, counted nanosecond by nanosecond.
std::vector<TimeNs> instant_by_instant(Interval span, const std::vector<Layer>& layers) {
  std::vector<TimeNs> expected(layers.size() + 1, 0);
  for (TimeNs t = span.start; t < span.end; ++t) {
    std::size_t first = layers.size();
    for (std::size_t l = 0; l < layers.size() && first == layers.size(); ++l)
      for (const IntervalList* list : layers[l])
        for (Interval r : *list)
          if (r.start <= t && t < r.end) first = l;
    ++expected[first];
  }
  return expected;
}

// Eight random merged lists, each the union of up to `count` intervals on [0, 240).
std::vector<IntervalList> random_lists(std::mt19937& random, int count) {
  std::vector<IntervalList> lists(8);
  for (IntervalList& list : lists) {
    for (int i = 0; i < count; ++i) {
      TimeNs start = random() % 200;
      list.push_back({start, start + 1 + static_cast<TimeNs>(random() % 40)});
    }
    merge_in_place(list);
  }
  return lists;
}

// Random layers (each the union of two lists that overlap each other) on a small time axis,
// checked instant by instant: the sweep must give each nanosecond of the span to the first
// layer that covers it.
TEST(Intervals, ExclusiveSplitMatchesAnInstantByInstantCount) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<IntervalList> lists = random_lists(random, 4);
    std::vector<Layer> layers;
    for (std::size_t l = 0; l < lists.size(); l += 2) layers.push_back({&lists[l], &lists[l + 1]});
    TimeNs span_start = random() % 150;
    Interval span{span_start, span_start + static_cast<TimeNs>(random() % 100)};
    std::vector<TimeNs> expected = instant_by_instant(span, layers);
    EXPECT_EQ(exclusive_split(span, layers), expected) << "round " << round;
    EXPECT_EQ(union_length_within(layers[0], span), expected[0]) << "round " << round;
  }
}

// One splitter over many spans: in time order (its cursors carry on, the lists it skips are those
// known to cover nothing yet), overlapping the last and earlier than it (it searches again); each
// span's parts as counted instant by instant. Layers of one list each, many short intervals: long
// runs won by a low-priority list.
TEST(Intervals, ExclusiveSplitterCarriesItsCursorsFromSpanToSpan) {
  std::mt19937 random(11);
  for (int round = 0; round < 100; ++round) {
    std::vector<IntervalList> lists = random_lists(random, 12);
    std::vector<Layer> layers;
    for (const IntervalList& list : lists) layers.push_back({&list});
    ExclusiveSplitter splitter(layers);
    TimeNs at = 0;
    for (int span_index = 0; span_index < 12; ++span_index) {
      TimeNs start = span_index % 4 == 3 ? static_cast<TimeNs>(random() % 200) : at + random() % 30;
      Interval span{start, start + static_cast<TimeNs>(random() % 60)};
      if (span_index % 5 == 4) span.start = std::max<TimeNs>(0, at - 10);  // overlaps the last span
      at = span.end;
      std::span<const TimeNs> parts = splitter.split(span);
      EXPECT_EQ(std::vector<TimeNs>(parts.begin(), parts.end()), instant_by_instant(span, layers))
          << "round " << round << ", span " << span_index;
    }
  }
}

TEST(Intervals, SortedUnionAcceptsIntervalsOutOfOrder) {
  IntervalList raw{{10, 20}, {12, 30}, {0, 5}, {3, 8}, {40, 50}, {25, 41}, {60, 60}};
  SortedUnion u;
  for (Interval r : raw) u.add(r);
  EXPECT_TRUE(same(u.take(), merge(raw)));
  EXPECT_TRUE(same(merge(raw), {{0, 8}, {10, 50}}));
}

}  // namespace
}  // namespace perfgate
