// A stable sort for large records: sorts 4-byte indices and then moves each record once, in
// place, following the permutation's cycles. std::stable_sort on the records themselves takes
// a buffer of half of them (tens of MB for a large trace); this takes 6 bytes per record.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "perfgate/profile.h"

namespace perfgate {

template <typename T, typename Less>
void stable_sort_records(std::vector<T>& records, Less less) {
  if (std::is_sorted(records.begin(), records.end(), less)) return;
  std::vector<std::uint32_t> order(records.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
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
