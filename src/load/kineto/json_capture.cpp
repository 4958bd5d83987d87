#include "load/kineto/json_capture.h"

#include <fmt/format.h>

namespace perfgate::kineto {

// Room is asked for the plain case (quotes and s); each escape asks again for what it needs.
void JsonCapture::append_quoted(std::string_view s) {
  char* p = room(s.size() + 2);
  *p++ = '"';
  // Runs of characters that need no escape (nearly all) are copied whole, not one by one.
  auto plain = [](unsigned char c) { return c >= 0x20 && c != '"' && c != '\\'; };
  while (!s.empty()) {
    std::size_t run = 0;
    while (run < s.size() && plain(static_cast<unsigned char>(s[run]))) ++run;
    std::memcpy(p, s.data(), run);
    p += run;
    s.remove_prefix(run);
    if (s.empty()) break;
    unsigned char c = static_cast<unsigned char>(s.front());
    s.remove_prefix(1);
    commit(p);
    p = room(6 + s.size() + 1);
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
  *p++ = '"';
  commit(p);
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
