// The readers of profile formats, one per format (Perfetto's trace processor is the model: each
// importer says from a file's first bytes whether the file is its own, and reads it). A format is
// known by its reader's name, which reports show ("kineto-json"). Adding a format is its reader's
// file, which defines a Reader, and one line in readers.cpp's list. A reader is handed the input's
// bytes (io's ByteInput, inflated where the file is gzip), never a path: the loader opens files.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "io/byte_source.h"
#include "load/load.h"
#include "model/profile.h"

namespace perfgate {

// How sure a reader is, from a file's first bytes, that the file is its format.
enum class Sniffed : unsigned char {
  No,
  Maybe,  // the format of last resort for such a file: a JSON document nothing else claims
  Yes,
};

// The first bytes of a file (up to kFileHeadBytes), inflated where it is gzip, as the sniffs see
// them. A bare JSON array gets up to kArrayHeadBytes: the legacy trace's sniff parses it to the end
// of its first event, whose strings may be up to 1 MiB long (docs/formats.md, "Memory limits").
inline constexpr std::size_t kFileHeadBytes = 4096;
inline constexpr std::size_t kArrayHeadBytes = std::size_t{2} << 20;
class FileHead {
 public:
  // `inflated`: the file is gzip and `bytes` are its inflated head (empty where it does not
  // inflate).
  explicit FileHead(std::string_view bytes, bool inflated = false);
  std::string_view bytes() const { return bytes_; }
  bool inflated() const { return inflated_; }
  // A JSON document's text from its first '{' or '[' (after a UTF-8 byte order mark and white
  // space); empty when the file does not begin as one.
  std::string_view json() const { return json_; }

 private:
  std::string_view bytes_;
  std::string_view json_;
  bool inflated_ = false;
};

// One input as its reader gets it.
struct ReaderInput {
  // The input's bytes, inflated where the file is gzip; opened as a stream as often as the reader
  // needs. Its name, the file's path, is what the reader's messages name.
  const ByteInput& bytes;
  const std::string& worker;  // the worker the input's profile is (the file's name less its extensions)
  const LoadOptions& options;
  unsigned threads;                                    // the threads it may parse on
  const std::function<void(std::uint64_t)>& progress;  // stored bytes consumed so far; may be empty
  const std::string& name() const { return bytes.name(); }
};
using ProfileSink = std::function<void(Profile&&)>;

struct Reader {
  const char* name;  // the format's name, as reports show it
  // What the format is, for the message that refuses a file no reader knows ("a PyTorch legacy
  // profiler trace"); nullptr where another reader's words say it already.
  const char* description;
  Sniffed (*sniff)(const FileHead& head);
  // Reads the input and hands each profile in it to `emit` (one, or one per process or node),
  // named after the input's worker. Throws InputError naming the file; NotAProfileError for a
  // document that is not a profile (a file of a run folder is then skipped).
  void (*read)(const ReaderInput& input, const ProfileSink& emit);
};

// Every reader, in the order that breaks a tie between two equally sure sniffs.
std::span<const Reader* const> readers();
// The reader most sure of `head`; nullptr when none is.
const Reader* sniff_reader(const FileHead& head);
// The reader of the format named `name`; nullptr when there is none.
const Reader* find_reader(std::string_view name);
// What perfgate reads, as the message refusing a file no reader knows says it: "a Kineto JSON
// trace (plain or gzip), a PyTorch legacy profiler trace, ... or a Neuron profile".
std::string formats_read();

// Formats perfgate knows and does not read (detect.cpp): refused naming the format and what it
// reads instead (issue 75, item 7; issue 91, item 7: DLProf's CSV reports), where the generic
// refusal would list every format, or the Kineto gzip reader call the file invalid JSON.
struct KnownUnread {
  std::string_view what;     // the format
  std::string_view instead;  // what perfgate reads in its place
};
// The known unread format of a file named `name` whose first bytes (inflated) are `head`, if any.
std::optional<KnownUnread> known_unread(std::string_view name, std::string_view head);

// An input's bytes as the loader hands them to its reader: inflated where they are gzip.
struct SniffedInput {
  std::unique_ptr<ByteInput> bytes;
  const Reader* reader = nullptr;  // the reader most sure of the (inflated) head; nullptr: none
};
// Sniffs `stored` once, by its head: the inflated one where its magic says gzip (then wrapped in a
// gzip input; a stream that does not inflate has an empty head). Throws InputError naming the input
// when it is empty or cannot be read.
SniffedInput sniff_input(std::unique_ptr<ByteInput> stored);
// The file at `path` as the loader hands it to the reader its sniff chose: inflated where its magic
// says gzip. Throws InputError naming it.
std::unique_ptr<ByteInput> open_input_file(const std::string& path);

}  // namespace perfgate
