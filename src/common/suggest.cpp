#include "common/suggest.h"

#include <algorithm>
#include <vector>

namespace perfgate {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of two
// neighbouring characters each cost 1 ("medain" is 1 from "median", not 2), so a swapped pair of
// letters, the commonest typo, is suggested before a word that merely shares letters.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the table: i - 2, i - 1 and i.
  std::vector<std::size_t> before(b.size() + 1), above(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) above[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({above[j] + 1, row[j - 1] + 1, above[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, above);
    std::swap(above, row);
  }
  return above[b.size()];
}

}  // namespace

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
  std::string_view best;
  std::size_t best_distance = std::string_view::npos;
  for (std::string_view c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Close enough: a third of the word's length, at least 2 edits.
  std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  if (best.empty() || best_distance > limit) return {};
  return std::string(best);
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  std::string best = closest_match(word, candidates);
  return best.empty() ? std::string() : ", did you mean '" + best + "'?";
}

}  // namespace perfgate
