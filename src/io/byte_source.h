// Where trace bytes come from: a file read in fixed-size chunks, or a plain file mapped into memory
// and parsed where it lies (its pages handed back as the reading passes them, so memory stays
// flat either way), optionally decompressed as it is read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

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

class FileSource : public ByteSource {
 public:
  explicit FileSource(std::string path);
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override;
  std::size_t read(char* out, std::size_t size) override;
  std::uint64_t file_bytes_consumed() const override { return consumed_; }
  std::uint64_t file_size() const { return size_; }
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t consumed_ = 0;
};

// A plain file mapped read-only (a MappedFile, src/io/mapped_file.cpp), or a FileSource where it
// cannot be mapped.
std::unique_ptr<ByteSource> open_plain_file(const std::string& path);

// Reads `inner` ahead on a thread of its own (for decompression, which then overlaps parsing).
std::unique_ptr<ByteSource> make_prefetch_source(std::unique_ptr<ByteSource> inner);

// Reads until `size` bytes or the end; returns the bytes read.
std::size_t read_fully(ByteSource& source, char* out, std::size_t size);

// Throws InputError naming `path` unless it is a regular file (after symbolic links): a FIFO, a
// device, a socket or a folder is refused ("not a regular file (a named pipe)"), looked at without
// opening it, so never waited on. Returns false, throwing nothing, when nothing is at `path` and
// `missing_ok`; a missing file is otherwise refused ("no such file").
bool check_regular_file(const std::string& path, bool missing_ok = false);

// Up to `size` of the first bytes of `path` (one read: a regular file gives them all), by any
// file type the caller has let through. Throws InputError naming the file when it cannot be
// opened or read.
std::string read_file_head(const std::string& path, std::size_t size);

}  // namespace perfgate
