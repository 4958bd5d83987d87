#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <cctype>
#include <charconv>

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

// This host's name as a temporary's name may hold it: letters, digits and '-', at most 32.
std::string host_in_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "host";
  std::string out;
  for (const char* c = host; *c != '\0' && out.size() < 32; ++c)
    out += std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' ? *c : '-';
  return out.empty() ? "host" : out;
}

// The start of the hidden temporary names of `target`'s outputs made on this host:
// `.NAME.tmp.HOST-` (NAME cut to 160 bytes, so that the whole name stays within NAME_MAX).
std::string temp_prefix(const std::filesystem::path& target) {
  static const std::string host = host_in_name();
  std::string name = target.filename().string().substr(0, 160);
  return "." + name + ".tmp." + host + "-";
}

// A temporary left by a run of this host that no longer runs (a SIGKILL, which no handler sees,
// leaves it: issue 92) is removed before the next output of the same name is written. Its writer is
// told by the process id in its name, `.NAME.tmp.HOST-PID.XXXXXX`: one still running (a concurrent
// perfgate writing the same output) keeps its own; another host's are left alone.
void remove_stale_temporaries(const std::filesystem::path& folder, const std::string& prefix) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    std::size_t dot = name.find('.', prefix.size());
    if (dot == std::string::npos) continue;
    pid_t pid = 0;
    std::string_view digits = std::string_view(name).substr(prefix.size(), dot - prefix.size());
    auto [last, parse] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (parse != std::errc() || last != digits.data() + digits.size() || pid <= 0) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // running (or not ours to ask): kept
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(it->path().c_str());
  }
}

// A hidden temporary's mkstemp template beside `target` (its folder's stale ones removed first).
std::string temp_template(const std::filesystem::path& target) {
  namespace fs = std::filesystem;
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string prefix = temp_prefix(target);
  remove_stale_temporaries(folder, prefix);
  return (folder / fmt::format("{}{}.XXXXXX", prefix, ::getpid())).string();
}

// A regular file is written beside itself under a hidden temporary name and renamed over the
// target, so that a reader never sees half a file.
void write_by_rename(const std::string& shown, const std::string& path, const ContentProducer& produce) {
  std::string temp = temp_template(std::filesystem::path(path));
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
  std::string temp = temp_template(std::filesystem::path(target));
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
