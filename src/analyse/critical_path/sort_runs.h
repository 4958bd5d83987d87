// Sorting what is already nearly in order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace perfgate {

// Sorts items that come in a few runs already in order, stably, by merging the runs pairwise:
// linear for a few runs, a merge sort at worst.
template <class T, class Less>
void sort_runs(std::vector<T>& items, Less less) {
  std::vector<std::size_t> runs{0};  // where each run begins, then the end
  for (std::size_t i = 1; i < items.size(); ++i)
    if (less(items[i], items[i - 1])) runs.push_back(i);
  runs.push_back(items.size());
  while (runs.size() > 2) {
    std::vector<std::size_t> merged{0};
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
