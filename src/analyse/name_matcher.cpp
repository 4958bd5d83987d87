#include "analyse/name_matcher.h"

namespace perfgate {

bool NameMatcher::match(StringId name) const {
  if (name >= size_) return set_.matches(strings_.view(name));  // interned after the matcher was made
  signed char cached = set_.matches(strings_.view(name)) ? 2 : 1;
  cache_[name].store(cached, std::memory_order_relaxed);
  return cached == 2;
}

}  // namespace perfgate
