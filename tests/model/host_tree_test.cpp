#include <gtest/gtest.h>

#include <algorithm>

#include "model/profile.h"

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

// Ranges with the same thread, start and end keep the order the reader gave them; the first
// becomes the parent of the second. Many events in shuffled order exercise the permutation.
TEST(HostTree, SortKeepsTheInputOrderOfTiesAndMovesEveryEvent) {
  Profile p;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    HostEvent e = range((i * 7919) % 1000 * 10, (i * 7919) % 1000 * 10 + 5, i % 3);
    e.name = i;
    p.host_events.push_back(e);
  }
  HostEvent tie_a = range(20000, 20010), tie_b = range(20000, 20010);
  tie_a.name = 5000;
  tie_b.name = 5001;
  p.host_events.push_back(tie_a);
  p.host_events.push_back(tie_b);
  build_host_tree(p);
  ASSERT_EQ(p.host_events.size(), 1002u);
  std::vector<bool> seen(1000, false);
  for (std::size_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (i > 0) {
      const HostEvent& before = p.host_events[i - 1];
      EXPECT_TRUE(before.thread < e.thread || (before.thread == e.thread && before.start <= e.start));
    }
    if (e.name < 1000) {
      EXPECT_EQ(e.start, (e.name * 7919) % 1000 * 10);  // each event moved whole
      EXPECT_EQ(e.thread, e.name % 3);
      seen[e.name] = true;
    }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 1000);
  auto a = std::find_if(p.host_events.begin(), p.host_events.end(),
                        [](const HostEvent& e) { return e.name == 5000; });
  ASSERT_NE(a, p.host_events.end());
  ASSERT_EQ((a + 1)->name, 5001u);
  EXPECT_EQ((a + 1)->parent, static_cast<std::uint32_t>(a - p.host_events.begin()));
}

// The cursor's answers are last_host_event_before's, for queries in time order on each thread
// (interleaved between threads), for a query earlier than the thread's last, and for a thread with
// no events.
TEST(HostTree, CursorAnswersAsTheSearchDoes) {
  Profile p;
  for (TimeNs t = 0; t < 400; t += 7)
    p.host_events.push_back(range(t, t + 20, static_cast<std::uint32_t>(t % 3)));
  p.host_events.push_back(range(50, 60, 5));  // threads 3 and 4 have none
  build_host_tree(p);
  HostEventCursor cursor(p);
  std::vector<std::pair<std::uint32_t, TimeNs>> queries;
  for (TimeNs t = -5; t < 420; t += 3)
    for (std::uint32_t thread = 0; thread < 7; ++thread) queries.emplace_back(thread, t);
  queries.emplace_back(1, 100);  // back in time on thread 1
  queries.emplace_back(1, -1);
  queries.emplace_back(1, 413);
  for (auto [thread, time] : queries)
    EXPECT_EQ(cursor.last_before(thread, time), last_host_event_before(p, thread, time))
        << "thread " << thread << " at " << time;
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
