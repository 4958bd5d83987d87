#include "analyse/pattern_set.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

#include <fmt/format.h>

#include "perfgate/errors.h"

namespace perfgate {

struct PatternSet::Compiled {
  explicit Compiled(const RE2::Options& options) : set(options, RE2::UNANCHORED) {}
  RE2::Set set;
};

PatternSet::PatternSet(const std::vector<std::string>& patterns, std::string_view what) {
  RE2::Options options;
  options.set_log_errors(false);
  set_ = std::make_unique<Compiled>(options);
  for (const auto& p : patterns) {
    std::string error;
    if (set_->set.Add(p, &error) < 0)
      throw ConfigError(fmt::format("invalid {} pattern '{}': {}", what, p, error));
  }
  empty_ = patterns.empty();
  if (!set_->set.Compile())
    throw ConfigError(fmt::format("{} patterns use too much memory to compile", what));
}

PatternSet::PatternSet(PatternSet&&) noexcept = default;
PatternSet& PatternSet::operator=(PatternSet&&) noexcept = default;
PatternSet::~PatternSet() = default;

bool PatternSet::matches(std::string_view text) const {
  if (empty_) return false;
  return set_->set.Match(text, nullptr);
}

int PatternSet::first_match(std::string_view text) const {
  if (empty_) return -1;
  std::vector<int> hits;
  if (!set_->set.Match(text, &hits) || hits.empty()) return -1;
  return *std::min_element(hits.begin(), hits.end());
}

std::string pattern_error(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  RE2 re(pattern, options);
  return re.ok() ? std::string() : re.error();
}

bool NameMatcher::operator()(StringId name) const {
  if (name >= size_) return set_.matches(strings_.view(name));  // interned after the matcher was made
  signed char cached = cache_[name].load(std::memory_order_relaxed);
  if (cached == 0) {
    cached = set_.matches(strings_.view(name)) ? 2 : 1;
    cache_[name].store(cached, std::memory_order_relaxed);
  }
  return cached == 2;
}

}  // namespace perfgate
