// The folders a process may touch files in (perfgate mcp's --root). While a confinement is set,
// every file perfgate opens, lists or creates is checked to lie beneath one of them once its
// symbolic links and ".." are resolved: a trace's descriptor after it is opened, a rule file and
// what it `extends:`, a run folder's entries, a capture_traces folder, a history and its -wal and
// -shm. The command line sets none: there the user names the files.
#pragma once

#include <string>
#include <vector>

namespace perfgate {

// Sets the folders (each resolved already) for as long as it lives, for every thread of the
// process, and puts back the ones before it when it ends. An empty list: no confinement.
class PathConfinement {
 public:
  explicit PathConfinement(std::vector<std::string> folders);
  ~PathConfinement();
  PathConfinement(const PathConfinement&) = delete;
  PathConfinement& operator=(const PathConfinement&) = delete;

 private:
  std::vector<std::string> previous_;
};

// Whether a confinement is set.
bool paths_confined();
// Whether `resolved` (an absolute path without links) is `root` or lies beneath it.
bool path_is_beneath(const std::string& resolved, const std::string& root);
// Throws ConfigError naming `path` ("outside the folders this server may read (--root: ...)") when
// a confinement is set and the file at `path`, its links resolved as far as they lead (a dangling
// link's target included), is not beneath a root. Returns the resolved path (`path` itself when
// nothing is confined).
std::string check_confined_path(const std::string& path);
// The same for a file already open as `fd`: the path the kernel gives for the descriptor is checked,
// never the name it was opened by.
void check_confined_descriptor(int fd, const std::string& path);

}  // namespace perfgate
