// A file's format from its first bytes: the reader most sure of them (load/reader.h).
#include <fmt/format.h>

#include "io/byte_source.h"
#include "io/gzip.h"
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
  // A gzip file: what it holds, inflated, may be a format whose reader inflates it (rocprofv3's
  // JSON); any other is the Kineto reader's, which also says what is wrong with a bad stream.
  if (is_gzip(head)) {
    std::string inflated(kFileHeadBytes, '\0');
    try {
      std::unique_ptr<ByteSource> source = open_gzip_file(path, false);
      inflated.resize(read_fully(*source, inflated.data(), inflated.size()));
    } catch (const InputError&) {
      inflated.clear();
    }
    if (const Reader* inner = sniff_reader(FileHead(inflated)); inner && inner->reads_gzip)
      return inner->name;
  }
  return reader ? reader->name : "";
}

}  // namespace perfgate
