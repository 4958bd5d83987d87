// Where an output's bytes go. A report replaces a regular file through a temporary file and a
// rename, but a rename over a device node, a FIFO or /dev/stdout would put a regular file in its
// place (as root: /dev/null itself). Those are written in place instead, and what cannot hold a
// report (a folder, a block device, a socket) is refused before any work.
#pragma once

#include <string>

namespace perfgate {

struct OutputTarget {
  // A regular file (or none yet): the path with its symbolic links followed, so that the rename
  // replaces the file a link points at and leaves the link. In place: the path as given.
  std::string path;
  // Written in place, opened for appending and never created, renamed or removed: a character
  // device, a FIFO, or anything reached through a descriptor link (/dev/stdout, /dev/fd/N,
  // /proc/self/fd/N), which names an open file of this process's, not a place in a folder.
  bool in_place = false;
  // Set when nothing may be written there: "is a folder; give a file name", "is a block device;
  // ...", "is a socket; ...", "too many levels of symbolic links". The command line refuses it
  // before any work (exit 2); a writer that meets it anyway throws OutputError.
  std::string refusal;
};

OutputTarget resolve_output_target(const std::string& path);

// Writes all of `data` to `fd`, retrying interrupted and partial writes; false with errno set on
// failure.
bool write_all(int fd, const char* data, std::size_t size);

}  // namespace perfgate
