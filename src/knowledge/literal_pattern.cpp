#include "knowledge/literal_pattern.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace perfgate {
namespace {

using Alternatives = std::vector<LiteralAlternative>;

// RE2's metacharacters: literal only when escaped.
bool is_meta(char c) {
  switch (c) {
    case '\\':
    case '.':
    case '^':
    case '$':
    case '|':
    case '?':
    case '*':
    case '+':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
      return true;
    default:
      return false;
  }
}
bool is_printable(char c) {
  return c >= 0x20 && c <= 0x7e;
}
// RE2's \b is ASCII's: between a word character and another character (or the text's edge).
bool is_word(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
constexpr std::size_t kMaxClassChars = 32;

// A recursive-descent reading of the literal subset of RE2's syntax: alternation, groups of
// alternatives, ^, $ and \b at the ends, printable ASCII, escaped metacharacters, small classes
// ([0-9], [FB]) and ? after a character, class or group, all expanded into alternatives.
// Anything else (\d, \w, ., *, +, repetition counts, flags inside) refuses the pattern.
class LiteralReader {
 public:
  explicit LiteralReader(std::string_view pattern) : p_(pattern) {}

  std::optional<Alternatives> whole() {
    std::optional<Alternatives> out = alternation();
    if (!out || i_ != p_.size()) return std::nullopt;
    for (const LiteralAlternative& a : *out)
      if (a.text.empty() && (a.word_before || a.word_after)) return std::nullopt;
    return out;
  }

 private:
  std::optional<Alternatives> alternation() {
    std::optional<Alternatives> out = branch();
    while (out && i_ < p_.size() && p_[i_] == '|') {
      ++i_;
      std::optional<Alternatives> more = branch();
      if (!more || out->size() + more->size() > kMaxLiteralAlternatives) return std::nullopt;
      out->insert(out->end(), more->begin(), more->end());
    }
    return out;
  }

  std::optional<Alternatives> branch() {
    Alternatives out{LiteralAlternative{}};
    while (i_ < p_.size() && p_[i_] != '|' && p_[i_] != ')') {
      const std::size_t start = i_;
      if (std::optional<char> c = literal_char(); c && !at_quantifier()) {
        for (LiteralAlternative& a : out) {
          if (a.at_end || a.word_after) return std::nullopt;  // text after a $ or a closing \b
          a.text += *c;
        }
        continue;
      }
      i_ = start;  // anything else, a quantified character too, is read as an item
      std::optional<Alternatives> next = item();
      if (!next || !append(out, *next)) return std::nullopt;
    }
    return out;
  }

  bool at_quantifier() const { return i_ < p_.size() && std::strchr("?*+{", p_[i_]) != nullptr; }

  // The next character as literal text (consumed), or nothing (not consumed) where it is not.
  std::optional<char> literal_char() {
    char c = p_[i_];
    if (c == '\\' && i_ + 1 < p_.size() && (is_meta(p_[i_ + 1]) || p_[i_ + 1] == '-')) {
      i_ += 2;
      return p_[i_ - 1];
    }
    if (!is_printable(c) || is_meta(c)) return std::nullopt;
    ++i_;
    return c;
  }

  // ^, $, \b, or a character, class or group with an optional ?; nothing for anything else.
  std::optional<Alternatives> item() {
    if (p_[i_] == '^') return ++i_, Alternatives{{"", true, false}};
    if (p_[i_] == '$') return ++i_, Alternatives{{"", false, true}};
    if (p_.substr(i_, 2) == "\\b") return i_ += 2, Alternatives{{"", false, false, true, false}};
    std::optional<Alternatives> out;
    if (p_[i_] == '(')
      out = group();
    else if (p_[i_] == '[')
      out = char_class();
    else if (std::optional<char> c = literal_char())
      out = Alternatives{{std::string(1, *c)}};
    if (!out || !at_quantifier()) return out;
    if (p_[i_] != '?' || (i_ + 1 < p_.size() && std::strchr("?*+{", p_[i_ + 1]))) return std::nullopt;
    ++i_;
    out->push_back(LiteralAlternative{});
    return out;
  }

  std::optional<Alternatives> group() {
    ++i_;
    if (p_.substr(i_, 2) == "?:")
      i_ += 2;
    else if (i_ < p_.size() && p_[i_] == '?')
      return std::nullopt;  // flags, named groups
    std::optional<Alternatives> inner = alternation();
    if (!inner || i_ >= p_.size() || p_[i_] != ')') return std::nullopt;
    ++i_;
    return inner;
  }

  // [abc], [0-9]: one alternative a character. No negation, escapes or POSIX names.
  std::optional<Alternatives> char_class() {
    ++i_;
    std::string chars;
    while (i_ < p_.size() && p_[i_] != ']') {
      char c = p_[i_++];
      if (!is_printable(c) || std::strchr("\\[^-", c)) return std::nullopt;
      char last = c;
      if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
        last = p_[i_ + 1];
        if (!is_printable(last) || std::strchr("\\[^-", last) || last < c) return std::nullopt;
        i_ += 2;
      }
      for (int x = c; x <= last; ++x) chars += static_cast<char>(x);
      if (chars.size() > kMaxClassChars) return std::nullopt;
    }
    if (i_ >= p_.size() || chars.empty()) return std::nullopt;
    ++i_;
    Alternatives out;
    for (char c : chars) out.push_back({std::string(1, c)});
    return out;
  }

  // Text after an alternative: refused after a $ or a \b that ended text.
  static bool add_text(LiteralAlternative& a, const std::string& text) {
    if (text.empty()) return true;
    if (a.at_end || a.word_after) return false;
    a.text += text;
    return true;
  }

  // Every way of `out` followed by every way of `next`; refuses text after a $ and a ^ or \b
  // inside text.
  static bool append(Alternatives& out, const Alternatives& next) {
    if (out.size() * next.size() > kMaxLiteralAlternatives) return false;
    Alternatives joined;
    joined.reserve(out.size() * next.size());
    for (LiteralAlternative a : out)
      for (const LiteralAlternative& b : next) {
        LiteralAlternative j = a;
        if (b.at_start && !j.text.empty()) return false;
        if (b.word_before && j.text.empty())
          j.word_before = true;
        else if (b.word_before)
          j.word_after = true;
        if ((b.word_before || b.word_after) && j.at_end) return false;
        if (!add_text(j, b.text)) return false;
        if (b.word_after) j.word_after = true;
        j.at_start = j.at_start || b.at_start;
        j.at_end = j.at_end || b.at_end;
        joined.push_back(std::move(j));
      }
    out = std::move(joined);
    return true;
  }

  std::string_view p_;
  std::size_t i_ = 0;
};

bool boundary_at(std::string_view text, std::size_t pos) {
  bool before = pos > 0 && is_word(text[pos - 1]);
  bool after = pos < text.size() && is_word(text[pos]);
  return before != after;
}

bool fits_at(const LiteralAlternative& a, std::string_view text, std::size_t pos) {
  return (!a.word_before || boundary_at(text, pos)) &&
         (!a.word_after || boundary_at(text, pos + a.text.size()));
}

// A leading (?i) taken off the pattern: whether there was one.
bool strip_fold_case(std::string_view& pattern) {
  if (!pattern.starts_with("(?i)")) return false;
  pattern.remove_prefix(4);
  return true;
}

bool matches_one(const LiteralAlternative& a, std::string_view text,
                 const std::vector<unsigned char>* found) {
  if (found != nullptr && a.needle >= 0) return (*found)[static_cast<std::size_t>(a.needle)] != 0;
  const std::size_t n = a.text.size();
  if (a.at_start && a.at_end) return text == a.text && fits_at(a, text, 0);
  if (a.at_start) return text.starts_with(a.text) && fits_at(a, text, 0);
  if (a.at_end) return text.ends_with(a.text) && fits_at(a, text, text.size() - n);
  if (n == 0) return true;
  for (std::size_t from = 0; from + n <= text.size();) {
    const void* hit = memmem(text.data() + from, text.size() - from, a.text.data(), n);
    if (hit == nullptr) return false;
    std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
    if (fits_at(a, text, pos)) return true;
    from = pos + 1;
  }
  return false;
}

}  // namespace

void ascii_lower(std::string& text) {
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
}

std::optional<LiteralPattern> literal_pattern(std::string_view pattern) {
  LiteralPattern out;
  out.fold_case = strip_fold_case(pattern);
  std::optional<Alternatives> alternatives = LiteralReader(pattern).whole();
  if (!alternatives) return std::nullopt;
  out.alternatives = std::move(*alternatives);
  if (out.fold_case)
    for (LiteralAlternative& a : out.alternatives) ascii_lower(a.text);
  return out;
}

bool literal_matches(const LiteralPattern& pattern, std::string_view text, std::string_view lowered,
                     const std::vector<unsigned char>* found) {
  std::string_view seen = pattern.fold_case ? lowered : text;
  for (const LiteralAlternative& a : pattern.alternatives)
    if (matches_one(a, seen, found)) return true;
  return false;
}

}  // namespace perfgate

namespace perfgate {
namespace {

using Requirement = std::optional<std::vector<std::string>>;  // nothing: no text is required

bool is_ascii_punct(char c) {
  return is_printable(c) && c != ' ' && !is_word(c);
}

// The more selective of two requirements: the one whose shortest piece is longer.
void keep_better(Requirement& best, Requirement candidate) {
  auto shortest = [](const std::vector<std::string>& any_of) {
    std::size_t n = SIZE_MAX;
    for (const std::string& s : any_of) n = std::min(n, s.size());
    return any_of.empty() ? 0 : n;
  };
  if (!candidate || shortest(*candidate) == 0) return;
  if (!best || shortest(*candidate) > shortest(*best)) best = std::move(candidate);
}

// Reads RE2's syntax for the text every match must contain: in each branch, the literal runs
// between its other items and its groups' requirements are each required, and the most selective
// is kept; a branch without one makes the whole pattern require nothing. Anything it does not know
// gives up (`failed_`), which also requires nothing: RE2 then sees every name, as before.
class RequiredReader {
 public:
  explicit RequiredReader(std::string_view pattern) : p_(pattern) {}
  Requirement whole() {
    Requirement out = alternation();
    if (failed_ || i_ != p_.size()) return std::nullopt;
    return out;
  }

 private:
  Requirement alternation() {
    Requirement out = branch();
    bool none = !out;
    while (!failed_ && i_ < p_.size() && p_[i_] == '|') {
      ++i_;
      Requirement more = branch();
      if (!more)
        none = true;
      else if (out)
        out->insert(out->end(), more->begin(), more->end());
    }
    if (none) return std::nullopt;
    return out;
  }

  Requirement branch() {
    Requirement best;
    std::string run;
    while (!failed_ && i_ < p_.size() && p_[i_] != '|' && p_[i_] != ')') {
      char literal = 0;
      Requirement group;
      bool is_group = false;
      if (!item(literal, group, is_group)) return failed_ = true, std::nullopt;
      if (skip_quantifier()) literal = 0, group.reset();  // optional or repeated: not required as it is
      if (literal != 0) {
        run += literal;
        continue;
      }
      keep_better(best, run.empty() ? Requirement{} : Requirement{{run}});
      run.clear();
      if (is_group) keep_better(best, std::move(group));
    }
    keep_better(best, run.empty() ? Requirement{} : Requirement{{run}});
    return best;
  }

  // One item: a literal character (set in `literal`), a group (its requirement), or anything else
  // that matches without a known text (a class, ., an anchor). False where the syntax is unknown.
  bool item(char& literal, Requirement& group, bool& is_group) {
    char c = p_[i_++];
    if (c == '(') {
      is_group = true;
      if (p_.substr(i_, 2) == "?:") {
        i_ += 2;
      } else if (p_.substr(i_, 2) == "?P" && p_.substr(i_, 3) == "?P<") {
        std::size_t close = p_.find('>', i_);
        if (close == std::string_view::npos) return false;
        i_ = close + 1;
      } else if (i_ < p_.size() && p_[i_] == '?') {
        return false;  // flags
      }
      group = alternation();
      if (failed_ || i_ >= p_.size() || p_[i_] != ')') return false;
      ++i_;
      return true;
    }
    if (c == '[') return skip_class();
    if (c == '\\') {
      if (i_ >= p_.size()) return false;
      char e = p_[i_++];
      if (is_ascii_punct(e)) literal = e;
      return literal != 0 || std::strchr("dDwWsSbBAz", e) != nullptr;
    }
    if (c == '.' || c == '^' || c == '$') return true;
    if (!is_printable(c) || c == ')' || c == '?' || c == '*' || c == '+' || c == '{' || c == ']' || c == '}')
      return false;
    literal = c;
    return true;
  }

  bool skip_class() {
    if (i_ < p_.size() && p_[i_] == '^') ++i_;
    if (i_ < p_.size() && p_[i_] == ']') ++i_;
    while (i_ < p_.size() && p_[i_] != ']') {
      if (p_[i_] == '[' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') return false;
      i_ += p_[i_] == '\\' ? 2 : 1;
    }
    if (i_ >= p_.size()) return false;
    ++i_;
    return true;
  }

  // ?, *, +, {n}, {n,}, {n,m}, each maybe followed by ? (non-greedy): true where one was skipped.
  bool skip_quantifier() {
    if (i_ >= p_.size()) return false;
    if (p_[i_] == '{') {
      std::size_t j = i_ + 1;
      while (j < p_.size() && ((p_[j] >= '0' && p_[j] <= '9') || p_[j] == ',')) ++j;
      if (j >= p_.size() || p_[j] != '}' || j == i_ + 1) return failed_ = true, false;
      i_ = j + 1;
    } else if (p_[i_] == '?' || p_[i_] == '*' || p_[i_] == '+') {
      ++i_;
    } else {
      return false;
    }
    if (i_ < p_.size() && p_[i_] == '?') ++i_;
    if (i_ < p_.size() && std::strchr("?*+{", p_[i_])) failed_ = true;
    return true;
  }

  std::string_view p_;
  std::size_t i_ = 0;
  bool failed_ = false;
};

}  // namespace

std::optional<RequiredText> required_text(std::string_view pattern) {
  RequiredText out;
  out.fold_case = strip_fold_case(pattern);
  Requirement any_of = RequiredReader(pattern).whole();
  if (!any_of || any_of->empty()) return std::nullopt;
  out.any_of = std::move(*any_of);
  if (out.fold_case)
    for (std::string& s : out.any_of) ascii_lower(s);
  return out;
}

bool may_match(const RequiredText& required, std::string_view text, std::string_view lowered, bool ascii,
               const std::vector<unsigned char>* found) {
  if (required.fold_case && !ascii) return true;
  if (found != nullptr && required.needles.size() == required.any_of.size())
    return std::any_of(required.needles.begin(), required.needles.end(),
                       [&](int id) { return (*found)[static_cast<std::size_t>(id)] != 0; });
  std::string_view seen = required.fold_case ? lowered : text;
  for (const std::string& piece : required.any_of)
    if (memmem(seen.data(), seen.size(), piece.data(), piece.size()) != nullptr) return true;
  return false;
}

}  // namespace perfgate
