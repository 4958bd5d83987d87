#include "io/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/path_confinement.h"
#include "io/input_limit.h"

namespace perfgate {

namespace {

const char* kind_of_file(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// Bytes in memory, lent where they lie.
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  std::size_t read(char* out, std::size_t size) override {
    std::string_view text = lend(size);
    std::copy(text.begin(), text.end(), out);
    return text.size();
  }
  std::uint64_t file_bytes_consumed() const override { return at_; }
  bool lends() const override { return true; }
  std::string_view lend(std::size_t size) override {
    std::string_view text = bytes_.substr(at_, size);
    at_ += text.size();
    return text;
  }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// A small file's bytes, lent by a source that shares them with its FileInput: a file's source
// outlives its input (the harnesses and `inflate_if_gzip(...)->open()` let the input go).
class SharedBytesSource : public MemorySource {
 public:
  explicit SharedBytesSource(std::shared_ptr<const std::string> bytes)
      : MemorySource(*bytes), bytes_(std::move(bytes)) {}

 private:
  std::shared_ptr<const std::string> bytes_;
};

std::atomic<std::uint64_t> g_files_opened{0};

}  // namespace

std::uint64_t files_opened() {
  return g_files_opened.load(std::memory_order_relaxed);
}

bool check_regular_file(const std::string& path, bool missing_ok) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int error = errno;
    if (error == ENOENT && missing_ok) return false;
    throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(error)));
  }
  if (!S_ISREG(st.st_mode))
    throw InputError(fmt::format("{}: not a regular file ({})", path, kind_of_file(st.st_mode)));
  return true;
}

FileInput::FileInput(std::string path) : ByteInput(std::move(path)) {
  check_confined_path(name());
  check_regular_file(name(), false);
  open_and_size();
}

FileInput::FileInput(std::string path, SeenRegularFile) : ByteInput(std::move(path)) {
  check_confined_path(name());
  open_and_size();
}

// Checked and sized by the opened descriptor's fstat (FileSource), and a small file read then: a
// stat of the name besides cost a rank of a run folder one system call more (issue 78).
void FileInput::open_and_size() {
  FileSource file(name(), false);
  size_ = file.file_size();
  identity_ = file.identity();
  ++opened_;
  if (size_ <= kSmallFileBytes) keep_small_file(file);
}

// One read of a byte more than its size: a regular file's read comes back short only at its end,
// so a short one is the whole file, with no second read to be told 0. A full one means the file grew
// since it was sized: it is streamed from the file at each open instead, as a large one is.
void FileInput::keep_small_file(FileSource& file) {
  auto bytes = std::make_shared<std::string>(static_cast<std::size_t>(size_) + 1, '\0');
  bytes->resize(file.read(bytes->data(), bytes->size()));
  if (bytes->size() <= size_) small_ = std::move(bytes);
}

std::unique_ptr<ByteSource> FileInput::open(const OpenOptions& options) const {
  if (small_) return std::make_unique<SharedBytesSource>(small_);
  opened_.fetch_add(1, std::memory_order_relaxed);  // a reader may open its input from several threads
  if (options.map) return open_plain_file(name());
  return std::make_unique<FileSource>(name());
}

std::unique_ptr<ByteSource> MemoryInput::open(const OpenOptions&) const {
  return std::make_unique<MemorySource>(*bytes_);
}

std::string read_head(const ByteInput& input, std::size_t size) {
  std::unique_ptr<ByteSource> source = input.open({.map = false});
  std::string head;
  if (source->lends()) {  // bytes in memory (a small file): copied, with no buffer zeroed first
    for (std::string_view text; head.size() < size && !(text = source->lend(size - head.size())).empty();)
      head += text;
    return head;
  }
  head.resize(size);
  head.resize(read_fully(*source, head.data(), size));
  return head;
}

std::string read_whole(const ByteInput& input, std::uint64_t max_memory) {
  check_input_memory(input.name(), input.stored_bytes(), max_memory);
  std::unique_ptr<ByteSource> source = input.open({.map = false});
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(input.stored_bytes()) + kChunk);
  for (;;) {
    std::size_t at = bytes.size();
    bytes.resize(at + kChunk);
    std::size_t got = read_fully(*source, bytes.data() + at, kChunk);
    bytes.resize(at + got);
    check_input_memory(input.name(), bytes.size(), max_memory);
    if (got < kChunk) return bytes;
  }
}

// O_NONBLOCK: opening a FIFO returns at once (and fstat then refuses it) instead of waiting for a
// writer; reads of a regular file ignore the flag.
FileSource::FileSource(std::string path, bool sequential) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) throw InputError(fmt::format("{}: cannot open: {}", path_, std::strerror(errno)));
  g_files_opened.fetch_add(1, std::memory_order_relaxed);
  try {
    check_confined_descriptor(fd_, path_);  // what was opened, whatever a link put there since
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(fmt::format("{}: not a regular file ({})", path_, kind_of_file(st.st_mode)));
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  identity_ = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  if (sequential) ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t FileSource::read(char* out, std::size_t size) {
  for (;;) {
    ssize_t n = ::read(fd_, out, size);
    if (n >= 0) {
      consumed_ += static_cast<std::uint64_t>(n);
      return static_cast<std::size_t>(n);
    }
    if (errno != EINTR)
      throw InputError(
          fmt::format("{}: read error after {} bytes: {}", path_, consumed_, std::strerror(errno)));
  }
}

std::size_t read_fully(ByteSource& source, char* out, std::size_t size) {
  std::size_t got = 0;
  for (std::size_t n; got < size && (n = source.read(out + got, size - got)) > 0;) got += n;
  return got;
}

}  // namespace perfgate
