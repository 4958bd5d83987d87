#include "load/kineto/json_capture.h"

#include <fmt/format.h>

namespace perfgate::kineto {

namespace {
bool needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}
}  // namespace

// Every op's input types pass through here (ResNet-50: 100,000 strings of 5 bytes): the run of
// bytes that need no escape (nearly always the whole text) is copied at once.
void JsonCapture::append_quoted(std::string_view s) {
  char* p = room(s.size() + 2);
  *p++ = '"';
  std::size_t run = 0;
  while (run < s.size() && !needs_escape(static_cast<unsigned char>(s[run]))) ++run;
  std::memcpy(p, s.data(), run);
  p += run;
  if (run < s.size()) {
    commit(p);
    p = append_escaped(s.substr(run));
  }
  *p++ = '"';
  commit(p);
}

// The rest of a text from its first byte that needs an escape; returns where the text ends, with
// room for the closing quote. Room is asked for the plain case; each escape asks again.
char* JsonCapture::append_escaped(std::string_view s) {
  char* p = room(s.size() + 1);
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (!needs_escape(c)) {
      *p++ = static_cast<char>(c);
      continue;
    }
    commit(p);
    p = room(6 + (s.size() - i) + 1);
    *p++ = '\\';
    switch (c) {
      case '"':
      case '\\':
        *p++ = static_cast<char>(c);
        break;
      case '\n':
        *p++ = 'n';
        break;
      case '\r':
        *p++ = 'r';
        break;
      case '\t':
        *p++ = 't';
        break;
      default:  // the other control characters
        p = fmt::format_to(p, "u{:04x}", c);
    }
  }
  return p;
}

void JsonCapture::key(std::string_view k) {
  commit(separator(room(1)));
  append_quoted(k);
  *room(1) = ':';
  ++size_;
  after_key_ = true;
}

void JsonCapture::string_value(std::string_view s) {
  commit(separator(room(1)));
  append_quoted(s);
  need_comma_ = true;
}

}  // namespace perfgate::kineto
