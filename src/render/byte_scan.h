// Finding the first byte of a class in text eight bytes at a time (the classic tests for a zero byte
// and for a byte below n, on a 64-bit word): nearly every text a report writes is plain ASCII with
// nothing to escape, and a byte at a time costs ~5 instructions a byte where a word costs ~2.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace perfgate::byte_scan {

inline constexpr std::uint64_t kOnes = 0x0101010101010101, kHighs = 0x8080808080808080;

// The high bit of each byte that is zero. Exact up to and including the first zero byte (a borrow
// only runs on from a zero byte), which is all first_flagged reads.
constexpr std::uint64_t zero_bytes(std::uint64_t w) {
  return (w - kOnes) & ~w & kHighs;
}
// The high bit of each byte below `n` (n <= 0x80), exact up to the first such byte.
constexpr std::uint64_t bytes_below(std::uint64_t w, unsigned char n) {
  return (w - n * kOnes) & ~w & kHighs;
}
constexpr std::uint64_t bytes_equal(std::uint64_t w, unsigned char c) {
  return zero_bytes(w ^ (c * kOnes));
}
constexpr std::uint64_t bytes_from_0x80(std::uint64_t w) {
  return w & kHighs;
}

// Eight bytes from `p`, the first in the lowest bits.
inline std::uint64_t load(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// The position of the first byte at or after `i` that `flags` (a word's flagged bytes, as the tests
// above give them) flags, or s.size(). The space character must not be flagged: it pads a short text.
template <typename Flags>
std::size_t first_flagged(std::string_view s, std::size_t i, Flags flags) {
  const std::size_t n = s.size();
  for (; i + 8 <= n; i += 8)
    if (std::uint64_t m = flags(load(s.data() + i))) return i + std::countr_zero(m) / 8;
  if (i == n) return n;
  // The rest in one word, padded with spaces: the last eight bytes shifted past those before `i`
  // (which may hold a flagged byte whose borrow would run on), or a text under eight bytes copied.
  std::uint64_t w;
  if (n >= 8) {
    unsigned skipped = 8 * static_cast<unsigned>(i - (n - 8));  // 8 to 56 bits
    w = load(s.data() + n - 8) >> skipped | (' ' * kOnes) << (64 - skipped);
  } else {
    char padded[8];
    std::memset(padded, ' ', 8);
    std::memcpy(padded, s.data() + i, n - i);
    w = load(padded);
  }
  std::uint64_t m = flags(w);
  return m ? i + std::countr_zero(m) / 8 : n;
}

}  // namespace perfgate::byte_scan
