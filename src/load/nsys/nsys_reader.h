// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`) into one Profile per
// process with CUDA activity: several such processes are several workers, as a run folder is.
#pragma once

#include <functional>
#include <string>

#include "perfgate/profile.h"

namespace perfgate::nsys {

struct ExportOptions {
  bool fold_nested_ops = true;  // rules: attribution.fold_nested_nvtx_ops
};

// Reads the processes one at a time, each one pass over the tables filtered to it, and hands
// each to `emit` before reading the next, so only one process's events are held at once.
// `worker` names the file's worker; processes get "-pidN" added when there are several.
// Throws InputError naming `path` for a file that is not a readable nsys export.
void read_export(const std::string& path, const std::string& worker,
                 const std::function<void(Profile&&)>& emit, ExportOptions options = {});

}  // namespace perfgate::nsys
