#include "rules/suggest.h"

#include <algorithm>
#include <vector>

namespace perfgate {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
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
