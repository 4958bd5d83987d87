#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/io.h"
#include "io/output_target.h"
#include "io/spill_arena.h"
#include "io/temp_files.h"

namespace perfgate {
namespace {

using Writer = std::function<void(std::string_view)>;

// Writes what `produce` gives to `fd`. A write that fails, or a producer that throws, closes `fd`
// and calls `undo` first; the write's failure is an OutputError naming `shown`, and an OutputError
// of the producer's own passes as it came.
void produce_into(int fd, const std::string& shown, const ContentProducer& produce,
                  const std::function<void()>& undo) {
  Writer write = [&](std::string_view piece) {
    spill::trim_if_spilled();  // a report written piece by piece reads a spilled run back as it goes
    if (write_all(fd, piece.data(), piece.size())) return;
    int err = errno;
    ::close(fd);
    undo();
    throw OutputError(fmt::format("{}: cannot write (write): {}", shown, std::strerror(err)));
  };
  try {
    produce(write);
  } catch (const OutputError&) {
    throw;
  } catch (...) {  // the producer failed: no half-written file is left behind
    ::close(fd);
    undo();
    throw;
  }
}

// A device, a FIFO or a descriptor link takes the bytes as they come: there is nothing to rename
// over it, and nothing to remove on failure.
// A FIFO is opened without waiting: with no process reading it, open() would block for ever (issue 92).
// The report waits up to kFifoReaderWaitMs for a reader to come (`cat fifo &` started beside it), then
// gives up with an error naming the FIFO.
constexpr int kFifoReaderWaitMs = 10'000;

int open_fifo_for_writing(const std::string& path) {
  for (int waited = 0;; waited += 20) {
    int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
      int flags = ::fcntl(fd, F_GETFL);
      if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int err = errno;
        ::close(fd);
        throw OutputError(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
      }
      return fd;
    }
    if (errno != ENXIO) return -1;
    if (waited >= kFifoReaderWaitMs)
      throw OutputError(fmt::format("{}: cannot write: a FIFO that no process opened for reading within {} s",
                                    path, kFifoReaderWaitMs / 1000));
    ::usleep(20'000);
  }
}

void write_in_place(const std::string& path, const ContentProducer& produce) {
  struct stat st {};
  bool fifo = ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  int fd =
      fifo ? open_fifo_for_writing(path) : ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw OutputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  produce_into(fd, path, produce, [] {});
  if (::close(fd) != 0)
    throw OutputError(fmt::format("{}: cannot write (close): {}", path, std::strerror(errno)));
}

// A regular file is written beside itself under a hidden temporary name and renamed over the
// target, so that a reader never sees half a file.
void write_by_rename(const std::string& shown, const std::string& path, const ContentProducer& produce) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string hidden_name = target.filename().string();
  hidden_name.insert(0, 1, '.');
  hidden_name.append(".tmp.XXXXXX");
  std::string temp = (folder / hidden_name).string();
  // mkstemp: O_CREAT|O_EXCL with a random name, so a planted file or symlink is never followed.
  int fd = ::mkstemp(temp.data());
  if (fd < 0) throw OutputError(fmt::format("{}: cannot write: {}", shown, std::strerror(errno)));
  try {
    register_temp_path(temp);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  auto discard = [&] {
    ::unlink(temp.c_str());
    unregister_temp_path(temp);
  };
  produce_into(fd, shown, produce, discard);
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    discard();
    return OutputError(fmt::format("{}: cannot write ({}): {}", shown, what, std::strerror(err)));
  };
  if (::fchmod(fd, static_cast<mode_t>(output_mode(path))) != 0) throw fail("chmod");
  if (::fsync(fd) != 0) throw fail("fsync");
  if (::close(fd) != 0) {
    int err = errno;
    discard();
    throw OutputError(fmt::format("{}: cannot write (close): {}", shown, std::strerror(err)));
  }
  finish_output(temp, path, shown);
}

// A hidden, registered temporary file beside `target` (mkstemp: a planted name is never followed).
std::string hidden_temp_beside(const std::string& shown, const std::string& target) {
  namespace fs = std::filesystem;
  fs::path t(target);
  fs::path folder = t.has_parent_path() ? t.parent_path() : fs::path(".");
  std::string temp = (folder / ("." + t.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(temp.data());
  if (fd < 0) throw OutputError(fmt::format("{}: cannot write: {}", shown, std::strerror(errno)));
  ::close(fd);
  try {
    register_temp_path(temp);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  return temp;
}

}  // namespace

void finish_output(const std::string& temp, const std::string& target, const std::string& shown) {
  if (rename_batch_open()) {
    defer_rename(temp, target);
    return;
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    unregister_temp_path(temp);
    throw OutputError(fmt::format("{}: cannot write (rename): {}", shown, std::strerror(err)));
  }
  unregister_temp_path(temp);
}

void finish_output_from(const std::string& made, const std::string& target, const std::string& shown) {
  std::string temp = hidden_temp_beside(shown, target);
  if (::rename(made.c_str(), temp.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    unregister_temp_path(temp);
    throw OutputError(fmt::format("{}: cannot write (rename): {}", shown, std::strerror(err)));
  }
  finish_output(temp, target, shown);
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&content](const Writer& write) { write(content); });
}

void write_file_atomically(const std::string& path, const ContentProducer& produce) {
  OutputTarget target = resolve_output_target(path);
  if (!target.refusal.empty()) throw OutputError(fmt::format("{}: cannot write: {}", path, target.refusal));
  if (target.in_place)
    write_in_place(target.path, produce);
  else
    write_by_rename(path, target.path, produce);
}

void append_to_file(const std::string& path, const std::string& content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0) throw OutputError(fmt::format("{}: cannot append: {}", path, std::strerror(errno)));
  if (!write_all(fd, content.data(), content.size())) {
    int err = errno;
    ::close(fd);
    throw OutputError(fmt::format("{}: cannot append: {}", path, std::strerror(err)));
  }
  if (::close(fd) != 0) throw OutputError(fmt::format("{}: cannot append: {}", path, std::strerror(errno)));
}

}  // namespace perfgate
