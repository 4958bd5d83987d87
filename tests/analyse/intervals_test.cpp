#include <gtest/gtest.h>

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

TEST(Intervals, IntersectSubtractClip) {
  IntervalList a{{0, 10}, {20, 30}};
  IntervalList b{{5, 25}};
  EXPECT_TRUE(same(intersect(a, b), {{5, 10}, {20, 25}}));
  EXPECT_TRUE(same(subtract(a, b), {{0, 5}, {25, 30}}));
  EXPECT_TRUE(same(subtract(b, a), {{10, 20}}));
  EXPECT_TRUE(same(clip(a, {8, 22}), {{8, 10}, {20, 22}}));
  EXPECT_EQ(length_within(a, {8, 22}), 4);
  EXPECT_EQ(total_length(a), 20);
  EXPECT_EQ(overlap({0, 10}, {5, 20}), 5);
  EXPECT_EQ(overlap({0, 10}, {10, 20}), 0);
}

TEST(Intervals, ExclusiveSplitGivesEachInstantToTheFirstLayer) {
  IntervalList first{{10, 30}}, second{{20, 50}}, third{{0, 100}};
  std::vector<TimeNs> parts = exclusive_split({0, 100}, {&first, &second, &third});
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], 20);  // [10,30]
  EXPECT_EQ(parts[1], 20);  // [30,50]
  EXPECT_EQ(parts[2], 60);  // the rest of [0,100]
  EXPECT_EQ(parts[3], 0);
  std::vector<TimeNs> partial = exclusive_split({25, 60}, {&first, &second});
  EXPECT_EQ(partial[0], 5);
  EXPECT_EQ(partial[1], 20);
  EXPECT_EQ(partial[2], 10);  // [50,60] covered by none
}

}  // namespace
}  // namespace perfgate
