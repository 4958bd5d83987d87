#include "engine/part_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/io.h"

namespace perfgate {
namespace {

// The head of a part is its three text lines: 64 MiB holds the header of a part of a million
// inputs, and a limit below it bounds it further.
constexpr std::uint64_t kMaxHeadBytes = std::uint64_t{64} << 20;

// A file opened for reading: O_NONBLOCK, so that opening a FIFO returns at once (and is then
// refused by fstat) instead of waiting for a writer.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw InputError(fmt::format(
          "{}: not a regular file (a partial report is a file that analyze --partial wrote)", path));
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile() { ::close(fd_); }

  std::uint64_t size() const { return size_; }
  // Up to `n` bytes at `offset`, fewer only at the end of the file.
  std::string read(std::uint64_t offset, std::size_t n) const {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd_, out.data() + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw InputError(fmt::format("{}: cannot read: {}", path_, std::strerror(errno)));
      if (r == 0) break;
      got += static_cast<std::size_t>(r);
    }
    out.resize(got);
    return out;
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The file's first bytes, up to the end of its third line or `limit` bytes.
std::string read_head(const ReadOnlyFile& file, std::uint64_t limit) {
  std::string head;
  int lines = 0;
  while (lines < 3 && head.size() < limit) {
    std::string chunk = file.read(
        head.size(), static_cast<std::size_t>(std::min<std::uint64_t>(limit - head.size(), 1 << 16)));
    if (chunk.empty()) break;
    lines += static_cast<int>(std::count(chunk.begin(), chunk.end(), '\n'));
    head += chunk;
    if (!starts_like_partial(head) && head.size() >= kPartialSchema.size()) break;
  }
  return head;
}

}  // namespace

void require_regular_file(const std::string& path) {
  ReadOnlyFile file(path);
}

PartialHeader read_checked_partial_header(const std::string& path, std::uint64_t limit) {
  ReadOnlyFile file(path);
  std::uint64_t head_limit = limit == 0 ? kMaxHeadBytes : std::min(limit, kMaxHeadBytes);
  PartialHeader header = decode_partial_header(read_head(file, head_limit), path);
  std::uint64_t declared = header.head_bytes + header.body_bytes;
  if (file.size() != declared)
    throw InputError(fmt::format("{}: the partial report is {} ({} bytes; its header declares {})", path,
                                 file.size() < declared ? "truncated" : "larger than its declared size",
                                 file.size(), declared));
  if (limit && declared > limit)
    throw InputError(
        fmt::format("{}: {} bytes, over the input memory limit (--max-input-memory)", path, declared));
  std::uint64_t check_at = header.head_bytes - kPartialCheckLineBytes;
  std::uint32_t crc = crc32_update(0, file.read(0, static_cast<std::size_t>(check_at)));
  for (std::uint64_t at = header.head_bytes; at < declared; at += 1 << 20)
    crc = crc32_update(
        crc, file.read(at, static_cast<std::size_t>(std::min<std::uint64_t>(declared - at, 1 << 20))));
  verify_partial_checksum(header, crc, path);
  return header;
}

std::string read_partial_file(const std::string& path, std::uint64_t limit) {
  ReadOnlyFile file(path);
  if (limit && file.size() > limit)
    throw InputError(
        fmt::format("{}: {} bytes, over the input memory limit (--max-input-memory)", path, file.size()));
  std::string bytes = file.read(0, static_cast<std::size_t>(file.size()));
  if (bytes.size() != file.size()) throw InputError(fmt::format("{}: changed while it was merged", path));
  return bytes;
}

}  // namespace perfgate
