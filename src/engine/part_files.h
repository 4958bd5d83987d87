// Reading partial reports' files (perfgate merge) without trusting them: only regular files, opened
// so that a FIFO or a device never blocks the merge, and never more bytes than a limit allows.
#pragma once

#include <cstdint>
#include <string>

#include "report/partial.h"

namespace perfgate {

// The part's header, checked against the file before any of its facts is used: the file's size is
// the header's and the declared body's (a larger or a shorter file is refused by name), and its
// checksum over the header and the body is the check line's (read in chunks of 1 MiB). The head
// read is at most `limit` bytes (0: 64 MiB). Throws InputError naming `path`.
PartialHeader read_checked_partial_header(const std::string& path, std::uint64_t limit);

// The whole file's bytes, refusing anything but a regular file and a file over `limit` bytes
// (0: no limit) before reading it. Throws InputError naming `path`.
std::string read_partial_file(const std::string& path, std::uint64_t limit);

// Throws InputError naming `path` unless it is a regular file (after symbolic links).
void require_regular_file(const std::string& path);

}  // namespace perfgate
