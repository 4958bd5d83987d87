#include "knowledge/pattern_set.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "common/errors.h"
#include "knowledge/literal_pattern.h"
#include "knowledge/needle_index.h"

namespace perfgate {
namespace {

RE2::Options set_options() {
  RE2::Options options;
  options.set_log_errors(false);
  return options;
}

// An RE2::Set parsed and compiled at its first match, so a set a run never asks about costs
// nothing. The rules' patterns were checked when their file was read (yaml_check.h), so a bad one
// is refused there, naming the file and line, not here.
class LazySet {
 public:
  explicit LazySet(std::string_view what) : what_(what) {}
  void add(const std::string& pattern) { patterns_.push_back(pattern); }
  bool empty() const { return patterns_.empty(); }
  const RE2::Set& ready() {
    std::call_once(compiled_, [this] { compile(); });
    return *set_;
  }

 private:
  void compile() {
    auto set = std::make_unique<RE2::Set>(set_options(), RE2::UNANCHORED);
    for (const std::string& p : patterns_) {
      std::string error;
      if (set->Add(p, &error) < 0)
        throw ConfigError(fmt::format("invalid {} pattern '{}': {}", what_, p, error));
    }
    if (!set->Compile()) throw ConfigError(fmt::format("{} patterns use too much memory to compile", what_));
    set_ = std::move(set);
  }
  std::vector<std::string> patterns_;
  std::string what_;
  std::once_flag compiled_;
  std::unique_ptr<RE2::Set> set_;
};

// A set's answers for the names it was asked about (issue 78): the ranks of a run folder ask each
// set about the same few names, and matching one cost ~600 instructions, more than all the rest of
// a tiny rank's analysis of that name. It keeps the first names only (kMostNames, each at most
// kLongestName bytes) and is not asked once full, so that a large trace, whose names are asked
// about once each (NameMatcher keeps a profile's answers), pays for 64 insertions a set, then
// one relaxed load per question.
class AnswerMemo {
 public:
  AnswerMemo() = default;
  AnswerMemo(const AnswerMemo&) = delete;
  AnswerMemo& operator=(const AnswerMemo&) = delete;
  ~AnswerMemo() {
    Slot* slots = slots_.load(std::memory_order_relaxed);
    if (!slots) return;
    for (std::size_t i = 0; i < kSlots; ++i) delete slots[i].load(std::memory_order_relaxed);
    delete[] slots;
  }
  // Without a lock: the slots, once made, and an entry, once published, never change or go (a
  // read-write lock was a third of a tiny rank's classifying).
  std::optional<int> find(std::string_view name) const {
    if (full_.load(std::memory_order_relaxed) || name.size() > kLongestName) return std::nullopt;
    const Slot* slots = slots_.load(std::memory_order_acquire);
    if (!slots) return std::nullopt;
    std::size_t hash = std::hash<std::string_view>{}(name);
    for (std::size_t i = 0; i < kSlots; ++i) {
      const Entry* e = slots[(hash + i) % kSlots].load(std::memory_order_acquire);
      if (!e) return std::nullopt;
      if (e->hash == hash && e->name == name) return e->answer;
    }
    return std::nullopt;
  }
  void keep(std::string_view name, int answer) {
    if (full_.load(std::memory_order_relaxed) || name.size() > kLongestName) return;
    std::lock_guard lock(mutex_);
    if (kept_ >= kMostNames) {
      full_.store(true, std::memory_order_relaxed);
      return;
    }
    Slot* slots = slots_.load(std::memory_order_relaxed);
    if (!slots) {  // made at the first name: a set never asked about holds none
      slots = new Slot[kSlots]();
      slots_.store(slots, std::memory_order_release);
    }
    std::size_t hash = std::hash<std::string_view>{}(name);
    for (std::size_t i = 0; i < kSlots; ++i) {
      Slot& slot = slots[(hash + i) % kSlots];
      const Entry* e = slot.load(std::memory_order_relaxed);
      if (e && e->hash == hash && e->name == name) return;  // kept meanwhile by another thread
      if (e) continue;
      slot.store(new Entry{hash, std::string(name), answer}, std::memory_order_release);
      ++kept_;
      return;
    }
  }

 private:
  struct Entry {
    std::size_t hash;
    std::string name;
    int answer;
  };
  using Slot = std::atomic<const Entry*>;
  static constexpr std::size_t kMostNames = 64;
  static constexpr std::size_t kLongestName = 128;
  static constexpr std::size_t kSlots = 2 * kMostNames;  // open addressing, never past half full
  std::atomic<Slot*> slots_{nullptr};
  std::mutex mutex_;  // one writer at a time
  std::size_t kept_ = 0;
  std::atomic<bool> full_{false};
};

bool is_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

// Patterns that are literal text (literal_pattern.h) are matched by substring, prefix, suffix or
// equality tests; only the others go into an RE2 set, so a set of literals is never parsed or
// compiled by RE2 (on the 17 kB a100_triton trace RE2 was 33 M of 44 M instructions). A name that
// is not ASCII, where a literal folds case, is matched by an RE2 set of every pattern instead:
// RE2 folds case by Unicode's tables (the Kelvin sign is a K), this test by ASCII's. The RE2 set
// runs on a name only where some regular expression's required text (literal_pattern.h) is in it,
// and is compiled only when one first is. The pieces looked for anywhere in a name, of the
// literals and the required texts, are found in one pass over it (NeedleIndex).
struct PatternSet::Compiled {
  Compiled(const std::vector<std::string>& set_patterns, std::string_view set_what)
      : patterns(set_patterns), regexes(set_what), every(set_what) {}
  // Reads the patterns at the set's first match: a run asks about a third of its sets not at all.
  // One acquire load once read: call_once's pthread_once on every question was a sixth of a
  // memoised answer's cost (issue 78).
  Compiled& prepared() {
    if (!was_read.load(std::memory_order_acquire))
      std::call_once(read_once, [this] {
        read();
        was_read.store(true, std::memory_order_release);
      });
    return *this;
  }
  void read() {
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      if (std::optional<LiteralPattern> literal = literal_pattern(patterns[i])) {
        folds_case = folds_case || literal->fold_case;
        literals.emplace_back(static_cast<int>(i), std::move(*literal));
        continue;
      }
      regexes.add(patterns[i]);
      regex_pattern.push_back(static_cast<int>(i));
      regex_required.push_back(required_text(patterns[i]));
      if (regex_required.back() && regex_required.back()->fold_case) lowers = true;
    }
    lowers = lowers || folds_case;
    index_pieces();
    if (folds_case)
      for (const std::string& p : patterns) every.add(p);
  }
  std::vector<std::string> patterns;
  std::once_flag read_once;
  std::atomic<bool> was_read{false};
  std::vector<std::pair<int, LiteralPattern>> literals;     // (pattern index, pattern), in order
  std::vector<int> regex_pattern;                           // the RE2 set's index -> pattern index
  std::vector<std::optional<RequiredText>> regex_required;  // per RE2 set index; nothing: none known
  LazySet regexes;
  NeedleIndex pieces;
  bool folds_case = false;                // some literal folds case
  bool lowers = false;                    // some literal or required text folds case
  LazySet every;                          // every pattern, for non-ASCII names where a literal folds case
  AnswerMemo matched;                     // matches(): 0 or 1
  AnswerMemo first_found;                 // first_match()
  bool match_any(std::string_view text);  // matches() and first_match(), not remembered
  int first_of(std::string_view text);
  // Whether this name must go to the RE2 set of every pattern.
  bool needs_every(std::string_view text) const { return folds_case && !is_ascii(text); }
  // The name in ASCII lower case where some literal or required text folds case, else the name.
  std::string_view lowered(std::string_view text, std::string& buffer) const {
    if (!lowers) return text;
    buffer.assign(text);
    ascii_lower(buffer);
    return buffer;
  }
  // Whether a regular expression before pattern `before` (all where it is negative) may match.
  bool regex_may_match(std::string_view text, std::string_view lowered, int before,
                       const std::vector<unsigned char>* found) const {
    std::optional<bool> ascii;
    for (std::size_t j = 0; j < regex_pattern.size() && (before < 0 || regex_pattern[j] < before); ++j) {
      const std::optional<RequiredText>& required = regex_required[j];
      if (!required) return true;
      if (required->fold_case && !ascii) ascii = is_ascii(text);
      if (may_match(*required, text, lowered, ascii.value_or(true), found)) return true;
    }
    return false;
  }
  // Each piece looked for anywhere, given its id in `pieces`.
  void index_pieces() {
    for (auto& [index, literal] : literals)
      for (LiteralAlternative& a : literal.alternatives)
        if (!a.at_start && !a.at_end && !a.word_before && !a.word_after && !a.text.empty())
          a.needle = pieces.add(a.text, literal.fold_case);
    for (std::optional<RequiredText>& required : regex_required)
      if (required)
        for (const std::string& piece : required->any_of)
          required->needles.push_back(pieces.add(piece, required->fold_case));
    pieces.finish();
  }
  // The pieces this name holds, or nullptr where the set has none.
  const std::vector<unsigned char>* find_pieces(std::string_view text, std::string_view lowered) const {
    if (pieces.size() == 0) return nullptr;
    thread_local std::vector<unsigned char> found;
    pieces.find_all(text, lowered, found);
    return &found;
  }
};

PatternSet::PatternSet(const std::vector<std::string>& patterns, std::string_view what)
    : set_(std::make_unique<Compiled>(patterns, what)), empty_(patterns.empty()) {}

PatternSet::PatternSet(PatternSet&&) noexcept = default;
PatternSet& PatternSet::operator=(PatternSet&&) noexcept = default;
PatternSet::~PatternSet() = default;

bool PatternSet::matches(std::string_view text) const {
  if (empty_) return false;
  Compiled& set = set_->prepared();
  if (std::optional<int> known = set.matched.find(text)) return *known != 0;
  bool answer = set.match_any(text);
  set.matched.keep(text, answer ? 1 : 0);
  return answer;
}

bool PatternSet::Compiled::match_any(std::string_view text) {
  Compiled& set = *this;
  if (set.needs_every(text)) return set.every.ready().Match(text, nullptr);
  std::string buffer;
  std::string_view lowered = set.lowered(text, buffer);
  const std::vector<unsigned char>* found = set.find_pieces(text, lowered);
  for (const auto& [index, literal] : set.literals)
    if (literal_matches(literal, text, lowered, found)) return true;
  return !set.regexes.empty() && set.regex_may_match(text, lowered, -1, found) &&
         set.regexes.ready().Match(text, nullptr);
}

int PatternSet::first_match(std::string_view text) const {
  if (empty_) return -1;
  Compiled& set = set_->prepared();
  if (std::optional<int> known = set.first_found.find(text)) return *known;
  int answer = set.first_of(text);
  set.first_found.keep(text, answer);
  return answer;
}

int PatternSet::Compiled::first_of(std::string_view text) {
  Compiled& set = *this;
  std::vector<int> hits;
  if (set.needs_every(text)) {
    if (!set.every.ready().Match(text, &hits) || hits.empty()) return -1;
    return *std::min_element(hits.begin(), hits.end());
  }
  std::string buffer;
  std::string_view lowered = set.lowered(text, buffer);
  const std::vector<unsigned char>* found = set.find_pieces(text, lowered);
  int first = -1;
  for (const auto& [index, literal] : set.literals)
    if (literal_matches(literal, text, lowered, found)) {
      first = index;
      break;
    }
  // RE2 only where a regular expression comes before the first literal that matched.
  if (set.regexes.empty() || !set.regex_may_match(text, lowered, first, found)) return first;
  if (!set.regexes.ready().Match(text, &hits)) return first;
  for (int hit : hits) {
    int index = set.regex_pattern[static_cast<std::size_t>(hit)];
    if (first < 0 || index < first) first = index;
  }
  return first;
}

void PatternSet::all_matches(std::string_view text, std::vector<int>& out) const {
  out.clear();
  if (empty_) return;
  Compiled& set = set_->prepared();
  if (set.needs_every(text)) {
    set.every.ready().Match(text, &out);
    return;
  }
  std::string buffer;
  std::string_view lowered = set.lowered(text, buffer);
  const std::vector<unsigned char>* found = set.find_pieces(text, lowered);
  for (const auto& [index, literal] : set.literals)
    if (literal_matches(literal, text, lowered, found)) out.push_back(index);
  if (set.regexes.empty() || !set.regex_may_match(text, lowered, -1, found)) return;
  std::vector<int> hits;
  set.regexes.ready().Match(text, &hits);
  for (int hit : hits) out.push_back(set.regex_pattern[static_cast<std::size_t>(hit)]);
}

}  // namespace perfgate
