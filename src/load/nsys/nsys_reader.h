// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`) into one Profile per
// process with CUDA activity: several such processes are several workers, as a run folder is.
#pragma once

#include <string>
#include <vector>

#include "perfgate/profile.h"

namespace perfgate::nsys {

// `worker` names the file's worker; processes get "-pid N" added when there are several.
// Throws InputError naming `path` for a file that is not a readable nsys export.
std::vector<Profile> read_export(const std::string& path, const std::string& worker);

}  // namespace perfgate::nsys
