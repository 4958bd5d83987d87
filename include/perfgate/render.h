// Renderers: each turns the report model into one output format.
#pragma once

#include <string>

#include "perfgate/report.h"

namespace perfgate {

std::string render_json(const ReportModel& report);

struct TerminalOptions {
  bool color = false;
};
std::string render_terminal(const ReportModel& report, const TerminalOptions& options = {});

// Writes `content` to `path` through a temporary file in the same folder and a rename, so a
// reader never sees half a file. Throws OutputError naming the path.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace perfgate
