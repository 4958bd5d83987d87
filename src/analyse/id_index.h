// Ids (correlation, External id) to record indices: a sorted (id, index) table, one allocation
// instead of a hash node per entry (which stays resident after it is freed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "model/profile.h"

namespace perfgate {

using IdIndex = std::vector<std::pair<std::int64_t, std::uint32_t>>;

// Looks ids up in an IdIndex, each search starting where the last one ended. Ids are asked for in
// nearly ascending order (records by start time, ids growing with time), so a search steps over a
// few entries instead of halving the whole table, a cache miss per step on a large trace. Any
// order gives the answers of a binary search.
class IdLookup {
 public:
  explicit IdLookup(const IdIndex& index) : index_(index) {}

  // The index stored with `id`, or kNone.
  std::uint32_t operator()(std::int64_t id) {
    at_ = lower_bound_near(id);
    return at_ < index_.size() && index_[at_].first == id ? index_[at_].second : kNone;
  }

  // Every entry stored with `id` (an index may hold an id more than once), in index order.
  std::span<const std::pair<std::int64_t, std::uint32_t>> matches(std::int64_t id) {
    at_ = lower_bound_near(id);
    std::size_t end = at_;
    while (end < index_.size() && index_[end].first == id) ++end;
    return {index_.data() + at_, end - at_};
  }

 private:
  // The first position whose id is not below `id`, galloping away from the last one found.
  std::size_t lower_bound_near(std::int64_t id) const {
    const std::size_t n = index_.size();
    std::size_t lo = 0, hi = n;  // the answer is in [lo, hi]
    std::size_t step = 1;
    if (at_ < n && index_[at_].first < id) {
      lo = at_ + 1;  // everything before lo is below id
      while (lo + step <= n && index_[lo + step - 1].first < id) {
        lo += step;
        step *= 2;
      }
      hi = lo + step <= n ? lo + step - 1 : n;  // index_[hi] is not below id, or hi is the end
    } else {
      hi = at_;  // index_[hi] is not below id, or hi is the end
      while (hi >= step && index_[hi - step].first >= id) {
        hi -= step;
        step *= 2;
      }
      lo = hi >= step ? hi - step + 1 : 0;  // index_[lo - 1] is below id
    }
    auto less = [](const std::pair<std::int64_t, std::uint32_t>& e, std::int64_t key) {
      return e.first < key;
    };
    return static_cast<std::size_t>(std::lower_bound(index_.begin() + static_cast<std::ptrdiff_t>(lo),
                                                     index_.begin() + static_cast<std::ptrdiff_t>(hi), id,
                                                     less) -
                                    index_.begin());
  }

  const IdIndex& index_;
  std::size_t at_ = 0;
};

}  // namespace perfgate
