#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "perfgate/errors.h"
#include "perfgate/render.h"
#include "render/temp_files.h"

namespace perfgate {

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path,
                        [&content](const std::function<void(std::string_view)>& write) { write(content); });
}

void write_file_atomically(const std::string& path, const ContentProducer& produce) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string hidden_name = target.filename().string();
  hidden_name.insert(0, 1, '.');
  hidden_name.append(".tmp.XXXXXX");
  std::string temp = (folder / hidden_name).string();
  // mkstemp: O_CREAT|O_EXCL with a random name, so a planted file or symlink is never followed.
  int fd = ::mkstemp(temp.data());
  if (fd < 0) throw OutputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  try {
    register_temp_path(temp);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    unregister_temp_path(temp);
    return OutputError(fmt::format("{}: cannot write ({}): {}", path, what, std::strerror(err)));
  };
  auto write = [&](std::string_view piece) {
    const char* data = piece.data();
    std::size_t left = piece.size();
    while (left > 0) {
      ssize_t n = ::write(fd, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw fail("write");
      data += n;
      left -= static_cast<std::size_t>(n);
    }
  };
  try {
    produce(write);
  } catch (const OutputError&) {
    throw;
  } catch (...) {  // the producer failed: no half-written file is left behind
    ::close(fd);
    ::unlink(temp.c_str());
    unregister_temp_path(temp);
    throw;
  }
  if (::fchmod(fd, static_cast<mode_t>(output_mode(path))) != 0) throw fail("chmod");
  if (::fsync(fd) != 0) throw fail("fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    unregister_temp_path(temp);
    throw OutputError(fmt::format("{}: cannot write (close): {}", path, std::strerror(err)));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    unregister_temp_path(temp);
    throw OutputError(fmt::format("{}: cannot write (rename): {}", path, std::strerror(err)));
  }
  unregister_temp_path(temp);
}

}  // namespace perfgate

namespace perfgate {

void append_to_file(const std::string& path, const std::string& content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw OutputError(fmt::format("{}: cannot append: {}", path, std::strerror(errno)));
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      throw OutputError(fmt::format("{}: cannot append: {}", path, std::strerror(err)));
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw OutputError(fmt::format("{}: cannot append: {}", path, std::strerror(errno)));
}

}  // namespace perfgate
