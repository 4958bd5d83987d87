#include "io/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "perfgate/errors.h"

namespace perfgate {

namespace {

const char* kind_of_file(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

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

// O_NONBLOCK: opening a FIFO returns at once (and fstat then refuses it) instead of waiting for a
// writer; reads of a regular file ignore the flag.
FileSource::FileSource(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) throw InputError(fmt::format("{}: cannot open: {}", path_, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(fmt::format("{}: not a regular file ({})", path_, kind_of_file(st.st_mode)));
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
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

std::string read_file_head(const std::string& path, std::size_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::string head(size, '\0');
  ssize_t n = ::read(fd, head.data(), size);
  int read_errno = errno;
  ::close(fd);
  if (n < 0) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(read_errno)));
  head.resize(static_cast<std::size_t>(n));
  return head;
}

}  // namespace perfgate
