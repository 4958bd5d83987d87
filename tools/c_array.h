// The build steps' generated sources hold bytes as a C array: its initializer.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace perfgate::tools {

// "0x..,0x..," for each byte, 16 to a line, then a final 0x00 (so that an empty text still makes an
// array): what goes between the braces of `const unsigned char name[] = {...};`.
inline std::string c_array_initializer(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 5 + bytes.size() / 16 + 4);
  char hex[8];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(hex, sizeof hex, "0x%02x,", static_cast<unsigned char>(bytes[i]));
    out += hex;
    if (i % 16 == 15) out += '\n';
  }
  return out + "0x00";
}

}  // namespace perfgate::tools
