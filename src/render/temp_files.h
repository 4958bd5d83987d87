// Temporary outputs: created exclusively in the target's folder and removed on every error path and
// on every signal that ends the process by default (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
// timers, CPU and file-size limits), so that neither a planted symlink nor an interrupted run leaves
// a file behind.
#pragma once

#include <string>

namespace perfgate {

// Paths removed by the signal handler (installed on the first registration), which then
// re-raises the signal with its default action. Up to 64 paths of up to 4095 bytes at a time;
// register_temp_path throws OutputError beyond that. Folders are removed after files.
void register_temp_path(const std::string& path, bool folder = false);
void unregister_temp_path(const std::string& path);
// The handler's work, callable from a test: removes every registered path and forgets it.
void remove_registered_temp_paths();

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
