#include "knowledge/pattern_set.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate {

// The patterns are parsed (and checked) when the set is made, and compiled at its first match, so
// a set a run never asks about is never compiled. Compiling every set cost 12 M instructions a run;
// most are used on a GPU trace, so this saved 0.8 M on the bundled example.
struct PatternSet::Compiled {
  Compiled(const RE2::Options& options, std::string_view set_what)
      : set(options, RE2::UNANCHORED), what(set_what) {}
  const RE2::Set& ready() {
    std::call_once(compiled, [this] { ok = set.Compile(); });
    if (!ok) throw ConfigError(fmt::format("{} patterns use too much memory to compile", what));
    return set;
  }
  RE2::Set set;
  std::string what;
  std::once_flag compiled;
  bool ok = false;
};

PatternSet::PatternSet(const std::vector<std::string>& patterns, std::string_view what) {
  RE2::Options options;
  options.set_log_errors(false);
  set_ = std::make_unique<Compiled>(options, what);
  for (const auto& p : patterns) {
    std::string error;
    if (set_->set.Add(p, &error) < 0)
      throw ConfigError(fmt::format("invalid {} pattern '{}': {}", what, p, error));
  }
  empty_ = patterns.empty();
}

PatternSet::PatternSet(PatternSet&&) noexcept = default;
PatternSet& PatternSet::operator=(PatternSet&&) noexcept = default;
PatternSet::~PatternSet() = default;

bool PatternSet::matches(std::string_view text) const {
  if (empty_) return false;
  return set_->ready().Match(text, nullptr);
}

int PatternSet::first_match(std::string_view text) const {
  if (empty_) return -1;
  std::vector<int> hits;
  if (!set_->ready().Match(text, &hits) || hits.empty()) return -1;
  return *std::min_element(hits.begin(), hits.end());
}

void PatternSet::all_matches(std::string_view text, std::vector<int>& out) const {
  out.clear();
  if (!empty_) set_->ready().Match(text, &out);
}

std::string pattern_error(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  RE2 re(pattern, options);
  return re.ok() ? std::string() : re.error();
}

}  // namespace perfgate
