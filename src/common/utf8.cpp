#include "common/utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace perfgate {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// A text under 8 bytes (phases, short categories, names) is ASCII: two overlapping loads that cover it.
bool short_ascii(std::string_view s) {
  std::size_t n = s.size();
  const char* p = s.data();
  if (n >= 4) {
    std::uint32_t head = 0, tail = 0;
    std::memcpy(&head, p, 4);
    std::memcpy(&tail, p + n - 4, 4);
    return ((head | tail) & 0x80808080u) == 0;
  }
  if (n >= 2) {
    std::uint16_t head = 0, tail = 0;
    std::memcpy(&head, p, 2);
    std::memcpy(&tail, p + n - 2, 2);
    return ((head | tail) & 0x8080u) == 0;
  }
  return n == 0 || (static_cast<unsigned char>(p[0]) & 0x80) == 0;
}

}  // namespace

std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if (n == 3 && c == 0xE0 && byte(i + 1) < 0xA0) return 0;   // overlong
  if (n == 3 && c == 0xED && byte(i + 1) >= 0xA0) return 0;  // surrogate
  if (n == 4 && c == 0xF0 && byte(i + 1) < 0x90) return 0;   // overlong
  if (n == 4 && c == 0xF4 && byte(i + 1) >= 0x90) return 0;  // past U+10FFFF
  return n;
}

bool is_valid_utf8(std::string_view s) {
  // Trace text is nearly all ASCII: eight bytes at a time while no byte has its high bit set.
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  std::size_t i = 0;
  for (; i + 32 <= s.size(); i += 32) {  // long names (kernels, stacks): 32 bytes per test
    std::uint64_t w[4];
    std::memcpy(w, s.data() + i, sizeof w);
    if (((w[0] | w[1] | w[2] | w[3]) & kHighBits) != 0) break;
  }
  while (i < s.size()) {
    std::uint64_t word = 0;
    if (i + 8 <= s.size() && (std::memcpy(&word, s.data() + i, 8), (word & kHighBits) == 0)) {
      i += 8;
      continue;
    }
    if (i + 8 > s.size()) {  // the last bytes (most names end here): ASCII when no high bit is set
      if (s.size() >= 8) {   // the last 8 bytes, overlapping bytes already checked
        std::memcpy(&word, s.data() + s.size() - 8, 8);
        if ((word & kHighBits) == 0) return true;
      } else if (short_ascii(s)) {
        return true;
      }
    }
    std::size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string repair_utf8(std::string_view s, std::size_t& replaced) {
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += kReplacement;
      ++replaced;
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string xml_safe_text(std::string_view s) {
  // Printable ASCII (nearly every cell of a workbook) has nothing to repair or drop.
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    std::string_view c = s.substr(i, n);
    i += n;
    auto first = static_cast<unsigned char>(c[0]);
    if (n == 1 && first < 0x20 && first != '\t' && first != '\n' && first != '\r') continue;
    if (c == "\xEF\xBF\xBE" || c == "\xEF\xBF\xBF") continue;  // U+FFFE, U+FFFF
    out.append(c);
  }
  return out;
}

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string cut_to_code_points(std::string_view s, std::size_t n) {
  std::size_t points = 0, cut = s.size();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // inside a character
    if (points == n - 1 && cut == s.size()) cut = i;
    if (++points > n) return std::string(s.substr(0, cut)) + "…";
  }
  return std::string(s);
}

}  // namespace perfgate
