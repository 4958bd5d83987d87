#include "io/sqlite_uri.h"

#include <fmt/format.h>

namespace perfgate {

std::string sqlite_immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#')
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else
      uri += c;
  }
  return uri + "?immutable=1";
}

}  // namespace perfgate
