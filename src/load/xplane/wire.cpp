#include "load/xplane/wire.h"

#include <bit>
#include <cstring>

#include <fmt/format.h>

namespace perfgate::wire {

double Field::as_double() const {
  return std::bit_cast<double>(value);
}

std::uint64_t Message::varint(const char* what) {
  std::uint64_t result = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (pos_ >= bytes_.size())
      throw WireError(fmt::format("a truncated varint ({}) at the end of its message", what), base_ + pos_);
    auto byte = static_cast<unsigned char>(bytes_[pos_++]);
    // The tenth byte holds the 64th bit only.
    if (shift == 63 && byte > 1)
      throw WireError(fmt::format("a varint ({}) longer than 64 bits", what), base_ + pos_ - 1);
    result |= std::uint64_t{byte & 0x7fu} << shift;
    if (byte < 0x80) return result;
  }
  throw WireError(fmt::format("a varint ({}) longer than 10 bytes", what), base_ + pos_);
}

bool Message::next(Field& out) {
  if (pos_ >= bytes_.size()) return false;
  out.offset = base_ + pos_;
  std::uint64_t key = varint("a field key");
  std::uint64_t number = key >> 3;
  if (number == 0 || number > 0x1fffffff) throw WireError(fmt::format("field number {}", number), out.offset);
  out.number = static_cast<std::uint32_t>(number);
  out.bytes = {};
  switch (key & 7) {
    case 0:
      out.type = WireType::Varint;
      out.value = varint("a field's value");
      return true;
    case 1:
    case 5: {
      std::size_t size = (key & 7) == 1 ? 8 : 4;
      if (bytes_.size() - pos_ < size)
        throw WireError(fmt::format("a {}-byte fixed field past the end of its message", size), out.offset);
      out.type = size == 8 ? WireType::Fixed64 : WireType::Fixed32;
      out.value = 0;
      unsigned char raw[8] = {};
      std::memcpy(raw, bytes_.data() + pos_, size);
      for (std::size_t i = 0; i < size; ++i) out.value |= std::uint64_t{raw[i]} << (8 * i);  // little-endian
      pos_ += size;
      return true;
    }
    case 2: {
      std::uint64_t length = varint("a length");
      if (length > bytes_.size() - pos_)
        throw WireError(
            fmt::format("field {}'s length of {} bytes runs past the end of its message ({} bytes "
                        "left)",
                        number, length, bytes_.size() - pos_),
            out.offset);
      out.type = WireType::Bytes;
      out.data_offset = base_ + pos_;
      out.bytes = bytes_.substr(pos_, static_cast<std::size_t>(length));
      pos_ += static_cast<std::size_t>(length);
      return true;
    }
    case 3:
    case 4:
      throw WireError(
          fmt::format("field {} is a group (wire type {}), which XSpace never holds", number, key & 7),
          out.offset);
    default:
      throw WireError(
          fmt::format("field {} has wire type {}, which protobuf does not define", number, key & 7),
          out.offset);
  }
}

}  // namespace perfgate::wire
