// Hand-built pickles for the restricted unpickler's and the memory snapshot's tests: each opcode
// written as Python's pickle module writes it (Lib/pickle.py, _Pickler.save_*), byte by byte, so
// that a test says which opcodes its file holds.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace perfgate::test {

class PickleWriter {
 public:
  explicit PickleWriter(int protocol = 4) : protocol_(protocol) {
    out_ += '\x80';
    out_ += static_cast<char>(protocol);
  }
  PickleWriter& op(unsigned char code) {
    out_ += static_cast<char>(code);
    return *this;
  }
  PickleWriter& raw(std::string_view bytes) {
    out_ += bytes;
    return *this;
  }
  PickleWriter& little(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  // A str: SHORT_BINUNICODE (protocol 4 and 5) or BINUNICODE.
  PickleWriter& str(std::string_view s) {
    if (protocol_ >= 4 && s.size() < 256) {
      op(0x8c).little(s.size(), 1);
    } else {
      op('X').little(s.size(), 4);
    }
    return raw(s);
  }
  PickleWriter& bytes(std::string_view s) { return op('C').little(s.size(), 1).raw(s); }
  // An int as save_long writes it: BININT1, BININT2, BININT, else LONG1 (two's complement).
  PickleWriter& integer(std::int64_t v) {
    if (v >= 0 && v < 256) return op('K').little(static_cast<std::uint64_t>(v), 1);
    if (v >= 0 && v < 65536) return op('M').little(static_cast<std::uint64_t>(v), 2);
    if (v >= INT32_MIN && v <= INT32_MAX) return op('J').little(static_cast<std::uint32_t>(v), 4);
    auto u = static_cast<std::uint64_t>(v);
    int n = 8;
    while (n > 1) {  // the fewest bytes that keep the sign
      std::int64_t shifted = v >> (8 * (n - 1) - 1);
      if (shifted != 0 && shifted != -1) break;
      --n;
    }
    return op(0x8a).little(static_cast<std::uint64_t>(n), 1).little(u, n);
  }
  PickleWriter& real(double d) {
    std::uint64_t u = 0;
    std::memcpy(&u, &d, 8);
    op('G');
    for (int i = 7; i >= 0; --i) out_ += static_cast<char>((u >> (8 * i)) & 0xff);
    return *this;
  }
  PickleWriter& boolean(bool b) { return op(b ? 0x88 : 0x89); }
  PickleWriter& none() { return op('N'); }
  PickleWriter& mark() { return op('('); }
  PickleWriter& memoize() { return protocol_ >= 4 ? op(0x94) : op('q').little(memo_++, 1); }
  PickleWriter& empty_dict() { return op('}').memoize(); }
  PickleWriter& empty_list() { return op(']').memoize(); }
  PickleWriter& setitems() { return op('u'); }
  PickleWriter& appends() { return op('e'); }
  PickleWriter& stop() { return op('.'); }
  const std::string& text() const { return out_; }

 private:
  int protocol_;
  std::uint64_t memo_ = 0;
  std::string out_;
};

}  // namespace perfgate::test
