// A list of RE2 patterns matched as one: "does any pattern match this name?". RE2 keeps
// user-supplied patterns linear-time; patterns that are only literal text are matched without it
// (knowledge/literal_pattern.h), with the same answers. NameMatcher (analyse/name_matcher.h) caches the
// answers per interned name of a profile.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

class PatternSet {
 public:
  // The patterns are read at the set's first match, and parsed by RE2 at the first that needs them
  // (the rule files' patterns are checked when read); a match throws ConfigError naming `what` and
  // a pattern that does not compile.
  PatternSet(const std::vector<std::string>& patterns, std::string_view what);
  PatternSet(PatternSet&&) noexcept;
  PatternSet& operator=(PatternSet&&) noexcept;
  ~PatternSet();

  bool empty() const { return empty_; }
  bool matches(std::string_view text) const;
  int first_match(std::string_view text) const;  // index of the first pattern that matches, or -1
  // The indexes of every pattern that matches, in no order (cleared first).
  void all_matches(std::string_view text, std::vector<int>& out) const;

 private:
  struct Compiled;  // the literals and an RE2::Set, kept out of this header
  std::unique_ptr<Compiled> set_;
  bool empty_ = true;
};

}  // namespace perfgate
