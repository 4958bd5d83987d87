// The stable sorts of src/model/stable_order.h against std::stable_sort: lists made of ascending
// runs (merged) and of many runs (sorted), with repeated keys whose original order must survive.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "model/stable_order.h"

namespace perfgate {
namespace {

using Entry = std::pair<int, int>;  // key, original position

std::vector<Entry> runs_of(int runs, std::mt19937& random) {
  std::vector<Entry> list;
  for (int run = 0; run < runs; ++run) {
    int key = static_cast<int>(random() % 20);
    for (int i = 0; i < 1 + static_cast<int>(random() % 8); ++i) {
      key += static_cast<int>(random() % 3);  // repeated keys within and across runs
      list.emplace_back(key, static_cast<int>(list.size()));
    }
  }
  return list;
}

TEST(StableOrder, RunsAreMergedAsAStableSortWould) {
  std::mt19937 random(5);
  auto by_key = [](const Entry& a, const Entry& b) { return a.first < b.first; };
  for (int runs : {1, 2, 3, 4, 7, 63, 64, 65, 200}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<Entry> list = runs_of(runs, random);
      std::vector<Entry> expected = list;
      std::stable_sort(expected.begin(), expected.end(), by_key);
      stable_sort_runs(list.begin(), list.end(), by_key);
      EXPECT_EQ(list, expected) << runs << " runs, round " << round;
    }
  }
}

TEST(StableOrder, RecordsKeepTheOrderOfEqualKeys) {
  std::mt19937 random(9);
  std::vector<Entry> records = runs_of(30, random);
  std::vector<Entry> expected = records;
  auto by_key = [](const Entry& a, const Entry& b) { return a.first < b.first; };
  std::stable_sort(expected.begin(), expected.end(), by_key);
  stable_sort_records(records, by_key);
  EXPECT_EQ(records, expected);
}

}  // namespace
}  // namespace perfgate
