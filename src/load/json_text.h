// A text as a JSON string literal, for the compact JSON the model keeps in OpDetails (shapes, types,
// arguments) where a reader builds it itself (nsys NVTX op names, XLA ops): quotes and backslashes
// escaped, control characters dropped (they never belong in those names).
#pragma once

#include <string>
#include <string_view>

namespace perfgate {

inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace perfgate
