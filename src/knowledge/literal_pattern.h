// Patterns that are only literal text, matched without RE2. Most of the rules' patterns are
// literals or alternations of literals ('nchwToNhwc|nhwcToNchw', '^aten::(mm|bmm|addmm)$',
// '(?i)mfma'); RE2 parses and compiles each set at ~45,000 instructions a pattern, which was most
// of a small trace's run. A substring, prefix, suffix or equality test gives the same answer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

// One way a literal pattern matches: `text` anywhere in the name, at its start (`^`), at its
// end (`$`), or as the whole name (both); with a word boundary (\b) before or after it.
struct LiteralAlternative {
  std::string text;  // lower case where the pattern folds case
  bool at_start = false;
  bool at_end = false;
  bool word_before = false;
  bool word_after = false;
};

struct LiteralPattern {
  std::vector<LiteralAlternative> alternatives;
  bool fold_case = false;  // (?i): ASCII only; a name with other bytes goes to RE2
};

// The pattern as literal alternatives, or nothing where it uses anything else (\d, \w, ., *, +,
// repetition counts, escapes of other letters, flags other than a leading (?i), non-ASCII text),
// or would expand to more than kMaxLiteralAlternatives. Groups of alternatives (capturing or not),
// small classes and ? expand: '(^|_)simt(_|$)' is ^simt_, ^simt$, _simt_ and _simt$;
// 'RTX 20[0-9]0' ten names; '\bA10G?\b' A10 and A10G between word boundaries.
std::optional<LiteralPattern> literal_pattern(std::string_view pattern);
inline constexpr std::size_t kMaxLiteralAlternatives = 256;

// Whether the pattern matches `text` (unanchored, as RE2::Set matches it). `lowered` is the text in
// ASCII lower case, used where the pattern folds case; the caller makes it once per name.
bool literal_matches(const LiteralPattern& pattern, std::string_view text, std::string_view lowered);

}  // namespace perfgate
