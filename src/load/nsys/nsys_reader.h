// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`) into one Profile per
// process with CUDA activity: several such processes are several workers, as a run folder is.
#pragma once

#include <functional>
#include <string>

#include "io/byte_source.h"
#include "io/io.h"
#include "model/profile.h"

namespace perfgate::nsys {

struct ExportOptions {
  bool fold_nested_ops = true;  // rules: attribution.fold_nested_nvtx_ops
  // The most memory an export that is not a plain file on disk (gzip'd, or bytes in memory) may
  // take: SQLite reads it at random, so it is held whole (LoadOptions::max_input_memory; 0: none).
  std::uint64_t max_memory = kDefaultMaxInputMemory;
};

// Reads the processes one at a time, each one pass over the tables filtered to it, and hands
// each to `emit` before reading the next, so only one process's events are held at once.
// `worker` names the file's worker; processes get "-pidN" added when there are several.
// Throws InputError naming the input for one that is not a readable nsys export.
void read_export(const ByteInput& input, const std::string& worker,
                 const std::function<void(Profile&&)>& emit, ExportOptions options = {});

}  // namespace perfgate::nsys
