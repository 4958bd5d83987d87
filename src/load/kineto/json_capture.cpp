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
  for (unsigned char c : s) {
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
        if (c < 0x20) {
          text_ += fmt::format("\\u{:04x}", c);
        } else {
          text_ += static_cast<char>(c);
        }
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
