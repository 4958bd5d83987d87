// Stable sorts for what a trace holds: records and lists that are mostly in order already.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <vector>

#include "model/profile.h"

namespace perfgate {

// A stable sort for a range that is usually a few ascending runs (events of one thread after
// another, ids that grow with time): it finds the runs in one pass and merges neighbouring runs
// pairwise, O(n log runs), taking on ties the earlier run's first, as std::stable_sort would. With
// more than 64 runs it is std::stable_sort.
template <typename It, typename Less>
void stable_sort_runs(It first, It last, Less less) {
  constexpr std::size_t kMaxRuns = 64;
  It descent = std::is_sorted_until(first, last, less);
  if (descent == last) return;
  std::vector<It> bounds{first, descent};
  for (It i = std::next(descent); i != last; ++i) {
    if (!less(*i, *std::prev(i))) continue;
    if (bounds.size() == kMaxRuns) {
      std::stable_sort(first, last, less);
      return;
    }
    bounds.push_back(i);
  }
  bounds.push_back(last);
  while (bounds.size() > 2) {
    std::vector<It> merged{first};
    for (std::size_t j = 0; j + 1 < bounds.size(); j += 2) {
      It end = j + 2 < bounds.size() ? bounds[j + 2] : bounds[j + 1];
      std::inplace_merge(bounds[j], bounds[j + 1], end, less);
      merged.push_back(end);
    }
    bounds = std::move(merged);
  }
}

// A stable sort for large records: sorts 4-byte indices and then moves each record once, in
// place, following the permutation's cycles. std::stable_sort on the records themselves takes
// a buffer of half of them (tens of MB for a large trace); this takes 6 bytes per record.
template <typename T, typename Less>
void stable_sort_records(std::vector<T>& records, Less less) {
  if (std::is_sorted(records.begin(), records.end(), less)) return;
  std::vector<std::uint32_t> order(records.size());
  std::iota(order.begin(), order.end(), 0u);
  stable_sort_runs(order.begin(), order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return less(records[x], records[y]); });
  // Position i receives records[order[i]]; each cycle is followed once, done slots marked kNone.
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    if (order[i] == kNone || order[i] == i) continue;
    T held = records[i];
    std::uint32_t slot = i;
    while (order[slot] != i) {
      std::uint32_t from = order[slot];
      records[slot] = records[from];
      order[slot] = kNone;
      slot = from;
    }
    records[slot] = held;
    order[slot] = kNone;
  }
}

}  // namespace perfgate
