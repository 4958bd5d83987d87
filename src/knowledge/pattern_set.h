// A list of RE2 patterns matched as one: "does any pattern match this name?". RE2 keeps
// user-supplied patterns linear-time. Results are cached per interned name.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/profile.h"

namespace perfgate {

class PatternSet {
 public:
  // Throws ConfigError naming `what` and the pattern when one does not compile.
  PatternSet(const std::vector<std::string>& patterns, std::string_view what);
  PatternSet(PatternSet&&) noexcept;
  PatternSet& operator=(PatternSet&&) noexcept;
  ~PatternSet();

  bool empty() const { return empty_; }
  bool matches(std::string_view text) const;
  int first_match(std::string_view text) const;  // index of the first pattern that matches, or -1

 private:
  struct Compiled;  // RE2::Set, kept out of this header
  std::unique_ptr<Compiled> set_;
  bool empty_ = true;
};

// Validates one pattern: empty string if it compiles, else RE2's message.
std::string pattern_error(const std::string& pattern);

// Memoises a PatternSet per StringId of one profile's string pool. Safe to share between threads
// (the analysis stages run concurrently): each name's answer is one relaxed atomic byte, and two
// threads that both compute it write the same value.
class NameMatcher {
 public:
  NameMatcher(const PatternSet& set, const StringPool& strings)
      : set_(set),
        strings_(strings),
        size_(strings.size()),
        cache_(std::make_unique<std::atomic<signed char>[]>(strings.size())) {}
  bool operator()(StringId name) const;

 private:
  const PatternSet& set_;
  const StringPool& strings_;
  std::size_t size_;
  std::unique_ptr<std::atomic<signed char>[]> cache_;  // 0 unknown, 1 no, 2 yes
};

}  // namespace perfgate
