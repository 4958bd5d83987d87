// A file's format from its first bytes, inflated where it is gzip: the reader most sure of them
// (load/reader.h), asked once.
#include <fmt/format.h>

#include "common/errors.h"
#include "io/byte_source.h"
#include "io/gzip.h"
#include "load/load.h"
#include "load/reader.h"

namespace perfgate {
namespace {

// `head`, the first kFileHeadBytes of `input`, read on to kArrayHeadBytes where it begins a bare
// JSON array.
std::string whole_head(const ByteInput& input, std::string head) {
  if (head.size() == kFileHeadBytes && FileHead(head).json().starts_with('['))
    return read_head(input, kArrayHeadBytes);
  return head;
}

// A Python pickle (protocol 2 to 5) that no reader claims is refused as what it is: the Kineto gzip
// reader would otherwise take a gzipped one and call it invalid JSON (issue 78, item 7).
void refuse_other_pickle(const std::string& name, std::string_view head, const Reader* reader) {
  if (head.size() < 2 || static_cast<unsigned char>(head[0]) != 0x80) return;
  auto protocol = static_cast<unsigned char>(head[1]);
  if (protocol < 2 || protocol > 5 || (reader && reader->name == std::string_view("pytorch-memory-snapshot")))
    return;
  // The whole file is in the head and ends without the STOP opcode: a pickle cut short, perhaps a
  // snapshot cut before its first key, which is what would say so.
  if (head.size() < kFileHeadBytes && head.back() != '.')
    throw InputError(fmt::format(
        "{}: a Python pickle (protocol {}) that ends after {} bytes, before its STOP opcode (truncated): "
        "too little of it to be a PyTorch memory snapshot, whose dict's first key is 'segments'",
        name, protocol, head.size()));
  throw InputError(fmt::format(
      "{}: a Python pickle (protocol {}) that is not a PyTorch memory snapshot: a snapshot is a dict whose "
      "first key is 'segments' (torch.cuda.memory._dump_snapshot)",
      name, protocol));
}

}  // namespace

SniffedInput sniff_input(std::unique_ptr<ByteInput> stored) {
  std::string head = read_head(*stored, kFileHeadBytes);
  if (head.empty()) throw InputError(fmt::format("{}: empty file (0 bytes)", stored->name()));
  SniffedInput sniffed;
  if (!is_gzip(head)) {
    sniffed.bytes = std::move(stored);
    sniffed.reader = sniff_reader(FileHead(whole_head(*sniffed.bytes, head)));
    refuse_other_pickle(sniffed.bytes->name(), head, sniffed.reader);
    return sniffed;
  }
  // What a gzip file holds is known once inflated. A stream that does not inflate has an empty head,
  // which the Kineto gzip reader claims: its reading says what is wrong with the stream.
  sniffed.bytes = make_gzip_input(std::move(stored));
  std::string inflated;
  try {
    inflated = read_head(*sniffed.bytes, kFileHeadBytes);
    inflated = whole_head(*sniffed.bytes, inflated);
  } catch (const InputError&) {  // within the first 4 KiB: no head; past them: those 4 KiB
  }
  sniffed.reader = sniff_reader(FileHead(inflated, true));
  refuse_other_pickle(sniffed.bytes->name(), inflated, sniffed.reader);
  return sniffed;
}

std::unique_ptr<ByteInput> open_input_file(const std::string& path) {
  return inflate_if_gzip(std::make_unique<FileInput>(path));
}

std::string detect_format(const std::string& path) {
  const Reader* reader = sniff_input(std::make_unique<FileInput>(path)).reader;
  return reader ? reader->name : "";
}

}  // namespace perfgate
