// The protobuf wire format, read from bytes in memory: the few rules XSpace needs (varints, 64- and
// 32-bit fixed fields, length-delimited fields), each bounded by the bytes it lies in. A small
// reader of our own rather than libprotobuf and generated code: XSpace's schema is five messages,
// read once in a fixed order (docs/formats.md, "XPlane").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace perfgate::wire {

// A malformed message: what is wrong and the offset of the field in the whole file.
class WireError : public std::runtime_error {
 public:
  WireError(const std::string& what, std::uint64_t offset) : std::runtime_error(what), offset_(offset) {}
  std::uint64_t offset() const { return offset_; }

 private:
  std::uint64_t offset_;
};

enum class WireType : unsigned char { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

struct Field {
  std::uint32_t number = 0;
  WireType type = WireType::Varint;
  std::uint64_t value = 0;        // Varint, Fixed64, Fixed32
  std::string_view bytes;         // Bytes: the field's content (a string or a nested message)
  std::uint64_t offset = 0;       // of the field's key in the file
  std::uint64_t data_offset = 0;  // Bytes: of its content in the file

  std::int64_t as_int64() const { return static_cast<std::int64_t>(value); }  // two's complement
  double as_double() const;                                                   // Fixed64
};

// The fields of one message, in order. `base` is the message's offset in the file (for messages).
class Message {
 public:
  Message(std::string_view bytes, std::uint64_t base) : bytes_(bytes), base_(base) {}
  // The next field into `out`; false at the end. Throws WireError on a truncated varint, a length
  // past the end of the message, a group (wire types 3 and 4, which proto3 never writes), a wire
  // type protobuf does not define or field number 0.
  bool next(Field& out);
  std::uint64_t base() const { return base_; }

 private:
  std::uint64_t varint(const char* what);

  std::string_view bytes_;
  std::size_t pos_ = 0;
  std::uint64_t base_;
};

// A nested message's fields, from its field.
inline Message nested(const Field& f) {
  return Message(f.bytes, f.data_offset);
}

}  // namespace perfgate::wire
