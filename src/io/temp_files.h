// Temporary outputs: created exclusively in the target's folder and removed on every error path and
// on every signal that ends the process by default (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
// timers, CPU and file-size limits), so that neither a planted symlink nor an interrupted run leaves
// a file behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfgate {

// Paths removed by the signal handler (installed on the first registration), which then
// re-raises the signal with its default action. Up to 64 paths of up to 4095 bytes at a time;
// register_temp_path throws OutputError beyond that. Folders are removed after files.
void register_temp_path(const std::string& path, bool folder = false);
void unregister_temp_path(const std::string& path);
// The handler's work, callable from a test: removes every registered path and forgets it.
void remove_registered_temp_paths();

// One run's outputs replaced together (issue #44). While a rename batch is open, a finished
// temporary output is not renamed over its target at once: defer_rename keeps it (still removed by
// a signal) until commit_rename_batch renames every one in one short step. A signal that ends the
// process before the commit removes them (the previous outputs stay); one that arrives during the
// commit, on any thread, makes the handler finish the renames first (the new outputs stay). Only
// SIGKILL within the step itself (a few renames) can leave a mix.
void open_rename_batch();
bool rename_batch_open();
// `temp` (registered) is to be renamed over `target` at the commit.
void defer_rename(const std::string& temp, const std::string& target);
// Renames every deferred output; returns a message for each that failed (its target and why).
std::vector<std::string> commit_rename_batch();
// How long the last commit's renames took, in nanoseconds (issue 78, item 6): the only window in
// which a kill of the process that makes them leaves a mix.
std::uint64_t last_rename_step_ns();
// Removes every deferred output (an error before the commit): the previous outputs stay.
void discard_rename_batch();

// Puts the finished, registered temporary file `temp` (beside `target`) in place: renamed now, or
// at the open batch's commit. Throws OutputError naming `shown`.
void finish_output(const std::string& temp, const std::string& target, const std::string& shown);
// The same for a file `made` elsewhere on the target's file system (a private folder's): moved
// first to a hidden temporary name beside the target, so that it outlives its folder.
void finish_output_from(const std::string& made, const std::string& target, const std::string& shown);

// The permissions a report written to `target` gets: those of the file it replaces, else the
// usual 0666 less the process's umask (as open(2) would give a new file).
unsigned output_mode(const std::string& target);

// A private folder (mode 0700, made with mkdtemp) beside `target`, named `.NAME.XXXXXX`: nobody else
// can create a file in it, so libraries that open a file name themselves (libxlsxwriter) can write
// there. Registered; removed with whatever is left in it by the destructor unless released.
class PrivateTempFolder {
 public:
  explicit PrivateTempFolder(const std::string& target);
  ~PrivateTempFolder();
  PrivateTempFolder(const PrivateTempFolder&) = delete;
  PrivateTempFolder& operator=(const PrivateTempFolder&) = delete;

  const std::string& path() const { return path_; }
  // A file name inside the folder, registered for removal.
  std::string file(const std::string& name);

 private:
  std::string path_;
  std::string file_;
};

}  // namespace perfgate
