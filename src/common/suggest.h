// "Did you mean ...?" for misspelt keys and names.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace perfgate {

// The candidate closest to `word` by edit distance (optimal string alignment: a swap of two
// neighbouring letters is one edit), if it is close enough to be a likely typo.
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);

// ", did you mean 'x'?" or empty.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace perfgate
