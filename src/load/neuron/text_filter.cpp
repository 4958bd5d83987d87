#include "load/neuron/text_filter.h"

#include <array>
#include <cstring>

namespace perfgate::neuron {
namespace {

// NaN, Infinity, -NaN, -Infinity: the words Go's and Python's encoders write for non-finite numbers.
constexpr std::array<std::string_view, 4> kWords = {"-Infinity", "Infinity", "-NaN", "NaN"};

// Bytes that need a look outside strings: a quote opens a string; N, I and '-' may begin a word.
constexpr std::array<bool, 256> kOutside = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\"NI-")) t[c] = true;
  return t;
}();

}  // namespace

// The position of the next word to replace at or after `from` (in.size() when none), leaving the
// string state at that position.
std::size_t NonFiniteFilter::scan(std::string_view in, std::size_t from) {
  const std::size_t n = in.size();
  std::size_t i = from;
  while (i < n) {
    if (in_string_) {
      // Strings are most of the text: find their end with memchr, not a byte at a time.
      if (escape_) {
        escape_ = false;
        ++i;  // the escaped byte
        continue;
      }
      const char* from_ptr = in.data() + i;
      const auto* quote = static_cast<const char*>(std::memchr(from_ptr, '"', n - i));
      std::size_t end = quote ? static_cast<std::size_t>(quote - in.data()) : n;
      if (const auto* backslash = static_cast<const char*>(std::memchr(from_ptr, '\\', end - i))) {
        i = static_cast<std::size_t>(backslash - in.data()) + 1;
        escape_ = true;
        continue;
      }
      i = end;
      if (quote) {
        in_string_ = false;
        ++i;
      }
      continue;
    }
    for (; i < n && !kOutside[static_cast<unsigned char>(in[i])]; ++i) {
    }
    if (i == n) break;
    if (in[i] == '"') {
      in_string_ = true;
      ++i;
      continue;
    }
    // A negative number; a '-' last in the chunk may begin -NaN or -Infinity: filter() keeps it
    // for the next chunk.
    if (in[i] == '-' && i + 1 < n && in[i + 1] != 'I' && in[i + 1] != 'N') {
      ++i;
      continue;
    }
    return i;
  }
  return n;
}

std::string_view NonFiniteFilter::filter(std::string_view in, bool last, std::size_t& used) {
  std::size_t at = scan(in, 0);
  if (at == in.size()) {
    used = in.size();
    return in;
  }
  out_.clear();
  std::size_t copied = 0;
  while (at < in.size()) {
    std::string_view rest = in.substr(at);
    std::string_view word;
    for (std::string_view w : kWords)
      if (rest.starts_with(w)) {
        word = w;
        break;
      }
    if (word.empty() && !last && rest.size() < kWords[0].size()) {
      // Perhaps a word cut off by the end of the chunk: keep it for the next call.
      out_.append(in.substr(copied, at - copied));
      used = at;
      return out_;
    }
    if (word.empty()) {
      at = scan(in, at + 1);  // not a word (the parser will say what is wrong there)
      continue;
    }
    out_.append(in.substr(copied, at - copied));
    out_.append("null");
    ++replaced_;
    copied = at + word.size();
    at = scan(in, copied);
  }
  out_.append(in.substr(copied));
  used = in.size();
  return out_;
}

}  // namespace perfgate::neuron
