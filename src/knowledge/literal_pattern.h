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
  int needle = -1;  // its id in the set's NeedleIndex, where it is looked for anywhere
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

// A-Z made a-z, the rest as it is: how a literal that folds case, and the name it is tested on, are kept.
void ascii_lower(std::string& text);

// Whether the pattern matches `text` (unanchored, as RE2::Set matches it). `lowered` is the text in
// ASCII lower case, used where the pattern folds case; the caller makes it once per name. `found`:
// which of the set's NeedleIndex pieces the name holds (nullptr: search each piece).
bool literal_matches(const LiteralPattern& pattern, std::string_view text, std::string_view lowered,
                     const std::vector<unsigned char>* found = nullptr);

}  // namespace perfgate

namespace perfgate {

// Text that every match of a regular expression contains: one of `any_of` (lower case where the
// pattern folds case). A set runs RE2 on a name only where some pattern's required text is in it,
// and compiles it only when one first is. '^cu(Ctx|Stream|Event)Synchronize(_v\d+)?$' requires
// "Synchronize"; 'sm\d+_xmma_(gemm|fprop)' "_xmma_".
struct RequiredText {
  std::vector<std::string> any_of;
  bool fold_case = false;
  std::vector<int> needles;  // each piece's id in the set's NeedleIndex, where it has one
};

// What the pattern requires, or nothing where a match may lack every literal piece of it (a branch
// of classes and repetitions only, an optional group, flags other than a leading (?i), escapes
// other than of punctuation and \d \w \s \b and their negations).
std::optional<RequiredText> required_text(std::string_view pattern);

// Whether `text` (or `lowered`, its ASCII lower case, where the pattern folds case) holds one of
// the required pieces; true where case folds and the text is not ASCII (RE2 folds by Unicode).
bool may_match(const RequiredText& required, std::string_view text, std::string_view lowered, bool ascii,
               const std::vector<unsigned char>* found = nullptr);

}  // namespace perfgate
