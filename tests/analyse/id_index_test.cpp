// IdLookup gallops from the last answer instead of searching the whole table: its answers must be
// a binary search's, for ids asked in any order, present or not, at both ends of the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "analyse/id_index.h"
#include "analyse/last_entry.h"

namespace perfgate::testing {
namespace {

std::uint32_t binary_search(const IdIndex& index, std::int64_t id) {
  auto it = std::lower_bound(index.begin(), index.end(), std::make_pair(id, std::uint32_t{0}));
  return it != index.end() && it->first == id ? it->second : kNone;
}

TEST(IdLookup, AnswersAsABinarySearchInAnyOrder) {
  std::mt19937_64 random(7);
  for (std::size_t size : {0ul, 1ul, 2ul, 3ul, 17ul, 1000ul}) {
    IdIndex index;
    std::int64_t id = -5;
    for (std::size_t i = 0; i < size; ++i) {
      id += 1 + static_cast<std::int64_t>(random() % 3);  // gaps of 0 to 2 missing ids
      index.emplace_back(id, static_cast<std::uint32_t>(i * 10));
    }
    std::vector<std::int64_t> asked;
    for (std::int64_t q = -8; q <= id + 3; ++q) asked.push_back(q);
    std::vector<std::vector<std::int64_t>> orders = {asked, asked, asked, asked};
    std::reverse(orders[1].begin(), orders[1].end());
    std::shuffle(orders[2].begin(), orders[2].end(), random);
    for (std::size_t i = 0; i + 8 < orders[3].size(); i += 8)  // nearly ascending: local swaps
      std::shuffle(orders[3].begin() + static_cast<std::ptrdiff_t>(i),
                   orders[3].begin() + static_cast<std::ptrdiff_t>(i + 8), random);
    for (std::size_t o = 0; o < orders.size(); ++o) {
      IdLookup find(index);
      for (std::int64_t q : orders[o])
        ASSERT_EQ(find(q), binary_search(index, q)) << "size " << size << ", order " << o << ", id " << q;
    }
  }
}

// An index may hold an id more than once (the synchronisations of one cudaEventRecord): matches
// gives all of them, as an equal range does, in any order of asking.
TEST(IdLookup, MatchesGivesEveryEntryOfAnIdAsAnEqualRangeDoes) {
  std::mt19937_64 random(11);
  IdIndex index;
  for (std::uint32_t i = 0; i < 300; ++i) index.emplace_back(static_cast<std::int64_t>(random() % 120), i);
  std::sort(index.begin(), index.end());
  std::vector<std::int64_t> asked;
  for (std::int64_t q = -2; q < 125; ++q) asked.push_back(q);
  std::vector<std::vector<std::int64_t>> orders = {asked, asked, asked};
  std::reverse(orders[1].begin(), orders[1].end());
  std::shuffle(orders[2].begin(), orders[2].end(), random);
  for (std::size_t o = 0; o < orders.size(); ++o) {
    IdLookup find(index);
    for (std::int64_t q : orders[o]) {
      auto [first, last] = std::equal_range(index.begin(), index.end(), std::make_pair(q, std::uint32_t{0}),
                                            [](const auto& x, const auto& y) { return x.first < y.first; });
      IdIndex expected(first, last);
      auto found = find.matches(q);
      ASSERT_EQ(IdIndex(found.begin(), found.end()), expected) << "order " << o << ", id " << q;
    }
  }
}

// LastEntry looks an entry up again only when the key changes, and an insertion (which moves a
// flat_map's entries) happens only then: every key's sum is what map[key] would have summed.
TEST(LastEntry, SumsAsTheMapsOwnLookUps) {
  boost::container::flat_map<int, long> by_entry;
  std::map<int, long> by_map;
  LastEntry<boost::container::flat_map<int, long>> last(by_entry);
  for (int key : {5, 5, 3, 3, 3, 9, 1, 5, 5, 1, 7, 3}) {
    last[key] += key * 10 + 1;
    by_map[key] += key * 10 + 1;
  }
  using Sums = std::vector<std::pair<int, long>>;
  EXPECT_EQ(Sums(by_entry.begin(), by_entry.end()), Sums(by_map.begin(), by_map.end()));
}

}  // namespace
}  // namespace perfgate::testing
