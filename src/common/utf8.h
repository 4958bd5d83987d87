// UTF-8 validation (RFC 3629: no overlong forms, no encoded surrogates, nothing past U+10FFFF).
// Names from traces are repaired when interned, so that every output is valid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace perfgate {

// Length of the valid UTF-8 sequence starting at s[i] (1 for ASCII), or 0 when it is invalid.
std::size_t utf8_sequence(std::string_view s, std::size_t i);
bool is_valid_utf8(std::string_view s);
// `s` with each invalid byte replaced by U+FFFD; `replaced` counts the replacements.
std::string repair_utf8(std::string_view s, std::size_t& replaced);
// `s` valid UTF-8 without the characters XML 1.0 forbids (controls other than tab, newline and
// carriage return; U+FFFE, U+FFFF); invalid bytes become U+FFFD.
std::string xml_safe_text(std::string_view s);
// The characters (code points) of UTF-8 `s`: what a terminal's columns and a headline's limit count.
std::size_t code_points(std::string_view s);
// `s` cut to at most `n` code points (n >= 1), "…" ending a cut one.
std::string cut_to_code_points(std::string_view s, std::size_t n);

}  // namespace perfgate
