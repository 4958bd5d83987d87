// Re-serialises a JSON subtree to compact text while it streams past, for the few values kept as
// text (input shapes and types) or parsed later as a small document (device properties).
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

namespace perfgate::kineto {

// Every op's input shapes and types pass through here, a token at a time (ResNet-50: 47,000
// captures): the text is written through a cursor into storage that only grows, with no
// per-character string calls.
class JsonCapture {
 public:
  void reset() {
    size_ = 0;
    depth_ = 0;
    need_comma_ = false;
    after_key_ = false;
  }
  void begin_container(char open) {  // '{' or '['
    char* p = separator(room(2));
    *p++ = open;
    commit(p);
    ++depth_;
    need_comma_ = false;
  }
  void end_container(char close) {
    *room(1) = close;
    ++size_;
    --depth_;
    need_comma_ = true;
  }
  void key(std::string_view k);
  void string_value(std::string_view s);
  // A text of printable ASCII with nothing to escape (nearly every input type: "float", "Scalar",
  // ""), checked and copied inline; false, with nothing written, for any other text, which the
  // caller checks for UTF-8 and hands to string_value.
  bool plain_string_value(std::string_view s) {
    for (char c : s)
      if (!plain(static_cast<unsigned char>(c))) return false;
    char* p = separator(room(s.size() + 3));
    *p++ = '"';
    for (char c : s) *p++ = c;
    *p++ = '"';
    commit(p);
    need_comma_ = true;
    return true;
  }
  void raw_value(std::string_view literal) {  // numbers, true, false, null
    char* p = separator(room(literal.size() + 1));
    std::memcpy(p, literal.data(), literal.size());
    commit(p + literal.size());
    need_comma_ = true;
  }
  int depth() const { return depth_; }
  std::string_view text() const { return {storage_.data(), size_}; }

 private:
  char* separator(char* p) {
    if (after_key_)
      after_key_ = false;
    else if (need_comma_)
      *p++ = ',';
    return p;
  }
  // Room for n more bytes after the text.
  char* room(std::size_t n) {
    if (storage_.size() - size_ < n) storage_.resize(std::max(storage_.size() * 2, size_ + n + 64));
    return storage_.data() + size_;
  }
  void commit(const char* end) { size_ = static_cast<std::size_t>(end - storage_.data()); }
  static bool plain(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }
  void append_quoted(std::string_view s);
  [[gnu::noinline]] char* append_escaped(std::string_view s);

  std::string storage_;  // its size is the capacity; the text is the first size_ bytes
  std::size_t size_ = 0;
  int depth_ = 0;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace perfgate::kineto
