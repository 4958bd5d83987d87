// A file's format from its first bytes: the reader most sure of them (load/reader.h).
#include <fmt/format.h>

#include "io/byte_source.h"
#include "load/reader.h"
#include "perfgate/errors.h"
#include "perfgate/load.h"

namespace perfgate {

std::string detect_format(const std::string& path) {
  std::string head = read_file_head(path, kFileHeadBytes);
  if (head.empty()) throw InputError(fmt::format("{}: empty file (0 bytes)", path));
  if (head.size() == kFileHeadBytes && FileHead(head).json().starts_with('['))
    head = read_file_head(path, kArrayHeadBytes);
  const Reader* reader = sniff_reader(FileHead(head));
  return reader ? reader->name : "";
}

}  // namespace perfgate
