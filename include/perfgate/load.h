// Loading profiles: files, gzip, run folders. Formats are detected by content, not by name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "perfgate/profile.h"

namespace perfgate {

enum class InputFormat { KinetoJson, KinetoJsonGzip, NsysSqlite, Unknown };
const char* format_name(InputFormat format);

// Reads the first bytes of `path`. Throws InputError for an unreadable or empty file.
InputFormat detect_format(const std::string& path);

struct InputFile {
  std::string path;
  std::uint64_t bytes = 0;
  InputFormat format = InputFormat::Unknown;
  std::string worker;
};

struct LoadOptions {
  // Called from loading threads with the bytes read so far and the total, across all inputs.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  unsigned max_threads = 0;  // 0: one per core
};

struct LoadedRun {
  std::vector<InputFile> inputs;
  // One per input trace, in input order; an nsys export adds one per process with GPU work.
  std::vector<Profile> workers;
};

// Each path is a trace file or a run folder whose trace files are the workers (sorted by name).
// Workers load in parallel. Throws InputError (file and cause) on the first unreadable input.
LoadedRun load_run(const std::vector<std::string>& paths, const LoadOptions& options = {});

// The worker name of a trace file: its file name without the trace extensions.
std::string worker_name_from_path(const std::string& path);

}  // namespace perfgate
