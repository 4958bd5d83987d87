#include "io/temp_files.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate {
namespace {

constexpr std::size_t kSlots = 64;
constexpr std::size_t kPathBytes = 4096;

// Slots are claimed with a compare-and-swap and read by the handler only when marked ready, so
// the handler never sees a half-written path.
// kDeferred: a finished file with its target, renamed at the batch's commit.
enum SlotState : int { kFree = 0, kWriting = 1, kFile = 2, kFolder = 3, kDeferred = 4 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[kPathBytes] = {};
  char target[kPathBytes] = {};
};

Slot g_slots[kSlots];
std::atomic<bool> g_batch_open{false};
std::atomic<bool> g_committing{false};

void remove_kind(int kind) {
  for (Slot& slot : g_slots) {
    if (slot.state.load() != kind) continue;
    if (kind == kFolder)
      ::rmdir(slot.path);
    else
      ::unlink(slot.path);
    slot.state.store(kFree);
  }
}

// rename(2) is async-signal-safe: the handler may finish a commit that a signal interrupted.
bool rename_deferred(Slot& slot) {
  bool ok = ::rename(slot.path, slot.target) == 0 || errno == ENOENT;  // ENOENT: renamed already
  slot.state.store(kFree);
  return ok;
}

extern "C" void remove_and_reraise(int signal_number) {
  int saved = errno;
  if (g_committing.load()) {
    for (Slot& slot : g_slots)
      if (slot.state.load() == kDeferred) rename_deferred(slot);
  }
  remove_kind(kDeferred);
  remove_kind(kFile);
  remove_kind(kFolder);
  errno = saved;
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);  // delivered with the default action once the handler returns
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = remove_and_reraise;
    sigemptyset(&action.sa_mask);
    // Every signal whose default action ends the process and that a user, a CI runner or the
    // kernel sends to a writer: a hang-up, an interrupt or quit key, a kill, a reader of the output pipe
    // gone, timers and CPU or file-size limits. Faults (SIGSEGV, SIGBUS) are the sanitizers' and the
    // mapped reader's.
    for (int s : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
                  SIGVTALRM}) {
      struct sigaction old {};
      // A signal the caller chose to ignore stays ignored.
      if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      ::sigaction(s, &action, nullptr);
    }
  });
}

}  // namespace

void register_temp_path(const std::string& path, bool folder) {
  if (path.size() >= kPathBytes)
    throw OutputError(fmt::format("{}: cannot write: the temporary path is too long", path));
  install_handlers();
  for (Slot& slot : g_slots) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kWriting)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(folder ? kFolder : kFile);
    return;
  }
  throw OutputError(fmt::format("{}: cannot write: too many temporary files at once", path));
}

void unregister_temp_path(const std::string& path) {
  for (Slot& slot : g_slots) {
    int state = slot.state.load();
    if ((state == kFile || state == kFolder) && path == slot.path) {
      slot.state.store(kFree);
      return;
    }
  }
}

void remove_registered_temp_paths() {
  remove_kind(kDeferred);
  remove_kind(kFile);
  remove_kind(kFolder);
}

void open_rename_batch() {
  install_handlers();
  g_batch_open.store(true);
}

bool rename_batch_open() {
  return g_batch_open.load();
}

void defer_rename(const std::string& temp, const std::string& target) {
  if (target.size() >= kPathBytes)
    throw OutputError(fmt::format("{}: cannot write: the path is too long", target));
  for (Slot& slot : g_slots)
    if (slot.state.load() == kFile && temp == slot.path) {
      std::memcpy(slot.target, target.c_str(), target.size() + 1);
      slot.state.store(kDeferred);
      return;
    }
  throw OutputError(fmt::format("{}: cannot write: its temporary file is not registered", target));
}

namespace {

std::atomic<std::uint64_t> g_last_step_ns{0};

std::uint64_t now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

// The renames, timed: the window in which a kill could leave some outputs new and some previous.
std::uint64_t rename_all(const std::vector<Slot*>& deferred) {
  std::uint64_t begin = now_ns();
  for (Slot* slot : deferred) ::rename(slot->path, slot->target);
  return now_ns() - begin;
}

// A second name for each previous output (`.NAME.tmp.XXXXXX.previous`, beside it), registered, so
// that the rename over it does not free its blocks: that takes milliseconds a file on some file
// systems (ext4 with `discard`: 4 ms for a 1-byte file, 8 ms for 16 MiB), and would widen the step.
// The second names are removed after the step. A name that cannot be made costs only that time.
std::vector<std::string> keep_previous(const std::vector<Slot*>& deferred) {
  std::vector<std::string> kept;
  for (Slot* slot : deferred) {
    struct stat target {};
    if (::lstat(slot->target, &target) != 0 || !S_ISREG(target.st_mode)) continue;
    std::string second = std::string(slot->path) + ".previous";
    if (::link(slot->target, second.c_str()) != 0) continue;  // a planted name is never followed
    try {
      register_temp_path(second);
    } catch (const OutputError&) {
      ::unlink(second.c_str());
      continue;
    }
    kept.push_back(std::move(second));
  }
  return kept;
}

// The renames are made by a child process, which no signal sent to perfgate's process reaches
// (and which blocks the catchable ones): a SIGKILL of perfgate in the middle of them, which no
// handler sees, does not stop them half-way. The child leaves perfgate's session and process group
// first (setsid), so that a kill of the whole group (`timeout -s KILL`, a terminal's Ctrl-C) does
// not reach it either; killed before that, it has renamed nothing. It tells perfgate how long the
// renames took (0 when it could not be made), then removes the previous outputs' second names.
// Then perfgate renames whatever is left (the child could not be made, or a rename failed: its
// error is perfgate's own try's).
std::uint64_t rename_in_child(const std::vector<Slot*>& deferred, const std::vector<std::string>& kept) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return 0;
  pid_t child = ::fork();
  if (child == 0) {
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_BLOCK, &all, nullptr);
    ::setsid();
    std::uint64_t took = rename_all(deferred);
    (void)!::write(report[1], &took, sizeof took);
    for (const std::string& second : kept) ::unlink(second.c_str());
    ::_exit(0);
  }
  ::close(report[1]);
  std::uint64_t took = 0;
  if (child > 0) {
    while (::read(report[0], &took, sizeof took) < 0 && errno == EINTR) {
    }
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(report[0]);
  return took;
}

}  // namespace

std::vector<std::string> commit_rename_batch() {
  std::vector<std::string> failures;
  std::vector<Slot*> deferred;
  for (Slot& slot : g_slots)
    if (slot.state.load() == kDeferred) deferred.push_back(&slot);
  std::vector<std::string> kept = keep_previous(deferred);
  g_committing.store(true);
  std::uint64_t took = deferred.size() > 1 ? rename_in_child(deferred, kept) : 0;
  if (took == 0) took = rename_all(deferred);
  for (Slot* slot : deferred) {
    if (::rename(slot->path, slot->target) != 0 && errno != ENOENT) {
      failures.push_back(fmt::format("{}: cannot write (rename): {}", slot->target, std::strerror(errno)));
      ::unlink(slot->path);
    }
    slot->state.store(kFree);
  }
  g_committing.store(false);
  g_last_step_ns.store(took);
  for (const std::string& second : kept) {
    ::unlink(second.c_str());
    unregister_temp_path(second);
  }
  g_batch_open.store(false);
  return failures;
}

std::uint64_t last_rename_step_ns() {
  return g_last_step_ns.load();
}

void discard_rename_batch() {
  remove_kind(kDeferred);
  g_batch_open.store(false);
}

unsigned output_mode(const std::string& target) {
  struct stat existing {};
  if (::stat(target.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) return existing.st_mode & 07777;
  // umask can only be read by setting it: read once, and set to the strictest value meanwhile, so
  // that a file another thread creates in that moment is never more open than the user asked.
  static const mode_t mask = [] {
    mode_t m = ::umask(077);
    ::umask(m);
    return m;
  }();
  return 0666u & ~static_cast<unsigned>(mask);
}

PrivateTempFolder::PrivateTempFolder(const std::string& target) {
  std::filesystem::path t(target);
  std::filesystem::path folder = t.has_parent_path() ? t.parent_path() : std::filesystem::path(".");
  std::string name = (folder / ("." + t.filename().string() + ".XXXXXX")).string();
  if (!::mkdtemp(name.data()))
    throw OutputError(fmt::format("{}: cannot write: {}", target, std::strerror(errno)));
  path_ = name;
  register_temp_path(path_, true);
}

std::string PrivateTempFolder::file(const std::string& name) {
  file_ = path_ + "/" + name;
  register_temp_path(file_);
  return file_;
}

PrivateTempFolder::~PrivateTempFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  if (!file_.empty()) unregister_temp_path(file_);
  unregister_temp_path(path_);
}

}  // namespace perfgate
