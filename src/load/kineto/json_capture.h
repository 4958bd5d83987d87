// Re-serialises a JSON subtree to compact text while it streams past, for the few values kept as
// text (input shapes and types) or parsed later as a small document (device properties).
#pragma once

#include <string>
#include <string_view>

namespace perfgate::kineto {

class JsonCapture {
 public:
  void reset() {
    text_.clear();
    depth_ = 0;
    need_comma_ = false;
  }
  void begin_container(char open);  // '{' or '['
  void end_container(char close);
  void key(std::string_view k);
  void string_value(std::string_view s);
  void raw_value(std::string_view literal);  // numbers, true, false, null
  int depth() const { return depth_; }
  const std::string& text() const { return text_; }

 private:
  void separator();
  void quoted(std::string_view s);

  std::string text_;
  int depth_ = 0;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace perfgate::kineto
