// Where trace bytes come from: a file read in fixed-size chunks, or a plain file mapped into memory
// and parsed where it lies (its pages handed back as the reading passes them, so memory stays
// flat either way), optionally decompressed as it is read; and the inputs that the readers open
// such streams from (a file, bytes in memory).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace perfgate {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to `size` bytes; returns 0 at the end. Throws InputError naming the file.
  virtual std::size_t read(char* out, std::size_t size) = 0;
  // Bytes of the file on disk consumed so far (progress and error positions).
  virtual std::uint64_t file_bytes_consumed() const = 0;

  // A source whose bytes are in memory already (a mapped file) lends them instead of copying them
  // with read(): lend(n) gives the next up to n bytes (empty at the end), valid until release()
  // passes them. Readers check lends() once and then use one way or the other.
  virtual bool lends() const { return false; }
  virtual std::string_view lend(std::size_t) { return {}; }
  // The bytes lent before `end` are no longer needed: their memory may be handed back.
  virtual void release(const char* /*end*/) {}
};

// Which file a path named (its device and inode), compared without a stat of the path.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool known() const { return device != 0 || inode != 0; }
  bool operator==(const FileIdentity&) const = default;
};

class FileSource : public ByteSource {
 public:
  // `sequential`: tell the kernel the file is read in order (read ahead of a large one).
  explicit FileSource(std::string path, bool sequential = true);
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override;
  std::size_t read(char* out, std::size_t size) override;
  std::uint64_t file_bytes_consumed() const override { return consumed_; }
  std::uint64_t file_size() const { return size_; }
  // The opened file's device and inode (from the fstat that checked it).
  FileIdentity identity() const { return identity_; }
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  FileIdentity identity_;
  std::uint64_t consumed_ = 0;
};

// Files FileSource has opened since the process began (tests: a run folder's small rank is opened
// once a run, by its sniff, and its load reads the sniffed bytes).
std::uint64_t files_opened();

// A plain file mapped read-only (a MappedFile, src/io/mapped_file.cpp), or a FileSource where it
// cannot be mapped.
std::unique_ptr<ByteSource> open_plain_file(const std::string& path);

// How a reader takes the bytes of a stream it opens (ByteInput::open).
struct OpenOptions {
  // A plain file is mapped and its bytes lent where they lie (ByteSource::lends), for a reader that
  // parses in place; else read() into the reader's buffer.
  bool map = true;
  // A gzip stream is inflated on a thread of its own, ahead of the reader (a one-thread parse).
  bool inflate_ahead = false;
};

// One input's bytes, wherever they lie: a file, bytes in memory, or either inflated as gzip (a
// wrapping input, io/gzip.h, as Perfetto's decompressing reader forwards the inflated bytes to the
// format's reader). A reader opens it as a stream from the start as often as it reads it (the
// pickle's two passes, the Kineto reader's second pass over bad input); one that needs the bytes at
// random (SQLite) asks whether they are a file on disk.
class ByteInput {
 public:
  explicit ByteInput(std::string name) : name_(std::move(name)) {}
  virtual ~ByteInput() = default;
  ByteInput(const ByteInput&) = delete;
  ByteInput& operator=(const ByteInput&) = delete;

  // What messages call the input: its file's path.
  const std::string& name() const { return name_; }
  // The bytes as stored (a gzip file's compressed size): what progress counts.
  virtual std::uint64_t stored_bytes() const = 0;
  // A stream of the bytes from their start, a new one each call. Throws InputError naming the input.
  virtual std::unique_ptr<ByteSource> open(const OpenOptions& options = {}) const = 0;
  // The file on disk that holds exactly these bytes (a plain file), for a library that opens files
  // by name; nullptr where there is none (bytes in memory, a gzip stream).
  virtual const std::string* file_path() const { return nullptr; }

 private:
  std::string name_;
};

// What a caller that has just seen a regular file at a path (a folder's listing, a stat) says.
struct SeenRegularFile {};

// A file on disk, checked to be a regular file (check_regular_file's messages) and sized from the
// descriptor it is opened with at once. A small file (up to kSmallFileBytes) is read whole then, and
// its streams lend those bytes: a rank of a run folder is sniffed, checked for gzip and parsed from
// one open, one fstat and one read (issue 78: 65,536 tiny ranks).
class FileInput : public ByteInput {
 public:
  static constexpr std::uint64_t kSmallFileBytes = 64 << 10;
  // The path stat'ed first, so that a device or a FIFO it names is never opened (opening a device
  // may do something).
  explicit FileInput(std::string path);
  // Without that stat, where the caller has just seen a regular file there (resolve_inputs).
  FileInput(std::string path, SeenRegularFile);
  std::uint64_t stored_bytes() const override { return size_; }
  std::unique_ptr<ByteSource> open(const OpenOptions& options = {}) const override;
  const std::string* file_path() const override { return &name(); }
  // Times the file was opened (tests: a small file once, however often it is read).
  unsigned opened() const { return opened_.load(std::memory_order_relaxed); }
  // Whether its bytes are in memory (a small file): a later reader of the file is handed this
  // input, not a new one that opens and reads it again.
  bool holds_bytes() const { return small_ != nullptr; }
  // The opened file's device and inode when it was sized: which file it is, whatever its name.
  FileIdentity identity() const { return identity_; }

 private:
  void open_and_size();
  // A small file read whole (short of `size_ + 1` bytes) into small_; a full read means it grew.
  void keep_small_file(FileSource& file);

  std::uint64_t size_ = 0;
  FileIdentity identity_;
  // A small file's bytes, read when it was named and never changed after (so read by any thread
  // without a lock), shared with the sources that lend them (which may outlive this).
  std::shared_ptr<const std::string> small_;
  mutable std::atomic<unsigned> opened_ = 0;
};

// Bytes in memory, named `name` in messages (a profile given as bytes, a harness's input). Its
// streams lend them; shared bytes are not copied.
class MemoryInput : public ByteInput {
 public:
  MemoryInput(std::string name, std::string bytes)
      : ByteInput(std::move(name)), bytes_(std::make_shared<const std::string>(std::move(bytes))) {}
  MemoryInput(std::string name, std::shared_ptr<const std::string> bytes)
      : ByteInput(std::move(name)), bytes_(std::move(bytes)) {}
  std::uint64_t stored_bytes() const override { return bytes_->size(); }
  std::unique_ptr<ByteSource> open(const OpenOptions& options = {}) const override;

 private:
  std::shared_ptr<const std::string> bytes_;
};

// Up to `size` of the first bytes of `input` (inflated where it is gzip).
std::string read_head(const ByteInput& input, std::size_t size);
// The whole of `input`'s bytes in memory (inflated where it is gzip), for a reader that needs them
// at random. Refused at once (InputMemoryError naming the input) when the stored bytes pass
// `max_memory` (0: no limit), and as the bytes read grow past it.
std::string read_whole(const ByteInput& input, std::uint64_t max_memory);

// Reads `inner` ahead on a thread of its own (for decompression, which then overlaps parsing).
std::unique_ptr<ByteSource> make_prefetch_source(std::unique_ptr<ByteSource> inner);

// Reads until `size` bytes or the end; returns the bytes read.
std::size_t read_fully(ByteSource& source, char* out, std::size_t size);

// Throws InputError naming `path` unless it is a regular file (after symbolic links): a FIFO, a
// device, a socket or a folder is refused ("not a regular file (a named pipe)"), looked at without
// opening it, so never waited on. Returns false, throwing nothing, when nothing is at `path` and
// `missing_ok`; a missing file is otherwise refused ("no such file").
bool check_regular_file(const std::string& path, bool missing_ok = false);

}  // namespace perfgate
