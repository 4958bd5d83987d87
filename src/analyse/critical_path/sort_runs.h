// Sorting what is already nearly in order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace perfgate {

// Items this many or fewer are sorted in place by insertion: a tiny rank's step holds a handful,
// and merging two runs of them cost five allocations (the run lists and inplace_merge's buffer).
inline constexpr std::size_t kInsertionSortedItems = 32;

// Sorts items that come in a few runs already in order, stably, by merging the runs pairwise:
// linear for a few runs, a merge sort at worst. Any stable sort gives the same order, so small
// lists are insertion-sorted and sorted ones left alone.
template <class T, class Less>
void sort_runs(std::vector<T>& items, Less less) {
  std::size_t descent = 1;
  while (descent < items.size() && !less(items[descent], items[descent - 1])) ++descent;
  if (descent >= items.size()) return;  // one run: already in order
  if (items.size() <= kInsertionSortedItems) {
    for (std::size_t i = descent; i < items.size(); ++i) {
      T item = std::move(items[i]);
      std::size_t j = i;
      for (; j > 0 && less(item, items[j - 1]); --j) items[j] = std::move(items[j - 1]);
      items[j] = std::move(item);
    }
    return;
  }
  using Runs = boost::container::small_vector<std::size_t, 16>;
  Runs runs{0, descent};  // where each run begins, then the end
  for (std::size_t i = descent + 1; i < items.size(); ++i)
    if (less(items[i], items[i - 1])) runs.push_back(i);
  runs.push_back(items.size());
  while (runs.size() > 2) {
    Runs merged{0};
    for (std::size_t k = 0; k + 1 < runs.size(); k += 2) {
      std::size_t end = runs[std::min(k + 2, runs.size() - 1)];
      std::inplace_merge(items.begin() + static_cast<std::ptrdiff_t>(runs[k]),
                         items.begin() + static_cast<std::ptrdiff_t>(runs[k + 1]),
                         items.begin() + static_cast<std::ptrdiff_t>(end), less);
      merged.push_back(end);
    }
    runs = std::move(merged);
  }
}

}  // namespace perfgate
