#include <gtest/gtest.h>

#include "perfgate/profile.h"

namespace perfgate {
namespace {

HostEvent range(TimeNs start, TimeNs end, std::uint32_t thread = 0) {
  HostEvent e;
  e.start = start;
  e.end = end;
  e.thread = thread;
  return e;
}

TEST(HostTree, NestsRangesPerThreadAndSortsThem) {
  Profile p;
  p.host_events = {range(10, 20), range(0, 100), range(30, 40, 1), range(12, 15), range(50, 60)};
  EXPECT_EQ(build_host_tree(p), 0u);
  // Sorted by (thread, start): [0,100] [10,20] [12,15] [50,60] | [30,40]
  ASSERT_EQ(p.host_events.size(), 5u);
  EXPECT_EQ(p.host_events[0].parent, kNone);
  EXPECT_EQ(p.host_events[1].parent, 0u);
  EXPECT_EQ(p.host_events[2].parent, 1u);
  EXPECT_EQ(p.host_events[3].parent, 0u);
  EXPECT_EQ(p.host_events[4].parent, kNone);  // other thread
}

TEST(HostTree, SameStartLongerRangeIsTheParent) {
  Profile p;
  p.host_events = {range(0, 10), range(0, 30)};
  build_host_tree(p);
  EXPECT_EQ(p.host_events[0].end, 30);
  EXPECT_EQ(p.host_events[1].parent, 0u);
}

TEST(HostTree, RangeStartingAtParentEndIsASibling) {
  Profile p;
  p.host_events = {range(0, 10), range(10, 20)};
  build_host_tree(p);
  EXPECT_EQ(p.host_events[1].parent, kNone);
}

TEST(HostTree, OverlappingRangeAttachesToTheNearestContainingAncestor) {
  Profile p;
  p.host_events = {range(0, 100), range(10, 50), range(40, 60)};
  EXPECT_EQ(build_host_tree(p), 1u);
  EXPECT_EQ(p.host_events[2].parent, 0u);
}

TEST(StringPool, InternsEqualTextToOneId) {
  StringPool pool;
  StringId a = pool.intern("aten::mm");
  StringId b = pool.intern(std::string("aten::") + "mm");
  EXPECT_EQ(a, b);
  EXPECT_EQ(pool.view(a), "aten::mm");
  EXPECT_EQ(pool.intern(""), kNoString);
  std::string long_name(100000, 'k');
  StringId c = pool.intern(long_name);
  for (int i = 0; i < 5000; ++i) pool.intern("name" + std::to_string(i));
  EXPECT_EQ(pool.view(c), long_name);  // views survive later growth
  EXPECT_EQ(pool.view(a), "aten::mm");
}

}  // namespace
}  // namespace perfgate
