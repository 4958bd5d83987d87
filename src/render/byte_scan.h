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
  if (n >= 8) {
    unsigned skipped = 8 * static_cast<unsigned>(i - (n - 8));  // 8 to 56 bits
    std::uint64_t m = flags(load(s.data() + n - 8) >> skipped | (' ' * kOnes) << (64 - skipped));
    return m ? i + std::countr_zero(m) / 8 : n;
  }
  // A text under eight bytes (most names and labels), in one word without a copy: from four bytes
  // on, its first four and its last four (which may overlap them); below, its first, middle and last
  // byte, padded with spaces. The first byte flagged names the first flagged byte of the text: the
  // bytes that a later one repeats were not flagged before it.
  const char* p = s.data() + i;
  std::size_t left = n - i;
  std::uint64_t w;
  if (left >= 4) {
    std::uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + left - 4, 4);
    if constexpr (std::endian::native == std::endian::big) {
      first = __builtin_bswap32(first);
      last = __builtin_bswap32(last);
    }
    w = first | std::uint64_t{last} << 32;
  } else {
    auto byte = [&](std::size_t k) { return std::uint64_t{static_cast<unsigned char>(p[k])}; };
    w = byte(0) | byte(left / 2) << 8 | byte(left - 1) << 16 | (' ' * kOnes) << 24;
  }
  std::uint64_t m = flags(w);
  if (m == 0) return n;
  auto k = static_cast<std::size_t>(std::countr_zero(m) / 8);
  if (left >= 4) return i + (k < 4 ? k : left - 8 + k);
  return i + (k == 0 ? 0 : k == 1 ? left / 2 : left - 1);
}

}  // namespace perfgate::byte_scan
