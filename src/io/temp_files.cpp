#include "io/temp_files.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

// The renames are made by a child process, which no signal sent to perfgate's process reaches
// (and which blocks the catchable ones): a SIGKILL of perfgate in the middle of them, which no
// handler sees, does not stop them half-way. Then perfgate renames whatever is left (the child
// could not be made, or a rename failed: its error is perfgate's own try's).
void rename_in_child(const std::vector<Slot*>& deferred) {
  pid_t child = ::fork();
  if (child == 0) {
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_BLOCK, &all, nullptr);
    for (Slot* slot : deferred) ::rename(slot->path, slot->target);
    ::_exit(0);
  }
  if (child > 0)
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace

std::vector<std::string> commit_rename_batch() {
  std::vector<std::string> failures;
  std::vector<Slot*> deferred;
  for (Slot& slot : g_slots)
    if (slot.state.load() == kDeferred) deferred.push_back(&slot);
  g_committing.store(true);
  if (deferred.size() > 1) rename_in_child(deferred);
  for (Slot* slot : deferred) {
    if (::rename(slot->path, slot->target) != 0 && errno != ENOENT) {
      failures.push_back(fmt::format("{}: cannot write (rename): {}", slot->target, std::strerror(errno)));
      ::unlink(slot->path);
    }
    slot->state.store(kFree);
  }
  g_committing.store(false);
  g_batch_open.store(false);
  return failures;
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
