// A PatternSet's answers for the names of one profile, cached per interned name.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

#include "knowledge/pattern_set.h"
#include "model/profile.h"

namespace perfgate {

// Memoises a PatternSet per StringId of one profile's string pool. Safe to share between threads
// (the analysis stages run concurrently): each name's answer is one relaxed atomic byte, and two
// threads that both compute it write the same value.
class NameMatcher {
 public:
  // Its answers in an array of its own, or in `answers` (strings.size() zeroed bytes that outlive
  // it): NameClasses makes one array for all its matchers, not one each (issue 78: 22 allocations a
  // profile, most of a tiny rank's classifying).
  NameMatcher(const PatternSet& set, const StringPool& strings, std::atomic<signed char>* answers = nullptr)
      : set_(set),
        strings_(strings),
        size_(strings.size()),
        owned_(answers ? nullptr : std::make_unique<std::atomic<signed char>[]>(strings.size())),
        cache_(answers ? answers : owned_.get()) {}
  // The cached answer inline (most calls: each name is asked about once per event), else matched.
  bool operator()(StringId name) const {
    if (name < size_)
      if (signed char cached = cache_[name].load(std::memory_order_relaxed); cached != 0) return cached == 2;
    return match(name);
  }

 private:
  bool match(StringId name) const;
  const PatternSet& set_;
  const StringPool& strings_;
  std::size_t size_;
  std::unique_ptr<std::atomic<signed char>[]> owned_;
  std::atomic<signed char>* cache_;  // 0 unknown, 1 no, 2 yes
};

}  // namespace perfgate
