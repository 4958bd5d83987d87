// A file's format from its first bytes, inflated where it is gzip: the reader most sure of them
// (load/reader.h), asked once.
#include <fmt/format.h>

#include <algorithm>
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

// A line of `text` from `at` without its end ('\n', and a '\r' before it); `at` moves past it.
std::string_view next_line(std::string_view text, std::size_t& at) {
  std::size_t end = std::min(text.find('\n', at), text.size());
  std::string_view line = text.substr(std::min(at, text.size()), end - std::min(at, text.size()));
  at = end + 1;
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}

// A CSV report of DLProf (NVIDIA's Deep Learning Profiler, `dlprof --reports=...`): DLProf names
// them dlprof_<report>.csv (dlprof_summary.csv, dlprof_detailed.csv, dlprof_iteration.csv,
// dlprof_kernel.csv, dlprof_tensor_core.csv, dlprof_op_type.csv, dlprof_group_node.csv,
// dlprof_expert_systems.csv; --file_prefix changes "dlprof"), and writes the report's title alone
// on the first line ("Tensor Core Report") and the column names on the second ("Op ID,Op Name,Op
// Type,Uses TC,..."). Known by that head whatever the file's name, or by the name.
bool dlprof_csv(std::string_view name, std::string_view head) {
  std::string_view base = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
  if (base.starts_with("dlprof_") && base.ends_with(".csv")) return true;
  std::size_t at = 0;
  std::string_view title = next_line(head, at);
  if (title.size() > 2 && title.front() == '"' && title.back() == '"')
    title = title.substr(1, title.size() - 2);
  if (title.size() <= 7 || !title.ends_with(" Report")) return false;
  for (char c : title)
    if (!(c == ' ' || c == '-' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return false;
  if (title.front() < 'A' || title.front() > 'Z') return false;
  std::string_view columns = next_line(head, at);
  return columns.find(',') != std::string_view::npos;
}

}  // namespace

std::optional<KnownUnread> known_unread(std::string_view name, std::string_view head) {
  std::string_view line = head.substr(0, head.find('\n'));
  auto named = [&](std::string_view ending) { return name.ends_with(ending); };
  if (dlprof_csv(name, head))
    return KnownUnread{"a DLProf CSV report (dlprof_*.csv, its first line the report's title)",
                       "the Nsight Systems SQLite export DLProf made it from (nsys_profile.sqlite beside "
                       "it, or its nsys_profile.qdrep or .nsys-rep exported with nsys export --type sqlite "
                       "FILE)"};
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

namespace {

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
