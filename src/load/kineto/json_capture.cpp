#include "load/kineto/json_capture.h"

#include <fmt/format.h>

namespace perfgate::kineto {

void JsonCapture::separator() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (need_comma_) text_ += ',';
}

void JsonCapture::quoted(std::string_view s) {
  text_ += '"';
  // Runs of characters that need no escape (nearly all) are appended whole, not one by one.
  auto plain = [](unsigned char c) { return c >= 0x20 && c != '"' && c != '\\'; };
  while (!s.empty()) {
    std::size_t run = 0;
    while (run < s.size() && plain(static_cast<unsigned char>(s[run]))) ++run;
    text_.append(s.data(), run);
    s.remove_prefix(run);
    if (s.empty()) break;
    unsigned char c = static_cast<unsigned char>(s.front());
    s.remove_prefix(1);
    switch (c) {
      case '"':
        text_ += "\\\"";
        break;
      case '\\':
        text_ += "\\\\";
        break;
      case '\n':
        text_ += "\\n";
        break;
      case '\r':
        text_ += "\\r";
        break;
      case '\t':
        text_ += "\\t";
        break;
      default:
        text_ += fmt::format("\\u{:04x}", c);  // the other control characters
    }
  }
  text_ += '"';
}

void JsonCapture::begin_container(char open) {
  separator();
  text_ += open;
  ++depth_;
  need_comma_ = false;
}

void JsonCapture::end_container(char close) {
  text_ += close;
  --depth_;
  need_comma_ = true;
}

void JsonCapture::key(std::string_view k) {
  separator();
  quoted(k);
  text_ += ':';
  after_key_ = true;
}

void JsonCapture::string_value(std::string_view s) {
  separator();
  quoted(s);
  need_comma_ = true;
}

void JsonCapture::raw_value(std::string_view literal) {
  separator();
  text_ += literal;
  need_comma_ = true;
}

}  // namespace perfgate::kineto
