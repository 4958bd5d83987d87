// Readers fed bytes: an input in memory (gzip-compressed first where asked), sniffed once and
// read by the reader chosen, as the loader hands a file's bytes to its reader, with no file on disk.
#pragma once

#include <string>
#include <vector>

#include "load/load.h"
#include "model/profile.h"

namespace perfgate::testing {

struct ReadBytes {
  std::string format;  // the name of the reader the (inflated) head's sniff chose
  std::vector<Profile> profiles;
};

// Reads `bytes` (gzip-compressed first when `gzip`) as the input named `name`, its worker the one
// a file so named gives (worker_name_from_path).
// Throws what the reader throws, and InputError when no reader claims the bytes.
ReadBytes read_bytes(const std::string& bytes, bool gzip, const LoadOptions& options = {},
                     unsigned threads = 1, const std::string& name = "in-memory");
// The message of the InputError reading the bytes throws; "no error" when none is thrown.
std::string read_bytes_error(const std::string& bytes, bool gzip, const LoadOptions& options = {},
                             const std::string& name = "in-memory");

}  // namespace perfgate::testing
