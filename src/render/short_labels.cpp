#include "render/short_labels.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "render/cell_format.h"

namespace perfgate {
namespace {

constexpr std::string_view kEllipsis = "…";  // 3 bytes

bool continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The last `n` bytes of `s` at most, not starting inside a UTF-8 sequence.
std::string_view utf8_suffix(std::string_view s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t start = s.size() - n;
  while (start < s.size() && continuation_byte(s[start])) ++start;
  return s.substr(start);
}

// `s` from byte `start` (moved back to a character's start), at most `n` bytes.
std::string_view utf8_part(std::string_view s, std::size_t start, std::size_t n) {
  while (start > 0 && continuation_byte(s[start])) --start;
  return utf8_prefix(s.substr(start), n);
}

// The start and the end of `s` around an ellipsis, `n` bytes at most: the end of a name (an op's
// "_backward_weight", a kernel's arguments) tells names apart as often as its start.
std::string cut_in_the_middle(std::string_view s, std::size_t n) {
  std::size_t room = n - kEllipsis.size(), head = room / 2;
  return fmt::format("{}{}{}", utf8_prefix(s, head), kEllipsis, utf8_suffix(s, room - head));
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  return static_cast<std::size_t>(
      std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin()).first - a.begin());
}

// A name that reads like others when cut in the middle: cut at the end where it differs from the
// most alike of `others` early enough to show a few bytes of the difference, else its start, then
// the part from a little before where it differs, then its end if there is room left.
std::string cut_around_difference(std::string_view s, const std::vector<std::string_view>& others,
                                  std::size_t n) {
  std::size_t differs = 0;
  for (std::string_view o : others)
    if (o != s) differs = std::max(differs, common_prefix(s, o));
  constexpr std::size_t kBytesOfTheDifference = 6;
  if (differs + kBytesOfTheDifference <= n - kEllipsis.size()) return shorten(s, n);
  std::size_t room = n - 2 * kEllipsis.size(), head = room / 4, part = room - head;
  std::size_t start = std::max(head, differs > part / 4 ? differs - part / 4 : 0);
  if (start + part + kEllipsis.size() >= s.size())  // the part reaches the end: one ellipsis
    return fmt::format("{}{}{}", utf8_prefix(s, head), kEllipsis,
                       utf8_suffix(s, n - kEllipsis.size() - utf8_prefix(s, head).size()));
  return fmt::format("{}{}{}{}", utf8_prefix(s, head), kEllipsis, utf8_part(s, start, part), kEllipsis);
}

// Each text longer than the labels' length once (a view of the caller's text), with its label.
using CutLabels = std::map<std::string_view, std::string>;

// The texts cut (the map's keys) grouped by the label they have now.
std::map<std::string, std::vector<std::string_view>> by_label(const CutLabels& cut) {
  std::map<std::string, std::vector<std::string_view>> groups;
  for (const auto& [text, label] : cut) groups[label].push_back(text);
  return groups;
}

// Where cut texts still share a label, or a cut text reads as a text shown whole: a number at the
// end, the first one free among every label.
void number_repeats(CutLabels& cut, const std::unordered_set<std::string_view>& whole, std::size_t n) {
  std::set<std::string, std::less<>> used;  // the cut texts' labels, then the numbered ones
  for (const auto& [text, label] : cut) used.insert(label);
  for (auto& [label, texts] : by_label(cut)) {
    if (texts.size() < 2 && !whole.contains(label)) continue;
    std::size_t number = 0;
    for (std::string_view text : texts) {
      std::string numbered;
      do {
        std::string suffix = fmt::format(" #{}", ++number);
        numbered = std::string(utf8_prefix(label, n - suffix.size())) + suffix;
      } while (used.contains(numbered) || whole.contains(numbered));
      used.insert(numbered);
      cut[text] = numbered;
    }
  }
}

// The labels of the texts longer than `n` (n >= 8).
CutLabels cut_labels(const std::vector<std::string_view>& texts, std::size_t n) {
  std::unordered_set<std::string_view> whole;
  CutLabels cut;
  for (std::string_view t : texts) {
    if (t.size() <= n)
      whole.insert(t);
    else if (!cut.contains(t))
      cut.emplace(t, cut_in_the_middle(t, n));
  }
  if (cut.empty()) return cut;
  for (auto& [label, group] : by_label(cut))
    if (group.size() > 1)
      for (std::string_view text : group) cut[text] = cut_around_difference(text, group, n);
  number_repeats(cut, whole, n);
  return cut;
}

}  // namespace

std::vector<std::string> distinct_short_labels(const std::vector<std::string>& texts, std::size_t n) {
  n = std::max<std::size_t>(n, 8);
  CutLabels cut = cut_labels(std::vector<std::string_view>(texts.begin(), texts.end()), n);
  std::vector<std::string> labels;
  labels.reserve(texts.size());
  for (const std::string& t : texts) labels.push_back(t.size() <= n ? t : cut.at(t));
  return labels;
}

std::vector<std::vector<std::string>> short_text_cells(const ReportTable& t, std::size_t rows,
                                                       std::size_t n) {
  rows = std::min(rows, t.rows.size());
  n = std::max<std::size_t>(n, 8);
  std::vector<std::vector<std::string>> out(t.columns.size());
  auto text = [&](std::size_t r, std::size_t c) -> const std::string* {
    return c < t.rows[r].size() ? std::get_if<std::string>(&t.rows[r][c]) : nullptr;
  };
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    bool long_text = false;
    for (std::size_t r = 0; r < rows && !long_text; ++r)
      if (const std::string* s = text(r, c)) long_text = s->size() > n;
    if (!long_text) continue;
    std::vector<std::string_view> texts(rows);  // views of the cells: a number's cell reads ""
    for (std::size_t r = 0; r < rows; ++r)
      if (const std::string* s = text(r, c)) texts[r] = *s;
    CutLabels cut = cut_labels(texts, n);
    out[c].resize(rows);
    for (std::size_t r = 0; r < rows; ++r)
      if (texts[r].size() > n) out[c][r] = cut.at(texts[r]);
  }
  return out;
}

}  // namespace perfgate
