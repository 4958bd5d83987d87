#include "gate/message_template.h"

#include <fmt/format.h>

namespace perfgate {
namespace {

// Walks the text, calling `literal` for plain text and `placeholder` for each name. False (and
// `error`) on an unbalanced brace.
template <typename Literal, typename Placeholder>
bool walk(std::string_view text, Literal literal, Placeholder placeholder, std::string& error) {
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      literal(std::string_view(&text[i], 1));
      i += 2;
    } else if (c == '{') {
      std::size_t close = text.find('}', i);
      if (close == std::string_view::npos) {
        error = fmt::format("'{{' at {} has no closing '}}'", i + 1);
        return false;
      }
      placeholder(text.substr(i + 1, close - i - 1));
      i = close + 1;
    } else if (c == '}') {
      error = fmt::format("'}}' at {} has no opening '{{' (write '}}}}' for a brace)", i + 1);
      return false;
    } else {
      std::size_t next = text.find_first_of("{}", i);
      if (next == std::string_view::npos) next = text.size();
      literal(text.substr(i, next - i));
      i = next;
    }
  }
  return true;
}

}  // namespace

std::vector<std::string> template_placeholders(std::string_view text, std::string& error) {
  std::vector<std::string> names;
  walk(
      text, [](std::string_view) {}, [&](std::string_view name) { names.emplace_back(name); }, error);
  return names;
}

std::string fill_template(std::string_view text,
                          const std::function<std::string(std::string_view)>& value_of) {
  std::string out, error;
  walk(
      text, [&](std::string_view s) { out += s; }, [&](std::string_view name) { out += value_of(name); },
      error);
  return out;
}

}  // namespace perfgate
