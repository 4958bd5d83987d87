// A file's format from its first bytes, inflated where it is gzip: the reader most sure of them
// (load/reader.h), asked once.
#include <fmt/format.h>

#include <optional>

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

// Formats perfgate knows and does not read: refused naming the format and what it reads instead
// (issue 75, item 7), where the generic refusal would list every format, or the Kineto gzip reader
// call the file invalid JSON.
struct KnownUnread {
  std::string_view what;     // the format
  std::string_view instead;  // what perfgate reads in its place
};

std::optional<KnownUnread> known_unread(std::string_view name, std::string_view head) {
  std::string_view line = head.substr(0, head.find('\n'));
  auto named = [&](std::string_view ending) { return name.ends_with(ending); };
  if (line.starts_with("\"Index\",\"KernelName\"") ||
      line.starts_with("\"Name\",\"Calls\",\"TotalDurationNs\""))
    return KnownUnread{"a rocprof v1 CSV (results.csv or a *stats.csv)",
                       "the same run's results.json or results.db (rocprof --hip-trace writes them)"};
  if (line.find("\"Correlation_Id\"") != std::string_view::npos &&
      line.find("\"Start_Timestamp\"") != std::string_view::npos)
    return KnownUnread{"a rocprofv3 CSV", "rocprofv3's JSON (rocprofv3 --output-format json)"};
  if (named(".nsys-rep") || named(".qdrep"))
    return KnownUnread{"an Nsight Systems report", "its SQLite export (nsys export --type sqlite FILE)"};
  if (named(".ncu-rep"))
    return KnownUnread{"an Nsight Compute report",
                       "an Nsight Systems SQLite export or a Kineto trace of the same run (perfgate reads "
                       "timelines, not per-kernel counter reports)"};
  if (named(".pftrace") || named(".otf2"))
    return KnownUnread{"a rocprofv3 Perfetto or OTF2 trace",
                       "rocprofv3's JSON (rocprofv3 --output-format json)"};
  if (name.find("tfevents") != std::string_view::npos)
    return KnownUnread{"a TensorBoard event file",
                       "the profile plugin's XSpace (plugins/profile/<run>/*.xplane.pb)"};
  return std::nullopt;
}

// Refuses a file no reader claims for itself (none, or the Kineto readers' last resort) that is a
// known format perfgate does not read.
void refuse_known_unread(const std::string& name, std::string_view head, const Reader* reader) {
  if (reader && reader->name != std::string_view("kineto-json") &&
      reader->name != std::string_view("kineto-json.gz"))
    return;
  if (std::optional<KnownUnread> k = known_unread(name, head))
    throw InputError(
        fmt::format("{}: {}, which perfgate does not read: give it {}", name, k->what, k->instead));
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
    refuse_known_unread(sniffed.bytes->name(), head, sniffed.reader);
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
  refuse_known_unread(sniffed.bytes->name(), inflated, sniffed.reader);
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
