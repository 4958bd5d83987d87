#include "assets/embedded_files.h"

namespace perfgate {

std::string_view embedded_file(std::string_view path) {
  for (const auto& [p, text] : embedded_files())
    if (p == path) return text;
  return {};
}

}  // namespace perfgate
